import FoundationEssentials
import Glibc
import FoundationInternationalization
import VitrineCore

/// A string with `{key}` placeholders filled from custom properties (seed 000's "It took
/// {count} seconds").
///
/// A placeholder is `{keyPath}` or `{keyPath:format}`; the key path may reach into
/// dictionaries (`{touches.a.scale}`). Formats:
/// - `%.0f`, `%.2f`, `%d`, `%x`… — printf style (numbers);
/// - `decimal`, `decimal:2` — grouped, with that many fraction digits;
/// - `currency:EUR` — money in that ISO 4217 currency;
/// - `percent` — 0.25 is "25%".
/// Numbers without a format print as integers when whole, else with up to 2 decimals.
/// `{{` and `}}` are literal braces; an unknown key prints as `{key}` so the mistake shows.
public struct TextTemplate: Hashable, Sendable {
    enum Piece: Hashable, Sendable {
        case text(String)
        case placeholder(KeyPath, format: String?)
    }

    let pieces: [Piece]

    public init(_ template: String) {
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
                    pieces.append(.placeholder(path, format: parts.count > 1 ? parts[1] : nil))
                    i = template.index(after: close)
                    continue
                }
            }
            text.append(c)
            i = next
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
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

    static func format(_ value: Value, _ format: String?, locale: String) -> String {
        guard let number = value.number else {
            switch value {
            case .string(let s): return s
            case .bool(let b): return b ? "true" : "false"
            default: return value.description
            }
        }
        guard let format, !format.isEmpty else {
            if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
            var text = cFormat("%.2f", number)
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
            return text
        }
        if format.hasPrefix("%") { return printf(format, number) }
        let parts = format.split(separator: ":").map(String.init)
        let locale = Locale(identifier: locale)
        let digits = parts.count > 1 ? Int(parts[1]).map { max(0, min($0, 15)) } : nil
        switch parts[0] {
        case "currency":
            let code = parts.count > 1 ? parts[1] : locale.currency?.identifier ?? "USD"
            // ICU would print the bare number for a code it does not know: show the mistake.
            if Formatting.currencyProblem(code) != nil { return "{?\(format)}" }
            return number.formatted(FloatingPointFormatStyle<Double>.Currency(code: code, locale: locale))
        case "percent":
            return number.formatted(FloatingPointFormatStyle<Double>.Percent(locale: locale).precision(.fractionLength(digits ?? 0)))
        case "decimal":
            let fraction = digits.map { $0...$0 } ?? 0...3
            return number.formatted(FloatingPointFormatStyle<Double>(locale: locale).precision(.fractionLength(fraction)))
        default:
            return "{?\(format)}"
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

    /// A printf conversion of one number; integer conversions get the number rounded.
    private static func printf(_ spec: String, _ number: Double) -> String {
        guard let conversion = spec.last, isSafePrintfModifiers(spec.utf8.dropFirst().dropLast()) else { return "{?\(spec)}" }
        switch conversion {
        case "f", "e", "g", "F", "E", "G": return cFormat(spec, number)
        case "d", "i": return cFormat(String(spec.dropLast()) + "lld", Int64(max(-9e18, min(9e18, number.rounded()))))
        case "x", "X", "o": return cFormat(String(spec.dropLast()) + "ll" + String(conversion), Int64(max(-9e18, min(9e18, number.rounded()))))
        default: return "{?\(spec)}"
        }
    }
}
