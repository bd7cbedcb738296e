import VitrineCore

/// A colour ramp with `CAGradientLayer` semantics: `colors` at `locations` (evenly spaced
/// when nil), from `startPoint` to `endPoint` given in the unit coordinates of the bounds
/// being filled (0,0 is the min-x min-y corner, y-down) and mapped onto those bounds
/// before drawing. Colours are interpolated as
/// `Color.interpolate` does (in premultiplied space); beyond the ends the end colours
/// continue.
public struct Gradient: Sendable, Equatable {
    /// How positions map to the ramp (`CAGradientLayerType`).
    public enum Kind: String, Sendable, Equatable {
        /// Lines of equal colour are perpendicular to start → end.
        case axial
        /// Ellipses centred at `startPoint`; `endPoint` sets the horizontal and vertical
        /// radii (|end.x − start.x| and |end.y − start.y| of the bounds), where the last
        /// colour is reached. When one radius is zero the ellipse is a circle of the other.
        case radial
        /// Rays from `startPoint`: the ramp starts on the ray through `endPoint` and goes
        /// once round clockwise (on screen, y down), so position `t` is the angle
        /// `t · 360°` past that ray.
        case conic
    }

    /// Straight colours along the ramp.
    public var colors: [Color]
    /// Ramp positions (0…1) of `colors`, increasing; nil spaces them evenly.
    public var locations: [Double]?
    /// Where the ramp starts, in unit coordinates of the bounds.
    public var startPoint: Point
    /// Where the ramp ends (axial), the radii it reaches (radial) or the direction it
    /// starts in (conic).
    public var endPoint: Point
    /// Axial, radial or conic.
    public var kind: Kind

    /// Defaults match `CAGradientLayer`: top-centre to bottom-centre, axial.
    public init(
        colors: [Color], locations: [Double]? = nil, startPoint: Point = Point(x: 0.5, y: 0),
        endPoint: Point = Point(x: 0.5, y: 1), kind: Kind = .axial
    ) {
        self.colors = colors
        self.locations = locations
        self.startPoint = startPoint
        self.endPoint = endPoint
        self.kind = kind
    }

    /// The straight colour at ramp position `t` (0 at the first location's colour).
    public func color(at t: Double) -> Color {
        var segment = 1
        return color(at: t, stops: resolvedLocations, segment: &segment)
    }

    /// `color(at:)` for increasing `t`: `segment` remembers where the last lookup ended,
    /// so a whole ramp is sampled in one walk over the stops.
    func color(at t: Double, stops: [Double], segment: inout Int) -> Color {
        guard let first = colors.first else { return .clear }
        guard colors.count > 1 else { return first }
        if !(t > stops[0]) { return first }
        while segment < colors.count, !(t <= stops[segment]) { segment += 1 }
        guard segment < colors.count else { return colors[colors.count - 1] }
        let i = segment
        let span = stops[i] - stops[i - 1]
        let f = span > 0 ? (t - stops[i - 1]) / span : 1
        return Color.interpolate(colors[i - 1], colors[i], f)
    }

    /// The locations actually used: evenly spaced when none are given; a count mismatch
    /// also falls back to even spacing, as Core Animation ignores such an array.
    public var resolvedLocations: [Double] {
        if let locations, locations.count == colors.count { return locations }
        let n = colors.count
        return n < 2 ? [0] : (0..<n).map { Double($0) / Double(n - 1) }
    }
}

/// Fills through a gradient.
extension Surface {
    /// Fills `path` with `gradient` laid out over `bounds` (both in layer space), mapped
    /// through `transform` into device space, OVER this surface with `opacity`. With a
    /// `cache`, the gradient's colour table is built once for all the draws that use it.
    public func fill(
        _ path: Path, gradient: Gradient, bounds: Rect, transform: AffineTransform = .identity, opacity: Double = 1,
        clip: Clip? = nil, cache: GradientCache? = nil
    ) {
        guard let (shader, o) = GradientShader.make(gradient, bounds: bounds, transform: transform, opacity: opacity, cache: cache) else { return }
        let scratch = SpanScratch()
        let blitter = ShaderBlitter(surface: self, shader: shader, opacity: o, scratch: scratch)
        if let r = path.pixelAlignedRect(transform) {
            blitRect(r, blitter, clip: clip)
        } else {
            rasterize(path, transform: transform, clip: clip, blitter)
        }
    }

    /// Fills `rect` with `gradient` laid out over that same rectangle, as a
    /// `CAGradientLayer` with those bounds draws.
    public func fill(
        _ rect: Rect, gradient: Gradient, transform: AffineTransform = .identity, opacity: Double = 1, clip: Clip? = nil,
        cache: GradientCache? = nil
    ) {
        fill(Path(rect: rect), gradient: gradient, bounds: rect, transform: transform, opacity: opacity, clip: clip, cache: cache)
    }
}

/// Gradient fills into 8-bit alpha, for masks.
extension A8Mask {
    /// Sets the coverage under `path` to the alpha that `Surface.fill(_:gradient:…)` with
    /// the same arguments leaves on a transparent surface of the mask's size (mask-local
    /// pixels, the origin ignored); other bytes are left as they are.
    public func fill(
        _ path: Path, gradient: Gradient, bounds: Rect, transform: AffineTransform = .identity, opacity: Double = 1,
        clip: Clip? = nil, cache: GradientCache? = nil
    ) {
        guard let (shader, o) = GradientShader.make(gradient, bounds: bounds, transform: transform, opacity: opacity, cache: cache) else { return }
        let blitter = ShaderAlphaBlitter(mask: self, shader: shader, opacity: o, scratch: SpanScratch())
        let area = (clip?.rect ?? PixelRect(x: 0, y: 0, width: width, height: height)).intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !area.isEmpty else { return }
        var r = Rasterizer(clip: area)
        let rect = path.pixelAlignedRect(transform)?.intersection(area)
        if rect == nil { r.add(path, transform: transform) }
        guard let mask = clip?.mask else {
            var b = blitter
            if let rect { b.blitRect(rect) } else { r.fill(into: &b) }
            return
        }
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, mask.width))
        defer { scratch.deallocate() }
        var b = MaskClipBlitter(blitter, clip: mask, scratch: scratch)
        if let rect { b.blitRect(rect) } else { r.fill(into: &b) }
    }
}

/// Looks gradient colours up in a premultiplied table indexed by ramp position.
///
/// Works in layer space, where Core Animation draws the ramp after mapping the unit
/// points onto the bounds: an axial ramp's bands are perpendicular to start → end there,
/// not in the unit square (they differ when the bounds are not square).
final class GradientShader: Shader {
    static let steps = GradientRamp.steps
    let table: UnsafeMutablePointer<UInt32>
    /// Owns `table`.
    let ramp: GradientRamp
    let kind: Gradient.Kind
    let inverse: AffineTransform
    let start: Point
    /// Axial: end − start divided by its squared length. Radial: 1 / radii. Conic: the
    /// start angle's cosine and sine.
    let axis: (Double, Double)
    /// Every colour of the ramp is opaque.
    var isOpaque: Bool { ramp.isOpaque }
    /// An axial ramp along x of layer space, mapped without skewing rows: `shade`'s
    /// position depends on x alone (the y terms are exact zeros).
    let rowsRepeat: Bool

    /// `inverse` maps device space to layer space; `ramp` must be `g`'s.
    init(_ g: Gradient, bounds: Rect, inverse: AffineTransform, ramp: GradientRamp? = nil) {
        self.ramp = ramp ?? GradientRamp(g)
        table = self.ramp.table
        kind = g.kind
        self.inverse = inverse
        func layer(_ p: Point) -> Point {
            Point(x: bounds.minX + p.x * bounds.width, y: bounds.minY + p.y * bounds.height)
        }
        start = layer(g.startPoint)
        let end = layer(g.endPoint)
        let dx = end.x - start.x, dy = end.y - start.y
        switch g.kind {
        case .axial:
            let len2 = dx * dx + dy * dy
            axis = len2 > 0 ? (dx / len2, dy / len2) : (0, 0)
        case .radial:
            var rx = abs(dx), ry = abs(dy)
            if rx == 0 { rx = ry }
            if ry == 0 { ry = rx }
            axis = rx > 0 ? (1 / rx, 1 / ry) : (0, 0)
        case .conic:
            let length = (dx * dx + dy * dy).squareRoot()
            axis = length > 0 ? (dx / length, dy / length) : (1, 0)
        }
        let bounded = [inverse.a, inverse.b, inverse.c, inverse.d, inverse.tx, inverse.ty].allSatisfy { abs($0) < 1e12 }
        rowsRepeat = g.kind == .axial && axis.1 == 0 && inverse.c == 0 && bounded
    }

    /// The shader for a fill of `gradient` over `bounds` through `transform`, and the fill's
    /// opacity in 8 bits; nil when the fill draws nothing.
    static func make(
        _ gradient: Gradient, bounds: Rect, transform: AffineTransform, opacity: Double, cache: GradientCache?
    ) -> (GradientShader, UInt8)? {
        let o = UInt8((min(1, max(0, opacity.isNaN ? 0 : opacity)) * 255).rounded())
        guard o != 0, !gradient.colors.isEmpty, bounds.width > 0, bounds.height > 0, let inverse = transform.inverted else { return nil }
        return (GradientShader(gradient, bounds: bounds, inverse: inverse, ramp: cache?.ramp(for: gradient)), o)
    }

    /// Writes `table[clamp(p >> 32)]` for the positions `p = position + i·step`: the
    /// stretches before and after the ramp as constant fills, the ramp itself without
    /// clamping.
    static func ramp(
        _ table: UnsafePointer<UInt32>, top: Int64, from position: Int64, step: Int64, count: Int,
        into out: UnsafeMutablePointer<UInt32>
    ) {
        // The positions whose index is inside 0...top.
        let low: Int64 = 0, high = (top << 32) | 0xFFFF_FFFF
        // The number of leading pixels below (step > 0) or above (step < 0) the ramp, then
        // the number inside it; positions are bounded by 2^55, so nothing overflows.
        var before = 0, inside = count
        if step > 0 {
            if position < low { before = Int(min(Int64(count), (low - position + step - 1) / step)) }
            let first = position + Int64(before) * step
            inside = first > high ? 0 : Int(min(Int64(count - before), (high - first) / step + 1))
        } else if step < 0 {
            if position > high { before = Int(min(Int64(count), (position - high - step - 1) / -step)) }
            let first = position + Int64(before) * step
            inside = first < low ? 0 : Int(min(Int64(count - before), (first - low) / -step + 1))
        } else if position < low || position > high {
            (before, inside) = (count, 0)
        }
        if before > 0 {
            Kernels.fill(out, count: before, table[position < low ? 0 : Int(top)])
        }
        var p = position &+ Int64(before) &* step
        let dst = out + before
        var i = 0
        while i + 4 <= inside {
            dst[i] = table[Int(truncatingIfNeeded: p &>> 32)]
            dst[i + 1] = table[Int(truncatingIfNeeded: (p &+ step) &>> 32)]
            dst[i + 2] = table[Int(truncatingIfNeeded: (p &+ 2 &* step) &>> 32)]
            dst[i + 3] = table[Int(truncatingIfNeeded: (p &+ 3 &* step) &>> 32)]
            p &+= 4 &* step
            i += 4
        }
        while i < inside {
            dst[i] = table[Int(truncatingIfNeeded: p &>> 32)]
            p &+= step
            i += 1
        }
        let after = count - before - inside
        if after > 0 {
            Kernels.fill(dst + inside, count: after, table[p < low ? 0 : Int(top)])
        }
    }

    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        // Layer-space position of the first pixel centre relative to the start, and its
        // step along the row.
        let u = inverse.a * px + inverse.c * py + inverse.tx - start.x
        let v = inverse.b * px + inverse.d * py + inverse.ty - start.y
        let du = inverse.a, dv = inverse.b
        let scale = Double(Self.steps)
        @inline(__always) func index(_ t: Double) -> Int {
            guard t > 0 else { return 0 }
            return t >= 1 ? Self.steps : Int(t * scale + 0.5)
        }
        switch kind {
        case .axial:
            if axis == (0, 0) {
                out.update(repeating: table[Self.steps], count: count)
                return
            }
            let t0 = u * axis.0 + v * axis.1, dt = du * axis.0 + dv * axis.1
            let first = index(t0), last = index(t0 + Double(count - 1) * dt)
            if first == last {
                // Vertical ramps (CAGradientLayer's default) are constant along a row.
                out.update(repeating: table[first], count: count)
                return
            }
            // 32.32 fixed point: exact enough for any row, and no float→int per pixel.
            let one = Double(1 << 32)
            let position = Int64((min(4e6, max(-4e6, t0 * scale + 0.5)) * one).rounded(.down))
            let step = Int64((min(4e6, max(-4e6, dt * scale)) * one).rounded())
            Self.ramp(table, top: Int64(Self.steps), from: position, step: step, count: count, into: out)
        case .radial:
            if axis == (0, 0) {
                out.update(repeating: table[Self.steps], count: count)
                return
            }
            // Eight square roots at a time in single precision; the ramp has 1024 steps.
            let (kx, ky) = axis
            let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
            let ex0 = Float(u * kx * scale), ey0 = Float(v * ky * scale)
            let dex = Float(du * kx * scale), dey = Float(dv * ky * scale)
            let limit = Float(Self.steps)
            var i = 0
            while i < count {
                let k = lanes + Float(i)
                let ex = ex0 + k * dex, ey = ey0 + k * dey
                let t = (ex * ex + ey * ey).squareRoot()
                for j in 0..<min(8, count - i) {
                    let f = t[j] + 0.5
                    out[i + j] = table[f < limit ? Int(f) : Self.steps]
                }
                i += 8
            }
        case .conic:
            // Positions turned so that the start ray is angle 0, then eight angles at a time.
            let (c, s) = axis
            let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
            let x0 = Float(u * c + v * s), y0 = Float(v * c - u * s)
            let dx = Float(du * c + dv * s), dy = Float(dv * c - du * s)
            let scale = Float(Self.steps) / (2 * .pi)
            var i = 0
            while i < count {
                let k = lanes + Float(i)
                var t = Self.angle(y: y0 + k * dy, x: x0 + k * dx) * scale + 0.5
                t.replace(with: t + Float(Self.steps), where: t .< 0.5)
                for j in 0..<min(8, count - i) {
                    out[i + j] = table[min(Self.steps, Int(t[j]))]
                }
                i += 8
            }
        }
    }

    /// atan2(y, x) in −π…π, to within 1e-5 radians (a 7th-order odd polynomial).
    @inline(__always)
    static func angle(y: SIMD8<Float>, x: SIMD8<Float>) -> SIMD8<Float> {
        let ax = x.replacing(with: -x, where: x .< 0), ay = y.replacing(with: -y, where: y .< 0)
        let big = pointwiseMax(ax, ay), small = pointwiseMin(ax, ay)
        var a = small / big.replacing(with: 1, where: big .== 0)
        let s = a * a
        a = ((-0.046_496_474_9 * s + 0.159_314_22) * s - 0.327_622_764) * s * a + a
        a.replace(with: .pi / 2 - a, where: ay .> ax)
        a.replace(with: .pi - a, where: x .< 0)
        a.replace(with: -a, where: y .< 0)
        return a
    }
}
