import VitrineCore
import VitrineRaster

/// Draws shape layers (CAShapeLayer): the path filled, then stroked over the fill.
final class ShapeRenderer: ContentRenderer {
    /// Parsed paths by their text: a shape redrawn for every damage rectangle, or frame
    /// after frame while only its stroke animates, parses its path once.
    private var parsed: [String: Path] = [:]

    func draw(_ node: RenderTree.Node, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        let style = ShapeStyle(node.values)
        guard !style.path.isEmpty, let path = path(style.path), !path.isEmpty else { return }
        if style.fillColor.alpha > 0 {
            surface.fill(
                path, color: premultiplied(style.fillColor, opacity), transform: transform, rule: style.evenOdd ? .evenOdd : .nonZero, clip: clip,
                tolerance: Flatness.fine)
        }
        if style.isStroked {
            let stroke = StrokeStyle(
                width: style.lineWidth, cap: style.lineCap, join: style.lineJoin, miterLimit: style.miterLimit, dashes: style.dashPattern,
                dashPhase: style.dashPhase, start: style.strokeStart, end: style.strokeEnd)
            surface.stroke(path, style: stroke, color: premultiplied(style.strokeColor, opacity), transform: transform, clip: clip)
        }
    }

    private func path(_ text: String) -> Path? {
        if let p = parsed[text] { return p }
        guard let data = try? PathData(parsing: text) else { return nil }
        if parsed.count >= 64 { parsed.removeAll(keepingCapacity: true) }
        let p = Path(data)
        parsed[text] = p
        return p
    }
}
