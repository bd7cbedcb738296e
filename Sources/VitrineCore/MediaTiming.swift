/// What an animation shows outside its active interval (CAMediaTimingFillMode).
public enum FillMode: String, CaseIterable, Sendable, Hashable {
    case removed, forwards, backwards, both

    var fillsForwards: Bool { self == .forwards || self == .both }
    var fillsBackwards: Bool { self == .backwards || self == .both }
}

/// The CAMediaTiming properties, shared by layers and animations.
///
/// Parent time `tp` maps to active local time `t = (tp − beginTime) × speed + timeOffset`.
/// For an animation, the time since its start `(tp − beginTime) × speed` is what decides
/// whether it is active, and `timeOffset` shifts where in its cycle it is, wrapping round,
/// as in Core Animation.
public struct MediaTiming: Hashable, Sendable {
    public var beginTime: Double = 0
    /// Seconds for one pass; 0 means "use the transaction's duration" for an animation
    /// and "unbounded" for a layer.
    public var duration: Double = 0
    public var speed: Double = 1
    public var timeOffset: Double = 0
    /// Passes to play, fractional allowed, `.infinity` for ever; 0 means once.
    public var repeatCount: Double = 0
    /// Seconds to repeat for; takes precedence over `repeatCount` when non-zero.
    public var repeatDuration: Double = 0
    public var autoreverses = false
    public var fillMode: FillMode = .removed

    public init(
        beginTime: Double = 0, duration: Double = 0, speed: Double = 1, timeOffset: Double = 0,
        repeatCount: Double = 0, repeatDuration: Double = 0, autoreverses: Bool = false,
        fillMode: FillMode = .removed
    ) {
        self.beginTime = beginTime
        self.duration = duration
        self.speed = speed
        self.timeOffset = timeOffset
        self.repeatCount = repeatCount
        self.repeatDuration = repeatDuration
        self.autoreverses = autoreverses
        self.fillMode = fillMode
    }

    /// True when parent and local time coincide and nothing repeats or ends.
    var isIdentity: Bool {
        beginTime == 0 && speed == 1 && timeOffset == 0 && duration == 0
    }

    /// Active local time for parent time `tp`: (tp − beginTime) × speed + timeOffset.
    public func localTime(fromParent tp: Double) -> Double {
        (tp - beginTime) * speed + timeOffset
    }

    /// The parent time at which local time is `t`; with speed 0 every parent time maps to
    /// the same local time, and `beginTime` is returned.
    public func parentTime(fromLocal t: Double) -> Double {
        speed == 0 ? beginTime : (t - timeOffset) / speed + beginTime
    }

    /// One cycle: the duration, twice when autoreversing.
    var cycle: Double { autoreverses ? 2 * duration : duration }

    /// How long the object is active, in its own time scale (before speed).
    public var activeDuration: Double {
        if repeatDuration > 0 { return repeatDuration }
        return cycle * (repeatCount > 0 ? repeatCount : 1)
    }

    /// Where in its basic duration the object is at parent time `tp`, and in which
    /// repetition; nil when it is inactive there (before its start without a backwards
    /// fill, after its end without a forwards fill). Needs `duration > 0`.
    public func basicTime(fromParent tp: Double) -> (time: Double, iteration: Int)? {
        let elapsed = (tp - beginTime) * speed
        let active = activeDuration
        if elapsed < 0 {
            guard fillMode.fillsBackwards else { return nil }
            return basicTime(unwrapped: timeOffset, atEnd: false)
        }
        if elapsed >= active {
            guard fillMode.fillsForwards else { return nil }
            return basicTime(unwrapped: active + timeOffset, atEnd: true)
        }
        return basicTime(unwrapped: elapsed + timeOffset, atEnd: false)
    }

    /// True once the object's active interval is over at parent time `tp`.
    public func hasEnded(atParent tp: Double) -> Bool {
        (tp - beginTime) * speed >= activeDuration
    }

    /// True once the object's active interval has begun at parent time `tp`.
    public func hasStarted(atParent tp: Double) -> Bool {
        (tp - beginTime) * speed >= 0
    }

    /// Maps time since the start (plus offset) into one pass; at the very end of a pass
    /// (`atEnd`) the pass's final state is kept instead of wrapping to the next.
    private func basicTime(unwrapped u: Double, atEnd: Bool) -> (time: Double, iteration: Int) {
        let cycle = self.cycle
        guard cycle > 0, u.isFinite else { return (u >= 0 ? duration : 0, 0) }
        var iteration = (u / cycle).rounded(.down)
        var within = u - iteration * cycle
        if atEnd, within <= 1e-12 * cycle, iteration > 0 {
            iteration -= 1
            within = cycle
        }
        if autoreverses, within > duration { within = 2 * duration - within }
        return (min(max(within, 0), duration), Int(max(-1e15, min(iteration, 1e15))))
    }
}
