/// Finds, before TOMLKit parses a text, the mistakes that TOMLKit 0.6.0 (with toml++ 3.4.0)
/// does not report as errors:
///
/// - a NUL byte: TOMLKit hands toml++ a C string, so the text would end there and the rest
///   of the file would be left out without a word;
/// - a table header whose name does not start with a key character (`[{`, `[[=`), a `}` in
///   an array (`a = [}`) and a bare value that is no TOML value (`t = 1979-05-27T:`): toml++
///   checks what starts a name or a value with assertions, which abort the process (the
///   daemon, on `config.reload` too) instead of throwing (marzer/tomlplusplus#294).
///
/// All are mistakes in any TOML 1.0 document, so no valid file is refused. The scan knows
/// strings, comments, brackets, `=` and `,` well enough to tell a header from an array and a
/// key from a value; past the first real mistake it may be wrong, but toml++ stops there.
enum TOMLGuard {
    /// A mistake: where it is (1-based; the column counts Unicode scalars) and what it is.
    struct Mistake: Equatable {
        var line: Int
        var column: Int
        var message: String
    }

    static let headerMessage = "a table header needs a name: a bare key (letters, digits, _ and -) or a quoted one, as in [output] or [[scene.layers]]"
    static let braceMessage = "'}' inside an array, which ends with ']'"

    /// The message for a bare value that is not a TOML value.
    static func valueMessage(_ written: String) -> String {
        let shown = written.count > 40 ? written.prefix(37) + "…" : written
        return "\(shown) is not a TOML value: write strings in quotes (\"drm\"), numbers as 12, -0.5 or 1e3, and true or false"
    }

    /// The first mistake of `text` that toml++ would not report, or nil.
    static func firstMistake(in text: String) -> Mistake? {
        let bytes = Array(text.utf8)
        if let nul = bytes.firstIndex(of: 0) {
            return mistake(at: nul, in: bytes, "a NUL byte, which TOML does not allow (is this a binary file?)")
        }
        var scanner = Scanner(bytes: bytes)
        return scanner.firstMistake().map { mistake(at: $0.offset, in: bytes, $0.message) }
    }

    private static func mistake(at offset: Int, in bytes: [UInt8], _ message: String) -> Mistake {
        let before = bytes[..<offset]
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let column = bytes[lineStart..<offset].count { $0 & 0xC0 != 0x80 } + 1
        return Mistake(line: before.count { $0 == 0x0A } + 1, column: column, message: message)
    }

    /// Walks the text as toml++ reads a valid document, to check each header name and
    /// each bare value where it starts.
    private struct Scanner {
        let bytes: [UInt8]
        var at = 0
        /// The opening brackets of the arrays and inline tables around the position.
        var open: [UInt8] = []
        /// Only whitespace since the last line break outside a value: a `[` here opens a header.
        var lineStart = true
        /// After `=`, or after `[` or `,` in an array: a value starts at the next token.
        var expectsValue = false

        init(bytes: [UInt8]) {
            self.bytes = bytes
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }
        }

        func byte(_ offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

        var inArray: Bool { open.last == UInt8(ascii: "[") }

        mutating func firstMistake() -> (offset: Int, message: String)? {
            while let c = byte(at) {
                switch c {
                case 0x0A:
                    lineStart = open.isEmpty
                    if !inArray { expectsValue = false }
                    at += 1
                case 0x20, 0x09, 0x0D:
                    at += 1
                case UInt8(ascii: "#"):
                    while let c = byte(at), c != 0x0A { at += 1 }
                case _ where expectsValue && (c == UInt8(ascii: ",") || c == UInt8(ascii: "]") || c == UInt8(ascii: "}")):
                    expectsValue = false
                case _ where expectsValue:
                    if let bad = value() { return bad }
                case 0x80...:
                    at += 1
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    skipString()
                    lineStart = false
                case UInt8(ascii: "[") where open.isEmpty && lineStart:
                    if let bad = checkHeader() { return (bad, TOMLGuard.headerMessage) }
                    lineStart = false
                case UInt8(ascii: "}") where inArray:
                    return (at, TOMLGuard.braceMessage)
                default:
                    structural(c)
                }
            }
            return nil
        }

        /// Brackets, `=`, `,` and anything else outside strings and values.
        mutating func structural(_ c: UInt8) {
            switch c {
            case UInt8(ascii: "["), UInt8(ascii: "{"): open.append(c)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): _ = open.popLast()
            case UInt8(ascii: "=") where !inArray: expectsValue = true
            case UInt8(ascii: ","): expectsValue = inArray
            default: break
            }
            at += 1
            lineStart = false
        }

        /// Reads the value that starts here: a string, an array or inline table (opened
        /// only), or a bare value, which must be a boolean, number or date-time.
        mutating func value() -> (offset: Int, message: String)? {
            let c = bytes[at]
            lineStart = false
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                skipString()
                expectsValue = false
            case UInt8(ascii: "["):
                open.append(c)
                at += 1
            case UInt8(ascii: "{"):
                open.append(c)
                at += 1
                expectsValue = false
            default:
                let start = at
                skipBare()
                // A date may be followed by a space and a time, as toml++ reads it.
                if TOMLScalar.isDate(bytes[start..<at]), byte(at) == 0x20, let next = byte(at + 1), TOMLScalar.isDigit(next) {
                    at += 1
                    skipBare()
                }
                expectsValue = false
                if !TOMLScalar.isValue(bytes[start..<at]) {
                    return (start, TOMLGuard.valueMessage(String(decoding: bytes[start..<at], as: UTF8.self)))
                }
            }
            return nil
        }

        /// Skips to the next character that ends a bare value, as toml++'s `is_value_terminator`.
        mutating func skipBare() {
            while let c = byte(at), ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: "#")].contains(c) {
                at += 1
            }
        }

        /// Reads `[` or `[[` as toml++'s `parse_table_header` does, up to the name; the offset
        /// of a name that starts with neither a key character nor a quote.
        mutating func checkHeader() -> Int? {
            at += 1
            let spaced = skipSpaces()
            if byte(at) == UInt8(ascii: "[") {
                if spaced { return nil }
                at += 1
                skipSpaces()
            }
            guard let c = byte(at), c != UInt8(ascii: "]") else { return nil }
            return TOMLScalar.isBareKey(c) || c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") ? nil : at
        }

        @discardableResult
        mutating func skipSpaces() -> Bool {
            let start = at
            while byte(at) == 0x20 || byte(at) == 0x09 { at += 1 }
            return at > start
        }

        /// Skips a basic or literal string, single- or multi-line. A single-line one ends at
        /// the line break if it is not closed (toml++ stops there with an error).
        mutating func skipString() {
            let quote = bytes[at]
            let isMultiLine = byte(at + 1) == quote && byte(at + 2) == quote
            at += isMultiLine ? 3 : 1
            while let c = byte(at) {
                if c == UInt8(ascii: "\\") && quote == UInt8(ascii: "\"") {
                    at += 2
                } else if c == 0x0A && !isMultiLine {
                    return
                } else if c == quote && (!isMultiLine || (byte(at + 1) == quote && byte(at + 2) == quote)) {
                    while byte(at) == quote { at += 1 }
                    return
                } else {
                    at += 1
                }
            }
        }
    }
}

/// The bare values of TOML 1.0: booleans, integers, floats and dates and times.
enum TOMLScalar {
    static func isDigit(_ c: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) }

    static func isBareKey(_ c: UInt8) -> Bool {
        isDigit(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c)
            || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }

    /// `text` is `true`, `false`, an integer, a float or a date, time or date-time.
    static func isValue(_ text: ArraySlice<UInt8>) -> Bool {
        text.elementsEqual("true".utf8) || text.elementsEqual("false".utf8)
            || matches(text) { $0.integer() } || matches(text) { $0.float() } || matches(text) { $0.dateTime() }
    }

    /// `YYYY-MM-DD`.
    static func isDate(_ text: ArraySlice<UInt8>) -> Bool { matches(text) { $0.date() } }

    private static func matches(_ text: ArraySlice<UInt8>, _ grammar: (inout Reader) -> Bool) -> Bool {
        var reader = Reader(text: text)
        return grammar(&reader) && reader.at == text.endIndex
    }

    /// Reads a value's text by the grammar of toml.io/en/v1.0.0.
    private struct Reader {
        let text: ArraySlice<UInt8>
        var at: Int

        init(text: ArraySlice<UInt8>) {
            self.text = text
            at = text.startIndex
        }

        func peek(_ ahead: Int = 0) -> UInt8? { at + ahead < text.endIndex ? text[at + ahead] : nil }

        mutating func take(where accepts: (UInt8) -> Bool) -> Bool {
            guard let c = peek(), accepts(c) else { return false }
            at += 1
            return true
        }

        mutating func take(_ word: String) -> Bool {
            guard text[at...].starts(with: word.utf8) else { return false }
            at += word.utf8.count
            return true
        }

        /// One or more characters that `accepts`, with single underscores between them.
        mutating func digits(_ accepts: (UInt8) -> Bool) -> Bool {
            guard take(where: accepts) else { return false }
            while take(where: accepts) || (peek() == UInt8(ascii: "_") && peek(1).map(accepts) == true && take("_")) {}
            return true
        }

        /// Exactly `count` decimal digits.
        mutating func fixed(_ count: Int) -> Bool {
            (0..<count).allSatisfy { _ in take(where: TOMLScalar.isDigit) }
        }

        mutating func sign() { _ = take("+") || take("-") }

        /// `0`, or digits without a leading zero.
        mutating func unsignedDecimal() -> Bool {
            if take("0") { return true }
            guard let c = peek(), c != UInt8(ascii: "0") else { return false }
            return digits(TOMLScalar.isDigit)
        }

        mutating func integer() -> Bool {
            if take("0x") { return digits { TOMLScalar.isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) } }
            if take("0o") { return digits { (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) } }
            if take("0b") { return digits { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: "1") } }
            sign()
            return unsignedDecimal()
        }

        mutating func float() -> Bool {
            sign()
            if take("inf") || take("nan") { return true }
            guard unsignedDecimal() else { return false }
            if take(".") {
                guard digits(TOMLScalar.isDigit) else { return false }
                return peek() == nil || exponent()
            }
            return exponent()
        }

        mutating func exponent() -> Bool {
            guard take("e") || take("E") else { return false }
            sign()
            return digits(TOMLScalar.isDigit)
        }

        mutating func date() -> Bool { fixed(4) && take("-") && fixed(2) && take("-") && fixed(2) }

        mutating func time() -> Bool {
            guard fixed(2) && take(":") && fixed(2) && take(":") && fixed(2) else { return false }
            if take(".") {
                guard take(where: TOMLScalar.isDigit) else { return false }
                while take(where: TOMLScalar.isDigit) {}
            }
            return true
        }

        /// A local date, a local time, or a date and time with or without an offset.
        mutating func dateTime() -> Bool {
            let start = at
            if time() && peek() == nil { return true }
            at = start
            guard date() else { return false }
            guard take("T") || take("t") || take(" ") else { return peek() == nil }
            guard time() else { return false }
            if take("Z") || take("z") || peek() == nil { return true }
            guard take("+") || take("-") else { return false }
            return fixed(2) && take(":") && fixed(2)
        }
    }
}
