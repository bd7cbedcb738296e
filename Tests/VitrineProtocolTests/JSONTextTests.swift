import FoundationEssentials
import Testing

@testable import VitrineProtocol

/// The wire's own JSON reader and writer: the writer against Foundation's encoder as the
/// oracle, the reader against RFC 8259.
@Suite struct JSONTextTests {
    /// A seeded generator, so that a failure shows the same trees again.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func randomString(_ g: inout SplitMix) -> String {
        let pool: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "/", "\\", "\"", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{a}", "\u{c}", "\u{d}", "\u{1f}", "\u{7f}", "é", "\u{2028}", "€", "😀",
            "\u{ffff}", "_", ".",
        ]
        var s = ""
        for _ in 0..<Int.random(in: 0...6, using: &g) { s.unicodeScalars.append(pool.randomElement(using: &g)!) }
        return s
    }

    static func randomNumber(_ g: inout SplitMix) -> Double {
        switch Int.random(in: 0...5, using: &g) {
        case 0: return Double(Int.random(in: -1000...1000, using: &g))
        case 1: return Double.random(in: -1...1, using: &g)
        case 2: return Double(Int64.random(in: -(1 << 60)...(1 << 60), using: &g))
        case 3: return Double.random(in: -1e9...1e9, using: &g).rounded() / 100
        case 4:
            let bits = UInt64.random(in: 0...UInt64.max, using: &g)
            let d = Double(bitPattern: bits)
            return d.isFinite ? d : 0.5
        default: return [0, -0.0, 1e15, 1e16, 1e21, 1e-7, 0.1, .leastNonzeroMagnitude, .greatestFiniteMagnitude].randomElement(using: &g)!
        }
    }

    static func randomJSON(_ g: inout SplitMix, depth: Int = 0) -> JSON {
        switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &g) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &g))
        case 2: return .number(randomNumber(&g))
        case 3: return .string(randomString(&g))
        case 4: return .array((0..<Int.random(in: 0...4, using: &g)).map { _ in randomJSON(&g, depth: depth + 1) })
        default:
            var members: [String: JSON] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &g) { members[randomString(&g)] = randomJSON(&g, depth: depth + 1) }
            return .object(members)
        }
    }

    static func foundationText(_ value: JSON) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func theWriterWritesWhatFoundationsEncoderWrites() throws {
        var g = SplitMix(state: 7)
        for _ in 0..<3000 {
            let value = Self.randomJSON(&g)
            #expect(value.text == (try Self.foundationText(value)), "\(value.text)")
        }
    }

    @Test func whatIsWrittenReadsBackTheSame() throws {
        var g = SplitMix(state: 11)
        for _ in 0..<3000 {
            let value = Self.randomJSON(&g)
            #expect(try JSON(parsing: Data(value.text.utf8)) == value)
        }
    }

    @Test(arguments: [
        (" [1] ", JSON.array([.number(1)])),
        ("1E+5", .number(100_000)),
        ("-0", .number(-0.0)),
        ("1e-999", .number(0)),
        (#""\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\""#, .string("é😀/\u{8}\u{c}\n\r\t\"\\")),
        (#"{"a":{"b":[true,false,null]}}"#, .object(["a": .object(["b": .array([.bool(true), .bool(false), .null])])])),
        ("\"é€\"", .string("é€")),
    ])
    func validTextIsRead(text: String, expected: JSON) throws {
        #expect(try JSON(parsing: Data(text.utf8)) == expected)
    }

    @Test(arguments: [
        "", "   ", "[", "[1,]", #"{"a":1,}"#, "[01]", "[1.]", "[.5]", "[-]", "[+1]", "[1 2]", #"{"a" 1}"#, "{1:2}",
        "tru", "nul", "NaN", "Infinity", "'a'", #""\ud800""#, #""\udc00x""#, #""\ud800\u0041""#, #""\x""#, #""\u12g4""#,
        "\"a\u{1}b\"", "\"open", #"{"a":1,"a":2}"#, "{\"é\":1,\"e\u{301}\":2}", "[1] x", "{}{}",
    ])
    func malformedTextIsRefused(text: String) {
        #expect {
            try JSON(parsing: Data(text.utf8))
        } throws: { ($0 as? ProtocolError)?.code == ProtocolError.Code.malformedJSON.rawValue }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        #expect {
            try JSON(parsing: Data([0x22, 0xC3, 0x28, 0x22]))
        } throws: { ($0 as? ProtocolError)?.code == ProtocolError.Code.malformedJSON.rawValue }
    }

    @Test func nestingIsBounded() throws {
        let deepest = String(repeating: "[", count: JSONText.maximumDepth) + String(repeating: "]", count: JSONText.maximumDepth)
        #expect(throws: Never.self) { try JSON(parsing: Data(deepest.utf8)) }
        let tooDeep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect {
            try JSON(parsing: Data(tooDeep.utf8))
        } throws: { ($0 as? ProtocolError)?.code == ProtocolError.Code.malformedJSON.rawValue }
    }

    @Test func aNumberNoDoubleHoldsIsNamedByItsPath() {
        #expect {
            try JSON(parsing: Data(#"{"a": {"b": [0, -1e999]}}"#.utf8))
        } throws: { error in
            guard let error = error as? ProtocolError else { return false }
            return error.code == ProtocolError.Code.invalidValue.rawValue && error.message.contains("\"a.b.1\"")
        }
    }

    @Test func aMalformedTextSaysWhatAndWhere() {
        #expect {
            try JSON(parsing: Data(#"{"id": 7, "cmd": "ping"} x"#.utf8))
        } throws: { error in
            (error as? ProtocolError)?.message == "the text is not valid JSON (unexpected 'x' after the value, at byte 25)"
        }
    }
}
