import Glibc
import VitrineCore

/// How a path is stroked: Core Graphics' line parameters, a dash pattern, and the part of
/// the path's length that is stroked (CAShapeLayer's `strokeStart` and `strokeEnd`).
public struct StrokeStyle: Sendable, Hashable {
    /// The line's width in path units.
    public var width: Double
    public var cap: LineCap
    public var join: LineJoin
    /// The longest miter, as a multiple of the line width, before a miter join is bevelled.
    public var miterLimit: Double
    /// Lengths of dashes and gaps in turn, restarting at every subpath (an odd count
    /// repeats); empty, or all zero, for a solid line.
    public var dashes: [Double]
    /// How far into the pattern each subpath starts.
    public var dashPhase: Double
    /// The fractions of the whole path's length between which it is stroked.
    public var start: Double, end: Double

    public init(
        width: Double = 1, cap: LineCap = .butt, join: LineJoin = .miter, miterLimit: Double = 10, dashes: [Double] = [],
        dashPhase: Double = 0, start: Double = 0, end: Double = 1
    ) {
        (self.width, self.cap, self.join, self.miterLimit) = (width, cap, join, miterLimit)
        (self.dashes, self.dashPhase, self.start, self.end) = (dashes, dashPhase, start, end)
    }
}

extension Surface {
    /// Strokes `path`, mapped through `transform` into device space, with `color` (OVER),
    /// anti-aliased. The stroke is built in path space, so a scaled layer's stroke scales
    /// with it, and flattened to `tolerance` device pixels (`Flatness.fine` when nil) at the
    /// scale it is drawn at.
    public func stroke(
        _ path: Path, style: StrokeStyle, color: PremultipliedColor, transform: AffineTransform = .identity, clip: Clip? = nil,
        tolerance: Double? = nil
    ) {
        guard color.alpha != 0, style.width > 0 else { return }
        let area = deviceClip(clip)
        guard !area.isEmpty else { return }
        var r = Rasterizer(clip: area, rule: .nonZero)
        var stroker = Stroker(style: style, tolerance: (tolerance ?? Flatness.fine) / transform.largestScale)
        stroker.stroke(path.elements) { contour in r.addPolygon(contour, transform: transform) }
        fillRasterized(r, clip: clip, SolidBlitter(surface: self, color: color))
    }
}

extension AffineTransform {
    /// How much the transform stretches lengths at most (its larger singular value).
    var largestScale: Double {
        let p = (a * a + b * b + c * c + d * d) / 2
        let q = ((a * a + b * b - c * c - d * d) / 2)
        let r = a * c + b * d
        let s = (p + (q * q + r * r).squareRoot()).squareRoot()
        return s.isFinite && s > 0 ? s : 1
    }
}

/// Turns paths into the outlines of their strokes: closed polygons that, filled with the
/// non-zero rule, cover what the stroke covers.
///
/// Every piece of outline winds the same way, so overlaps add up and never cancel. On the
/// inner side of a corner the two offset lines are cut where they cross when both
/// segments are long enough; otherwise the outline passes through the corner itself
/// (an overlap inside the stroke, never outside it).
struct Stroker {
    let style: StrokeStyle
    let half: Double
    /// The flattening tolerance in path units.
    let tolerance: Double
    /// The largest angle between the points of an arc of radius `half`.
    let arcStep: Double
    private var contour: [Point] = []

    init(style: StrokeStyle, tolerance: Double) {
        self.style = style
        half = style.width / 2
        self.tolerance = tolerance
        let ratio = min(1, tolerance / max(half, 1e-9))
        arcStep = max(0.02, 2 * acos(1 - ratio))
    }

    /// Calls `emit` with each closed contour of the stroke of `elements`.
    mutating func stroke(_ elements: [PathData.Element], emit: ([Point]) -> Void) {
        let lines = elements.flattened(tolerance: tolerance)
        let total = lines.reduce(0) { $0 + $1.length }
        let from = style.start * total, to = style.end * total
        guard from < to || (from == to && total == 0 && style.start == 0 && style.end == 1) else { return }
        let pattern = dashPattern
        var offset = 0.0
        for line in lines {
            let length = line.length
            defer { offset += length }
            let lo = max(0, from - offset), hi = min(length, to - offset)
            guard lo <= hi, lo < length || length == 0 else { continue }
            if pattern == nil, lo == 0, hi == length, line.isClosed {
                strokeClosed(line, emit: emit)
                continue
            }
            for (a, b) in intervals(length: length, pattern: pattern, from: lo, to: hi) {
                let (piece, start, end) = line.piece(from: a, to: b)
                strokeOpen(piece, start: start, end: end, emit: emit)
            }
        }
    }

    /// The dash pattern with an even count, or nil for a solid line.
    private var dashPattern: [Double]? {
        let d = style.dashes.filter { $0.isFinite }
        guard !d.isEmpty, d.allSatisfy({ $0 >= 0 }), d.reduce(0, +) > 0 else { return nil }
        return d.count % 2 == 0 ? d : d + d
    }

    /// The stretches of a subpath of `length` drawn between `from` and `to`.
    private func intervals(length: Double, pattern: [Double]?, from: Double, to: Double) -> [(Double, Double)] {
        guard let pattern else { return [(from, to)] }
        let period = pattern.reduce(0, +)
        var phase = style.dashPhase.truncatingRemainder(dividingBy: period)
        if phase < 0 { phase += period }
        var out: [(Double, Double)] = []
        var position = -phase
        var i = 0
        // Dashes of a pattern far finer than the tolerance are not worth millions of pieces.
        var budget = 100_000
        while position <= to, budget > 0 {
            let dash = pattern[i]
            let a = position, b = position + dash
            if b >= from, a <= to {
                let lo = max(a, from), hi = min(b, to)
                if lo <= hi, !(dash > 0 && lo == hi) { out.append((lo, hi)) }
            }
            position = b + pattern[i + 1]
            i = (i + 2) % pattern.count
            budget -= 1
        }
        return out
    }

    // MARK: Outlines

    private mutating func strokeClosed(_ line: Polyline, emit: ([Point]) -> Void) {
        let p = line.points, n = p.count
        guard n > 1 else {
            strokeOpen(line, start: Point(x: 1, y: 0), end: Point(x: 1, y: 0), emit: emit)
            return
        }
        var d: [Point] = [], len: [Double] = []
        for i in 0..<n {
            let (u, l) = unit(p[i], p[(i + 1) % n])
            d.append(u)
            len.append(l)
        }
        contour.removeAll(keepingCapacity: true)
        for i in 0..<n {
            let k = (i + n - 1) % n
            join(p[i], d[k], d[i], len[k], len[i], smooth: line.isSmooth[i])
        }
        emit(contour)
        contour.removeAll(keepingCapacity: true)
        for i in stride(from: n - 1, through: 0, by: -1) {
            let k = (i + n - 1) % n
            join(p[i], neg(d[i]), neg(d[k]), len[i], len[k], smooth: line.isSmooth[i])
        }
        emit(contour)
    }

    /// Strokes an open polyline with caps at both ends, square to the path's directions
    /// `start` and `end` there (a chord's direction strays from a curve's); one of a single
    /// point (a zero-length dash) gets its caps turned along `start`.
    private mutating func strokeOpen(_ line: Polyline, start: Point, end: Point, emit: ([Point]) -> Void) {
        let p = line.points
        contour.removeAll(keepingCapacity: true)
        if p.count < 2 {
            guard let c = p.first, style.cap != .butt else { return }
            let direction = start
            let n = perp(direction)
            if style.cap == .round {
                arc(around: c, from: n, angle: -2 * Double.pi)
            } else {
                contour += [
                    c - scaled(direction, half) + scaled(n, half), c + scaled(direction, half) + scaled(n, half),
                    c + scaled(direction, half) - scaled(n, half), c - scaled(direction, half) - scaled(n, half),
                ]
            }
            emit(contour)
            return
        }
        let m = p.count
        var d: [Point] = [], len: [Double] = []
        for i in 0..<(m - 1) {
            let (u, l) = unit(p[i], p[i + 1])
            d.append(u)
            len.append(l)
        }
        contour.append(p[0] + scaled(perp(start), half))
        for i in 1..<(m - 1) { join(p[i], d[i - 1], d[i], len[i - 1], len[i], smooth: line.isSmooth[i]) }
        cap(at: p[m - 1], direction: end)
        for i in stride(from: m - 2, through: 1, by: -1) { join(p[i], neg(d[i]), neg(d[i - 1]), len[i], len[i - 1], smooth: line.isSmooth[i]) }
        cap(at: p[0], direction: neg(start))
        emit(contour)
    }

    /// The cap at the end `c` of a line going along `d`, from its left edge to its right.
    private mutating func cap(at c: Point, direction d: Point) {
        let n = perp(d)
        contour.append(c + scaled(n, half))
        switch style.cap {
        case .butt: break
        case .square:
            contour.append(c + scaled(n, half) + scaled(d, half))
            contour.append(c - scaled(n, half) + scaled(d, half))
        case .round:
            arc(around: c, from: n, angle: -Double.pi)
        }
        contour.append(c - scaled(n, half))
    }

    /// The left edge's points at vertex `p` between a segment along `d0` of length `l0`
    /// and one along `d1` of length `l1`.
    private mutating func join(_ p: Point, _ d0: Point, _ d1: Point, _ l0: Double, _ l1: Double, smooth: Bool) {
        let n0 = perp(d0), n1 = perp(d1)
        let cross = d0.x * d1.y - d0.y * d1.x, dot = d0.x * d1.x + d0.y * d1.y
        let a = p + scaled(n0, half), b = p + scaled(n1, half)
        if abs(cross) < 1e-12 && dot > 0 {
            contour.append(a)
            return
        }
        if cross > 1e-12 {
            // The inner side: where the offset lines cross, if that lies on both segments.
            let reach = half * cross / (1 + dot)
            if 1 + dot > 1e-9, reach <= 0.5 * l0, reach <= 0.5 * l1 {
                contour.append(p + scaled(n0 + n1, half / (1 + dot)))
            } else {
                contour += [a, p, b]
            }
            return
        }
        let join = smooth ? LineJoin.round : style.join
        switch join {
        case .bevel:
            contour += [a, b]
        case .miter:
            if 1 + dot > 1e-12, 1 / ((1 + dot) / 2).squareRoot() <= style.miterLimit {
                contour.append(p + scaled(n0 + n1, half / (1 + dot)))
            } else {
                contour += [a, b]
            }
        case .round:
            contour.append(a)
            arc(around: p, from: n0, angle: atan2(cross, dot))
            contour.append(b)
        }
    }

    /// The points strictly inside an arc of radius `half` around `c`, starting at unit
    /// vector `u` and turning by `angle`.
    private mutating func arc(around c: Point, from u: Point, angle: Double) {
        let steps = Int((abs(angle) / arcStep).rounded(.up))
        guard steps > 1 else { return }
        let step = angle / Double(steps)
        let (s, k) = (sin(step), cos(step))
        var v = u
        for _ in 1..<steps {
            v = Point(x: v.x * k - v.y * s, y: v.x * s + v.y * k)
            contour.append(c + scaled(v, half))
        }
    }
}

@inline(__always) private func perp(_ d: Point) -> Point { Point(x: -d.y, y: d.x) }
@inline(__always) private func neg(_ d: Point) -> Point { Point(x: -d.x, y: -d.y) }
@inline(__always) private func scaled(_ d: Point, _ k: Double) -> Point { Point(x: d.x * k, y: d.y * k) }

/// The unit vector from `a` to `b` and the distance.
@inline(__always) private func unit(_ a: Point, _ b: Point) -> (Point, Double) {
    let dx = b.x - a.x, dy = b.y - a.y
    let l = (dx * dx + dy * dy).squareRoot()
    return l > 0 ? (Point(x: dx / l, y: dy / l), l) : (Point(x: 1, y: 0), 0)
}

extension Polyline {
    /// The open polyline between distances `a` and `b` along the path (a closed one
    /// continues through its closing piece), and the path's directions at both ends. A
    /// distance falls on a chord in proportion to its piece's length.
    func piece(from a: Double, to b: Double) -> (Polyline, start: Point, end: Point) {
        var pts: [Point] = [], smooth: [Bool] = []
        var start = Point(x: 1, y: 0), end = start
        let n = points.count
        var run = 0.0
        var started = false
        for i in pieces.indices {
            let p = points[i], q = points[(i + 1) % n], piece = pieces[i]
            let s0 = run, s1 = run + piece.length
            run = s1
            func fraction(_ s: Double) -> Double { piece.length > 0 ? min(1, max(0, (s - s0) / piece.length)) : 0 }
            func at(_ f: Double) -> Point { Point(x: p.x + (q.x - p.x) * f, y: p.y + (q.y - p.y) * f) }
            if !started {
                guard a <= s1 else { continue }
                started = true
                start = piece.tangent(at: fraction(a))
                pts.append(at(fraction(a)))
                smooth.append(false)
            }
            if b <= s1 {
                end = piece.tangent(at: fraction(b))
                let last = at(fraction(b))
                if last != pts.last! { pts.append(last); smooth.append(false) }
                break
            }
            end = piece.endTangent
            if q != pts.last! {
                pts.append(q)
                smooth.append(isSmooth[(i + 1) % n])
            }
        }
        if pts.isEmpty, let last = points.last { pts = [last]; smooth = [false] }
        return (Polyline(points: pts, isSmooth: smooth, isClosed: false), start, end)
    }
}
