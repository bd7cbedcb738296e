import VitrineRemote
import VitrineCore
import VitrineInput
import VitrineRolling
import VitrineProtocol

/// The daemon's settings, as `/etc/vitrine/vitrine.toml` gives them. Every key is optional;
/// a missing key keeps the default shown here, and `config/vitrine.toml` lists them all.
///
/// ```swift
/// let config = try Configuration.load(contentsOf: "/etc/vitrine/vitrine.toml")
/// let scene = Scene(configuration: config.sceneConfiguration)
/// ```
/// A value is only ever built from a file that passed every check, so the daemon can use
/// it without checking again; `docs/CONFIG.md` describes each key.
public struct Configuration: Sendable, Equatable {
    /// `[output]`: where frames go.
    public var output = Output()
    /// `[socket]`: the Unix socket scripts connect to.
    public var socket = Socket()
    /// `[animation]`: implicit animations and spring defaults.
    public var animation = Animations()
    /// `[rolling_number]`: defaults of rolling-number layers.
    public var rollingNumber = RollingNumber()
    /// `[fonts]`: where fonts come from.
    public var fonts = Fonts()
    /// `[limits]`: how much one daemon and one client may hold.
    public var limits = Limits()
    /// `[content]`: where images may be read from.
    public var content = Content()
    /// `[logging]`: how much the daemon says.
    public var logging = Logging()
    /// `[state]`: where the scene journal lives.
    public var state = State()
    /// `[scene]`: what is shown before any script connects.
    public var scene = InitialScene()
    /// `[input]`: keyboards, touchscreens and pointers.
    public var input = Input()
    /// `[[outputs]]`: per connector, its mode, rotation, root, scene and sleep schedule.
    public var outputs: [OutputEntry] = []
    /// `[fleet]`: the MQTT bridge to a broker.
    public var fleet = Fleet()
    /// `[wall]`: a video wall's canvas and this device's rectangle of it.
    public var wall = Wall()
    /// `[metrics]`: the Prometheus metrics endpoint.
    public var metrics = Metrics()
    /// `[remote]`: VNC listeners.
    public var remote = RemoteSettings()
    /// `[compositor]`: the Wayland server whose clients `surface` layers show.
    public var compositor = Compositor()
    /// `[[clients]]`: the programs the daemon starts and restarts.
    public var clients: [ClientEntry] = []
    /// `[[watch]]`: pictures that must keep changing, and what is done when they stop.
    public var watches: [Watch] = []
    /// `[launcher]`: what `client.start` may run besides them.
    public var launcher = Launcher()
    /// `[osk]`: the on-screen keyboard.
    public var osk = ScreenKeyboard()
    /// `[playlog]`: proof of play.
    public var playLog = PlayLog()
    /// `[scenes.NAME]`, `[[playlists]]`, `[[schedules]]`: signage that runs itself.
    public var signage = Signage()

    /// Every setting at its default: what an empty file gives.
    public static let `default` = Configuration()

    /// Every key at its default.
    public init() {}

    /// The model defaults the scene takes from this configuration.
    public var sceneConfiguration: VitrineCore.Scene.Configuration {
        var c = VitrineCore.Scene.Configuration()
        c.implicitDuration = animation.implicitDuration
        c.implicitTimingFunction = animation.implicitTiming
        c.maximumLayers = limits.layers
        c.maximumAnimationsPerLayer = limits.animationsPerLayer
        c.maximumValueBytes = limits.sceneMB << 20
        return c
    }
}

/// A width and height in pixels, written `"1280x800"`.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    /// Pixels across.
    public var width: Int
    /// Pixels down.
    public var height: Int

    /// A size; `init(parsing:)` is the checked way to make one from text.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `"WxH"` with each side 1…16384.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
            (1...16384).contains(w), (1...16384).contains(h)
        else { return nil }
        self.init(width: w, height: h)
    }

    /// `"WxH"`.
    public var description: String { "\(width)x\(height)" }
}

extension Configuration {
    /// `[output]`: which display backend draws, on which device, at which mode.
    public struct Output: Sendable, Hashable {
        /// The display backends; `auto` picks DRM/KMS when a card is present, else the
        /// framebuffer, else headless.
        public enum Backend: String, Sendable, CaseIterable {
            case auto, drm, fbdev, headless, x11, wayland
        }

        /// The screen orientation, in degrees clockwise.
        public enum Rotation: Int, Sendable, CaseIterable {
            case none = 0, quarter = 90, half = 180, threeQuarters = 270
        }

        /// A display mode: the connector's preferred one, or a size with an optional
        /// refresh rate.
        public enum Mode: Hashable, Sendable, CustomStringConvertible {
            case preferred
            case fixed(PixelSize, refreshRate: Double?)

            /// Parses `"preferred"`, `"WxH"` or `"WxH@Hz"` (sides 1…16384, rate above 0
            /// and at most 1000 Hz).
            public init?(parsing text: String) {
                if text == "preferred" { self = .preferred; return }
                let parts = text.split(separator: "@", omittingEmptySubsequences: false)
                guard parts.count <= 2, let size = PixelSize(parsing: String(parts[0])) else { return nil }
                guard parts.count == 2 else { self = .fixed(size, refreshRate: nil); return }
                guard let rate = Double(parts[1]), rate.isFinite, rate > 0, rate <= 1000 else { return nil }
                self = .fixed(size, refreshRate: rate)
            }

            /// The mode as written in the file.
            public var description: String {
                switch self {
                case .preferred: "preferred"
                case .fixed(let size, nil): size.description
                case .fixed(let size, let rate?): "\(size)@\(rate.rounded() == rate ? String(Int(rate)) : String(rate))"
                }
            }
        }

        /// `backend`: which backend draws. Default "auto".
        public var backend: Backend = .auto
        /// `device`: the DRM card or framebuffer device, e.g. "/dev/dri/card1"; "" picks the
        /// first one.
        public var device = ""
        /// `connector`: the connector to drive, e.g. "HDMI-A-1"; "" picks the first
        /// connected one.
        public var connector = ""
        /// `mode`: "preferred", "WxH" or "WxH@Hz". Default "preferred".
        public var mode: Mode = .preferred
        /// `rotation`: 0, 90, 180 or 270 degrees clockwise. Default 0.
        public var rotation: Rotation = .none
        /// `background`: the colour behind the root layer. Default black.
        public var background: Color = .black
        /// `buffers`: 2 (double) or 3 (triple buffering). Default 2.
        public var buffers = 2
        /// `headless_size`: the screen size of the headless backend. Default 1280x800.
        public var headlessSize = PixelSize(width: 1280, height: 800)
        /// `headless_rate`: the frame rate of the headless backend in Hz, 1…1000. Default 60.
        public var headlessRate = 60.0
        /// `snapshot_dir`: where the headless backend writes PNG snapshots; absolute.
        public var snapshotDirectory = "/var/lib/vitrine/snapshots"
        /// `hotplug_grace`: seconds an unplugged output's root layer and everything under
        /// it are kept, so that the screen plugged in again shows them as they were;
        /// 0…604800. Default 600.
        public var hotplugGrace = 600.0

        /// Every key at its default.
        public init() {}
    }

    /// `[socket]`: the Unix socket that scripts connect to.
    public struct Socket: Sendable, Hashable {
        /// `path`: the socket's absolute path, at most 107 bytes. Default
        /// "/run/vitrine/vitrine.sock".
        public var path = "/run/vitrine/vitrine.sock"
        /// `mode`: the socket's permission bits, 0…0o777, written "0660" or 0o660.
        /// Default 0o660.
        public var mode: UInt16 = 0o660
        /// `group`: the group that owns the socket; "" keeps the daemon's group.
        public var group = ""
        /// `screenshot_dir`: the only directory `screenshot` requests may write to; absolute.
        public var screenshotDirectory = "/var/lib/vitrine/screenshots"

        /// Every key at its default.
        public init() {}
    }

    /// `[animation]`: the defaults of implicit and spring animations.
    public struct Animations: Sendable, Hashable {
        /// `implicit_duration`: seconds an implicit animation lasts, 0…3600. Default 0.25.
        public var implicitDuration = VitrineCore.Scene.Configuration().implicitDuration
        /// `implicit_timing`: the curve of implicit animations, a name ("linear", "easeIn",
        /// "easeOut", "easeInEaseOut", "default") or [x1, y1, x2, y2]. Default "default".
        public var implicitTiming = VitrineCore.Scene.Configuration().implicitTimingFunction
        /// `[animation.spring]`: the spring used when a script asks for one without
        /// parameters.
        public var spring = SpringDefaults()

        /// Every key at its default.
        public init() {}
    }

    /// `[animation.spring]`: the spring of scripts' spring animations and rolling
    /// numbers where they leave parameters out — `duration` (seconds, 0…3600, 0 until the
    /// spring settles), `speed` (above 0, at most 100), `damping` (≥ 0), `initial_velocity`
    /// (within ±1e6), `mass` (above 0, at most 1e6) and `stiffness` (above 0, at most 1e9);
    /// the defaults are `SpringSettings()`'s.
    public typealias SpringDefaults = SpringSettings

    /// `[input]`: the input devices of the seat and what they mean — `enabled`, `seat`, the
    /// keymap (`xkb_rules`, `xkb_model`, `xkb_layout`, `xkb_variant`, `xkb_options`; ""
    /// for the system's default), key repeat (`repeat_delay_ms`, 0…10000, and
    /// `repeat_rate`, 0…1000 a second, 0 for none), a touchscreen's `calibration` (six
    /// numbers, [] for the device's own), `vt_switching` (Ctrl+Alt+F1…F12), `tap_slop`
    /// (pixels, 0…1000), `long_press_seconds` (0.05…60), the pointer's `cursor` ("hidden",
    /// "auto", "always") and `cursor_hide_after` (0.1…3600 s), and `idle_after` (seconds, 0
    /// for never, else 1…86400); the defaults are `InputSettings()`'s.
    public typealias Input = InputSettings

    /// `[rolling_number]`: defaults of rolling-number layers (digits that roll like an
    /// odometer when the number changes).
    public struct RollingNumber: Sendable, Hashable {
        /// `animation_type`. Default "allAfterFirstChangedNumber".
        public var animationType = RollingNumberDefaults().animationType
        /// `direction`. Default "auto".
        public var direction = RollingNumberDefaults().direction
        /// `character_spacing`: advance per character as a multiple of the glyph width,
        /// 0.1…10. Default 1.
        public var characterSpacing = RollingNumberDefaults().characterSpacing
        /// `font`: the font family; "" (the default) is `[fonts] default_family`.
        public var font = ""
        /// `font_size`: in pixels, above 0 and at most 4096. Default 96.
        public var fontSize = RollingNumberDefaults().fontSize

        /// Every key at its default.
        public init() {}
    }

    /// `[fonts]`: where text layers find fonts.
    public struct Fonts: Sendable, Hashable {
        /// `default_family`: the family of text layers and rolling numbers that name none.
        /// Default "DejaVu Sans".
        public var defaultFamily = RollingNumberDefaults().font
        /// `directories`: absolute directories searched besides fontconfig's. Default none.
        public var directories: [String] = []

        /// Every key at its default.
        public init() {}
    }

    /// `[content]`: the directories layers' `contents`, and nothing else, are read from.
    public struct Content: Sendable, Hashable {
        /// `roots`: absolute directories. Default: /usr/share/vitrine, /var/lib/vitrine/content
        /// and /etc/vitrine (the scene file's directory is always one too).
        public var roots = ["/usr/share/vitrine", "/var/lib/vitrine/content", "/etc/vitrine"]
        /// `network_video`: video layers may play network streams (rtsp, rtsps, http and
        /// https URIs, HLS among them), not only files. Default false.
        public var networkVideo = false

        /// Every key at its default.
        public init() {}
    }

    /// `[limits]`: what protects the daemon from a runaway script.
    public struct Limits: Sendable, Hashable {
        /// `layers`: the most layers in the scene, 1…1000000. Default 10000.
        public var layers = VitrineCore.Scene.Configuration().maximumLayers
        /// `line_bytes`: the longest request line in bytes, 1024…1073741824. Default 1 MiB.
        public var lineBytes = 1_048_576
        /// `clients`: the most connected clients, 1…10000. Default 64.
        public var clients = 64
        /// `subscriptions_per_client`: 1…10000. Default 32.
        public var subscriptionsPerClient = 32
        /// `animations_per_layer`: 1…100000. Default 1000.
        public var animationsPerLayer = VitrineCore.Scene.Configuration().maximumAnimationsPerLayer
        /// `outbound_bytes`: a client whose unsent replies and events exceed this many bytes
        /// is disconnected, 65536…1073741824. Default 4 MiB.
        public var outboundBytes = 4_194_304
        /// `idle_seconds`: a connection that sends no request for this long, or keeps half
        /// a line for this long, is closed (a client subscribed to events may stay silent),
        /// 0…86400, 0 for never. Default 60.
        public var idleSeconds = 60
        /// `memory_mb`: megabytes of decoded images the daemon holds at most, 16…65536.
        /// Default 256.
        public var memoryMB = 256
        /// `scene_mb`: megabytes of text, custom property and animation values the layers hold
        /// together, 1…4096. Default 64.
        public var sceneMB = VitrineCore.Scene.Configuration().maximumValueBytes >> 20

        /// Every key at its default.
        public init() {}
    }

    /// `[logging]`.
    public struct Logging: Sendable, Hashable {
        /// Log levels, from the most verbose.
        public enum Level: String, Sendable, CaseIterable, Comparable {
            case trace, debug, info, notice, warning, error, critical

            /// Whether `a` is less severe than `b`.
            public static func < (a: Level, b: Level) -> Bool {
                allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
            }
        }

        /// `level`: the least severe level that is logged. Default "info".
        public var level: Level = .info

        /// Every key at its default.
        public init() {}
    }

    /// `[state]`: the scene journal, which brings the scene back after a restart.
    public struct State: Sendable, Hashable {
        /// `directory`: an absolute directory for `scene.json`; "" (the default) is
        /// `$STATE_DIRECTORY` when systemd sets it, else /var/lib/vitrine, used only when
        /// it exists.
        public var directory = ""
        /// `journal`: whether the scene is journaled and restored at start. Default true.
        public var journal = true

        /// Every key at its default.
        public init() {}
    }

    /// `[scene]`: the scene shown at start, from a JSON scene file or inline
    /// `[[scene.layers]]` tables in the same vocabulary (`SceneDescription`).
    public struct InitialScene: Sendable, Equatable {
        /// `file`: the JSON scene file, made absolute against the configuration's directory;
        /// "" for none.
        public var file = ""
        /// `background`: the root layer's colour; nil leaves the scene's (or the output's).
        public var background: Color?
        /// `[[scene.layers]]`: the inline layers as JSON layer objects.
        public var layers: [JSON] = []
        /// `[[scene.bindings]]`: inline bindings as JSON objects in `binding.add`'s
        /// vocabulary, added after the scene file's.
        public var bindings: [JSON] = []
        /// The scene read from `file` or built from `layers`, with `background` applied;
        /// nil when there is neither.
        public var content: SceneDescription?
        /// `identify`: whether an output with nothing to show shows the identification
        /// screen (host name, addresses, fleet id, socket, a QR code of the device's id).
        /// Default "auto": on screens (`drm`, `fbdev`), not in windows or headless.
        public var identify = Identify.auto

        /// When the identification screen is shown (`identify`: true, false or "auto").
        public enum Identify: String, Sendable, Equatable {
            /// On every output with nothing to show (`true`).
            case always
            /// Never (`false`).
            case never
            /// On the outputs of the screen backends (`drm`, `fbdev`) with nothing to show.
            case auto
        }

        /// Every key at its default.
        public init() {}

        /// Equal sources and equal scene content.
        public static func == (a: InitialScene, b: InitialScene) -> Bool {
            a.file == b.file && a.background == b.background && a.layers == b.layers && a.bindings == b.bindings && a.identify == b.identify
                && SceneDescription.sameContent(a.content, b.content)
        }
    }
}

extension SceneDescription {
    /// Whether two scenes describe the same layers, properties and animations.
    static func sameContent(_ a: SceneDescription?, _ b: SceneDescription?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        guard a.size == b.size, a.background == b.background, a.layers.count == b.layers.count,
            a.bindings.map(\.json) == b.bindings.map(\.json), a.bindings.map(\.id) == b.bindings.map(\.id)
        else { return false }
        return zip(a.layers, b.layers).allSatisfy { x, y in
            x.id == y.id && x.kind == y.kind && x.parent == y.parent && x.animations == y.animations
                && x.displayKeys == y.displayKeys && x.properties.map(\.0) == y.properties.map(\.0)
                && x.properties.map(\.1) == y.properties.map(\.1)
        }
    }
}

extension Configuration {
    /// Rolling numbers' defaults: `[rolling_number]` with the `[animation.spring]` spring.
    public var rollingNumberDefaults: RollingNumberDefaults {
        var d = RollingNumberDefaults()
        d.animationType = rollingNumber.animationType
        d.direction = rollingNumber.direction
        d.characterSpacing = rollingNumber.characterSpacing
        d.font = rollingNumber.font.isEmpty ? fonts.defaultFamily : rollingNumber.font
        d.fontSize = rollingNumber.fontSize
        d.spring = animation.spring
        return d
    }
}

extension Configuration {
    /// The keys a running daemon takes only when it starts, each with what it reads.
    private static let startKeys: [(key: String, value: @Sendable (Configuration) -> AnyHashable)] = sectionStartKeys + ScreenKeyboard.startKeys

    /// The start keys of the sections other than `[osk]` (whose own list is beside it).
    private static let sectionStartKeys: [(key: String, value: @Sendable (Configuration) -> AnyHashable)] = [
        ("output.backend", { $0.output.backend }), ("output.device", { $0.output.device }),
        ("output.connector", { $0.output.connector }), ("output.mode", { $0.output.mode }),
        ("output.rotation", { $0.output.rotation }), ("output.buffers", { $0.output.buffers }),
        ("output.headless_size", { $0.output.headlessSize }), ("output.headless_rate", { $0.output.headlessRate }),
        ("output.snapshot_dir", { $0.output.snapshotDirectory }), ("outputs", { $0.outputs }),
        ("socket.path", { $0.socket.path }), ("socket.mode", { $0.socket.mode }), ("socket.group", { $0.socket.group }),
        ("fonts.directories", { $0.fonts.directories }),
        ("content.roots", { $0.content.roots }), ("content.network_video", { $0.content.networkVideo }), ("logging.level", { $0.logging.level }),
        ("state.directory", { $0.state.directory }), ("state.journal", { $0.state.journal }),
        // A scene file in another directory moves the root that relative image paths start from.
        ("scene.file", { $0.scene.file.prefix(upTo: $0.scene.file.lastIndex(of: "/") ?? $0.scene.file.endIndex) }),
        // The devices are opened with the keymap, repeat and calibration once, at start.
        ("input.enabled", { $0.input.enabled }), ("input.seat", { $0.input.seat }),
        ("input.xkb_rules", { $0.input.keymap.rules }), ("input.xkb_model", { $0.input.keymap.model }),
        ("input.xkb_layout", { $0.input.keymap.layout }), ("input.xkb_variant", { $0.input.keymap.variant }),
        ("input.xkb_options", { $0.input.keymap.options }), ("input.repeat_delay_ms", { $0.input.repeatDelayMilliseconds }),
        ("input.repeat_rate", { $0.input.repeatRate }), ("input.calibration", { $0.input.calibration }),
        ("input.vt_switching", { $0.input.vtSwitching }), ("input.tap_slop", { $0.input.tapSlop }),
        ("input.long_press_seconds", { $0.input.longPressSeconds }),
        // The cursor and the idle watch are set up once, at start.
        ("input.cursor", { $0.input.cursor }), ("input.cursor_hide_after", { $0.input.cursorHideAfter }),
        ("input.idle_after", { $0.input.idleAfter }),
        // The broker connection is made once, at start.
        ("fleet.enabled", { $0.fleet.enabled }), ("fleet.host", { $0.fleet.host }), ("fleet.port", { $0.fleet.port }),
        ("fleet.device", { $0.fleet.device }), ("fleet.groups", { $0.fleet.groups }), ("fleet.client_id", { $0.fleet.clientID }),
        ("fleet.username", { $0.fleet.username }), ("fleet.password", { $0.fleet.password }), ("fleet.password_file", { $0.fleet.passwordFile }),
        ("fleet.ca_file", { $0.fleet.caFile }), ("fleet.cert_file", { $0.fleet.certFile }), ("fleet.key_file", { $0.fleet.keyFile }),
        ("fleet.keepalive", { $0.fleet.keepalive }), ("fleet.reconnect_max_seconds", { $0.fleet.reconnectMaxSeconds }),
        ("fleet.thumbnail_every", { $0.fleet.thumbnailEvery }), ("fleet.thumbnail_width", { $0.fleet.thumbnailWidth }),
        ("fleet.thumbnail_height", { $0.fleet.thumbnailHeight }), ("fleet.thumbnail_format", { $0.fleet.thumbnailFormat }),
        ("fleet.thumbnail_max_bytes", { $0.fleet.thumbnailMaxBytes }), ("fleet.screenshot_interval", { $0.fleet.screenshotInterval }),
        // The roots and outputs are laid out once, at start.
        ("wall.canvas", { $0.wall.canvas }), ("wall.viewport", { $0.wall.viewport }),
        // The metrics' listening sockets are made once, at start.
        ("metrics.enabled", { $0.metrics.enabled }), ("metrics.address", { $0.metrics.address }), ("metrics.port", { $0.metrics.port }),
        ("metrics.socket", { $0.metrics.socket }), ("metrics.connections", { $0.metrics.connections }),
        // The VNC listeners are opened once, at start.
        ("remote.vnc", { $0.remote }), ("remote.output", { $0.remote }), ("remote.view_only", { $0.remote }),
        ("remote.tls_certificate", { $0.remote }), ("remote.tls_key", { $0.remote }), ("remote.password_file", { $0.remote }),
        ("remote.max_rate", { $0.remote }), ("remote.auth", { $0.remote }), ("remote.pam_service", { $0.remote }),
        ("remote.view_only_users", { $0.remote }), ("remote.view_only_group", { $0.remote }),
        // The Wayland socket is made once, at start.
        ("compositor.enabled", { $0.compositor.enabled }), ("compositor.socket", { $0.compositor.socket }),
        // The Wayland server's limits are set when it starts.
        ("compositor.max_objects_per_client", { $0.compositor.maxObjectsPerClient }),
        ("compositor.max_shm_pools_per_client", { $0.compositor.maxShmPoolsPerClient }),
        // The X11 display is opened (or not) once, at start.
        ("compositor.xwayland", { $0.compositor.xwayland }),
        // The configured clients are started once, at start.
        ("clients", { $0.clients }),
        // The content watchdog is set up once, at start.
        ("watch", { $0.watches }),
        // The play log is opened once, at start.
        ("playlog.enabled", { $0.playLog.enabled }), ("playlog.max_mb", { $0.playLog.maxMB }), ("playlog.keep_days", { $0.playLog.keepDays }),
    ]

    /// The keys read only when the daemon starts; a reload applies every other key.
    public static var restartKeys: [String] { startKeys.map(\.key) }

    /// Every key of the file, dotted ("animation.spring.damping"), sections in name order.
    public static var allKeys: [String] {
        sections.keys.sorted().flatMap { section in
            sections[section]!.flatMap { key in
                key == "spring" && section == "animation" ? SpringDefaults.keys.map { "animation.spring.\($0)" } : ["\(section).\(key)"]
            }
        }
    }

    /// The keys whose values differ from `running`'s and that take effect only when the
    /// daemon restarts (a reload applies every other key at once), in file order.
    public func keysNeedingRestart(comparedWith running: Configuration) -> [String] {
        Self.startKeys.filter { $0.value(self) != $0.value(running) }.map(\.key)
    }
}
