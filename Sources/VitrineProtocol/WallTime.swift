/// A request's `at`: a wall-clock instant, as Unix seconds or an RFC 3339 date-time.
public enum WallTime {
    /// Unix seconds (UTC) from a number of seconds (fractional) or an RFC 3339 string such
    /// as `2026-11-26T01:30:00.250Z` or `2026-11-26T02:30:00+01:00`.
    public static func seconds(_ json: JSON) throws(ProtocolError) -> Double {
        if let n = json.number {
            guard n.isFinite, n >= 0 else { throw ProtocolError(.invalidValue, "\"at\" is Unix seconds ≥ 0, got \(n)") }
            return n
        }
        guard let text = json.string else {
            throw ProtocolError(.wrongType, "\"at\" is Unix seconds (a number) or an RFC 3339 string such as \"2026-11-26T01:30:00Z\", not \(json.kindName)")
        }
        guard let seconds = parse(Array(text.utf8)) else {
            throw ProtocolError(
                .invalidValue, "\"at\": '\(text)' is no RFC 3339 date-time; write e.g. \"2026-11-26T01:30:00.5Z\" or \"2026-11-26T02:30:00+01:00\"")
        }
        return seconds
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; nil when it is not that or not a valid date.
    static func parse(_ b: [UInt8]) -> Double? {
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= b.count else { return nil }
            var value = 0
            for _ in 0..<count {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                value = value * 10 + Int(b[i] - 48)
                i += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard i < b.count, characters.utf8.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2), expect("Tt "),
            let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2)
        else { return nil }
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if expect("Zz") {
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let h = digits(2), expect(":"), let m = digits(2), h < 24, m < 60 else { return nil }
            offset = sign * (h * 3600 + m * 60)
        } else {
            return nil
        }
        let monthDays = [31, year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard i == b.count, (1...12).contains(month), day >= 1, day <= monthDays[month - 1], hour < 24, minute < 60, second <= 60 else {
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
