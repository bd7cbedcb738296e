import CLinuxEvents
import Glibc
import VitrineSystem

/// When a held key repeats: the last key pressed, if the keymap says it repeats, after
/// `delay` seconds and then `rate` times a second, until it is released, another key is
/// pressed or its keyboard goes away. Pure bookkeeping: `RepeatTimer` runs the clock.
struct KeyRepeat: Equatable {
    /// Seconds before the first repeat.
    var delay: Double
    /// Repeats per second after the first; 0 never repeats.
    var rate: Int
    /// The key repeating, if any.
    private(set) var held: Held?
    /// Repeats sent for `held` so far.
    private(set) var count = 0
    /// The most repeats sent for one expiry of the timer: a loop that was held up does not
    /// flood the scene with the repeats it missed.
    static let burst = 4

    /// A key that repeats: its evdev code, its device, and when it went down (kernel seconds).
    struct Held: Equatable {
        var code: UInt32
        var device: Int
        var pressedAt: Double
    }

    /// When the timer fires: first after `delay`, then every `interval` seconds.
    struct Timing: Equatable {
        var delay: Double
        var interval: Double
    }

    init(delay: Double, rate: Int) {
        (self.delay, self.rate) = (max(0, delay), max(0, rate))
    }

    /// From the settings' milliseconds and rate.
    init(_ settings: InputSettings) {
        self.init(delay: Double(settings.repeatDelayMilliseconds) / 1000, rate: settings.repeatRate)
    }

    /// The timer's period; nil when keys do not repeat.
    var interval: Double? { rate > 0 ? 1 / Double(rate) : nil }

    /// A key went down: the timing to arm the timer with, or nil to disarm it (another
    /// key stops the one repeating; a key that does not repeat starts nothing).
    mutating func press(_ code: UInt32, device: Int, at time: Double, repeats: Bool) -> Timing? {
        count = 0
        guard repeats, let interval else {
            held = nil
            return nil
        }
        held = Held(code: code, device: device, pressedAt: time)
        return Timing(delay: delay, interval: interval)
    }

    /// A key went up (on every keyboard that held it): whether it was the one repeating
    /// (disarm the timer).
    mutating func release(_ code: UInt32) -> Bool {
        guard let held, held.code == code else { return false }
        stop()
        return true
    }

    /// The device is gone: whether its key was repeating (disarm the timer).
    mutating func remove(device: Int) -> Bool {
        guard let held, held.device == device else { return false }
        stop()
        return true
    }

    mutating func stop() {
        held = nil
        count = 0
    }

    /// The timer expired `expirations` times since it was last read: the kernel times of
    /// the repeats to send now, the last `burst` of them at most.
    mutating func expired(_ expirations: UInt64) -> [Double] {
        guard let held, let interval, expirations > 0 else { return [] }
        let first = count + 1
        count += Int(min(expirations, 1 << 20))
        return (max(first, count - Self.burst + 1)...count).map { held.pressedAt + delay + Double($0 - 1) * interval }
    }
}

/// A timerfd for key repeat: armed only while a key repeats, so that nothing wakes the
/// loop while no key is held.
final class RepeatTimer {
    private let timer: OwnedDescriptor
    var fd: CInt { timer.rawValue }

    init() throws(InputError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard fd >= 0 else { throw .failed("creating the key-repeat timer (timerfd_create)", errno) }
        timer = OwnedDescriptor(fd)
    }

    /// Fires after `timing.delay`, then every `timing.interval` seconds.
    func arm(_ timing: KeyRepeat.Timing) {
        var spec = itimerspec(it_interval: Self.timespec(timing.interval), it_value: Self.timespec(max(timing.delay, 1e-6)))
        _ = timerfd_settime(fd, 0, &spec, nil)
    }

    func disarm() {
        var spec = itimerspec()
        _ = timerfd_settime(fd, 0, &spec, nil)
    }

    /// Whether it will fire.
    var isArmed: Bool {
        var spec = itimerspec()
        _ = timerfd_gettime(fd, &spec)
        return spec.it_value.tv_sec != 0 || spec.it_value.tv_nsec != 0
    }

    /// The expirations since the last read (0 when none, or when it was disarmed since).
    func read() -> UInt64 {
        var count: UInt64 = 0
        return Glibc.read(fd, &count, 8) == 8 ? count : 0
    }

    private static func timespec(_ seconds: Double) -> Glibc.timespec {
        let nanoseconds = UInt64(seconds * 1e9)
        return Glibc.timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }
}
