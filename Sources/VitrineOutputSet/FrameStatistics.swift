/// What frames cost, counted on the frame path with plain stores (no lock, no allocation):
/// read by `stats` and the metrics between frames.
public struct FrameStatistics {
    /// Frames whose time is kept for the percentiles: the last few seconds at 60 Hz.
    public static let window = 1024
    /// Seconds the loop spent on each of the last `window` frames that presented.
    private var recent = [Double](repeating: 0, count: window)
    /// Frames timed so far.
    public private(set) var count = 0
    /// Seconds the loop spent on every frame timed.
    public private(set) var totalSeconds = 0.0

    /// Counts a frame that took `seconds` of the loop.
    mutating func record(_ seconds: Double) {
        recent[count % Self.window] = seconds
        count += 1
        totalSeconds += seconds
    }

    /// The frame times at `quantiles` (0…1, nearest rank) over the last `window` frames;
    /// zeros before any frame.
    public func percentiles(_ quantiles: [Double]) -> [Double] {
        let kept = min(count, Self.window)
        guard kept > 0 else { return quantiles.map { _ in 0 } }
        let sorted = recent[0..<kept].sorted()
        return quantiles.map { q in sorted[min(kept - 1, max(0, Int((q * Double(kept)).rounded(.up)) - 1))] }
    }
}

/// Frame slots an animating output missed: while something animates, each output is due
/// a frame every refresh interval, and every whole interval that passes without one is a
/// dropped frame.
public struct DroppedFrames {
    /// Frames dropped so far.
    public private(set) var count = 0
    /// When the last frame pass ran, and whether it left the scene animating.
    private var last: (time: Double, animating: Bool)?

    /// A frame pass ran at `time` (seconds of the real-time clock); `animating`: it asked
    /// for the next one.
    mutating func pass(at time: Double, interval: Double, animating: Bool) {
        if let last, last.animating, interval > 0 {
            let slots = ((time - last.time) / interval).rounded()
            if slots > 1, slots < 1e9 { count += Int(slots) - 1 }
        }
        last = (time, animating)
    }

    /// The output was blanked or the clock moved: the next pass starts afresh.
    mutating func forget() { last = nil }
}
