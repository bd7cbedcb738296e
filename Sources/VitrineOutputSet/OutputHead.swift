import VitrineConfig
import VitrineJSON
import VitrineCore
import VitrineOutput
import VitrineRaster
import VitrineRender

/// One output the daemon draws: its backend, the root layer it shows, and its own
/// frame pipeline and pacing (each screen's flips schedule its own frames).
public final class OutputHead {
    public let backend: OutputBackend
    /// The id of the root layer the output shows.
    public let root: String
    public let pipeline: FramePipeline
    /// Its frames' timing, made by the output set, which it renders through.
    public internal(set) var pacer: FramePacer!
    /// What the configuration says of this output, if it names its connector.
    public let entry: Configuration.OutputEntry?
    /// False while blanked: no frame is drawn to it.
    public internal(set) var powered = true
    /// Frames presented on this output.
    public internal(set) var framesRendered = 0
    /// Of those, the frames that were a client's buffer shown as it is (direct scan-out).
    public internal(set) var framesDirect = 0
    /// Its root existed before it came: kept from before it was unplugged, or a wall's that
    /// another screen shows.
    public internal(set) var restored = false
    /// The output's rectangle of its root when it is one screen of a wall (`[wall]`):
    /// its pixels show the root from this origin; nil when it shows its root whole.
    public let viewport: PixelRect?
    /// Frame slots it missed while something animated.
    public internal(set) var dropped = DroppedFrames()
    /// Wayland clients' presentation feedback it owes.
    var presentation = HeadPresentation()

    init(backend: OutputBackend, root: String, renderer: Renderer, entry: Configuration.OutputEntry?, viewport: PixelRect?) {
        self.backend = backend
        self.root = root
        self.entry = entry
        self.viewport = viewport
        pipeline = FramePipeline(renderer: renderer, output: backend)
        pipeline.viewport = viewport
    }

    /// The output's top-left pixel in its root's space.
    public var origin: Point { viewport.map { Point(x: Double($0.x), y: Double($0.y)) } ?? .zero }

    /// A point in the output's pixels, in its root's space.
    public func rootPoint(_ point: Point) -> Point {
        guard let viewport else { return point }
        return Point(x: point.x + Double(viewport.x), y: point.y + Double(viewport.y))
    }

    /// The output's name for scripts: its connector.
    public var name: String { backend.connector }

    /// Whether `name` addresses this output: its connector, its backend's name or its root.
    public func answers(to name: String) -> Bool { name == self.name || name == backend.name || name == root }

    /// The output as `hello` and `output.list` describe it.
    public var description: JSON {
        var fields: [String: JSON] = [
            "name": .string(name), "root": .string(root),
            "size": .array([.number(Double(backend.mode.width)), .number(Double(backend.mode.height))]),
            "rate": .number(backend.mode.refreshRate), "power": .bool(powered), "frames": .number(Double(framesRendered)),
            "directFrames": .number(Double(framesDirect)),
        ]
        if let viewport { fields["viewport"] = .array([viewport.x, viewport.y, viewport.width, viewport.height].map { .number(Double($0)) }) }
        return .object(fields)
    }
}
