import VitrineCore
import VitrineRaster

/// A picture drawn over everything an output shows — the pointer's cursor. It is no layer
/// of the scene: the frame pipeline draws it last, over the repainted region, and moving
/// it damages only where it was and where it goes.
///
/// Changing it asks for no frame by itself: its owner asks (`OutputSet.requestFrame`).
public final class CursorOverlay {
    /// The picture (premultiplied) and the pixel of it that lies at the pointer.
    public private(set) var image: Surface?
    public private(set) var hotspot = (x: 0, y: 0)
    /// Where the pointer is, in the output's pixels.
    public private(set) var position = (x: 0, y: 0)
    /// Whether it is drawn.
    public private(set) var isVisible = false
    /// Where it lies in the frame last rendered (nil: nowhere), and whether it changed since.
    private var drawn: PixelRect?
    private var changed = false

    public init() {}

    /// Where it lies now, or nil when it is not drawn.
    public var frame: PixelRect? {
        guard isVisible, let image else { return nil }
        return PixelRect(x: position.x - hotspot.x, y: position.y - hotspot.y, width: image.width, height: image.height)
    }

    /// Shows `image` (nil: nothing, as a client's `set_cursor(null)`) with its pixel
    /// `hotspot` at the pointer.
    public func show(_ image: Surface?, hotspot: (x: Int, y: Int)) {
        guard image !== self.image || hotspot != self.hotspot || !isVisible else { return }
        self.image = image
        self.hotspot = hotspot
        isVisible = true
        changed = true
    }

    /// Puts the hotspot at `point` (output pixels, rounded down).
    public func move(to point: Point) {
        let x = Int(max(-1e6, min(1e6, point.x.isFinite ? point.x : 0)).rounded(.down))
        let y = Int(max(-1e6, min(1e6, point.y.isFinite ? point.y : 0)).rounded(.down))
        guard (x, y) != position else { return }
        position = (x, y)
        if isVisible { changed = true }
    }

    /// Draws nothing until shown again.
    public func hide() {
        guard isVisible else { return }
        isVisible = false
        changed = true
    }

    /// Whether the next frame must repaint something for it.
    public var needsFrame: Bool { changed && (drawn != nil || frame != nil) }

    /// The pixels the next frame repaints for it — where it was and where it is — once;
    /// none when nothing changed.
    func takeDamage() -> [PixelRect] {
        guard changed else { return [] }
        changed = false
        let now = frame
        defer { drawn = now }
        return [drawn, now].compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// Composites the picture over `surface` within `region` (pixels just repainted: those
    /// outside hold it already from an earlier frame).
    public func draw(into surface: Surface, region: [PixelRect]) {
        guard let frame, let image else { return }
        for rect in region {
            let area = rect.intersection(frame)
            if !area.isEmpty { surface.composite(image, x: frame.x, y: frame.y, clip: Clip(rect: area)) }
        }
    }
}

extension CursorOverlay {
    /// Vitrine's own cursor: a white arrow with a dark outline, 13×21 pixels at `scale` 1,
    /// drawn with the rasterizer; its hotspot is the tip.
    public static func arrow(scale: Double = 1) -> (image: Surface, hotspot: (x: Int, y: Int)) {
        let s = max(0.5, min(8, scale.isFinite ? scale : 1))
        let outline: [(Double, Double)] = [(1, 1), (1, 17), (5, 13.5), (8, 20), (10.5, 19), (7.5, 12.5), (12.5, 12.5)]
        var path = Path()
        for (i, p) in outline.enumerated() {
            let point = Point(x: (p.0 + 0.5) * s, y: (p.1 + 0.5) * s)
            if i == 0 { path.move(to: point) } else { path.addLine(to: point) }
        }
        path.close()
        let image = Surface(width: Int((14 * s).rounded(.up)), height: Int((22 * s).rounded(.up)))
        image.fill(path, color: PremultipliedColor(unchecked: 0xFFFF_FFFF))
        image.stroke(path, style: StrokeStyle(width: s, join: .miter), color: PremultipliedColor(unchecked: 0xFF00_0000))
        return (image, (Int(s.rounded(.down)), Int(s.rounded(.down))))
    }
}
