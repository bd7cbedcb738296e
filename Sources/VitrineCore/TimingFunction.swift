import Glibc

/// A cubic Bézier easing curve from (0, 0) to (1, 1), as CAMediaTimingFunction.
///
/// `progress(at:)` solves x(s) = t for the curve parameter s (Newton's method, falling
/// back to bisection), so the result is accurate to 1e-7 or better in progress.
public struct TimingFunction: Hashable, Sendable, CustomStringConvertible {
    public let c1x, c1y, c2x, c2y: Double

    /// A curve through the control points (c1x, c1y) and (c2x, c2y). The x coordinates
    /// must lie in 0…1 so that the curve is a function of time; y may overshoot.
    public init(controlPoints c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double) throws(CoreError) {
        guard [c1x, c1y, c2x, c2y].allSatisfy(\.isFinite), (0...1).contains(c1x), (0...1).contains(c2x),
            abs(c1y) <= 100, abs(c2y) <= 100
        else {
            throw .invalidTiming("control points need x in 0…1 and finite y, got [\(c1x), \(c1y), \(c2x), \(c2y)]")
        }
        (self.c1x, self.c1y, self.c2x, self.c2y) = (c1x, c1y, c2x, c2y)
    }

    private init(_ c1x: Double, _ c1y: Double, _ c2x: Double, _ c2y: Double) {
        (self.c1x, self.c1y, self.c2x, self.c2y) = (c1x, c1y, c2x, c2y)
    }

    public static let linear = TimingFunction(0, 0, 1, 1)
    public static let easeIn = TimingFunction(0.42, 0, 1, 1)
    public static let easeOut = TimingFunction(0, 0, 0.58, 1)
    public static let easeInEaseOut = TimingFunction(0.42, 0, 0.58, 1)
    /// CA's kCAMediaTimingFunctionDefault.
    public static let `default` = TimingFunction(0.25, 0.1, 0.25, 1)

    /// The named curves, by their wire names.
    public static let named: [String: TimingFunction] = [
        "linear": .linear, "easeIn": .easeIn, "easeOut": .easeOut,
        "easeInEaseOut": .easeInEaseOut, "default": .default,
    ]

    /// The curve's name if it is a named one, else its control points.
    public var description: String {
        Self.named.first { $0.value == self }?.key
            ?? "[\(c1x.shortDescription), \(c1y.shortDescription), \(c2x.shortDescription), \(c2y.shortDescription)]"
    }

    public var isLinear: Bool { c1x == c1y && c2x == c2y }

    /// The eased progress at time fraction `t` (clamped to 0…1).
    public func progress(at t: Double) -> Double {
        if t <= 0 { return 0 }
        if t >= 1 { return 1 }
        if isLinear { return t }
        return bezier(solveParameter(forX: t), c1y, c2y)
    }

    /// The curve parameter s with x(s) = x.
    func solveParameter(forX x: Double) -> Double {
        var s = x
        for _ in 0..<8 {
            let error = bezier(s, c1x, c2x) - x
            if abs(error) < 1e-12 { return s }
            let slope = bezierDerivative(s, c1x, c2x)
            if abs(slope) < 1e-9 { break }
            s -= error / slope
            if s < 0 || s > 1 { break }
        }
        var lo = 0.0, hi = 1.0
        s = x
        for _ in 0..<64 {
            let value = bezier(s, c1x, c2x)
            if abs(value - x) < 1e-12 { return s }
            if value < x { lo = s } else { hi = s }
            s = (lo + hi) / 2
        }
        return s
    }
}

/// One coordinate of the cubic Bézier with end points 0 and 1 and control values p1, p2.
@inline(__always)
func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
    let u = 1 - s
    return 3 * u * u * s * p1 + 3 * u * s * s * p2 + s * s * s
}

@inline(__always)
func bezierDerivative(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
    let u = 1 - s
    return 3 * u * u * p1 + 6 * u * s * (p2 - p1) + 3 * s * s * (1 - p2)
}
