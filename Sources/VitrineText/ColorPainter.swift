import CFreeType
import Glibc
import VitrineCore
import VitrineRaster

/// Draws one COLR glyph with VitrineRaster: a v1 paint graph (solid fills, linear, radial
/// and sweep gradients, transforms, glyph clips, composites) read by `ColrTable`, or v0
/// layers (outlines filled with palette colours) read through FreeType.
///
/// Paint coordinates are font units, y up; `root` maps them to the glyph's pixels, y down,
/// from the pen on the baseline. Palette entry 0xFFFF (the text colour) is drawn black.
struct ColorPainter {
    private let owner: FontFace
    private let face: FT_Face
    private var root: AffineTransform
    private let maximumPixels: Int
    private var depth = 0
    private var outlines: [UInt32: Path] = [:]

    /// How deep paints may nest (`PaintColrGlyph` may even loop in a broken font).
    static let maximumDepth = 64

    init(face: FontFace, size: Double, shift: Double, maximumPixels: Int) {
        owner = face
        self.face = face.face
        self.maximumPixels = maximumPixels
        let s = size / Double(max(1, face.unitsPerEm))
        root = AffineTransform(a: s, b: 0, c: 0, d: -s, tx: shift, ty: 0)
    }

    /// True when `glyph` has a v1 paint or v0 layers.
    static func hasPaint(face: FontFace, glyph: UInt32) -> Bool {
        if face.color.paints?.rootPaint(of: glyph) != nil { return true }
        var iterator = FT_LayerIterator()
        var layer: FT_UInt = 0, index: FT_UInt = 0
        return FT_Get_Color_Glyph_Layer(face.face, glyph, &layer, &index, &iterator) != 0
    }

    /// The glyph drawn, nil when it has no COLR data.
    mutating func render(_ glyph: UInt32) -> GlyphMask? {
        if let table = owner.color.paints, let root = table.rootPaint(of: glyph) {
            var ink = table.clipBox(of: glyph)
            if ink == nil { ink = bounds(of: root, in: table, transform: .identity) }
            return draw(ink!) { painter, surface, transform in
                painter.paint(root, in: table, transform: transform, clip: Clip(rect: surface.bounds), on: surface)
            }
        }
        var layers: [(glyph: UInt32, color: PremultipliedColor)] = []
        var iterator = FT_LayerIterator()
        var layer: FT_UInt = 0, index: FT_UInt = 0
        while FT_Get_Color_Glyph_Layer(face, glyph, &layer, &index, &iterator) != 0 {
            layers.append((UInt32(layer), PremultipliedColor(paletteColor(Int(index), alpha: 1))))
        }
        guard !layers.isEmpty else { return nil }
        let ink = layers.reduce(Rect.null) { $0.union(outline($1.glyph).controlBounds) }
        return draw(ink) { painter, surface, transform in
            for layer in layers { surface.fill(painter.outline(layer.glyph), color: layer.color, transform: transform) }
        }
    }

    /// Runs `body` on a surface covering `ink` (font units) mapped to pixels, with the
    /// transform from font units to that surface.
    private mutating func draw(
        _ ink: Rect, _ body: (inout ColorPainter, Surface, AffineTransform) -> Void
    ) -> GlyphMask? {
        var pixels = PixelRect(covering: root.boundingBox(of: ink))
        guard !pixels.isEmpty else { return GlyphMask.empty }
        let area = Double(pixels.width) * Double(pixels.height)
        if area > Double(maximumPixels) {
            let k = (Double(maximumPixels) / area).squareRoot()
            root = root.concatenating(AffineTransform(scaleX: k, y: k))
            pixels = PixelRect(covering: root.boundingBox(of: ink))
        }
        let surface = Surface(width: pixels.width, height: pixels.height)
        let transform = root.concatenating(AffineTransform(translationX: Double(-pixels.x), y: Double(-pixels.y)))
        body(&self, surface, transform)
        return GlyphMask(image: surface, left: pixels.x, top: -pixels.y)
    }

    /// The union of the glyph outlines the paint at `p` draws through, mapped by `transform`.
    private mutating func bounds(of p: Int, in table: ColrTable, transform: AffineTransform) -> Rect {
        guard depth < Self.maximumDepth, let paint = table.paint(at: p) else { return .null }
        depth += 1
        defer { depth -= 1 }
        switch paint {
        case .layers(let range):
            return range.reduce(Rect.null) { ink, i in
                guard let layer = table.layer(i) else { return ink }
                return ink.union(bounds(of: layer, in: table, transform: transform))
            }
        case .glyph(let glyph, _):
            return outline(glyph).applying(transform).controlBounds
        case .colrGlyph(let glyph):
            return table.rootPaint(of: glyph).map { bounds(of: $0, in: table, transform: transform) } ?? .null
        case .composite(let source, _, let backdrop):
            return bounds(of: source, in: table, transform: transform).union(bounds(of: backdrop, in: table, transform: transform))
        case .transform(let m, let child):
            return bounds(of: child, in: table, transform: m.concatenating(transform))
        case .solid, .linear, .radial, .sweep:
            return .null
        }
    }

    /// Draws the paint at `p` on `surface` through `clip`, its coordinates mapped by
    /// `transform`.
    private mutating func paint(_ p: Int, in table: ColrTable, transform: AffineTransform, clip: Clip, on surface: Surface) {
        guard depth < Self.maximumDepth, !clip.rect.isEmpty, let paint = table.paint(at: p) else { return }
        depth += 1
        defer { depth -= 1 }
        switch paint {
        case .layers(let range):
            for i in range {
                if let layer = table.layer(i) { self.paint(layer, in: table, transform: transform, clip: clip, on: surface) }
            }
        case .solid(let index, let alpha):
            surface.fill(clip.rect.rect, color: PremultipliedColor(paletteColor(index, alpha: alpha)), clip: clip)
        case .linear(let line, _, _, _), .radial(let line, _, _, _, _), .sweep(let line, _, _, _):
            guard let inverse = transform.inverted, let shading = ColorGradient(paint, stops: colorStops(line), extend: line.extend) else {
                return
            }
            surface.composite(shading.image(covering: clip.rect, inverse: inverse), x: clip.rect.x, y: clip.rect.y, clip: clip)
        case .glyph(let glyph, let child):
            let shape = Clip(path: outline(glyph), transform: transform, within: clip.rect)
            self.paint(child, in: table, transform: transform, clip: clip.intersecting(shape), on: surface)
        case .colrGlyph(let glyph):
            if let root = table.rootPaint(of: glyph) { self.paint(root, in: table, transform: transform, clip: clip, on: surface) }
        case .composite(let source, let mode, let backdrop):
            let below = Surface(width: surface.width, height: surface.height)
            let above = Surface(width: surface.width, height: surface.height)
            let whole = Clip(rect: clip.rect)
            self.paint(backdrop, in: table, transform: transform, clip: whole, on: below)
            self.paint(source, in: table, transform: transform, clip: whole, on: above)
            CompositeMode(mode).apply(above, onto: below, area: clip.rect)
            surface.composite(below, x: 0, y: 0, clip: clip)
        case .transform(let m, let child):
            self.paint(child, in: table, transform: m.concatenating(transform), clip: clip, on: surface)
        }
    }

    /// The straight colour of palette entry `index` with its alpha scaled by `alpha`.
    private func paletteColor(_ index: Int, alpha: Double) -> Color {
        var color = index < owner.color.palette.count ? owner.color.palette[index] : Color(red: 0, green: 0, blue: 0)
        color.alpha *= min(1, max(0, alpha))
        return color
    }

    /// A colour line's stops as premultiplied colours (0…255 per channel).
    private func colorStops(_ line: ColrTable.ColorLine) -> [(offset: Double, color: SIMD4<Float>)] {
        line.stops.map { stop in
            let c = paletteColor(stop.paletteIndex, alpha: stop.alpha)
            let a = Float(c.alpha)
            return (stop.offset, SIMD4(Float(c.blue) * a, Float(c.green) * a, Float(c.red) * a, a) * 255)
        }
    }

    /// The outline of `glyph` in font units, y up.
    private mutating func outline(_ glyph: UInt32) -> Path {
        if let path = outlines[glyph] { return path }
        var path = Path()
        if FT_Load_Glyph(face, glyph, vitrine_ft_load_no_scale | vitrine_ft_load_no_bitmap) == 0, let slot = face.pointee.glyph,
            slot.pointee.format == vitrine_ft_glyph_format_outline
        {
            path = OutlineReader.path(of: &slot.pointee.outline)
        }
        outlines[glyph] = path
        return path
    }
}

/// FreeType outlines as `Path`s.
enum OutlineReader {
    /// The outline's contours as closed subpaths, in the outline's units.
    static func path(of outline: inout FT_Outline) -> Path {
        var funcs = FT_Outline_Funcs(
            move_to: { to, user in
                let p = user!.assumingMemoryBound(to: Path.self)
                if !p.pointee.isEmpty { p.pointee.close() }
                p.pointee.move(to: Point(x: Double(to!.pointee.x), y: Double(to!.pointee.y)))
                return 0
            },
            line_to: { to, user in
                user!.assumingMemoryBound(to: Path.self).pointee.addLine(to: Point(x: Double(to!.pointee.x), y: Double(to!.pointee.y)))
                return 0
            },
            conic_to: { c, to, user in
                user!.assumingMemoryBound(to: Path.self).pointee.addQuadCurve(
                    to: Point(x: Double(to!.pointee.x), y: Double(to!.pointee.y)), control: Point(x: Double(c!.pointee.x), y: Double(c!.pointee.y)))
                return 0
            },
            cubic_to: { c1, c2, to, user in
                user!.assumingMemoryBound(to: Path.self).pointee.addCurve(
                    to: Point(x: Double(to!.pointee.x), y: Double(to!.pointee.y)),
                    control1: Point(x: Double(c1!.pointee.x), y: Double(c1!.pointee.y)),
                    control2: Point(x: Double(c2!.pointee.x), y: Double(c2!.pointee.y)))
                return 0
            },
            shift: 0, delta: 0)
        var result = Path()
        _ = withUnsafeMutablePointer(to: &result) { FT_Outline_Decompose(&outline, &funcs, $0) }
        if !result.isEmpty { result.close() }
        return result
    }
}
