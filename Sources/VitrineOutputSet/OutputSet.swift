import Logging
import VitrineConfig
import VitrineCore
import VitrineJSON
import VitrineOutput
import VitrineProtocol
import VitrineRender
import VitrineSystem
import VitrineWayland

/// The screens the daemon draws: each output's head (its root layer, pipeline and pacer),
/// outputs plugged in and unplugged, frame pacing, power and its schedules, and the
/// presentation feedback Wayland clients are owed.
///
/// It is confined to the daemon's event loop. It builds each output's render tree from the
/// scene and presents it; what belongs to others (advancing the scene, input latency,
/// events to clients, showing a configured scene) it says with `OutputNotice`s through
/// `notify`, synchronously and in order.
public final class OutputSet {
    /// What the configuration says of the outputs.
    public struct Settings: Sendable {
        /// The `[[outputs]]` tables, by connector.
        public var outputs: [Configuration.OutputEntry]
        /// The video wall the outputs are screens of, if any.
        public var wall: Configuration.Wall
        /// A new root layer's background.
        public var background: Color
        /// Seconds an unplugged output's root and its layers are kept for its return.
        public var hotplugGrace: Double

        /// Settings from their parts.
        public init(outputs: [Configuration.OutputEntry], wall: Configuration.Wall, background: Color, hotplugGrace: Double) {
            self.outputs = outputs
            self.wall = wall
            self.background = background
            self.hotplugGrace = hotplugGrace
        }
    }

    /// What the frames cost, for `stats` and the metrics.
    public struct Statistics {
        /// Frames presented on every output.
        public internal(set) var frames = 0
        /// Pixels those frames repainted.
        public internal(set) var pixels = 0
        /// The loop's time per presented frame (advancing the scene, drawing, presenting).
        public internal(set) var frameTimes = FrameStatistics()
    }

    /// The outputs' settings; a reload sets them (the power schedules and the grace follow
    /// at their next use).
    public var settings: Settings
    /// The outputs drawn, in the order they were found; the first is the primary one
    /// (root "root" unless the configuration names another): input goes to it.
    public internal(set) var heads: [OutputHead] = []
    /// The head unplugged last, while no output is plugged in.
    var lastHead: OutputHead?
    /// The connector of the output found first at start.
    let primaryConnector: String
    /// The primary output's root: where layers go that name no parent, and what input is
    /// hit-tested against. It stays while that output is unplugged (its layers kept).
    public private(set) var root = "root"
    /// Unplugged outputs' kept roots, until their grace ends, by connector.
    var unplugged: [String: UnpluggedOutput] = [:]
    /// Counts unpluggings, so that a grace's timer knows whether it is still the current one.
    var hotplugSerial = 0
    /// What the frames cost.
    public internal(set) var statistics = Statistics()
    /// The outputs' TVs over HDMI-CEC, by connector (none without `[[outputs]] cec`).
    var televisions: [String: OutputTV] = [:]
    /// When the frame asked for an animated picture's next frame is due (media time).
    var pictureFrameDue: Double?
    let scene: Scene
    /// The renderer every output's pipeline draws with (one image store, one font library).
    public let renderer: Renderer
    let clock: MediaClock
    let loop: EventLoop?
    let logger: Logger
    let notify: (OutputNotice) -> Void
    /// The damage of content that changes by itself (video frames, windows) on the output
    /// given by its head's identity; set once, before the first frame.
    public var changingContent: ((ObjectIdentifier, RenderTree) -> [Rect])?
    /// The Wayland server whose windows' presentation feedback the outputs give, and the
    /// renderer that knows which layer shows which window.
    public var windows: PresentedWindows? {
        didSet { for head in heads { attachDirectScanout(head) } }
    }

    /// The outputs `backends` (at least one), each under its root layer: the one its
    /// `[[outputs]]` table names, else "root" for the first and its connector for the
    /// others; roots are added to `scene` with the configured background. Timers go on
    /// `loop` (none without one: programs and tests that render by hand).
    public init(
        _ backends: [OutputBackend], settings: Settings, scene: Scene, renderer: Renderer, clock: MediaClock, loop: EventLoop?, logger: Logger,
        notify: @escaping (OutputNotice) -> Void
    ) throws {
        guard let first = backends.first else { throw SystemError("a compositor needs at least one output") }
        self.settings = settings
        self.scene = scene
        self.renderer = renderer
        self.clock = clock
        self.loop = loop
        self.logger = logger
        self.notify = notify
        primaryConnector = first.connector
        for backend in backends { try addHead(backend) }
        root = heads[0].root
    }

    /// The head drawn first, which input maps to; while none is plugged in, the last one
    /// unplugged.
    public var primary: OutputHead { heads.first ?? lastHead! }

    /// Every output's backend, primary first.
    public var backends: [OutputBackend] { heads.map(\.backend) }

    /// Runs `body` on the loop after `seconds`; nothing without a loop.
    func schedule(_ seconds: Double, _ body: @escaping () -> Void) {
        loop?.schedule(after: seconds, body)
    }

    /// The output `name` addresses (connector, backend name or root id); nil: the primary.
    public func head(named name: String?) throws(ProtocolError) -> OutputHead {
        guard let name else {
            guard let first = heads.first else { throw ProtocolError(.unknownOutput, "no output is plugged in (output.list)") }
            return first
        }
        guard let head = heads.first(where: { $0.answers(to: name) }) else {
            throw ProtocolError(
                .unknownOutput, "there is no output '\(name)'; the outputs are \(heads.map { "'\($0.name)'" }.joined(separator: ", ")) (output.list)")
        }
        return head
    }

    /// `output.list`: every output, primary first.
    public func list() -> JSON {
        .object(["outputs": .array(heads.map(description(of:)))])
    }

    /// Refresh intervals outputs passed without a frame while something animated.
    public var droppedFrames: Int { heads.reduce(0) { $0 + $1.dropped.count } }

    /// `stats`' `wall`: the canvas and each wall output's viewport; nil without a wall.
    public var wallStatistics: JSON? {
        guard let canvas = settings.wall.canvas, heads.contains(where: { $0.viewport != nil }) else { return nil }
        var viewports: [String: JSON] = [:]
        for head in heads where head.viewport != nil { viewports[head.name] = head.description["viewport"] }
        return .object([
            "canvas": .array([.number(Double(canvas.width)), .number(Double(canvas.height))]), "root": .string(heads.first { $0.viewport != nil }!.root),
            "viewports": .object(viewports),
        ])
    }
}

extension OutputSet {
    /// Lets `head` show hosted windows' buffers directly, when its backend can and windows
    /// are hosted.
    func attachDirectScanout(_ head: OutputHead) {
        guard let output = head.backend as? DirectScanoutOutput, let surfaces = windows?.surfaces else { return head.pipeline.direct = nil }
        head.pipeline.direct = DirectScanout(output: output, surfaces: surfaces, renderer: renderer)
    }
}

/// The Wayland side of presentation feedback: the server's windows, and which surface
/// layer shows which.
public struct PresentedWindows {
    /// The server whose windows wait for feedback; nil once it is gone.
    public weak var server: WaylandServer?
    /// The surface layers' renderer, which holds their assignments.
    public let surfaces: SurfaceRenderer

    /// The windows of `server` shown through `surfaces`.
    public init(server: WaylandServer, surfaces: SurfaceRenderer) {
        self.server = server
        self.surfaces = surfaces
    }
}
