/// An animation, as CAAnimation and its subclasses describe one.
///
/// Build one with `basic`, `spring`, `keyframe` or `group`, adjust its timing, and add it
/// to a layer in a transaction. Once added it is immutable, as in Core Animation.
public struct Animation: Sendable, Hashable {
    /// What the animation does with time.
    public enum Kind: Sendable, Hashable {
        /// CABasicAnimation: from / to / by in CA's combinations.
        case basic(Endpoints)
        /// CASpringAnimation: from / to / by moved by a spring instead of a curve.
        case spring(Endpoints, Spring)
        /// CAKeyframeAnimation.
        case keyframe(Keyframes)
        /// CAAnimationGroup: children timed in the group's local time.
        case group([Animation])
        /// CATransition: the layer's old rendering animated out and its new one in.
        case transition(Transition)
    }

    /// CABasicAnimation's fromValue, toValue and byValue; nil where unset.
    public struct Endpoints: Sendable, Hashable {
        public var from: Value?
        public var to: Value?
        public var by: Value?

        public init(from: Value? = nil, to: Value? = nil, by: Value? = nil) {
            (self.from, self.to, self.by) = (from, to, by)
        }

        var all: [Value] { [from, to, by].compactMap { $0 } }
    }

    public var kind: Kind
    /// The property (or part of one) animated; nil only for groups and transitions.
    public var keyPath: KeyPath?
    public var timing: MediaTiming
    /// The pacing of each pass; nil is linear (and, for implicit actions, the
    /// transaction's curve).
    public var timingFunction: TimingFunction?
    /// The value is added to the property's value underneath instead of replacing it.
    public var isAdditive = false
    /// Each repetition starts where the previous one ended.
    public var isCumulative = false
    /// Removed from the layer when it ends; when false it stays (showing its end state with
    /// a forwards fill) until removed.
    public var isRemovedOnCompletion = true

    public init(kind: Kind, keyPath: KeyPath?, timing: MediaTiming = MediaTiming(), timingFunction: TimingFunction? = nil) {
        self.kind = kind
        self.keyPath = keyPath
        self.timing = timing
        self.timingFunction = timingFunction
    }

    /// A CABasicAnimation of `keyPath`.
    public static func basic(
        _ keyPath: KeyPath, from: Value? = nil, to: Value? = nil, by: Value? = nil, duration: Double = 0, timingFunction: TimingFunction? = nil
    ) -> Animation {
        Animation(
            kind: .basic(Endpoints(from: from, to: to, by: by)), keyPath: keyPath, timing: MediaTiming(duration: duration), timingFunction: timingFunction)
    }

    /// A CASpringAnimation of `keyPath`; a duration of 0 becomes the spring's settling
    /// duration when the animation is added.
    public static func spring(_ keyPath: KeyPath, from: Value? = nil, to: Value? = nil, by: Value? = nil, spring: Spring, duration: Double = 0) -> Animation {
        Animation(kind: .spring(Endpoints(from: from, to: to, by: by), spring), keyPath: keyPath, timing: MediaTiming(duration: duration))
    }

    /// A CAKeyframeAnimation of `keyPath`.
    public static func keyframe(_ keyPath: KeyPath, _ keyframes: Keyframes, duration: Double = 0) -> Animation {
        Animation(kind: .keyframe(keyframes), keyPath: keyPath, timing: MediaTiming(duration: duration))
    }

    /// A CAAnimationGroup.
    public static func group(_ children: [Animation], duration: Double = 0) -> Animation {
        Animation(kind: .group(children), keyPath: nil, timing: MediaTiming(duration: duration))
    }

    /// Every value the animation names, for validation against the property's type.
    var values: [Value] {
        switch kind {
        case .basic(let e), .spring(let e, _): e.all
        case .keyframe(let k): k.path == nil ? k.values : [.point(.zero)]
        case .group, .transition: []
        }
    }
}

/// A keyframe animation's frames.
extension Animation {
    /// About how many bytes the animation holds beyond its fixed size: its values (text,
    /// lists), keyframe times and curves, and its children's.
    public var heapBytes: Int {
        switch kind {
        case .basic(let e), .spring(let e, _):
            return e.all.reduce(0) { $0 + $1.heapBytes }
        case .keyframe(let k):
            return k.values.reduce(0) { $0 + 48 + $1.heapBytes } + (k.keyTimes?.count ?? 0) * 8 + (k.timingFunctions?.count ?? 0) * 40
                + (k.path?.elements.count ?? 0) * 56 + (k.track?.segments.count ?? 0) * 600
        case .group(let children):
            return children.reduce(0) { $0 + 200 + $1.heapBytes }
        case .transition:
            return 0
        }
    }
}

public struct Keyframes: Sendable, Hashable {
    /// How values between keyframes are found (CAAnimationCalculationMode).
    public enum CalculationMode: String, CaseIterable, Sendable {
        case linear, discrete, paced, cubic, cubicPaced
    }

    public var values: [Value] { didSet { measure() } }
    /// Fractions of the duration, ascending from 0 to 1, one per value (one more than the
    /// values for `discrete`); nil spaces them evenly. Ignored by `paced` and `cubicPaced`.
    public var keyTimes: [Double]?
    /// One curve per segment (values − 1), or one for all; nil is linear.
    public var timingFunctions: [TimingFunction]?
    public var calculationMode: CalculationMode { didSet { measure() } }
    /// A path a point property follows instead of `values` (CAKeyframeAnimation's `path`):
    /// every element but a move is a keyframe segment.
    public var path: PathData? { didSet { measure() } }
    /// Whether the layer turns to the direction of its motion.
    public var rotationMode: RotationMode? { didSet { measure() } }
    /// The path followed, measured: `path`, or the points of `values` joined as the mode
    /// joins them when the motion must be measured (cubicPaced, or a rotation mode).
    private(set) var track: PathTrack?

    public init(
        values: [Value], keyTimes: [Double]? = nil, timingFunctions: [TimingFunction]? = nil, calculationMode: CalculationMode = .linear,
        path: PathData? = nil, rotationMode: RotationMode? = nil
    ) {
        self.values = values
        self.keyTimes = keyTimes
        self.timingFunctions = timingFunctions
        self.calculationMode = calculationMode
        self.path = path
        self.rotationMode = rotationMode
        measure()
    }

    private mutating func measure() {
        if let path {
            track = PathTrack(path)
            return
        }
        let points = values.compactMap { v -> Point? in v.point ?? v.number.map { Point(x: $0, y: 0) } }
        guard points.count == values.count, points.count > 1, calculationMode == .cubicPaced || (rotationMode != nil && values.first?.point != nil)
        else {
            track = nil
            return
        }
        let spline = calculationMode == .cubic || calculationMode == .cubicPaced
        track = PathTrack(spline ? PathTrack.catmullRom(through: points) : PathData(elements: [.move(points[0])] + points.dropFirst().map { .line($0) }))
    }

    /// The first and last value the animation shows.
    var endValues: (Value, Value)? {
        if let track, path != nil {
            let points = track.keyPoints
            return (.point(points[0]), .point(points[points.count - 1]))
        }
        guard let first = values.first, let last = values.last else { return nil }
        return (first, last)
    }

    /// The direction the layer is turned to at fraction `f`, in radians; nil without a
    /// rotation mode, or where the motion has none.
    func rotation(at f: Double) -> Double? {
        guard let mode = rotationMode, let track, let angle = track.sample(at: f, self).1 else { return nil }
        return mode == .auto ? angle : angle + Double.pi
    }

    /// Throws unless the frames are consistent.
    func validate() throws(CoreError) {
        if let path {
            let count = PathTrack(path).segments.count
            guard count > 0 else { throw .invalidAnimation("a keyframe path needs a segment after its first M") }
            if let keyTimes, calculationMode != .paced, calculationMode != .cubicPaced {
                let expected = calculationMode == .discrete ? [count + 1, count + 2] : [count + 1]
                guard expected.contains(keyTimes.count) else {
                    throw .invalidAnimation("keyTimes needs \(expected.map(String.init).joined(separator: " or ")) entries for a path of \(count) segments")
                }
            }
            return
        }
        guard !values.isEmpty else { throw .invalidAnimation("a keyframe animation needs at least one value") }
        guard Set(values.map(\.type)).count == 1 else { throw .invalidAnimation("keyframe values must all be of one type") }
        if let keyTimes, calculationMode != .paced, calculationMode != .cubicPaced {
            let expected = calculationMode == .discrete ? [values.count, values.count + 1] : [values.count]
            guard expected.contains(keyTimes.count) else {
                throw .invalidAnimation("keyTimes needs \(expected.map(String.init).joined(separator: " or ")) entries for \(values.count) values")
            }
            guard keyTimes.allSatisfy({ $0.isFinite && (0...1).contains($0) }), zip(keyTimes, keyTimes.dropFirst()).allSatisfy({ $0 <= $1 }) else {
                throw .invalidAnimation("keyTimes must ascend within 0…1")
            }
        }
        if let tf = timingFunctions, tf.count != 1, tf.count != max(values.count - 1, 1) {
            throw .invalidAnimation("timingFunctions needs 1 or \(max(values.count - 1, 1)) entries")
        }
    }

    /// The value at fraction `f` of the duration.
    func value(at f: Double, mix: (Value, Value, Double) -> Value = Value.interpolate) -> Value {
        if let track, path != nil || calculationMode == .cubicPaced || values.first?.point != nil {
            let p = track.sample(at: f, self).0
            return path == nil && values.first?.number != nil ? .number(p.x) : .point(p)
        }
        let n = values.count
        if n == 1 { return values[0] }
        switch calculationMode {
        case .discrete:
            let times = keyTimes ?? (0..<n).map { Double($0) / Double(n) }
            let index = times.lastIndex { $0 <= f } ?? 0
            return values[min(index, n - 1)]
        case .linear, .cubic, .paced, .cubicPaced:
            let times = calculationMode == .paced || calculationMode == .cubicPaced ? pacedTimes : (keyTimes ?? (0..<n).map { Double($0) / Double(n - 1) })
            if f <= times[0] { return values[0] }
            if f >= times[n - 1] { return values[n - 1] }
            var i = 0
            while i < n - 2 && f >= times[i + 1] { i += 1 }
            let span = times[i + 1] - times[i]
            var local = span > 0 ? (f - times[i]) / span : 1
            if let tf = timingFunctions {
                local = tf[tf.count == 1 ? 0 : min(i, tf.count - 1)].progress(at: local)
            }
            if calculationMode == .cubic || calculationMode == .cubicPaced {
                return Value.catmullRom(values[max(i - 1, 0)], values[i], values[i + 1], values[min(i + 2, n - 1)], local)
            }
            return mix(values[i], values[i + 1], local)
        }
    }

    /// Key times that give every segment the same speed.
    private var pacedTimes: [Double] {
        let lengths = zip(values, values.dropFirst()).map { Value.distance($0, $1) }
        let total = lengths.reduce(0, +)
        guard total > 0 else { return (0..<values.count).map { Double($0) / Double(values.count - 1) } }
        var times = [0.0]
        var run = 0.0
        for l in lengths { run += l; times.append(run / total) }
        return times
    }
}
