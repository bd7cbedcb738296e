import VitrineConfig
import VitrineRemote
import VitrineCore
import VitrineDecoderHelper
import VitrineInput
import VitrineMetrics
import VitrineProtocol
import VitrineRolling
import VitrineSystem

/// Everything the daemon needs to run, resolved from the configuration file and the
/// command line.
public struct DaemonSettings: Sendable {
    /// How time advances (`MediaClock.Mode`).
    public typealias ClockMode = MediaClock.Mode

    public var socketPath: String
    /// Permission bits of the socket file.
    public var socketMode: UInt16
    /// Group that owns the socket file; nil keeps the daemon's.
    public var socketGroup: String?
    /// The only directory `screenshot` writes into.
    public var screenshotDirectory: String
    public var clock: ClockMode = .realtime
    /// Headless output size and rate.
    public var headlessWidth: Int
    public var headlessHeight: Int
    public var headlessRate: Double
    /// Seconds an unplugged output's root and its layers are kept for its return.
    public var hotplugGrace: Double
    /// Output background (the root layer's colour).
    public var background: Color
    public var sceneConfiguration: Scene.Configuration
    public var initialScene: SceneDescription?
    /// `[scenes.NAME]`, `[[playlists]]`, `[[schedules]]`.
    public var signage = Configuration.Signage()
    /// Where `initialScene` came from, for the error when it cannot be shown.
    public var initialSceneOrigin = "the configuration's [scene]"
    /// `[scene] identify`: where the identification screen shows (`IdentificationScreen`).
    public var identify: Configuration.InitialScene.Identify
    /// Where relative image paths in scenes start.
    public var imageDirectory = "."
    /// The directories layers' `contents` may be read from (`imageDirectory` is one too).
    public var contentRoots: [String]
    /// The image decoder helper (`vitrine-decoder`): beside the running program, else the
    /// package's.
    public var decoderExecutable = DecoderClient.defaultExecutable()
    /// Video layers may play network streams (`[content] network_video`).
    public var networkVideo = false
    /// Extra font directories.
    public var fontDirectories: [String]
    /// The family of text layers that name none (`[fonts] default_family`).
    public var defaultFontFamily: String
    public var limits: Limits
    /// After a reload: the configuration keys that changed but take effect only when the
    /// daemon restarts (`config.reload` and `config.reloaded` list them).
    public var restartNeeded: [String] = []
    /// The spring of a script's `{"type": "spring"}` where it leaves parameters out
    /// (`[animation.spring]`).
    public var spring: Spring
    /// Rolling numbers' defaults.
    public var rolling: RollingNumberDefaults
    /// The directory of the scene journal (`scene.json`); nil keeps no journal.
    public var stateDirectory: String?
    /// `stateDirectory` is the default one, used only when it exists; a directory given
    /// explicitly is created when missing.
    public var stateDirectoryIsDefault = false
    /// `[playlog]`: proof of play's size and age limits, and whether it is on.
    public var playLog = Configuration.PlayLog()
    /// The state directory the play log goes in (`playlog/` under it), whether or not the
    /// scene is journaled; `isDefault` as for `stateDirectory`. Nil keeps no play log.
    public var playLogState: (directory: String, isDefault: Bool)?
    /// Start with the initial scene instead of the journal's, which is moved aside.
    public var freshStart = false
    /// `[input]`: the devices' settings, the keymap injected key codes are read through,
    /// and what makes a tap, a long press and a drag.
    public var input: InputSettings
    /// Whether the input devices are opened: the caller decides (`vitrined`: `[input]
    /// enabled` on a screen, never with the headless output).
    public var opensInputDevices = false
    /// How the output is turned, degrees clockwise: touches are turned with it.
    public var outputRotation = 0
    /// `[[outputs]]`: per connector, its root, scene and sleep schedule.
    public var outputs: [Configuration.OutputEntry] = []
    /// `[fleet]`: served by `vitrine-fleet`; the daemon only says so when it is `enabled`.
    public var fleet: Configuration.Fleet
    /// `[wall]`: the canvas the outputs with a viewport show their rectangles of.
    public var wall = Configuration.Wall()
    /// `[osk]`: the on-screen keyboard.
    public var osk: Configuration.ScreenKeyboard
    /// `[metrics]`: the Prometheus endpoint on a Unix socket, when `enabled`.
    public var metrics: Configuration.Metrics
    /// `[remote]`: the VNC listeners.
    public var remote = RemoteSettings()
    /// `[compositor]`: the Wayland server, when `enabled`.
    public var compositor: Configuration.Compositor
    /// `[[clients]]`: the programs started with the daemon and by name with `client.start`.
    public var clients: [Configuration.ClientEntry] = []
    /// `[[watch]]`: pictures that must keep changing (the content watchdog).
    public var watches: [Configuration.Watch] = []
    /// `[launcher]`: whether `client.start` may run a command given in the request.
    public var launcher = Configuration.Launcher()

    /// The path of the Wayland socket clients connect to (`WAYLAND_DISPLAY` for the
    /// programs the daemon starts): `[compositor] socket` in the directory of the control
    /// socket, the service's runtime directory. Nil when the compositor is not enabled.
    public var waylandSocketPath: String? {
        guard compositor.enabled else { return nil }
        let directory = socketPath.lastIndex(of: "/").map { String(socketPath[..<$0]) } ?? "."
        return (directory.isEmpty ? "" : directory) + "/" + compositor.socket
    }

    /// The Unix socket the daemon serves its metrics on: `[metrics] socket`, else
    /// `metrics.sock` in the directory of the control socket. Nil when `[metrics]` is off.
    public var metricsSocketPath: String? {
        guard metrics.enabled else { return nil }
        return MetricsServer.daemonSocketPath(configured: metrics.socket, controlSocket: socketPath)
    }

    /// The settings a configuration gives (every default is the configuration's); the
    /// journal's directory is left to the caller, who knows the environment.
    public init(configuration c: Configuration = .default) {
        socketPath = c.socket.path
        socketMode = c.socket.mode
        socketGroup = c.socket.group.isEmpty ? nil : c.socket.group
        screenshotDirectory = c.socket.screenshotDirectory
        headlessWidth = c.output.headlessSize.width
        headlessHeight = c.output.headlessSize.height
        headlessRate = c.output.headlessRate
        hotplugGrace = c.output.hotplugGrace
        background = c.scene.background ?? c.output.background
        sceneConfiguration = c.sceneConfiguration
        initialScene = c.scene.content
        identify = c.scene.identify
        if !c.scene.file.isEmpty {
            initialSceneOrigin = "the scene \(c.scene.file) ([scene] file)"
            imageDirectory = String(c.scene.file.prefix(upTo: c.scene.file.lastIndex(of: "/") ?? c.scene.file.endIndex))
        }
        fontDirectories = c.fonts.directories
        defaultFontFamily = c.fonts.defaultFamily
        limits = c.limits
        contentRoots = c.content.roots
        networkVideo = c.content.networkVideo
        rolling = c.rollingNumberDefaults
        spring = (try? c.animation.spring.spring()) ?? Spring.coreAnimation
        input = c.input
        outputRotation = c.output.rotation.rawValue
        outputs = c.outputs
        fleet = c.fleet
        wall = c.wall
        metrics = c.metrics
        playLog = c.playLog
        remote = c.remote
        osk = c.osk
        compositor = c.compositor
        clients = c.clients
        watches = c.watches
        launcher = c.launcher
        signage = c.signage
    }

    /// Bounds on what one client and the whole scene may hold (`[limits]`).
    public typealias Limits = Configuration.Limits
}
