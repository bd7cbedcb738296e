import Glibc

/// One subpath of an outline flattened into straight pieces.
///
/// ```swift
/// let lines = try PathData(parsing: "M0 0 Q50 50 100 0").elements.flattened(tolerance: 0.1)
/// lines[0].points.count  // 1 + the chords of the curve
/// ```
public struct Polyline: Sendable, Hashable {
    /// The vertices in order; a closed polyline does not repeat its first one.
    public var points: [Point]
    /// Per vertex: it lies inside a curve (a stroke joins it smoothly, not with the line join).
    public var isSmooth: [Bool]
    /// The last vertex connects back to the first.
    public var isClosed: Bool
    /// Per piece, from vertex i to the next (the closing one last): what part of the path it
    /// stands for.
    public var pieces: [Piece]

    /// What a chord stands for: the length of its stretch of the path — a curve's own arc
    /// length, not the chord's, so that distances along the path do not drift by the
    /// chords' shortfall — and the path's directions where the stretch starts and ends.
    public struct Piece: Sendable, Hashable {
        public var length: Double
        public var startTangent, endTangent: Point

        public init(length: Double, startTangent: Point, endTangent: Point) {
            (self.length, self.startTangent, self.endTangent) = (length, startTangent, endTangent)
        }

        /// A straight piece from `a` to `b`.
        init(line a: Point, _ b: Point) {
            let l = pointDistance(a, b)
            let d = l > 0 ? Point(x: (b.x - a.x) / l, y: (b.y - a.y) / l) : Point(x: 1, y: 0)
            self.init(length: l, startTangent: d, endTangent: d)
        }

        /// The path's direction a fraction `f` of the way along the piece.
        public func tangent(at f: Double) -> Point {
            let x = startTangent.x + (endTangent.x - startTangent.x) * f, y = startTangent.y + (endTangent.y - startTangent.y) * f
            let l = (x * x + y * y).squareRoot()
            return l > 0 ? Point(x: x / l, y: y / l) : startTangent
        }
    }

    /// A polyline of straight lines.
    public init(points: [Point], isSmooth: [Bool], isClosed: Bool) {
        (self.points, self.isSmooth, self.isClosed) = (points, isSmooth, isClosed)
        pieces = []
        for i in points.indices.dropFirst() { pieces.append(Piece(line: points[i - 1], points[i])) }
        if isClosed, points.count > 1 { pieces.append(Piece(line: points[points.count - 1], points[0])) }
    }

    init(points: [Point], isSmooth: [Bool], isClosed: Bool, pieces: [Piece]) {
        (self.points, self.isSmooth, self.isClosed, self.pieces) = (points, isSmooth, isClosed, pieces)
    }

    /// The length of the path the polyline stands for, the closing piece included.
    public var length: Double {
        var total = 0.0
        for p in pieces { total += p.length }
        return total
    }
}

@inline(__always) func pointDistance(_ a: Point, _ b: Point) -> Double {
    let dx = b.x - a.x, dy = b.y - a.y
    return (dx * dx + dy * dy).squareRoot()
}

extension Array where Element == PathData.Element {
    /// The subpaths as polylines whose chords stay within `tolerance` of the curves (Wang's
    /// bound). Points repeated in a row are dropped; a subpath keeps at least its start.
    public func flattened(tolerance: Double) -> [Polyline] {
        let tol = tolerance > 0 && tolerance.isFinite ? tolerance : 0.1
        var out: [Polyline] = []
        var points: [Point] = [], smooth: [Bool] = [], pieces: [Polyline.Piece] = []
        var current = Point.zero, start = Point.zero
        func flush(closed: Bool) {
            guard !points.isEmpty else { return }
            if closed, points.count > 1 {
                if points.last == points.first {
                    points.removeLast()
                    smooth.removeLast()
                } else {
                    pieces.append(Polyline.Piece(line: points[points.count - 1], points[0]))
                }
            }
            if !smooth.isEmpty { smooth[0] = false }
            out.append(Polyline(points: points, isSmooth: smooth, isClosed: closed, pieces: pieces))
            points = []
            smooth = []
            pieces = []
        }
        func add(_ p: Point, smooth isSmooth: Bool, piece: Polyline.Piece? = nil) {
            if points.isEmpty {
                points.append(current)
                smooth.append(false)
            }
            if p == points.last! {
                if !isSmooth { smooth[smooth.count - 1] = false }
                if let piece, !pieces.isEmpty { pieces[pieces.count - 1].length += piece.length }
                return
            }
            pieces.append(piece ?? Polyline.Piece(line: points[points.count - 1], p))
            points.append(p)
            smooth.append(isSmooth)
        }
        for element in self {
            switch element {
            case .move(let p):
                flush(closed: false)
                current = p
                start = p
            case .line(let p):
                add(p, smooth: false)
                current = p
            case .quad(let p, let c):
                let n = curveSegments(current, c, c, p, quadratic: true, tolerance: tol)
                let p0 = current
                for i in 1...n {
                    let t = Double(i) / Double(n)
                    let piece = curvePiece(from: Double(i - 1) / Double(n), to: t) { quadDerivative(p0, c, p, $0) }
                    add(i == n ? p : quadPoint(p0, c, p, t), smooth: i < n, piece: piece)
                }
                current = p
            case .cubic(let p, let c1, let c2):
                let n = curveSegments(current, c1, c2, p, quadratic: false, tolerance: tol)
                let p0 = current
                for i in 1...n {
                    let t = Double(i) / Double(n)
                    let piece = curvePiece(from: Double(i - 1) / Double(n), to: t) { cubicDerivative(p0, c1, c2, p, $0) }
                    add(i == n ? p : cubicPoint(p0, c1, c2, p, t), smooth: i < n, piece: piece)
                }
                current = p
            case .close:
                if points.isEmpty { points.append(current); smooth.append(false) }
                flush(closed: true)
                current = start
            }
        }
        flush(closed: false)
        return out
    }
}

/// How many chords keep a curve within `tolerance` (Wang's bound), 1…1000.
func curveSegments(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point, quadratic: Bool, tolerance: Double) -> Int {
    let estimate: Double
    if quadratic {
        let ddx = p0.x - 2 * p1.x + p3.x, ddy = p0.y - 2 * p1.y + p3.y
        estimate = (0.25 * (ddx * ddx + ddy * ddy).squareRoot() / tolerance).squareRoot()
    } else {
        let ax = p0.x - 2 * p1.x + p2.x, ay = p0.y - 2 * p1.y + p2.y
        let bx = p1.x - 2 * p2.x + p3.x, by = p1.y - 2 * p2.y + p3.y
        let dd = max((ax * ax + ay * ay).squareRoot(), (bx * bx + by * by).squareRoot())
        estimate = (0.75 * dd / tolerance).squareRoot()
    }
    return estimate.isFinite ? max(1, min(1000, Int(estimate.rounded(.up)))) : 1
}

/// The stretch of a curve between parameters `t0` and `t1`, from its derivative: its
/// length by three-point Gauss–Legendre (exact for the short stretches a flattened piece
/// spans) and its directions at both ends.
@inline(__always) func curvePiece(from t0: Double, to t1: Double, _ derivative: (Double) -> Point) -> Polyline.Piece {
    let mid = (t0 + t1) / 2, half = (t1 - t0) / 2, k = 0.774_596_669_241_483_4
    func speed(_ t: Double) -> Double {
        let d = derivative(t)
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
    func direction(_ t: Double) -> Point {
        var d = derivative(t)
        if d.x * d.x + d.y * d.y < 1e-24 { d = derivative(t == t0 ? t0 + (t1 - t0) * 1e-3 : t1 - (t1 - t0) * 1e-3) }
        let l = (d.x * d.x + d.y * d.y).squareRoot()
        return l > 0 ? Point(x: d.x / l, y: d.y / l) : Point(x: 1, y: 0)
    }
    let length = half * (5 / 9 * speed(mid - half * k) + 8 / 9 * speed(mid) + 5 / 9 * speed(mid + half * k))
    return Polyline.Piece(length: length, startTangent: direction(t0), endTangent: direction(t1))
}

@inline(__always) func quadDerivative(_ p0: Point, _ c: Point, _ p1: Point, _ t: Double) -> Point {
    let u = 1 - t
    return Point(x: 2 * (u * (c.x - p0.x) + t * (p1.x - c.x)), y: 2 * (u * (c.y - p0.y) + t * (p1.y - c.y)))
}

@inline(__always) func cubicDerivative(_ p0: Point, _ c1: Point, _ c2: Point, _ p1: Point, _ t: Double) -> Point {
    let u = 1 - t
    let a = 3 * u * u, b = 6 * u * t, c = 3 * t * t
    return Point(x: a * (c1.x - p0.x) + b * (c2.x - c1.x) + c * (p1.x - c2.x), y: a * (c1.y - p0.y) + b * (c2.y - c1.y) + c * (p1.y - c2.y))
}

@inline(__always) func quadPoint(_ p0: Point, _ c: Point, _ p1: Point, _ t: Double) -> Point {
    let u = 1 - t
    return Point(x: u * u * p0.x + 2 * u * t * c.x + t * t * p1.x, y: u * u * p0.y + 2 * u * t * c.y + t * t * p1.y)
}

@inline(__always) func cubicPoint(_ p0: Point, _ c1: Point, _ c2: Point, _ p1: Point, _ t: Double) -> Point {
    let u = 1 - t
    let a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t
    return Point(x: a * p0.x + b * c1.x + c * c2.x + d * p1.x, y: a * p0.y + b * c1.y + c * c2.y + d * p1.y)
}

// MARK: - Serializing and interpolating

extension PathData {
    /// Path data made of `elements` (absolute).
    public init(elements: [Element]) { self.elements = elements }

    /// The path as SVG path data with absolute commands, which parses back to the same
    /// elements.
    public var svg: String {
        var out = ""
        func n(_ v: Double) -> String { v.shortDescription }
        func p(_ q: Point) -> String { n(q.x) + " " + n(q.y) }
        for e in elements {
            if !out.isEmpty { out += " " }
            switch e {
            case .move(let q): out += "M" + p(q)
            case .line(let q): out += "L" + p(q)
            case .quad(let q, let c): out += "Q" + p(c) + " " + p(q)
            case .cubic(let q, let c1, let c2): out += "C" + p(c1) + " " + p(c2) + " " + p(q)
            case .close: out += "Z"
            }
        }
        return out
    }

    /// The path a fraction `t` of the way from `a` to `b`, point by point, when both are
    /// made of the same commands in the same order (as Core Animation animates a shape's
    /// `path`); nil when they are not.
    public static func interpolate(_ a: PathData, _ b: PathData, _ t: Double) -> PathData? {
        guard a.elements.count == b.elements.count else { return nil }
        func mix(_ p: Point, _ q: Point) -> Point { Point(x: p.x + (q.x - p.x) * t, y: p.y + (q.y - p.y) * t) }
        var out: [Element] = []
        out.reserveCapacity(a.elements.count)
        for (x, y) in zip(a.elements, b.elements) {
            switch (x, y) {
            case (.move(let p), .move(let q)): out.append(.move(mix(p, q)))
            case (.line(let p), .line(let q)): out.append(.line(mix(p, q)))
            case (.quad(let p, let c), .quad(let q, let d)): out.append(.quad(mix(p, q), control: mix(c, d)))
            case (.cubic(let p, let c1, let c2), .cubic(let q, let d1, let d2)):
                out.append(.cubic(mix(p, q), control1: mix(c1, d1), control2: mix(c2, d2)))
            case (.close, .close): out.append(.close)
            default: return nil
            }
        }
        return PathData(elements: out)
    }

    /// `interpolate` on path data written as strings; the strings switch at the halfway
    /// point when either does not parse or their commands differ.
    public static func interpolate(_ a: String, _ b: String, _ t: Double) -> String {
        if a == b { return a }
        guard let pa = try? PathData(parsing: a), let pb = try? PathData(parsing: b), let mixed = interpolate(pa, pb, t) else {
            return t < 0.5 ? a : b
        }
        return mixed.svg
    }
}
