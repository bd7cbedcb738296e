import CCairo
import VitrineCore
import VitrineRaster

/// cairo drawing on a `Surface`'s own pixels (cairo's ARGB32 is the same premultiplied
/// 0xAARRGGBB): the reference the tests and benchmarks compare paths and strokes with.
///
/// ```swift
/// let canvas = CairoCanvas(surface)
/// canvas.stroke(path, style: StrokeStyle(width: 4), color: .white)
/// ```
public final class CairoCanvas {
    public let surface: Surface
    private let target: OpaquePointer
    private let cr: OpaquePointer
    /// Every drawing is scaled by this much.
    private let scale: Double

    /// A canvas on `surface`, flattening curves to within `tolerance` device pixels
    /// (cairo's default is 0.1; Vitrine flattens to 0.05), drawing everything `scale`
    /// times larger.
    public init(_ surface: Surface, tolerance: Double = 0.05, scale: Double = 1) {
        self.surface = surface
        self.scale = scale
        let bytes = UnsafeMutableRawPointer(surface.pixels).assumingMemoryBound(to: UInt8.self)
        target = cairo_image_surface_create_for_data(bytes, CAIRO_FORMAT_ARGB32, Int32(surface.width), Int32(surface.height), Int32(surface.stride * 4))
        cr = cairo_create(target)
        cairo_set_tolerance(cr, tolerance)
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(target)
    }

    /// Fills `path` with `color` (OVER) by `rule`.
    public func fill(_ path: Path, color: Color, rule: FillRule = .nonZero, transform: AffineTransform = .identity) {
        begin(path, color: color, transform: transform)
        cairo_set_fill_rule(cr, rule == .evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// Strokes `path` with `color` (OVER) in `style`'s width, cap, join, miter limit and
    /// dashes (cairo has no strokeStart or strokeEnd).
    public func stroke(_ path: Path, style: StrokeStyle, color: Color, transform: AffineTransform = .identity) {
        begin(path, color: color, transform: transform)
        cairo_set_line_width(cr, style.width)
        cairo_set_line_cap(cr, [.butt: CAIRO_LINE_CAP_BUTT, .round: CAIRO_LINE_CAP_ROUND, .square: CAIRO_LINE_CAP_SQUARE][style.cap]!)
        cairo_set_line_join(cr, [.miter: CAIRO_LINE_JOIN_MITER, .round: CAIRO_LINE_JOIN_ROUND, .bevel: CAIRO_LINE_JOIN_BEVEL][style.join]!)
        cairo_set_miter_limit(cr, style.miterLimit)
        cairo_set_dash(cr, style.dashes, Int32(style.dashes.count), style.dashPhase)
        // The stroke in path space, as Core Animation's, and flattened for the device.
        cairo_stroke(cr)
        cairo_restore(cr)
    }

    /// Draws what is pending into the surface's memory.
    public func flush() { cairo_surface_flush(target) }

    /// What cairo draws with `factor` × `factor` samples per pixel, averaged: cairo finds
    /// the coverage of an edge that is not vertical from a few sample rows per pixel (up
    /// to 16/255 off on a shallow edge), so at 8 × 8 it is within about 2/255 of the
    /// exact coverage.
    public static func supersampled(width: Int, height: Int, factor: Int = 8, _ draw: (CairoCanvas) -> Void) -> Surface {
        let big = Surface(width: width * factor, height: height * factor)
        let canvas = CairoCanvas(big, tolerance: 1.0 / 64, scale: Double(factor))
        draw(canvas)
        canvas.flush()
        let out = Surface(width: width, height: height)
        let n = UInt32(factor * factor)
        for y in 0..<height {
            for x in 0..<width {
                var sum: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
                for sy in 0..<factor {
                    let row = big.pixels + (y * factor + sy) * big.stride + x * factor
                    for sx in 0..<factor {
                        let p = row[sx]
                        sum.0 += p >> 24
                        sum.1 += (p >> 16) & 0xff
                        sum.2 += (p >> 8) & 0xff
                        sum.3 += p & 0xff
                    }
                }
                func avg(_ v: UInt32) -> UInt32 { (v + n / 2) / n }
                out.pixels[y * out.stride + x] = avg(sum.0) << 24 | avg(sum.1) << 16 | avg(sum.2) << 8 | avg(sum.3)
            }
        }
        return out
    }

    private func begin(_ path: Path, color: Color, transform: AffineTransform) {
        let t = transform.concatenating(AffineTransform(scaleX: scale, y: scale))
        cairo_surface_mark_dirty(target)
        cairo_save(cr)
        var m = cairo_matrix_t(xx: t.a, yx: t.b, xy: t.c, yy: t.d, x0: t.tx, y0: t.ty)
        cairo_set_matrix(cr, &m)
        cairo_set_source_rgba(cr, color.red, color.green, color.blue, color.alpha)
        cairo_new_path(cr)
        for e in path.elements {
            switch e {
            case .move(let p): cairo_move_to(cr, p.x, p.y)
            case .line(let p): cairo_line_to(cr, p.x, p.y)
            case .quad(let p, let c):
                var x0 = 0.0, y0 = 0.0
                cairo_get_current_point(cr, &x0, &y0)
                cairo_curve_to(cr, x0 + 2 / 3 * (c.x - x0), y0 + 2 / 3 * (c.y - y0), p.x + 2 / 3 * (c.x - p.x), p.y + 2 / 3 * (c.y - p.y), p.x, p.y)
            case .cubic(let p, let c1, let c2): cairo_curve_to(cr, c1.x, c1.y, c2.x, c2.y, p.x, p.y)
            case .close: cairo_close_path(cr)
            }
        }
    }
}
