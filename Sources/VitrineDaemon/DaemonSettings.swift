import VitrineCore
import VitrineProtocol
import VitrineRolling

/// Everything the daemon needs to run, resolved from the configuration file and the
/// command line.
public struct DaemonSettings: Sendable {
    /// How time advances.
    public enum ClockMode: String, Sendable, CaseIterable {
        /// Time moves only with `clock.set` / `clock.advance` (tests, scripted renders).
        case manual
        /// Time is the monotonic clock; frames are paced at the output's rate.
        case realtime
    }

    public var socketPath = "/run/vitrine/vitrine.sock"
    /// Permission bits of the socket file.
    public var socketMode: UInt16 = 0o660
    /// Group that owns the socket file; nil keeps the daemon's.
    public var socketGroup: String?
    /// The only directory `screenshot` writes into.
    public var screenshotDirectory = "/var/lib/vitrine/screenshots"
    public var clock: ClockMode = .realtime
    /// Headless output size and rate.
    public var headlessWidth = 1280
    public var headlessHeight = 800
    public var headlessRate = 60.0
    /// Output background (the root layer's colour).
    public var background = Color.black
    public var sceneConfiguration = Scene.Configuration()
    public var initialScene: SceneDescription?
    /// Where `initialScene` came from, for the error when it cannot be shown.
    public var initialSceneOrigin = "the configuration's [scene]"
    /// Where relative image paths in scenes start.
    public var imageDirectory = "."
    /// The directories layers' `contents` may be read from (`imageDirectory` is one too).
    public var contentRoots = ["/usr/share/vitrine", "/var/lib/vitrine/content", "/etc/vitrine"]
    /// Extra font directories.
    public var fontDirectories: [String] = []
    public var limits = Limits()
    /// After a reload: the configuration keys that changed but take effect only when the
    /// daemon restarts (`config.reload` and `config.reloaded` list them).
    public var restartNeeded: [String] = []
    /// The spring of a script's `{"type": "spring"}` where it leaves parameters out
    /// (`[animation.spring]`).
    public var spring = Spring.coreAnimation
    /// Rolling numbers' defaults.
    public var rolling = RollingNumberDefaults()
    /// The directory of the scene journal (`scene.json`); nil keeps no journal.
    public var stateDirectory: String?
    /// `stateDirectory` is the default one, used only when it exists; a directory given
    /// explicitly is created when missing.
    public var stateDirectoryIsDefault = false
    /// Start with the initial scene instead of the journal's, which is moved aside.
    public var freshStart = false

    public init() {}

    /// Bounds on what one client may ask for.
    public struct Limits: Sendable {
        /// Longest request line in bytes; a longer line gets an error and the connection closes.
        public var lineBytes = 1 << 20
        /// Most clients connected at once.
        public var clients = 64
        /// Most event patterns one client may subscribe to.
        public var subscriptionsPerClient = 32
        /// A client whose unsent replies and events exceed this is cut off.
        public var outboundBytes = 4 << 20
        /// A connection without a request for this many seconds (a listener: with half a
        /// line) is closed; 0 never closes one.
        public var idleSeconds = 60.0
        /// Megabytes of decoded images held at most.
        public var memoryMB = 256

        public init() {}
    }
}
