import CLinuxEvents
import Glibc

/// How well the system's wall clock is kept (chrony, ntpd or a PTP daemon tell the kernel):
/// `adjtimex` read without changing anything.
public struct ClockSync: Sendable, Equatable {
    /// The kernel's clock is synchronized (its state is not TIME_ERROR, STA_UNSYNC unset).
    public var synchronized: Bool
    /// The most the clock may be off, in microseconds, as the time daemon last said.
    public var maximumErrorMicroseconds: Int
    /// The estimated error, in microseconds.
    public var estimatedErrorMicroseconds: Int

    /// The kernel's figures now; nil where `adjtimex` fails.
    public static func read() -> ClockSync? {
        var t = timex()
        let state = adjtimex(&t)
        guard state >= 0 else { return nil }
        let unsynchronized = state == TIME_ERROR || t.status & Int32(STA_UNSYNC) != 0
        return ClockSync(synchronized: !unsynchronized, maximumErrorMicroseconds: t.maxerror, estimatedErrorMicroseconds: t.esterror)
    }
}
