import FoundationEssentials
import Glibc
import Synchronization
import VitrineCore
import VitrineFormat

/// A string with `{key}` placeholders filled from custom properties, such as "It took
/// {count} seconds" counting while a custom `count` property animates.
///
/// A placeholder is `{keyPath}` or `{keyPath:format}`; the key path may reach into
/// dictionaries (`{touches.a.scale}`). Formats:
/// - `%.0f`, `%.2f`, `%d`, `%x`… — printf style (numbers);
/// - `decimal`, `decimal:2` — grouped, with that many fraction digits;
/// - `currency:EUR`, `currency:EUR:0` — money in that ISO 4217 currency;
/// - `percent`, `percent:1` — 0.25 is "25%".
/// Without a count of fraction digits a format shows the formatter's own
/// (`NumberFormat.ownFractionDigits`): a currency's minor units, none for a percentage,
/// up to 3 for a decimal.
/// Numbers without a format print as integers when whole, else with up to 2 decimals.
/// `{{` and `}}` are literal braces; an unknown key prints as `{key}` so the mistake shows.
public struct TextTemplate: Hashable, Sendable {
    enum Piece: Hashable, Sendable {
        case text(String)
        case placeholder(KeyPath, format: Format)
    }

    /// A placeholder's format, read and checked once when the template is parsed: a text
    /// layer fills its template on every frame that animates a value it shows.
    enum Format: Hashable, Sendable {
        /// No format: whole numbers as integers, others with up to 2 decimals.
        case plain
        /// A printf conversion whose modifiers are safe (`%.2f`; integer conversions
        /// already widened to `lld`).
        case printf(String, integer: Bool)
        /// Money in this ISO 4217 code, or in the locale's currency when nil; nil digits:
        /// the currency's minor units.
        case currency(String?, fractionDigits: Int?)
        case percent(fractionDigits: Int?)
        case decimal(fractionDigits: Int?)
        /// A format that is not one: the placeholder prints as `{?format}`.
        case mistake(String)

        init(_ format: String?) {
            guard let format, !format.isEmpty else { self = .plain; return }
            if format.hasPrefix("%") {
                self = TextTemplate.printfFormat(format)
                return
            }
            let parts = format.split(separator: ":").map(String.init)
            func count(_ part: String) -> Int? { Int(part).map { max(0, min($0, 15)) } }
            let digits = parts.count > 1 ? count(parts[1]) : nil
            switch parts[0] {
            case "currency":
                let code = parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil
                let fractions = parts.count > 2 ? count(parts[2]) : nil
                // ICU would print the bare number for a code it does not know: show the mistake.
                if let code, Formatting.currencyProblem(code) != nil { self = .mistake(format); return }
                if parts.count > 3 || (parts.count > 2 && fractions == nil) { self = .mistake(format); return }
                self = .currency(code, fractionDigits: fractions)
            case "percent": self = .percent(fractionDigits: digits)
            case "decimal": self = .decimal(fractionDigits: digits)
            default: self = .mistake(format)
            }
        }
    }

    let pieces: [Piece]

    public init(_ template: String) {
        if let parsed = Self.parsed.withLock({ $0[template] }) {
            pieces = parsed
            return
        }
        pieces = Self.parse(template)
        Self.parsed.withLock { cache in
            if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }
            cache[template] = pieces
        }
    }

    /// Templates parsed so far, by their text: the same few are filled every frame.
    private static let parsed = Mutex<[String: [Piece]]>([:])

    private static func parse(_ template: String) -> [Piece] {
        var pieces: [Piece] = []
        var text = ""
        var i = template.startIndex
        while i < template.endIndex {
            let c = template[i]
            let next = template.index(after: i)
            if (c == "{" || c == "}"), next < template.endIndex, template[next] == c {
                text.append(c)
                i = template.index(after: next)
                continue
            }
            if c == "{", let close = template[next...].firstIndex(of: "}") {
                let body = template[next..<close]
                let parts = body.split(separator: ":", maxSplits: 1).map(String.init)
                if let name = parts.first, let path = try? KeyPath(parsing: name) {
                    if !text.isEmpty { pieces.append(.text(text)); text = "" }
                    pieces.append(.placeholder(path, format: Format(parts.count > 1 ? parts[1] : nil)))
                    i = template.index(after: close)
                    continue
                }
            }
            text.append(c)
            i = next
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        return pieces
    }

    /// The top-level custom keys the template reads.
    public var keys: Set<String> {
        Set(pieces.compactMap { if case .placeholder(let p, _) = $0 { p.property } else { nil } })
    }

    /// The text with every placeholder filled from `custom`.
    public func render(_ custom: [String: Value], locale: String = "en_US") -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let t):
                out += t
            case .placeholder(let path, let format):
                guard let value = custom[path.property]?.component(path.subpath) else {
                    out += "{\(path)}"
                    continue
                }
                out += Self.format(value, format, locale: locale)
            }
        }
        return out
    }

    static func format(_ value: Value, _ format: Format, locale: String) -> String {
        guard let number = value.number else {
            switch value {
            case .string(let s): return s
            case .bool(let b): return b ? "true" : "false"
            default: return value.description
            }
        }
        switch format {
        case .plain:
            if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
            var text = cFormat("%.2f", number)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        case .printf(let spec, let integer):
            return integer ? cFormat(spec, Int64(max(-9e18, min(9e18, number.rounded())))) : cFormat(spec, number)
        case .currency(let code, let digits):
            let code = code ?? Formatting.currency(of: locale) ?? "USD"
            return NumberFormat(style: .currency, currencyCode: code, locale: locale, fractionDigits: digits.map { $0...$0 }).string(for: number)
        case .percent(let digits):
            return NumberFormat(style: .percent, locale: locale, fractionDigits: digits.map { $0...$0 }).string(for: number)
        case .decimal(let digits):
            return NumberFormat(style: .decimal, locale: locale, fractionDigits: digits.map { $0...$0 }).string(for: number)
        case .mistake(let spec):
            return "{?\(spec)}"
        }
    }

    /// The widest field and the most digits a printf format may ask for: more is a mistake
    /// (or an attempt to make the daemon write gigabytes), shown as one.
    static let printfLimit = 64

    /// Whether the flags, width and precision between `%` and the conversion are ones
    /// printf reads as such (`-+ #0`, digits, one `.`), with numbers up to `printfLimit`.
    private static func isSafePrintfModifiers(_ modifiers: Substring.UTF8View) -> Bool {
        var dots = 0, number = 0
        for byte in modifiers {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                number = number * 10 + Int(byte - UInt8(ascii: "0"))
                if number > printfLimit { return false }
                continue
            case UInt8(ascii: "."): dots += 1
            case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: " "), UInt8(ascii: "#"): break
            default: return false
            }
            number = 0
        }
        return dots <= 1
    }

    /// A printf conversion of one number, checked: integer conversions take the number
    /// rounded, as a 64-bit integer.
    static func printfFormat(_ spec: String) -> Format {
        guard let conversion = spec.last, isSafePrintfModifiers(spec.utf8.dropFirst().dropLast()) else { return .mistake(spec) }
        switch conversion {
        case "f", "e", "g", "F", "E", "G": return .printf(spec, integer: false)
        case "d", "i": return .printf(String(spec.dropLast()) + "lld", integer: true)
        case "x", "X", "o": return .printf(String(spec.dropLast()) + "ll" + String(conversion), integer: true)
        default: return .mistake(spec)
        }
    }
}
