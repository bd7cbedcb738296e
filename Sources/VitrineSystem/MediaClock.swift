import Glibc

/// Media time, the time animations and frames are on: set by hand, or the monotonic clock
/// since start (the event loop's, which its deadlines are on) plus where a restored
/// scene's time had got to.
///
/// One clock is shared by the daemon's owners (the scene's commands, the outputs' pacing,
/// input), so it is a reference; it is confined to the loop like they are.
public final class MediaClock {
    /// How time advances.
    public enum Mode: String, Sendable, CaseIterable {
        /// Time moves only with `clock.set` / `clock.advance` (tests, scripted renders).
        case manual
        /// Time is the monotonic clock; frames are paced at the output's rate.
        case realtime
    }

    /// How this clock advances.
    public let mode: Mode
    private var manualTime = 0.0
    /// The manual clock's wall clock minus its media time (`setWall`).
    private var manualWallOffset = 0.0
    private let start = EventLoop.monotonicNanoseconds()
    /// Media time at start: 0, or a restored scene's.
    private var offset = 0.0

    /// A clock at media time 0.
    public init(mode: Mode) { self.mode = mode }

    /// The media time now.
    public var now: Double {
        switch mode {
        case .manual: manualTime
        case .realtime: offset + Double(EventLoop.monotonicNanoseconds() - start) / 1e9
        }
    }

    /// Sets the manual clock's time.
    public func set(_ time: Double) { manualTime = time }

    /// Makes the manual clock's wall clock read `wall` (Unix seconds) now, its media time
    /// running on: a step of the wall clock, as NTP makes one.
    public func setWall(_ wall: Double) { manualWallOffset = wall - manualTime }

    /// Wall-clock (CLOCK_REALTIME) seconds minus media seconds: with the manual clock 0
    /// until `setWall` (media time t is Unix time t).
    public var wallOffset: Double {
        switch mode {
        case .manual: return manualWallOffset
        case .realtime:
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            return Double(wall.tv_sec) + Double(wall.tv_nsec) / 1e9 - now
        }
    }

    /// The media time at CLOCK_MONOTONIC `seconds` (an input event's kernel time); with
    /// the manual clock, the time it is now.
    public func mediaTime(monotonic seconds: Double) -> Double {
        switch mode {
        case .manual: manualTime
        case .realtime: offset + seconds - Double(start) / 1e9
        }
    }

    /// Makes the time now `time`, in either mode; the real-time clock runs on from there.
    public func resume(at time: Double) {
        manualTime = time
        offset = time - Double(EventLoop.monotonicNanoseconds() - start) / 1e9
    }
}
