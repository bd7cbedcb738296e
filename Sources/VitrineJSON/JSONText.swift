/// JSON text to `JSON` and back, byte by byte (RFC 8259).
///
/// A request line is parsed and a reply or event written several times a second while a
/// script drives the daemon: Codable's generic machinery cost more than the frame it
/// answers for. The writer's output is what `JSONEncoder` writes with sorted keys and
/// unescaped slashes; the reader is strict where it was lenient (no trailing commas)
/// and refuses what it passed over in silence (a key twice in one object).
public enum JSONText {
    /// How deep arrays and objects may nest: deeper input is refused, not recursed into.
    public static let maximumDepth = 512

    /// Why a text is not JSON, or holds a number no Double represents.
    public enum Failure: Error, Sendable {
        /// Not JSON: what was found, and where (a byte offset).
        case syntax(String, offset: Int)
        /// A number beyond the Double range, at this path of keys and indices.
        case numberOutOfRange(path: [String])
    }

    // MARK: Reading

    /// Parses one JSON text. It succeeds only on valid UTF-8: strings are checked, and
    /// outside them JSON is ASCII.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSON {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.at == bytes.count else { throw reader.unexpected("after the value") }
        return value
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipSpace() {
            while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
        }

        func unexpected(_ context: String) -> Failure {
            guard let byte = peek else { return .syntax("the text ends too early", offset: at) }
            let shown = byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
            return .syntax("unexpected \(shown) \(context)", offset: at)
        }

        mutating func value(depth: Int) throws(Failure) -> JSON {
            switch peek ?? 0 {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw unexpected("where a value should start")
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let start = at
            for i in 0..<word.utf8CodeUnitCount {
                guard peek == word.utf8Start[i] else {
                    throw at == start ? unexpected("where a value should start") : .syntax("a misspelt \(word)", offset: start)
                }
                at += 1
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSON {
            guard depth <= maximumDepth else { throw .syntax("arrays and objects nest deeper than \(maximumDepth)", offset: at) }
            at += 1
            var members: [String: JSON] = [:]
            skipSpace()
            if peek == UInt8(ascii: "}") { at += 1; return .object(members) }
            while true {
                guard peek == UInt8(ascii: "\"") else { throw unexpected("where a key (a string) should be") }
                let keyOffset = at
                let key = try string()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw unexpected("after a key, where ':' should be") }
                at += 1
                skipSpace()
                let member: JSON
                do { member = try value(depth: depth) } catch { throw error.inside(key) }
                guard members.updateValue(member, forKey: key) == nil else {
                    throw .syntax("the key \"\(key)\" appears twice in one object", offset: keyOffset)
                }
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): at += 1; skipSpace()
                case UInt8(ascii: "}"): at += 1; return .object(members)
                default: throw unexpected("in an object, where ',' or '}' should be")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSON {
            guard depth <= maximumDepth else { throw .syntax("arrays and objects nest deeper than \(maximumDepth)", offset: at) }
            at += 1
            var elements: [JSON] = []
            skipSpace()
            if peek == UInt8(ascii: "]") { at += 1; return .array(elements) }
            while true {
                do { elements.append(try value(depth: depth)) } catch { throw error.inside(String(elements.count)) }
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): at += 1; skipSpace()
                case UInt8(ascii: "]"): at += 1; return .array(elements)
                default: throw unexpected("in an array, where ',' or ']' should be")
                }
            }
        }

        /// A string from its opening quote: its bytes as they are until the first escape.
        mutating func string() throws(Failure) -> String {
            at += 1
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 { at += 1 }
            if peek == UInt8(ascii: "\"") {
                at += 1
                return try text(UnsafeBufferPointer(rebasing: bytes[start..<at - 1]), from: start)
            }
            var utf8 = Array(bytes[start..<at])
            while true {
                guard let byte = peek else { throw .syntax("a string is not closed", offset: start - 1) }
                switch byte {
                case UInt8(ascii: "\""):
                    at += 1
                    return try text(utf8, from: start)
                case UInt8(ascii: "\\"):
                    at += 1
                    try escape(into: &utf8)
                case 0..<0x20:
                    throw .syntax("a control character (0x\(String(byte, radix: 16))) inside a string must be escaped", offset: at)
                default:
                    utf8.append(byte)
                    at += 1
                }
            }
        }

        /// The string of the bytes between the quotes of the string that starts at `start`.
        func text(_ utf8: some Collection<UInt8>, from start: Int) throws(Failure) -> String {
            guard let text = String(validating: utf8, as: UTF8.self) else { throw .syntax("a string is not valid UTF-8", offset: start - 1) }
            return text
        }

        mutating func escape(into utf8: inout [UInt8]) throws(Failure) {
            guard let byte = peek else { throw .syntax("the text ends too early", offset: at) }
            at += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    // A high surrogate takes the low one that must follow it.
                    guard peek == UInt8(ascii: "\\"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "u") else {
                        throw .syntax("a \\u escape is half of a surrogate pair", offset: at - 6)
                    }
                    at += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw .syntax("a \\u escape is half of a surrogate pair", offset: at - 12) }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw .syntax("a \\u escape is half of a surrogate pair", offset: at - 6)
                }
                utf8.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
            default:
                at -= 1
                throw unexpected("after '\\' in a string")
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            var code: UInt32 = 0
            for _ in 0..<4 {
                guard let byte = peek else { throw .syntax("the text ends too early", offset: at) }
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw unexpected("in a \\u escape, where a hex digit should be")
                }
                code = code << 4 | UInt32(digit)
                at += 1
            }
            return code
        }

        /// A number as RFC 8259 writes it: `-`, an integer without leading zeros, then an
        /// optional fraction and exponent.
        mutating func number() throws(Failure) -> Double {
            let start = at
            if peek == UInt8(ascii: "-") { at += 1 }
            if peek == UInt8(ascii: "0") {
                at += 1
            } else {
                guard digits() > 0 else { throw unexpected("in a number, where a digit should be") }
            }
            if peek == UInt8(ascii: ".") {
                at += 1
                guard digits() > 0 else { throw unexpected("in a number, where a digit should follow '.'") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                at += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw unexpected("in a number's exponent, where a digit should be") }
            }
            // Swift's reading of the bytes checked above, in no C locale's decimal point.
            let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)) ?? .nan
            guard value.isFinite else { throw .numberOutOfRange(path: []) }
            return value
        }

        /// Skips decimal digits; how many.
        mutating func digits() -> Int {
            let start = at
            while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { at += 1 }
            return at - start
        }
    }

    // MARK: Writing

    /// Appends the compact text of `value`: keys sorted by their UTF-8 bytes, `/` as it
    /// is, a number without a trailing `.0`, and `null` for one that is not finite.
    public static func write(_ value: JSON, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): writeNumber(n, to: &out)
        case .string(let s): writeString(s, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeNumber(_ n: Double, to out: inout [UInt8]) {
        guard n.isFinite else { out.append(contentsOf: "null".utf8); return }
        if n == n.rounded(), abs(n) < 1e15 {
            // Whole numbers, the usual case, without Double's shortest-digits search.
            if n == 0 && n.sign == .minus { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: String(Int64(n)).utf8)
            return
        }
        let text = n.description
        out.append(contentsOf: text.hasSuffix(".0") ? text.utf8.dropLast(2) : text.utf8[...])
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x08: out.append(contentsOf: #"\b"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0C: out.append(contentsOf: #"\f"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// The lowercase hex digit of `nibble` (0…15), as Foundation's encoder writes escapes.
private func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
}

extension JSONText.Failure {
    /// The same failure, met inside the member or element `component`.
    func inside(_ component: String) -> Self {
        guard case .numberOutOfRange(let path) = self else { return self }
        return .numberOutOfRange(path: [component] + path)
    }
}
