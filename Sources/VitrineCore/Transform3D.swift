import Glibc

/// A 4×4 transform in Core Animation's convention (CATransform3D): a point (x, y, z)
/// is the row vector (x, y, z, 1) multiplied by the matrix, then divided by its w, so
/// translation is m41…m43 and perspective `m34` (−1/distance of the eye).
public struct Transform3D: Hashable, Sendable, CustomStringConvertible {
    public var m11, m12, m13, m14: Double
    public var m21, m22, m23, m24: Double
    public var m31, m32, m33, m34: Double
    public var m41, m42, m43, m44: Double

    /// The sixteen entries row by row (m11, m12, …, m44).
    public init(_ m: [Double]) {
        precondition(m.count == 16)
        (m11, m12, m13, m14) = (m[0], m[1], m[2], m[3])
        (m21, m22, m23, m24) = (m[4], m[5], m[6], m[7])
        (m31, m32, m33, m34) = (m[8], m[9], m[10], m[11])
        (m41, m42, m43, m44) = (m[12], m[13], m[14], m[15])
    }

    /// The sixteen entries row by row.
    public var entries: [Double] { [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44] }

    public static let identity = Transform3D([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])

    /// The affine transform acting in the x-y plane (CATransform3DMakeAffineTransform).
    public init(_ t: AffineTransform) {
        self.init([t.a, t.b, 0, 0, t.c, t.d, 0, 0, 0, 0, 1, 0, t.tx, t.ty, 0, 1])
    }

    public init(translationX x: Double, y: Double, z: Double = 0) {
        self.init([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1])
    }

    public init(scaleX x: Double, y: Double, z: Double = 1) {
        self.init([x, 0, 0, 0, 0, y, 0, 0, 0, 0, z, 0, 0, 0, 0, 1])
    }

    /// A rotation by `angle` radians about the axis (x, y, z), as
    /// CATransform3DMakeRotation: about (0, 0, 1) it is `AffineTransform(rotationAngle:)`;
    /// about (0, 1, 0) a positive angle moves the right edge away from the viewer.
    public init(rotationAngle angle: Double, x: Double, y: Double, z: Double) {
        let length = (x * x + y * y + z * z).squareRoot()
        guard length > 0, length.isFinite else {
            self = .identity
            return
        }
        let (x, y, z) = (x / length, y / length, z / length)
        let (s, c) = (sin(angle), cos(angle)), t = 1 - c
        self.init([
            t * x * x + c, t * x * y + z * s, t * x * z - y * s, 0,
            t * x * y - z * s, t * y * y + c, t * y * z + x * s, 0,
            t * x * z + y * s, t * y * z - x * s, t * z * z + c, 0,
            0, 0, 0, 1,
        ])
    }

    /// Perspective seen from `distance` points in front of the plane z = 0 (m34 = −1/distance).
    public init(perspective distance: Double) {
        var m = Transform3D.identity
        m.m34 = distance == 0 ? 0 : -1 / distance
        self = m
    }

    public var isIdentity: Bool { self == .identity }

    /// The affine transform it is, when it keeps the x-y plane flat and adds no perspective
    /// or z dependence: then it draws exactly as that affine transform.
    public var affine: AffineTransform? {
        guard m13 == 0, m14 == 0, m23 == 0, m24 == 0, m31 == 0, m32 == 0, m34 == 0, m44 == 1 else { return nil }
        guard m33 == 1, m43 == 0 else { return nil }
        return AffineTransform(a: m11, b: m12, c: m21, d: m22, tx: m41, ty: m42)
    }

    /// How a plane at z = 0 maps to the plane z = 0 after the transform, flattened as
    /// CALayer flattens a layer into its parent: the z row and column left out.
    public var flattened: ProjectiveTransform {
        ProjectiveTransform(m11: m11, m12: m12, m14: m14, m21: m21, m22: m22, m24: m24, m41: m41, m42: m42, m44: m44)
    }

    /// `self` followed by `next` (CATransform3DConcat(self, next)).
    public func concatenating(_ next: Transform3D) -> Transform3D {
        let a = entries, b = next.entries
        var r = [Double](repeating: 0, count: 16)
        for i in 0..<4 {
            for j in 0..<4 {
                r[i * 4 + j] = a[i * 4] * b[j] + a[i * 4 + 1] * b[4 + j] + a[i * 4 + 2] * b[8 + j] + a[i * 4 + 3] * b[12 + j]
            }
        }
        return Transform3D(r)
    }

    /// The inverse, or nil when the transform is singular.
    public var inverted: Transform3D? {
        guard let r = Matrix.invert(entries, size: 4) else { return nil }
        return Transform3D(r)
    }

    /// The point (x, y, 0) transformed and divided by w; nil when it lands at or behind
    /// the eye (w ≤ 0).
    public func project(_ p: Point) -> Point? { flattened.apply(to: p) }

    public var description: String { "[\(entries.map(\.shortDescription).joined(separator: ", "))]" }
}

/// A projective map of the plane (a homography) in the row-vector convention of
/// `Transform3D`: (x, y) maps to ((m11·x + m21·y + m41)/w, (m12·x + m22·y + m42)/w) with
/// w = m14·x + m24·y + m44.
public struct ProjectiveTransform: Hashable, Sendable {
    public var m11, m12, m14, m21, m22, m24, m41, m42, m44: Double

    public init(m11: Double, m12: Double, m14: Double, m21: Double, m22: Double, m24: Double, m41: Double, m42: Double, m44: Double) {
        (self.m11, self.m12, self.m14, self.m21, self.m22, self.m24, self.m41, self.m42, self.m44) = (m11, m12, m14, m21, m22, m24, m41, m42, m44)
    }

    public init(_ t: AffineTransform) {
        self.init(m11: t.a, m12: t.b, m14: 0, m21: t.c, m22: t.d, m24: 0, m41: t.tx, m42: t.ty, m44: 1)
    }

    public static let identity = ProjectiveTransform(.identity)

    /// The affine transform it is when it has no perspective.
    public var affine: AffineTransform? {
        guard m14 == 0, m24 == 0, m44 != 0 else { return nil }
        return AffineTransform(a: m11 / m44, b: m12 / m44, c: m21 / m44, d: m22 / m44, tx: m41 / m44, ty: m42 / m44)
    }

    /// The homogeneous image of (x, y): (X, Y, W).
    @inline(__always)
    public func homogeneous(_ x: Double, _ y: Double) -> (Double, Double, Double) {
        (m11 * x + m21 * y + m41, m12 * x + m22 * y + m42, m14 * x + m24 * y + m44)
    }

    /// The image of `p`, or nil when it lands at or behind the eye (w ≤ 0).
    public func apply(to p: Point) -> Point? {
        let (x, y, w) = homogeneous(p.x, p.y)
        guard w > 0 else { return nil }
        return Point(x: x / w, y: y / w)
    }

    /// `self` followed by `next`.
    public func concatenating(_ n: ProjectiveTransform) -> ProjectiveTransform {
        ProjectiveTransform(
            m11: m11 * n.m11 + m12 * n.m21 + m14 * n.m41, m12: m11 * n.m12 + m12 * n.m22 + m14 * n.m42,
            m14: m11 * n.m14 + m12 * n.m24 + m14 * n.m44,
            m21: m21 * n.m11 + m22 * n.m21 + m24 * n.m41, m22: m21 * n.m12 + m22 * n.m22 + m24 * n.m42,
            m24: m21 * n.m14 + m22 * n.m24 + m24 * n.m44,
            m41: m41 * n.m11 + m42 * n.m21 + m44 * n.m41, m42: m41 * n.m12 + m42 * n.m22 + m44 * n.m42,
            m44: m41 * n.m14 + m42 * n.m24 + m44 * n.m44)
    }

    public func concatenating(_ n: AffineTransform) -> ProjectiveTransform { concatenating(ProjectiveTransform(n)) }

    /// The inverse, or nil when it is singular.
    public var inverted: ProjectiveTransform? {
        guard let r = Matrix.invert([m11, m12, m14, m21, m22, m24, m41, m42, m44], size: 3) else { return nil }
        return ProjectiveTransform(m11: r[0], m12: r[1], m14: r[2], m21: r[3], m22: r[4], m24: r[5], m41: r[6], m42: r[7], m44: r[8])
    }

    /// The faces of the plane's image: true when the plane's front (x to the right of y
    /// turning clockwise, as drawn) still faces the viewer.
    public var showsFront: Bool {
        // The sign of the Jacobian at any visible point: det of the 3×3 matrix, with w > 0.
        let det = m11 * (m22 * m44 - m24 * m42) - m12 * (m21 * m44 - m24 * m41) + m14 * (m21 * m42 - m22 * m41)
        return det > 0
    }

    /// `rect` as a polygon in the target plane, cut where w falls to `nearW` (the part
    /// behind the eye left out); empty when nothing is in front.
    public func clippedQuad(_ rect: Rect, nearW: Double = 1e-6) -> [Point] {
        let corners = [
            Point(x: rect.minX, y: rect.minY), Point(x: rect.maxX, y: rect.minY),
            Point(x: rect.maxX, y: rect.maxY), Point(x: rect.minX, y: rect.maxY),
        ]
        let h = corners.map { homogeneous($0.x, $0.y) }
        var out: [Point] = []
        for i in 0..<4 {
            let a = h[i], b = h[(i + 1) % 4]
            if a.2 >= nearW { out.append(Point(x: a.0 / a.2, y: a.1 / a.2)) }
            if (a.2 >= nearW) != (b.2 >= nearW) {
                let t = (nearW - a.2) / (b.2 - a.2)
                let x = a.0 + (b.0 - a.0) * t, y = a.1 + (b.1 - a.1) * t
                out.append(Point(x: x / nearW, y: y / nearW))
            }
        }
        return out
    }

    /// The bounding box of `rect`'s visible image (its part in front of the eye); null when
    /// none of it is.
    public func boundingBox(of rect: Rect) -> Rect {
        if let a = affine { return a.boundingBox(of: rect) }
        var box = Rect.null
        for p in clippedQuad(rect) { box = box.union(Rect(origin: p, size: .zero)) }
        return box
    }
}

/// Small dense matrix helpers.
enum Matrix {
    /// Gauss-Jordan inversion with partial pivoting of a row-major square matrix.
    static func invert(_ m: [Double], size n: Int) -> [Double]? {
        var a = m, inv = [Double](repeating: 0, count: n * n)
        for i in 0..<n { inv[i * n + i] = 1 }
        for col in 0..<n {
            var pivot = col
            for r in col + 1..<max(col + 1, n) where abs(a[r * n + col]) > abs(a[pivot * n + col]) { pivot = r }
            let p = a[pivot * n + col]
            guard p != 0, p.isFinite else { return nil }
            if pivot != col {
                for k in 0..<n {
                    a.swapAt(pivot * n + k, col * n + k)
                    inv.swapAt(pivot * n + k, col * n + k)
                }
            }
            for k in 0..<n {
                a[col * n + k] /= p
                inv[col * n + k] /= p
            }
            for r in 0..<n where r != col {
                let f = a[r * n + col]
                if f == 0 { continue }
                for k in 0..<n {
                    a[r * n + k] -= f * a[col * n + k]
                    inv[r * n + k] -= f * inv[col * n + k]
                }
            }
        }
        return inv.allSatisfy(\.isFinite) ? inv : nil
    }
}

/// A 4×4 transform taken apart to interpolate it as Core Animation does: perspective,
/// translation, scale, shear and a rotation quaternion (slerped), recomposed as
/// scale·shear·rotation, then translation, then perspective.
public struct DecomposedTransform3D: Hashable, Sendable {
    public var perspective: [Double]
    public var translation: [Double]
    public var scale: [Double]
    /// Shear of y along x, z along x, z along y.
    public var shear: [Double]
    /// (x, y, z, w), unit length.
    public var rotation: [Double]

    /// Takes `t` apart; nil when its linear part is singular (a layer squashed flat).
    public init?(_ t: Transform3D) {
        let m = t.entries
        let l = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]]
        guard let li = Matrix.invert(l, size: 3) else { return nil }
        let pc = [m[3], m[7], m[11]]
        // M = [[L, 0], [t, 1]] · [[I, p], [0, w]]: L·p is the last column, w what remains.
        let p = (0..<3).map { i in li[i * 3] * pc[0] + li[i * 3 + 1] * pc[1] + li[i * 3 + 2] * pc[2] }
        let tr = [m[12], m[13], m[14]]
        perspective = p + [m[15] - (tr[0] * p[0] + tr[1] * p[1] + tr[2] * p[2])]
        translation = tr
        var rows = [[l[0], l[1], l[2]], [l[3], l[4], l[5]], [l[6], l[7], l[8]]]
        func dot(_ a: [Double], _ b: [Double]) -> Double { a[0] * b[0] + a[1] * b[1] + a[2] * b[2] }
        func sub(_ a: [Double], _ b: [Double], _ k: Double) -> [Double] { [a[0] - k * b[0], a[1] - k * b[1], a[2] - k * b[2]] }
        var s = [0.0, 0, 0], k = [0.0, 0, 0]
        s[0] = dot(rows[0], rows[0]).squareRoot()
        rows[0] = rows[0].map { $0 / s[0] }
        k[0] = dot(rows[0], rows[1])
        rows[1] = sub(rows[1], rows[0], k[0])
        s[1] = dot(rows[1], rows[1]).squareRoot()
        rows[1] = rows[1].map { $0 / s[1] }
        k[0] /= s[1]
        k[1] = dot(rows[0], rows[2])
        rows[2] = sub(rows[2], rows[0], k[1])
        k[2] = dot(rows[1], rows[2])
        rows[2] = sub(rows[2], rows[1], k[2])
        s[2] = dot(rows[2], rows[2]).squareRoot()
        rows[2] = rows[2].map { $0 / s[2] }
        k[1] /= s[2]
        k[2] /= s[2]
        let c = [
            rows[1][1] * rows[2][2] - rows[1][2] * rows[2][1], rows[1][2] * rows[2][0] - rows[1][0] * rows[2][2],
            rows[1][0] * rows[2][1] - rows[1][1] * rows[2][0],
        ]
        if dot(rows[0], c) < 0 {
            s = s.map { -$0 }
            rows = rows.map { $0.map { -$0 } }
        }
        scale = s
        shear = k
        rotation = Self.quaternion(rows)
    }

    /// The quaternion of an orthonormal rotation matrix given by rows (Shepperd's method).
    static func quaternion(_ r: [[Double]]) -> [Double] {
        let trace = r[0][0] + r[1][1] + r[2][2]
        var q: [Double]
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = [(r[1][2] - r[2][1]) / s, (r[2][0] - r[0][2]) / s, (r[0][1] - r[1][0]) / s, s / 4]
        } else if r[0][0] > r[1][1], r[0][0] > r[2][2] {
            let s = (1 + r[0][0] - r[1][1] - r[2][2]).squareRoot() * 2
            q = [s / 4, (r[0][1] + r[1][0]) / s, (r[2][0] + r[0][2]) / s, (r[1][2] - r[2][1]) / s]
        } else if r[1][1] > r[2][2] {
            let s = (1 + r[1][1] - r[0][0] - r[2][2]).squareRoot() * 2
            q = [(r[0][1] + r[1][0]) / s, s / 4, (r[1][2] + r[2][1]) / s, (r[2][0] - r[0][2]) / s]
        } else {
            let s = (1 + r[2][2] - r[0][0] - r[1][1]).squareRoot() * 2
            q = [(r[2][0] + r[0][2]) / s, (r[1][2] + r[2][1]) / s, s / 4, (r[0][1] - r[1][0]) / s]
        }
        let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).squareRoot()
        return q.map { $0 / n }
    }

    /// The rotation matrix (rows) of a unit quaternion; the inverse of `quaternion`.
    static func rows(_ q: [Double]) -> [[Double]] {
        let (x, y, z, w) = (q[0], q[1], q[2], q[3])
        return [
            [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)],
            [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)],
            [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)],
        ]
    }

    /// The transform this decomposition describes.
    public var transform: Transform3D {
        let r = Self.rows(rotation)
        // Rows of L: s0·r0, s1·(r1 + k0·r0), s2·(r2 + k1·r0 + k2·r1).
        var l = [[Double]](repeating: [0, 0, 0], count: 3)
        for j in 0..<3 {
            l[0][j] = scale[0] * r[0][j]
            l[1][j] = scale[1] * (r[1][j] + shear[0] * r[0][j])
            l[2][j] = scale[2] * (r[2][j] + shear[1] * r[0][j] + shear[2] * r[1][j])
        }
        let p = perspective, t = translation
        func lp(_ i: Int) -> Double { l[i][0] * p[0] + l[i][1] * p[1] + l[i][2] * p[2] }
        return Transform3D([
            l[0][0], l[0][1], l[0][2], lp(0),
            l[1][0], l[1][1], l[1][2], lp(1),
            l[2][0], l[2][1], l[2][2], lp(2),
            t[0], t[1], t[2], t[0] * p[0] + t[1] * p[1] + t[2] * p[2] + p[3],
        ])
    }

    /// Interpolates the parts linearly and the rotation along the shorter arc (slerp).
    public static func interpolate(_ a: DecomposedTransform3D, _ b: DecomposedTransform3D, _ t: Double) -> DecomposedTransform3D {
        func mix(_ x: [Double], _ y: [Double]) -> [Double] { zip(x, y).map { lerp($0, $1, t) } }
        var r = a
        r.perspective = mix(a.perspective, b.perspective)
        r.translation = mix(a.translation, b.translation)
        r.scale = mix(a.scale, b.scale)
        r.shear = mix(a.shear, b.shear)
        var q = b.rotation
        var d = zip(a.rotation, q).reduce(0) { $0 + $1.0 * $1.1 }
        if d < 0 {
            q = q.map { -$0 }
            d = -d
        }
        if d > 0.9995 {
            let v = mix(a.rotation, q)
            let n = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            r.rotation = v.map { $0 / n }
        } else {
            let theta = acos(min(1, d)), s = sin(theta)
            let wa = sin((1 - t) * theta) / s, wb = sin(t * theta) / s
            r.rotation = zip(a.rotation, q).map { wa * $0 + wb * $1 }
        }
        return r
    }
}
