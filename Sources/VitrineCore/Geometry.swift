import Glibc

/// A point in a layer's coordinate space (y grows downwards, as on iOS).
public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    public var description: String { "[\(x.shortDescription), \(y.shortDescription)]" }

    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
}

/// A width and a height.
public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public static let zero = Size(width: 0, height: 0)

    public var description: String { "[\(width.shortDescription), \(height.shortDescription)]" }
}

/// An origin and a size. Geometry functions treat negative sizes as CGRect does, by
/// standardizing first.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The null rectangle: the identity of `union`, and what `intersection` returns for
    /// disjoint rectangles.
    public static let null = Rect(x: .infinity, y: .infinity, width: 0, height: 0)

    public var isNull: Bool { origin.x == .infinity || origin.y == .infinity }
    /// True for the null rectangle and for rectangles without area.
    public var isEmpty: Bool { isNull || size.width == 0 || size.height == 0 }

    public var minX: Double { min(origin.x, origin.x + size.width) }
    public var minY: Double { min(origin.y, origin.y + size.height) }
    public var maxX: Double { max(origin.x, origin.x + size.width) }
    public var maxY: Double { max(origin.y, origin.y + size.height) }
    public var midX: Double { origin.x + size.width / 2 }
    public var midY: Double { origin.y + size.height / 2 }
    public var width: Double { abs(size.width) }
    public var height: Double { abs(size.height) }

    public var description: String {
        isNull
            ? "null"
            : "[\(origin.x.shortDescription), \(origin.y.shortDescription), "
                + "\(size.width.shortDescription), \(size.height.shortDescription)]"
    }

    /// The smallest rectangle containing both.
    public func union(_ other: Rect) -> Rect {
        if isNull { return other }
        if other.isNull { return self }
        let x0 = Swift.min(minX, other.minX), y0 = Swift.min(minY, other.minY)
        let x1 = Swift.max(maxX, other.maxX), y1 = Swift.max(maxY, other.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The common part, or `.null` where there is none.
    public func intersection(_ other: Rect) -> Rect {
        if isNull || other.isNull { return .null }
        let x0 = Swift.max(minX, other.minX), y0 = Swift.max(minY, other.minY)
        let x1 = Swift.min(maxX, other.maxX), y1 = Swift.min(maxY, other.maxY)
        if x1 < x0 || y1 < y0 { return .null }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func intersects(_ other: Rect) -> Bool {
        let common = intersection(other)
        return !common.isNull && common.width > 0 && common.height > 0
    }

    public func contains(_ p: Point) -> Bool {
        !isNull && p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }

    public func contains(_ r: Rect) -> Bool {
        r.isNull || (!isNull && r.minX >= minX && r.maxX <= maxX && r.minY >= minY && r.maxY <= maxY)
    }

    /// Grown by `dx` on the left and right and `dy` on the top and bottom (negative shrinks).
    public func insetBy(dx: Double, dy: Double) -> Rect {
        if isNull { return self }
        let w = width - 2 * dx, h = height - 2 * dy
        if w < 0 || h < 0 { return .null }
        return Rect(x: minX + dx, y: minY + dy, width: w, height: h)
    }

    public func offsetBy(dx: Double, dy: Double) -> Rect {
        isNull ? self : Rect(x: origin.x + dx, y: origin.y + dy, width: size.width, height: size.height)
    }

    /// The smallest rectangle with integer edges that contains this one.
    public var integral: Rect {
        if isNull { return self }
        let x0 = minX.rounded(.down), y0 = minY.rounded(.down)
        return Rect(x: x0, y: y0, width: maxX.rounded(.up) - x0, height: maxY.rounded(.up) - y0)
    }
}

/// A 2D affine transform in Core Graphics' convention: a point (x, y) maps to
/// (a·x + c·y + tx, b·x + d·y + ty).
public struct AffineTransform: Hashable, Sendable, CustomStringConvertible {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public init(translationX x: Double, y: Double) {
        self.init(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    public init(scaleX sx: Double, y sy: Double) {
        self.init(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// A rotation by `angle` radians; positive angles turn clockwise on a y-down screen,
    /// as on iOS.
    public init(rotationAngle angle: Double) {
        let (s, c) = (sin(angle), cos(angle))
        self.init(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
    }

    public var isIdentity: Bool { self == .identity }

    public var determinant: Double { a * d - b * c }

    /// `self` followed by `next` (CGAffineTransformConcat(self, next)).
    public func concatenating(_ next: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: a * next.a + b * next.c, b: a * next.b + b * next.d,
            c: c * next.a + d * next.c, d: c * next.b + d * next.d,
            tx: tx * next.a + ty * next.c + next.tx, ty: tx * next.b + ty * next.d + next.ty)
    }

    /// The inverse, or nil when the transform is singular.
    public var inverted: AffineTransform? {
        let det = determinant
        guard det != 0, det.isFinite else { return nil }
        return AffineTransform(
            a: d / det, b: -b / det, c: -c / det, d: a / det,
            tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }

    public func apply(to p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }

    /// The axis-aligned bounding box of the transformed rectangle.
    public func boundingBox(of r: Rect) -> Rect {
        if r.isNull { return r }
        if b == 0 && c == 0 {
            let x0 = a * r.minX + tx, x1 = a * r.maxX + tx, y0 = d * r.minY + ty, y1 = d * r.maxY + ty
            return Rect(x: min(x0, x1), y: min(y0, y1), width: abs(x1 - x0), height: abs(y1 - y0))
        }
        let p0 = apply(to: Point(x: r.minX, y: r.minY)), p1 = apply(to: Point(x: r.maxX, y: r.minY))
        let p2 = apply(to: Point(x: r.minX, y: r.maxY)), p3 = apply(to: Point(x: r.maxX, y: r.maxY))
        let x0 = min(min(p0.x, p1.x), min(p2.x, p3.x)), x1 = max(max(p0.x, p1.x), max(p2.x, p3.x))
        let y0 = min(min(p0.y, p1.y), min(p2.y, p3.y)), y1 = max(max(p0.y, p1.y), max(p2.y, p3.y))
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// True when the transform only scales (positively or not) and translates, so that
    /// rectangles stay axis-aligned.
    public var isAxisAligned: Bool { b == 0 && c == 0 }

    public var description: String {
        "[\([a, b, c, d, tx, ty].map(\.shortDescription).joined(separator: ", "))]"
    }
}

/// An affine transform taken apart as Core Animation does to interpolate it: scale,
/// shear, rotation and translation, recomposed as scale·shear, then rotation, then
/// translation.
public struct DecomposedTransform: Hashable, Sendable {
    public var translation: Size
    public var scale: Size
    /// Shear of the y axis along x, as a factor.
    public var shear: Double
    /// Radians, in (−π, π].
    public var rotation: Double

    public init(translation: Size, scale: Size, shear: Double, rotation: Double) {
        (self.translation, self.scale, self.shear, self.rotation) = (translation, scale, shear, rotation)
    }

    /// Takes `t` apart. A mirrored transform puts the mirroring into a negative x scale.
    public init(_ t: AffineTransform) {
        var sx = (t.a * t.a + t.b * t.b).squareRoot()
        var ux = 1.0, uy = 0.0
        if sx > 0 { ux = t.a / sx; uy = t.b / sx }
        var shear = ux * t.c + uy * t.d
        let vx = t.c - shear * ux, vy = t.d - shear * uy
        let sy = (vx * vx + vy * vy).squareRoot()
        shear = sy > 0 ? shear / sy : 0
        if t.determinant < 0 {
            // The mirrored x axis turns the frame by π, which flips the shear's sign too.
            sx = -sx; ux = -ux; uy = -uy; shear = -shear
        }
        self.init(
            translation: Size(width: t.tx, height: t.ty), scale: Size(width: sx, height: sy),
            shear: shear, rotation: atan2(uy, ux))
    }

    /// The transform this decomposition describes.
    public var transform: AffineTransform {
        let (s, c) = (sin(rotation), cos(rotation))
        let sx = scale.width, sy = scale.height
        return AffineTransform(
            a: sx * c, b: sx * s,
            c: shear * sy * c - sy * s, d: shear * sy * s + sy * c,
            tx: translation.width, ty: translation.height)
    }

    /// Interpolates every part linearly, rotation along the shorter way round.
    public static func interpolate(_ from: DecomposedTransform, _ to: DecomposedTransform, _ t: Double) -> DecomposedTransform {
        var delta = to.rotation - from.rotation
        if delta > .pi { delta -= 2 * .pi } else if delta < -.pi { delta += 2 * .pi }
        return DecomposedTransform(
            translation: Size(
                width: lerp(from.translation.width, to.translation.width, t),
                height: lerp(from.translation.height, to.translation.height, t)),
            scale: Size(
                width: lerp(from.scale.width, to.scale.width, t),
                height: lerp(from.scale.height, to.scale.height, t)),
            shear: lerp(from.shear, to.shear, t),
            rotation: from.rotation + delta * t)
    }
}

@inline(__always)
func lerp(_ a: Double, _ b: Double, _ t: Double) -> Double { a + (b - a) * t }

extension Double {
    /// Shortest round-tripping text: `1` rather than `1.0`.
    var shortDescription: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return "\(self)"
    }
}
