import VitrineCore
import VitrineRaster

/// Layers seen in perspective: a layer and its sublayers drawn flattened in the layer's
/// plane, offscreen, and that picture mapped into its parent's pixels with perspective-
/// correct sampling, as CALayer flattens a layer with a 3D transform.
extension Renderer {
    /// Draws node `i`, seen in perspective through `projection` (its plane's pixels to
    /// those of the space `offset` maps to `surface`), and its descendants, which reach
    /// `reach` in its plane: only the part of the plane that shows in the area repainted
    /// is drawn.
    func drawProjected(
        _ pass: Pass, _ i: Int, _ projection: ProjectiveTransform, reach: Rect, on surface: Surface, offset: AffineTransform, clip: Clip,
        opacity: Double
    ) {
        let toSurface = projection.concatenating(offset)
        var needed = reach
        let area = pass.area.offsetBy(dx: offset.tx, dy: offset.ty).intersection(clip.rect.rect)
        guard !area.isNull, !area.isEmpty else { return }
        if let seen = Self.preimage(of: area, under: toSurface) { needed = needed.intersection(seen) }
        var box = PixelRect(covering: needed)
        box = PixelRect(x: box.x, y: box.y, width: min(box.width, Self.planeLimit), height: min(box.height, Self.planeLimit))
        guard !box.isEmpty else { return }
        let plane = Surface(width: box.width, height: box.height)
        var planeReach = pass.reach
        planeReach[i] = reach
        let inner = Pass(tree: pass.tree, reach: planeReach, contents: pass.contents, area: box.rect, planes: pass.planes)
        drawFlat(inner, i, on: plane, offset: AffineTransform(translationX: Double(-box.x), y: Double(-box.y)), clip: Clip(rect: plane.bounds), opacity: 1)
        surface.draw(image: plane, in: box.rect, projection: toSurface, opacity: opacity, clip: clip)
    }

    /// The widest and tallest part of a plane drawn at once, in pixels.
    static let planeLimit = 4096

    /// The box of the points that `projection` maps into `rect`, grown by two pixels for
    /// the sampling filter; nil when that region is unbounded (the rectangle reaches the
    /// plane's horizon).
    static func preimage(of rect: Rect, under projection: ProjectiveTransform) -> Rect? {
        guard let inverse = projection.inverted else { return nil }
        let corners = [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.minX, rect.maxY), (rect.maxX, rect.maxY)].map {
            inverse.homogeneous($0.0, $0.1)
        }
        let positive = corners[0].2 > 0
        guard corners.allSatisfy({ $0.2 != 0 && ($0.2 > 0) == positive && $0.2.isFinite }) else { return nil }
        var box = Rect.null
        for c in corners { box = box.union(Rect(x: c.0 / c.2, y: c.1 / c.2, width: 0, height: 0)) }
        return box.insetBy(dx: -2, dy: -2)
    }
}
