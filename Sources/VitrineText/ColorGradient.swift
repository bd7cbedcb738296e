import CFreeType
import Glibc
import VitrineCore
import VitrineRaster

/// A COLRv1 gradient: linear (p0, p1 and the rotation point p2), radial (two circles) or
/// sweep (angles in degrees around a centre), over a colour line with pad, repeat or reflect
/// extension. Colours are interpolated premultiplied.
struct ColorGradient {
    private enum Geometry {
        case linear(origin: Point, axis: Point)
        case radial(c0: Point, r0: Double, c1: Point, r1: Double)
        case sweep(centre: Point, start: Double, end: Double)
    }

    private let geometry: Geometry
    private let offsets: [Double]
    private let colors: [SIMD4<Float>]
    private let extend: Int

    /// The gradient of `paint` with its colour line's premultiplied stops and extend mode
    /// (0 pad, 1 repeat, 2 reflect); nil when it has no stops or is not a gradient.
    init?(_ paint: ColrTable.Paint, stops: [(offset: Double, color: SIMD4<Float>)], extend: Int) {
        guard !stops.isEmpty else { return nil }
        switch paint {
        case .linear(_, let p0, let p1, let p2):
            // The gradient runs from p0 along p0→p1 projected onto the normal of p0→p2.
            let normal = Point(x: -(p2.y - p0.y), y: p2.x - p0.x)
            let nn = normal.x * normal.x + normal.y * normal.y
            let d = p1 - p0
            let k = nn > 0 ? (d.x * normal.x + d.y * normal.y) / nn : 0
            geometry = .linear(origin: p0, axis: nn > 0 ? Point(x: normal.x * k, y: normal.y * k) : d)
        case .radial(_, let c0, let r0, let c1, let r1):
            geometry = .radial(c0: c0, r0: r0, c1: c1, r1: r1)
        case .sweep(_, let centre, let start, let end):
            geometry = .sweep(centre: centre, start: start, end: end)
        default:
            return nil
        }
        offsets = stops.map(\.offset)
        colors = stops.map(\.color)
        self.extend = extend
    }

    /// The gradient's pixels over `rect` (device pixels), `inverse` mapping device points
    /// to the gradient's space.
    func image(covering rect: PixelRect, inverse: AffineTransform) -> Surface {
        let out = Surface(width: rect.width, height: rect.height)
        for y in 0..<rect.height {
            let row = out.pixels + y * out.stride
            for x in 0..<rect.width {
                let p = inverse.apply(to: Point(x: Double(rect.x + x) + 0.5, y: Double(rect.y + y) + 0.5))
                guard let t = position(p) else { continue }
                let c = color(at: t)
                let a = c[3].rounded()
                let b = UInt32(min(a, c[0].rounded())), g = UInt32(min(a, c[1].rounded())), r = UInt32(min(a, c[2].rounded()))
                row[x] = UInt32(a) << 24 | r << 16 | g << 8 | b
            }
        }
        return out
    }

    /// The colour line position of point `p`; nil where a radial gradient is undefined.
    private func position(_ p: Point) -> Double? {
        switch geometry {
        case .linear(let origin, let axis):
            let length = axis.x * axis.x + axis.y * axis.y
            guard length > 0 else { return 0 }
            return ((p.x - origin.x) * axis.x + (p.y - origin.y) * axis.y) / length
        case .radial(let c0, let r0, let c1, let r1):
            // The largest t with |p − c(t)| = r(t) and r(t) ≥ 0.
            let dc = c1 - c0, dr = r1 - r0, q = p - c0
            let a = dc.x * dc.x + dc.y * dc.y - dr * dr
            let b = q.x * dc.x + q.y * dc.y + r0 * dr
            let c = q.x * q.x + q.y * q.y - r0 * r0
            if abs(a) < 1e-9 {
                guard b != 0 else { return nil }
                let t = c / (2 * b)
                return r0 + t * dr >= 0 ? t : nil
            }
            let discriminant = b * b - a * c
            guard discriminant >= 0 else { return nil }
            let root = discriminant.squareRoot()
            for t in [(b + root) / a, (b - root) / a].sorted(by: >) where r0 + t * dr >= 0 { return t }
            return nil
        case .sweep(let centre, let start, let end):
            var angle = atan2(p.y - centre.y, p.x - centre.x) * 180 / .pi
            if angle < 0 { angle += 360 }
            guard end != start else { return angle < start ? 0 : 1 }
            return (angle - start) / (end - start)
        }
    }

    /// The premultiplied colour (0…255 per channel) at colour-line position `t`.
    private func color(at t: Double) -> SIMD4<Float> {
        let first = offsets[0], last = offsets[offsets.count - 1]
        var t = t
        let span = last - first
        if span > 0 {
            switch extend {
            case 1:
                let f = (t - first) / span
                t = first + (f - f.rounded(.down)) * span
            case 2:
                let f = (t - first) / span
                var m = f.truncatingRemainder(dividingBy: 2)
                if m < 0 { m += 2 }
                t = first + (m <= 1 ? m : 2 - m) * span
            default: break
            }
        }
        if t <= first { return colors[0] }
        if t >= last { return colors[colors.count - 1] }
        var i = 1
        while offsets[i] < t { i += 1 }
        let width = offsets[i] - offsets[i - 1]
        let f = Float(width > 0 ? (t - offsets[i - 1]) / width : 1)
        return colors[i - 1] + (colors[i] - colors[i - 1]) * f
    }
}

/// How a COLRv1 composite paint combines its source with its backdrop: the Porter-Duff
/// operators and the separable blend modes; the HSL modes draw as source-over.
struct CompositeMode {
    private let mode: FT_Composite_Mode

    /// The mode numbered as in the COLR table.
    init(_ mode: Int) { self.mode = FT_Composite_Mode(UInt32(min(max(mode, 0), 27))) }

    /// Combines `source` into `backdrop` (same sizes, premultiplied) within `area`.
    func apply(_ source: Surface, onto backdrop: Surface, area: PixelRect) {
        for y in area.y..<area.maxY {
            let s = source.pixels + y * source.stride, d = backdrop.pixels + y * backdrop.stride
            for x in area.x..<area.maxX { d[x] = Self.pack(combine(Self.unpack(s[x]), Self.unpack(d[x]))) }
        }
    }

    private static func unpack(_ p: UInt32) -> SIMD4<Float> {
        SIMD4(Float(p & 0xFF), Float(p >> 8 & 0xFF), Float(p >> 16 & 0xFF), Float(p >> 24)) / 255
    }

    private static func pack(_ c: SIMD4<Float>) -> UInt32 {
        let a = min(1, max(0, c[3]))
        let v = (c.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: a)) * 255).rounded(.toNearestOrAwayFromZero)
        return UInt32(v[3]) << 24 | UInt32(v[2]) << 16 | UInt32(v[1]) << 8 | UInt32(v[0])
    }

    /// The result of source `s` on backdrop `b`, both premultiplied 0…1.
    private func combine(_ s: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        let sa = s[3], ba = b[3]
        func porterDuff(_ fs: Float, _ fb: Float) -> SIMD4<Float> { s * fs + b * fb }
        switch mode {
        case FT_COLR_COMPOSITE_CLEAR: return .zero
        case FT_COLR_COMPOSITE_SRC: return s
        case FT_COLR_COMPOSITE_DEST: return b
        case FT_COLR_COMPOSITE_DEST_OVER: return porterDuff(1 - ba, 1)
        case FT_COLR_COMPOSITE_SRC_IN: return porterDuff(ba, 0)
        case FT_COLR_COMPOSITE_DEST_IN: return porterDuff(0, sa)
        case FT_COLR_COMPOSITE_SRC_OUT: return porterDuff(1 - ba, 0)
        case FT_COLR_COMPOSITE_DEST_OUT: return porterDuff(0, 1 - sa)
        case FT_COLR_COMPOSITE_SRC_ATOP: return porterDuff(ba, 1 - sa)
        case FT_COLR_COMPOSITE_DEST_ATOP: return porterDuff(1 - ba, sa)
        case FT_COLR_COMPOSITE_XOR: return porterDuff(1 - ba, 1 - sa)
        case FT_COLR_COMPOSITE_PLUS: return (s + b).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 1))
        default:
            guard let blend = separableBlend else { return porterDuff(1, 1 - sa) }
            // Straight colours blended, then composited: (1−ab)·S + (1−as)·B + as·ab·B(cs, cb).
            let cs = sa > 0 ? s / sa : .zero, cb = ba > 0 ? b / ba : .zero
            var out = s * (1 - ba) + b * (1 - sa)
            for i in 0..<3 { out[i] += sa * ba * blend(cs[i], cb[i]) }
            out[3] = sa + ba - sa * ba
            return out
        }
    }

    /// The per-channel blend function of a separable blend mode.
    private var separableBlend: ((Float, Float) -> Float)? {
        func hardLight(_ s: Float, _ b: Float) -> Float { s <= 0.5 ? 2 * s * b : 1 - 2 * (1 - s) * (1 - b) }
        switch mode {
        case FT_COLR_COMPOSITE_MULTIPLY: return { $0 * $1 }
        case FT_COLR_COMPOSITE_SCREEN: return { $0 + $1 - $0 * $1 }
        case FT_COLR_COMPOSITE_OVERLAY: return { hardLight($1, $0) }
        case FT_COLR_COMPOSITE_DARKEN: return { min($0, $1) }
        case FT_COLR_COMPOSITE_LIGHTEN: return { max($0, $1) }
        case FT_COLR_COMPOSITE_COLOR_DODGE: return { s, b in b == 0 ? 0 : s >= 1 ? 1 : min(1, b / (1 - s)) }
        case FT_COLR_COMPOSITE_COLOR_BURN: return { s, b in b >= 1 ? 1 : s <= 0 ? 0 : 1 - min(1, (1 - b) / s) }
        case FT_COLR_COMPOSITE_HARD_LIGHT: return hardLight
        case FT_COLR_COMPOSITE_SOFT_LIGHT:
            return { s, b in
                if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
                let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
                return b + (2 * s - 1) * (d - b)
            }
        case FT_COLR_COMPOSITE_DIFFERENCE: return { abs($0 - $1) }
        case FT_COLR_COMPOSITE_EXCLUSION: return { $0 + $1 - 2 * $0 * $1 }
        default: return nil
        }
    }
}
