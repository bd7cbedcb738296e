import VitrineCore

/// A colour ramp with `CAGradientLayer` semantics: `colors` at `locations` (evenly spaced
/// when nil), from `startPoint` to `endPoint` given in the unit coordinates of the bounds
/// being filled (0,0 is the min-x min-y corner, y-down). Colours are interpolated as
/// `Color.interpolate` does (in premultiplied space); beyond the ends the end colours
/// continue.
public struct Gradient: Sendable, Equatable {
    /// How positions map to the ramp (`CAGradientLayerType`).
    public enum Kind: Sendable, Equatable {
        /// Lines of equal colour are perpendicular to start → end.
        case axial
        /// Ellipses centred at `startPoint`; `endPoint` sets the horizontal and vertical
        /// radii (|end.x − start.x| and |end.y − start.y| of the bounds), where the last
        /// colour is reached.
        case radial
    }

    /// Straight colours along the ramp.
    public var colors: [Color]
    /// Ramp positions (0…1) of `colors`, increasing; nil spaces them evenly.
    public var locations: [Double]?
    /// Where the ramp starts, in unit coordinates of the bounds.
    public var startPoint: Point
    /// Where the ramp ends (axial) or the radii it reaches (radial).
    public var endPoint: Point
    /// Axial or radial.
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
        guard let first = colors.first else { return .clear }
        guard colors.count > 1 else { return first }
        let stops = resolvedLocations
        if !(t > stops[0]) { return first }
        for i in 1..<colors.count where t <= stops[i] {
            let span = stops[i] - stops[i - 1]
            let f = span > 0 ? (t - stops[i - 1]) / span : 1
            return Color.interpolate(colors[i - 1], colors[i], f)
        }
        return colors[colors.count - 1]
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
    /// through `transform` into device space, OVER this surface with `opacity`.
    public func fill(
        _ path: Path, gradient: Gradient, bounds: Rect, transform: AffineTransform = .identity, opacity: Double = 1,
        clip: Clip? = nil
    ) {
        let o = UInt8((min(1, max(0, opacity.isNaN ? 0 : opacity)) * 255).rounded())
        guard o != 0, !gradient.colors.isEmpty, bounds.width > 0, bounds.height > 0 else { return }
        // Unit square → layer bounds → device; the shader walks the inverse.
        let unitToDevice = AffineTransform(
            a: bounds.width, b: 0, c: 0, d: bounds.height, tx: bounds.minX, ty: bounds.minY
        ).concatenating(transform)
        guard let inverse = unitToDevice.inverted else { return }
        let shader = GradientShader(gradient, inverse: inverse)
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
    public func fill(_ rect: Rect, gradient: Gradient, transform: AffineTransform = .identity, opacity: Double = 1, clip: Clip? = nil) {
        fill(Path(rect: rect), gradient: gradient, bounds: rect, transform: transform, opacity: opacity, clip: clip)
    }
}

/// Looks gradient colours up in a premultiplied table indexed by ramp position.
final class GradientShader: Shader {
    static let steps = 1024
    let table: UnsafeMutablePointer<UInt32>
    let kind: Gradient.Kind
    let inverse: AffineTransform
    let start: Point
    /// Axial: end − start divided by its squared length. Radial: 1 / radii.
    let axis: (Double, Double)

    init(_ g: Gradient, inverse: AffineTransform) {
        table = .allocate(capacity: Self.steps + 1)
        for i in 0...Self.steps {
            table[i] = PremultipliedColor(g.color(at: Double(i) / Double(Self.steps))).argb
        }
        kind = g.kind
        self.inverse = inverse
        start = g.startPoint
        let dx = g.endPoint.x - g.startPoint.x, dy = g.endPoint.y - g.startPoint.y
        switch g.kind {
        case .axial:
            let len2 = dx * dx + dy * dy
            axis = len2 > 0 ? (dx / len2, dy / len2) : (0, 0)
        case .radial:
            var rx = abs(dx), ry = abs(dy)
            if rx == 0 { rx = ry }
            if ry == 0 { ry = rx }
            axis = rx > 0 ? (1 / rx, 1 / ry) : (0, 0)
        }
    }

    deinit { table.deallocate() }

    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        // Unit-space position of the first pixel centre and its step along the row.
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
            for i in 0..<count { out[i] = table[index(t0 + Double(i) * dt)] }
        case .radial:
            if axis == (0, 0) {
                out.update(repeating: table[Self.steps], count: count)
                return
            }
            let (kx, ky) = axis
            for i in 0..<count {
                let ex = (u + Double(i) * du) * kx, ey = (v + Double(i) * dv) * ky
                out[i] = table[index((ex * ex + ey * ey).squareRoot())]
            }
        }
    }
}
