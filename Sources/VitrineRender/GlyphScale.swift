import VitrineCore
import VitrineRaster

/// How the renderers that rasterize glyphs (text layers, rolling numbers) draw through a
/// layer's transform: under a plain translation the glyphs are blitted straight onto the
/// target, snapped to whole pixels; under rotation or scale they are rasterized at their
/// size on screen into a `ScaledOffscreen` that is then drawn through the transform — not
/// drawn at layer size and magnified (blurry).
extension AffineTransform {
    /// Whether the transform only translates, so that glyphs are blitted directly.
    var translatesOnly: Bool { a == 1 && b == 0 && c == 0 && d == 1 }

    /// The scale glyphs drawn through the transform are rasterized at: 1 for a
    /// translation, else √|det| (the mean of the axes' scales, which rotation leaves
    /// alone); nil when the transform collapses the layer.
    var glyphScale: Double? {
        if translatesOnly { return 1 }
        let scale = abs(determinant).squareRoot()
        return scale.isFinite && scale > 1e-3 ? scale : nil
    }
}

/// A layer's bounds rasterized at `scale` times their size, drawn through the layer's
/// transform at layer size.
struct ScaledOffscreen {
    let surface: Surface
    let bounds: Rect
    let scale: Double

    /// Nil when the scaled bounds are empty or too large to draw.
    init?(bounds: Rect, scale: Double) {
        let width = Int((bounds.width * scale).rounded(.up)), height = Int((bounds.height * scale).rounded(.up))
        guard width > 0, height > 0, width <= 16384, height <= 16384 else { return nil }
        (self.surface, self.bounds, self.scale) = (Surface(width: width, height: height), bounds, scale)
    }

    func draw(on target: Surface, transform: AffineTransform, clip: Clip) {
        let size = Size(width: Double(surface.width) / scale, height: Double(surface.height) / scale)
        target.draw(image: surface, in: Rect(origin: bounds.origin, size: size), transform: transform, clip: clip)
    }
}
