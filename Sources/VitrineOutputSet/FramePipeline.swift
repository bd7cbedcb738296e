import VitrineCore
import VitrineOutput
import VitrineRaster
import VitrineRender

/// Turns render trees into presented frames, repainting only what changed.
///
/// Each frame: damage against the previous tree (narrowed by the content renderers, so
/// that a changed digit damages that digit, not its text layer); nothing changed →
/// nothing presented.
/// Otherwise the backend's next buffer is repainted over the union of the damage of as
/// many frames as the buffer is old (all of it when its age is unknown), then presented
/// with this frame's damage.
public final class FramePipeline {
    public let renderer: Renderer
    public let output: OutputBackend
    private var previous: RenderTree?
    /// The damage of recent frames, newest first.
    private var history: [[PixelRect]] = []
    /// The list the history dropped last, kept for its storage.
    private var forgotten: [PixelRect] = []
    private let maximumAge = 4
    /// Damage of content that changes by itself (video frames), and brings it to the frame.
    public var extraDamage: ((RenderTree) -> [Rect])?
    /// The rectangle of the trees' screen that the output shows (one screen of a wall);
    /// nil: the output shows the trees from their top-left. Set, damage and repaints are
    /// the rectangle's, in the output's pixels.
    public var viewport: PixelRect?
    /// The pipelines drawing the same root (a wall's outputs of one daemon): the damage of
    /// content that changes by itself (animated pictures, videos), which the renderer
    /// reports once, to the first that asks, is handed to the others too.
    public var shared: SharedDamage?
    /// Drawn over everything, last (the pointer's cursor): nil costs nothing.
    public var cursor: CursorOverlay?
    /// Those that see each presented frame (remote viewers, screen capture): none costs
    /// nothing.
    public private(set) var taps: [FrameTap] = []
    /// Shows a frame that is a client's buffer over the whole screen as it is, instead of
    /// compositing it (not while taps or the cursor need the composited picture); nil:
    /// every frame is composited.
    public var direct: DirectScanout?
    /// The frame last presented was shown directly: the next composited one is drawn whole.
    private var showingDirect = false

    public init(renderer: Renderer, output: OutputBackend) {
        self.renderer = renderer
        self.output = output
    }

    /// What one call of `render` did.
    public struct Report: Sendable {
        /// A frame was presented.
        public let presented: Bool
        /// The region repainted, in pixels.
        public let repaintedPixels: Int
        /// This frame's damage.
        public let damage: [PixelRect]
        /// The frame is a client's buffer shown as it is (`direct`), not composited.
        public var direct = false
    }

    /// Presents `tree` if it differs from the last one presented.
    @discardableResult
    public func render(_ tree: RenderTree) throws -> Report {
        let screen = PixelRect(x: 0, y: 0, width: output.mode.width, height: output.mode.height)
        let dx = -(viewport?.x ?? 0), dy = -(viewport?.y ?? 0)
        var changed = tree.damage(since: previous, refine: renderer.contentDamage)
        var moving = renderer.animations.damage(in: tree, images: renderer.images)
        if let extraDamage { moving += extraDamage(tree) }
        if let shared {
            changed += shared.take(for: self)
            shared.give(moving, from: self)
        }
        changed += moving
        // In the storage of the list the history forgot last.
        var damage = forgotten
        forgotten = []
        damage.removeAll(keepingCapacity: true)
        for rect in changed {
            let pixels = PixelRect(covering: rect).offsetBy(dx: dx, dy: dy).intersection(screen)
            if !pixels.isEmpty { damage.append(pixels) }
        }
        if let cursor {
            for rect in cursor.takeDamage() where !rect.intersection(screen).isEmpty { damage.append(rect.intersection(screen)) }
        }
        guard !damage.isEmpty else {
            forgotten = damage
            return Report(presented: false, repaintedPixels: 0, damage: [])
        }
        if let direct, taps.isEmpty, cursor?.isVisible != true,
            direct.show(tree, screen: PixelRect(x: -dx, y: -dy, width: screen.width, height: screen.height).rect)
        {
            history.removeAll()
            showingDirect = true
            previous = tree
            return Report(presented: true, repaintedPixels: 0, damage: damage, direct: true)
        }
        if showingDirect {
            showingDirect = false
            damage = [screen]
        }
        history.insert(damage, at: 0)
        if history.count > maximumAge { forgotten = history.removeLast() }
        renderer.images.beginFrame(tree)
        let buffer = try output.acquireBuffer()
        let region: [PixelRect] =
            switch buffer.age {
            case 0, history.count + 1...Int.max: [screen]
            case 1: disjoint(damage)
            default: disjoint(history.prefix(buffer.age).flatMap { $0 })
            }
        renderer.render(tree, into: buffer.surface, region: region, viewport: viewport)
        cursor?.draw(into: buffer.surface, region: region)
        for tap in taps { tap.frame(buffer.surface, damage: damage) }
        try output.present(damage: damage)
        previous = tree
        return Report(presented: true, repaintedPixels: region.reduce(0) { $0 + $1.width * $1.height }, damage: damage)
    }

    /// Shows `tap` every frame from the next one, which is drawn whole so that it sees all
    /// of the picture first (its owner asks for that frame).
    public func add(_ tap: FrameTap) {
        guard !taps.contains(where: { $0 === tap }) else { return }
        taps.append(tap)
        invalidate()
    }

    /// Stops showing frames to `tap`.
    public func remove(_ tap: FrameTap) {
        taps.removeAll { $0 === tap }
    }

    /// Forgets the last frame, so that the next one is drawn whole (after a mode change,
    /// a VT switch, or anything else that lost the buffers' contents).
    public func invalidate() {
        previous = nil
        history.removeAll()
    }
}

/// Sees each frame an output presents, before it goes to the screen.
public protocol FrameTap: AnyObject {
    /// `surface` is the whole frame about to be presented (readable only during the call);
    /// `damage` the pixels that changed since the frame before it (all of them the first
    /// time, after `FramePipeline.add`), disjoint or not. Runs on the frame loop: copy
    /// what is needed and return.
    func frame(_ surface: Surface, damage: [PixelRect])
}

/// Damage that several pipelines showing one root must all see: what one of them took
/// from the renderer's once-only reports waits here for the others' next frames.
public final class SharedDamage {
    private var pending: [ObjectIdentifier: [Rect]] = [:]

    public init() {}

    /// Makes `pipeline` one of those that share damage.
    public func join(_ pipeline: FramePipeline) {
        pending[ObjectIdentifier(pipeline)] = pending[ObjectIdentifier(pipeline)] ?? []
        pipeline.shared = self
    }

    /// Takes `pipeline` out (its output was unplugged).
    public func leave(_ pipeline: FramePipeline) {
        pending[ObjectIdentifier(pipeline)] = nil
        pipeline.shared = nil
    }

    /// Hands `rects` to every member but `pipeline`.
    func give(_ rects: [Rect], from pipeline: FramePipeline) {
        guard !rects.isEmpty else { return }
        let own = ObjectIdentifier(pipeline)
        for key in pending.keys where key != own {
            pending[key]! += rects
            // A blanked output takes nothing for a while: what waits for it stays one rectangle.
            if pending[key]!.count > 64 { pending[key] = [pending[key]!.reduce(Rect.null) { $0.union($1) }] }
        }
    }

    /// What the others handed `pipeline` since it last took it.
    func take(for pipeline: FramePipeline) -> [Rect] {
        let own = ObjectIdentifier(pipeline)
        guard let rects = pending[own], !rects.isEmpty else { return [] }
        pending[own] = []
        return rects
    }
}

/// Rectangles covering the same pixels with no overlaps, so that none is painted twice.
/// Runs every frame: the pieces are cut into two buffers that are reused, not into an array
/// per rectangle.
func disjoint(_ rects: [PixelRect]) -> [PixelRect] {
    // Most frames' damage is already apart (merged, then rounded out to whole pixels).
    if isDisjoint(rects) { return rects }
    var result: [PixelRect] = []
    result.reserveCapacity(rects.count * 2)
    var pieces: [PixelRect] = [], cut: [PixelRect] = []
    for r in rects where !r.isEmpty {
        pieces.removeAll(keepingCapacity: true)
        pieces.append(r)
        for existing in result.indices {
            cut.removeAll(keepingCapacity: true)
            for piece in pieces { piece.subtracting(result[existing], into: &cut) }
            swap(&pieces, &cut)
            if pieces.isEmpty { break }
        }
        result += pieces
    }
    return result
}

/// Whether no rectangle is empty or overlaps another.
private func isDisjoint(_ rects: [PixelRect]) -> Bool {
    for i in rects.indices {
        guard !rects[i].isEmpty else { return false }
        for j in rects.indices where j > i {
            if !rects[i].intersection(rects[j]).isEmpty { return false }
        }
    }
    return true
}
