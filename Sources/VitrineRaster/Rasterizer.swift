import VitrineCore

/// Coverage-based anti-aliased scan conversion (the signed-area accumulation method).
///
/// The path is flattened to line segments in device space. Row by row, every segment
/// piece inside the row adds its signed area to a row of accumulation cells so that the
/// running sum along the row is the exact area covered in each pixel; the absolute value,
/// clamped to 1 (non-zero) or folded (even-odd), is the coverage. Cells no segment touched share the running
/// sum, so the interior of a shape reaches the blitter as one constant span.
struct Rasterizer {
    /// A line segment stored top to bottom; `winding` is +1 when it went down.
    struct Segment {
        var x0, y0, x1, y1: Double
        var winding: Double
        var dxdy: Double { (x1 - x0) / (y1 - y0) }
    }

    /// Flattening tolerance in device pixels: how far chords may stray from curves.
    let tolerance: Double

    private(set) var segments: [Segment] = []
    private let clip: PixelRect
    private let rule: FillRule
    private let left: Double, right: Double

    /// A rasterizer emitting only pixels inside `clip` (device space).
    init(clip: PixelRect, rule: FillRule = .nonZero, tolerance: Double = Flatness.standard) {
        self.clip = clip
        self.tolerance = tolerance
        self.rule = rule
        left = Double(clip.x)
        right = Double(clip.maxX)
    }

    /// Adds the outline of `path` mapped through `transform`.
    mutating func add(_ path: Path, transform: AffineTransform = .identity) {
        var start = Point.zero, current = Point.zero
        var open = false
        let t = transform
        for element in path.elements {
            switch element {
            case .move(let p):
                if open { addLine(current, start) }
                start = t.apply(to: p)
                current = start
                open = true
            case .line(let p):
                let q = t.apply(to: p)
                addLine(current, q)
                current = q
                open = true
            case .quad(let p, let c):
                let q = t.apply(to: p)
                addQuad(current, t.apply(to: c), q)
                current = q
                open = true
            case .cubic(let p, let c1, let c2):
                let q = t.apply(to: p)
                addCubic(current, t.apply(to: c1), t.apply(to: c2), q)
                current = q
                open = true
            case .close:
                if open { addLine(current, start) }
                current = start
                open = false
            }
        }
        if open { addLine(current, start) }
    }

    /// Adds the closed polygon through `points` mapped through `transform`.
    mutating func addPolygon(_ points: [Point], transform t: AffineTransform) {
        guard var previous = points.last.map(t.apply(to:)) else { return }
        for p in points {
            let q = t.apply(to: p)
            addLine(previous, q)
            previous = q
        }
    }

    private mutating func addQuad(_ p0: Point, _ p1: Point, _ p2: Point) {
        let ddx = p0.x - 2 * p1.x + p2.x, ddy = p0.y - 2 * p1.y + p2.y
        let dd = (ddx * ddx + ddy * ddy).squareRoot()
        let n = Rasterizer.segmentCount((0.25 * dd / tolerance).squareRoot())
        var prev = p0
        for i in 1...n {
            let t = Double(i) / Double(n), u = 1 - t
            let q =
                i == n
                ? p2
                : Point(
                    x: u * u * p0.x + 2 * u * t * p1.x + t * t * p2.x,
                    y: u * u * p0.y + 2 * u * t * p1.y + t * t * p2.y)
            addLine(prev, q)
            prev = q
        }
    }

    private mutating func addCubic(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point) {
        let ax = p0.x - 2 * p1.x + p2.x, ay = p0.y - 2 * p1.y + p2.y
        let bx = p1.x - 2 * p2.x + p3.x, by = p1.y - 2 * p2.y + p3.y
        let dd = max((ax * ax + ay * ay).squareRoot(), (bx * bx + by * by).squareRoot())
        let n = Rasterizer.segmentCount((0.75 * dd / tolerance).squareRoot())
        var prev = p0
        for i in 1...n {
            let t = Double(i) / Double(n), u = 1 - t
            let q =
                i == n
                ? p3
                : Point(
                    x: u * u * u * p0.x + 3 * u * u * t * p1.x + 3 * u * t * t * p2.x + t * t * t * p3.x,
                    y: u * u * u * p0.y + 3 * u * u * t * p1.y + 3 * u * t * t * p2.y + t * t * t * p3.y)
            addLine(prev, q)
            prev = q
        }
    }

    /// Chords for a curve from Wang's bound; non-finite curves become one chord.
    private static func segmentCount(_ estimate: Double) -> Int {
        estimate.isFinite ? max(1, min(500, Int(estimate.rounded(.up)))) : 1
    }

    /// Adds a line, cut where it leaves the clip's columns: parts left of the clip become
    /// vertical lines on its left edge (they still wind the pixels to their right), parts
    /// right of it are dropped.
    private mutating func addLine(_ p: Point, _ q: Point) {
        guard p.y != q.y, p.x.isFinite, p.y.isFinite, q.x.isFinite, q.y.isFinite else { return }
        let yTop = Double(clip.y), yBottom = Double(clip.maxY)
        if max(p.y, q.y) <= yTop || min(p.y, q.y) >= yBottom { return }
        if p.x >= right && q.x >= right { return }
        func cut(_ a: Point, _ b: Point, atX x: Double) -> Point {
            Point(x: x, y: a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x))
        }
        var a = p, b = q
        if (a.x > right) != (b.x > right) {
            let m = cut(a, b, atX: right)
            if a.x > right { a = m } else { b = m }
        }
        if (a.x < left) != (b.x < left) {
            let m = cut(a, b, atX: left)
            push(a.x < left ? Point(x: left, y: a.y) : a, m)
            push(m, b.x < left ? Point(x: left, y: b.y) : b)
        } else if a.x < left {
            push(Point(x: left, y: a.y), Point(x: left, y: b.y))
        } else {
            push(a, b)
        }
    }

    private mutating func push(_ a: Point, _ b: Point) {
        if a.y == b.y { return }
        if a.y < b.y {
            segments.append(Segment(x0: a.x, y0: a.y, x1: b.x, y1: b.y, winding: 1))
        } else {
            segments.append(Segment(x0: b.x, y0: b.y, x1: a.x, y1: a.y, winding: -1))
        }
    }

    /// Scan-converts everything added so far into `blitter`.
    func fill<B: Blitter>(into blitter: inout B) {
        guard !segments.isEmpty, !clip.isEmpty else { return }
        let sorted = segments.sorted { $0.y0 < $1.y0 }
        // Clamp in floating point first: coordinates may be far beyond Int's range.
        let minY = Int(max(Double(clip.y), sorted[0].y0).rounded(.down))
        var bottomEdge = -Double.infinity
        for s in sorted { bottomEdge = max(bottomEdge, s.y1) }
        let maxY = Int(min(Double(clip.maxY), bottomEdge).rounded(.up))
        guard minY < maxY else { return }

        let width = clip.width
        let cells = UnsafeMutablePointer<Float>.allocate(capacity: width + 3)
        cells.initialize(repeating: 0, count: width + 3)
        let coverage = UnsafeMutablePointer<UInt8>.allocate(capacity: width + 3)
        defer { cells.deallocate(); coverage.deallocate() }
        var ranges: [(Int, Int)] = []
        ranges.reserveCapacity(64)
        var active: [Int] = []
        var next = 0

        for y in minY..<maxY {
            let top = Double(y), bottom = top + 1
            while next < sorted.count, sorted[next].y0 < bottom {
                if sorted[next].y1 > top { active.append(next) }
                next += 1
            }
            ranges.removeAll(keepingCapacity: true)
            var i = 0
            while i < active.count {
                let s = sorted[active[i]]
                if s.y1 <= top { active.swapAt(i, active.count - 1); active.removeLast(); continue }
                let ya = max(top, s.y0), yb = min(bottom, s.y1)
                let slope = s.dxdy
                let xa = s.x0 + (ya - s.y0) * slope - left
                let xb = s.x0 + (yb - s.y0) * slope - left
                ranges.append(accumulate(cells, xa, xb, (yb - ya) * s.winding, width))
                i += 1
            }
            guard !ranges.isEmpty else { continue }
            sweep(y: y, cells: cells, coverage: coverage, ranges: &ranges, width: width, into: &blitter)
        }
    }

    /// Adds a piece of segment going from `xa` to `xb` (row-relative) over height `d`
    /// (signed by winding); returns the cells it touched.
    ///
    /// With H(X) the mean over the piece of max(0, X − x), the coverage it gives cell i is
    /// d·(H(i+1) − H(i)); the cells store differences of that, d·(H(i+1) − 2H(i) + H(i−1)),
    /// so the running sum along the row rebuilds the coverage.
    @inline(__always)
    private func accumulate(_ cells: UnsafeMutablePointer<Float>, _ xa: Double, _ xb: Double, _ d: Double, _ width: Int) -> (Int, Int) {
        var lo = max(0, min(xa, xb)), hi = min(Double(width), max(xa, xb))
        if !(lo <= hi) {
            // Only non-finite arithmetic gets here; treat the piece as vertical at the left.
            lo = 0
            hi = 0
        }
        let i0 = Int(lo)
        let span = hi - lo
        if span < 1e-6 || hi <= Double(i0 + 1) {
            // Within one cell: the mean crossing point splits it.
            let f = (lo + hi) * 0.5 - Double(i0)
            cells[i0] += Float(d * (1 - f))
            cells[i0 + 1] += Float(d * f)
            return (i0, i0 + 1)
        }
        let i1 = Int(hi.rounded(.up))
        let inv = 1 / span
        @inline(__always) func h(_ x: Double) -> Double {
            let a = x - lo, b = x - hi
            return ((a > 0 ? a * a : 0) - (b > 0 ? b * b : 0)) * 0.5 * inv
        }
        var hPrev = 0.0, hCur = 0.0
        for i in i0...i1 {
            let hNext = h(Double(i + 1))
            cells[i] += Float(d * (hNext - 2 * hCur + hPrev))
            hPrev = hCur
            hCur = hNext
        }
        return (i0, i1)
    }

    /// Turns one row of accumulated cells into spans and clears the cells.
    private func sweep<B: Blitter>(
        y: Int, cells: UnsafeMutablePointer<Float>, coverage: UnsafeMutablePointer<UInt8>,
        ranges: inout [(Int, Int)], width: Int, into blitter: inout B
    ) {
        ranges.sort { $0.0 < $1.0 }
        var sum: Float = 0
        var x = 0
        var r = 0
        while r < ranges.count {
            let a = ranges[r].0
            var b = ranges[r].1
            r += 1
            while r < ranges.count, ranges[r].0 <= b + 1 { b = max(b, ranges[r].1); r += 1 }
            if a > x, a <= width {
                let c = byte(sum)
                if c != 0 { blitter.blitH(x: clip.x + x, y: y, width: min(a, width) - x, coverage: c) }
            }
            let last = min(b, width - 1)
            if a <= last {
                for i in a...last {
                    sum += cells[i]
                    cells[i] = 0
                    coverage[i - a] = byte(sum)
                }
                blitter.blitAntiH(x: clip.x + a, y: y, coverage: coverage, count: last - a + 1)
            }
            if b > last {
                for i in max(a, last + 1)...b {
                    sum += cells[i]
                    cells[i] = 0
                }
            }
            x = b + 1
        }
        if x < width {
            let c = byte(sum)
            if c != 0 { blitter.blitH(x: clip.x + x, y: y, width: width - x, coverage: c) }
        }
        cells[width] = 0
        cells[width + 1] = 0
        cells[width + 2] = 0
    }

    /// Coverage byte for an accumulated signed area: clamped for non-zero, folded into
    /// 0…1…0 for even-odd (an area of 2 is two windings: outside again).
    @inline(__always)
    func byte(_ area: Float) -> UInt8 {
        var a = abs(area)
        if rule == .evenOdd {
            a -= 2 * (a * 0.5).rounded(.down)
            if a > 1 { a = 2 - a }
        }
        return UInt8(min(1, a) * 255 + 0.5)
    }
}

/// How far the chords that replace curves may stray from them, in device pixels.
public enum Flatness {
    /// Backgrounds, borders, clips and shadows: 0.05 px, up to 13/255 of coverage on a
    /// curved edge.
    public static let standard = 0.05
    /// Shape layers: 1/256 px, within 1/255 of the exact coverage.
    public static let fine = 1.0 / 256
}

/// Which parts of a self-overlapping outline are inside.
public enum FillRule: Sendable {
    /// Inside where the outline winds around a point any number of times (CA's default).
    case nonZero
    /// Inside where it winds an odd number of times.
    case evenOdd
}
