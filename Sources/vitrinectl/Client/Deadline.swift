import Glibc

/// A moment on the monotonic clock (`CLOCK_MONOTONIC`): every wait of `vitrinectl` is
/// measured on it, in real seconds, whatever clock the daemon runs (a manual clock's media
/// time moves only when told to) and whatever happens to the wall clock meanwhile.
struct Deadline {
    /// Nanoseconds on the monotonic clock.
    let instant: UInt64

    /// `seconds` from now.
    init(in seconds: Double) {
        instant = Self.now &+ UInt64(max(0, min(seconds, 1e9)) * 1e9)
    }

    /// The monotonic clock now, in nanoseconds.
    static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Seconds left, 0 once it has passed.
    var remaining: Double {
        let now = Self.now
        return instant > now ? Double(instant - now) / 1e9 : 0
    }
}
