import Glibc

/// The local wall clock (the process's time zone, `TZ`) as people read it: the date, the
/// weekday and the minute of the day at an instant, and the instants at which the clock
/// reads a given time. Counted on the calendar, never in seconds of a day, so that a day
/// of 23 or 25 hours (a daylight-saving change) moves nothing.
///
/// ```swift
/// let now = LocalCalendar.reading(at: 1_774_746_000)   // 2026-03-29 03:00 in Berlin
/// now.minute                                          // 180
/// ```
public enum LocalCalendar {
    /// What the local clock reads at an instant.
    public struct Reading: Sendable, Hashable {
        /// The date as a number yyyymmdd (20260329).
        public var date: Int
        /// 0 Sunday … 6 Saturday.
        public var weekday: Int
        /// Minutes after midnight, 0…1439.
        public var minute: Int
    }

    /// The local clock at `instant` (seconds since the epoch).
    public static func reading(at instant: Int) -> Reading {
        let parts = localParts(instant)
        return Reading(
            date: Int(parts.tm_year + 1900) * 10000 + Int(parts.tm_mon + 1) * 100 + Int(parts.tm_mday), weekday: Int(parts.tm_wday),
            minute: Int(parts.tm_hour) * 60 + Int(parts.tm_min))
    }

    /// The local clock on the day before `reading`'s (its date and weekday; the minute kept).
    public static func dayBefore(_ reading: Reading) -> Reading {
        var parts = tm()
        parts.tm_year = Int32(reading.date / 10000 - 1900)
        parts.tm_mon = Int32(reading.date / 100 % 100 - 1)
        parts.tm_mday = Int32(reading.date % 100 - 1)
        parts.tm_hour = 12
        parts.tm_isdst = -1
        var noon = mktime(&parts)
        var day = tm()
        localtime_r(&noon, &day)
        return Reading(
            date: Int(day.tm_year + 1900) * 10000 + Int(day.tm_mon + 1) * 100 + Int(day.tm_mday), weekday: Int(day.tm_wday), minute: reading.minute)
    }

    /// The first instant after `instant` at which the local clock reads one of `minutes`
    /// (minutes after midnight), looking up to two days ahead; `Int.max` when none does. A
    /// minute that a daylight-saving change skips counts as the instant the clock jumps to.
    public static func next(after instant: Int, readingAnyOf minutes: some Sequence<Int>) -> Int {
        let today = localParts(instant)
        var next = Int.max
        for day in 0...2 {
            for minute in minutes {
                var parts = tm()
                parts.tm_year = today.tm_year
                parts.tm_mon = today.tm_mon
                parts.tm_mday = today.tm_mday + Int32(day)
                parts.tm_hour = Int32(minute / 60)
                parts.tm_min = Int32(minute % 60)
                parts.tm_isdst = -1
                let at = Int(mktime(&parts))
                if at > instant { next = min(next, at) }
            }
        }
        return next
    }

    private static func localParts(_ instant: Int) -> tm {
        var seconds = time_t(instant)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return parts
    }
}
