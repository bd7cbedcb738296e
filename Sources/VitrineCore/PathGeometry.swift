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

    public init(points: [Point], isSmooth: [Bool], isClosed: Bool) {
        (self.points, self.isSmooth, self.isClosed) = (points, isSmooth, isClosed)
    }

    /// The length of the pieces, the closing one included.
    public var length: Double {
        var total = 0.0
        for i in points.indices.dropFirst() { total += distance(points[i - 1], points[i]) }
        if isClosed, let first = points.first, let last = points.last { total += distance(last, first) }
        return total
    }
}

@inline(__always) func distance(_ a: Point, _ b: Point) -> Double {
    let dx = b.x - a.x, dy = b.y - a.y
    return (dx * dx + dy * dy).squareRoot()
}

extension Array where Element == PathData.Element {
    /// The subpaths as polylines whose chords stay within `tolerance` of the curves (Wang's
    /// bound). Points repeated in a row are dropped; a subpath keeps at least its start.
    public func flattened(tolerance: Double) -> [Polyline] {
        let tol = tolerance > 0 && tolerance.isFinite ? tolerance : 0.1
        var out: [Polyline] = []
        var points: [Point] = [], smooth: [Bool] = []
        var current = Point.zero, start = Point.zero
        func flush(closed: Bool) {
            guard !points.isEmpty else { return }
            if closed, points.count > 1, points.last == points.first {
                points.removeLast()
                smooth.removeLast()
            }
            if !smooth.isEmpty { smooth[0] = false }
            out.append(Polyline(points: points, isSmooth: smooth, isClosed: closed))
            points = []
            smooth = []
        }
        func add(_ p: Point, smooth isSmooth: Bool) {
            if points.isEmpty {
                points.append(current)
                smooth.append(false)
            }
            if p == points.last! {
                if !isSmooth { smooth[smooth.count - 1] = false }
                return
            }
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
                    add(i == n ? p : quadPoint(p0, c, p, t), smooth: i < n)
                }
                current = p
            case .cubic(let p, let c1, let c2):
                let n = curveSegments(current, c1, c2, p, quadratic: false, tolerance: tol)
                let p0 = current
                for i in 1...n {
                    let t = Double(i) / Double(n)
                    add(i == n ? p : cubicPoint(p0, c1, c2, p, t), smooth: i < n)
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
