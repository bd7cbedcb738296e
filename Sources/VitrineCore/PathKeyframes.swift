import Glibc

/// How a layer animated along a path turns (CAKeyframeAnimation's `rotationMode`).
public enum RotationMode: String, CaseIterable, Sendable {
    /// The layer turns to the path's direction.
    case auto
    /// The layer turns to the path's direction plus 180°.
    case autoReverse
}

/// A keyframe animation's path, measured once: its segments (every element but a move)
/// and a table of arc length per segment for moving at constant speed.
struct PathTrack: Sendable, Hashable {
    /// One drawing element from `start`.
    struct Segment: Sendable, Hashable {
        let start: Point
        let element: PathData.Element
        /// Arc length at parameters k / samples, from 0 to the segment's length.
        let lengths: [Double]

        func point(at t: Double) -> Point {
            switch element {
            case .line(let p): Point(x: start.x + (p.x - start.x) * t, y: start.y + (p.y - start.y) * t)
            case .quad(let p, let c): quadPoint(start, c, p, t)
            case .cubic(let p, let c1, let c2): cubicPoint(start, c1, c2, p, t)
            case .move(let p): p
            case .close: start
            }
        }

        func derivative(at t: Double) -> Point {
            switch element {
            case .line(let p): p - start
            case .quad(let p, let c): quadDerivative(start, c, p, t)
            case .cubic(let p, let c1, let c2): cubicDerivative(start, c1, c2, p, t)
            case .move, .close: Point(x: 0, y: 0)
            }
        }

        var end: Point { point(at: 1) }
        var length: Double { lengths.last ?? 0 }

        /// The parameter at arc length `s` from the start.
        func parameter(atLength s: Double) -> Double {
            guard length > 0 else { return 0 }
            let n = lengths.count - 1
            var lo = 0, hi = n
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if lengths[mid] <= s { lo = mid } else { hi = mid }
            }
            let t0 = Double(lo) / Double(n), t1 = Double(hi) / Double(n)
            var t = t0 + (t1 - t0) * ((s - lengths[lo]) / max(lengths[hi] - lengths[lo], 1e-300))
            // Newton steps on the length from the sample below.
            for _ in 0..<3 {
                let speed = derivative(at: t)
                let v = (speed.x * speed.x + speed.y * speed.y).squareRoot()
                guard v > 1e-12 else { break }
                let here = lengths[lo] + curvePiece(from: t0, to: t, derivative(at:)).length
                t = min(t1, max(t0, t - (here - s) / v))
            }
            return t
        }
    }

    let segments: [Segment]
    /// The start of the first segment.
    let origin: Point
    let totalLength: Double

    init(_ data: PathData) {
        var segments: [Segment] = []
        var current = Point.zero, start = Point.zero
        var origin: Point?
        for e in data.elements {
            var element = e
            switch e {
            case .move(let p):
                current = p
                start = p
                if origin == nil { origin = p }
                continue
            case .close:
                element = .line(start)
            default:
                break
            }
            let samples = 64
            var lengths = [0.0]
            var segment = Segment(start: current, element: element, lengths: [])
            for k in 1...samples {
                lengths.append(
                    lengths[k - 1] + curvePiece(from: Double(k - 1) / Double(samples), to: Double(k) / Double(samples), segment.derivative(at:)).length)
            }
            segment = Segment(start: current, element: element, lengths: lengths)
            segments.append(segment)
            current = segment.end
        }
        self.segments = segments
        self.origin = origin ?? .zero
        totalLength = segments.reduce(0) { $0 + $1.length }
    }

    /// The key points: the start, then every segment's end.
    var keyPoints: [Point] { [segments.first?.start ?? origin] + segments.map(\.end) }

    /// The position and direction (radians, y down) at fraction `f` of the duration.
    func sample(at f: Double, _ k: Keyframes) -> (Point, Double?) {
        guard !segments.isEmpty else { return (origin, nil) }
        let n = segments.count
        switch k.calculationMode {
        case .discrete:
            let points = keyPoints
            let times = k.keyTimes ?? (0..<points.count).map { Double($0) / Double(points.count) }
            let index = min(times.lastIndex { $0 <= f } ?? 0, points.count - 1)
            return (points[index], nil)
        case .paced, .cubicPaced:
            var s = min(max(f, 0), 1) * totalLength
            for (i, segment) in segments.enumerated() {
                if s <= segment.length || i == n - 1 {
                    let t = segment.parameter(atLength: min(s, segment.length))
                    return (segment.point(at: t), angle(segment.derivative(at: t)))
                }
                s -= segment.length
            }
            return (segments[n - 1].end, nil)
        case .linear, .cubic:
            let times = k.keyTimes ?? (0...n).map { Double($0) / Double(n) }
            if f <= times[0] { return (segments[0].start, angle(segments[0].derivative(at: 0))) }
            if f >= times[n] { return (segments[n - 1].end, angle(segments[n - 1].derivative(at: 1))) }
            var i = 0
            while i < n - 1 && f >= times[i + 1] { i += 1 }
            let span = times[i + 1] - times[i]
            var local = span > 0 ? (f - times[i]) / span : 1
            if let tf = k.timingFunctions { local = tf[tf.count == 1 ? 0 : min(i, tf.count - 1)].progress(at: local) }
            return (segments[i].point(at: local), angle(segments[i].derivative(at: local)))
        }
    }

    private func angle(_ d: Point) -> Double? {
        d.x == 0 && d.y == 0 ? nil : atan2(d.y, d.x)
    }

    /// A path through `points` along the Catmull-Rom spline the cubic mode follows.
    static func catmullRom(through points: [Point]) -> PathData {
        var elements: [PathData.Element] = [.move(points[0])]
        let n = points.count
        for i in 0..<(n - 1) {
            let p0 = points[max(i - 1, 0)], p1 = points[i], p2 = points[i + 1], p3 = points[min(i + 2, n - 1)]
            elements.append(
                .cubic(
                    p2, control1: Point(x: p1.x + (p2.x - p0.x) / 6, y: p1.y + (p2.y - p0.y) / 6),
                    control2: Point(x: p2.x - (p3.x - p1.x) / 6, y: p2.y - (p3.y - p1.y) / 6)))
        }
        return PathData(elements: elements)
    }
}
