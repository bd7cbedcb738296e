import Testing
import VitrineJSON

/// `JSONText.parse` on its own: what RFC 8259 text reads as (numbers, strings and their
/// escapes, nesting, the space around them), and what it refuses, with the words and the
/// byte offset a user is shown, and the key path of a number no Double holds.
@Suite struct JSONReadingTests {
    /// A refusal, comparable.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case syntax(String, offset: Int)
        case numberOutOfRange(path: [String])

        init(_ failure: JSONText.Failure) {
            switch failure {
            case .syntax(let message, let offset): self = .syntax(message, offset: offset)
            case .numberOutOfRange(let path): self = .numberOutOfRange(path: path)
            }
        }

        var description: String {
            switch self {
            case .syntax(let message, let offset): "\(message) at \(offset)"
            case .numberOutOfRange(let path): "out of range at \(path)"
            }
        }
    }

    /// `bytes` read, or why not.
    static func read(_ bytes: [UInt8]) -> Result<JSON, Refusal> {
        let result = bytes.withUnsafeBufferPointer { buffer in Result { () throws(JSONText.Failure) in try JSONText.parse(buffer) } }
        return result.mapError(Refusal.init)
    }

    static func read(_ text: String) -> Result<JSON, Refusal> { read(Array(text.utf8)) }

    @Test(arguments: [
        ("0", 0.0), ("7", 7), ("-3.25", -3.25), ("12.5e-1", 1.25), ("1E2", 100), ("1e+2", 100), ("2E-2", 0.02), ("0.1", 0.1),
        ("123456789012", 123_456_789_012), ("1.7976931348623157e308", .greatestFiniteMagnitude),
        // Past 2^53 an integer reads as the nearest Double; below the smallest one, as 0.
        ("9007199254740993", 9_007_199_254_740_992), ("1e-400", 0),
        (" \t\r\n42\n ", 42),
    ])
    func numbersReadAsDoubles(text: String, expected: Double) throws {
        #expect(try Self.read(text).get() == .number(expected))
    }

    @Test func minusZeroKeepsItsSign() throws {
        let value = try #require(try Self.read("-0").get().number)
        #expect(value == 0 && value.sign == .minus)
        #expect(try Self.read("0").get().number?.sign == .plus)
    }

    @Test(arguments: [
        (#""plain""#, "plain"), (#""""#, ""), (#""\u00C9\u00e9""#, "Éé"), (#""\ud83d\ude00""#, "😀"), (#""a\/b""#, "a/b"),
        (#""\b\f\n\r\t""#, "\u{8}\u{c}\n\r\t"), (#""\"\\""#, "\"\\"), ("\"日本 €\"", "日本 €"), (#""x\u0000y""#, "x\u{0}y"),
        ("\"\u{7f}\"", "\u{7f}"), (#""ab\ncd😀ef""#, "ab\ncd😀ef"), (#""\uD834\uDD1E""#, "𝄞"),
    ])
    func stringsAndTheirEscapesRead(text: String, expected: String) throws {
        #expect(try Self.read(text).get() == .string(expected))
    }

    @Test func nestedValuesReadWithTheirAccessors() throws {
        let value = try Self.read(#" {"a": [1, {"b": null, "c": [true, false]}], "d": {}, "e": "f", "g": []} "#).get()
        #expect(
            value
                == .object([
                    "a": .array([.number(1), .object(["b": .null, "c": .array([.bool(true), .bool(false)])])]),
                    "d": .object([:]), "e": .string("f"), "g": .array([]),
                ]))
        #expect(value["a"]?.array?[1]["c"]?.array?.first?.bool == true)
        #expect(value["a"]?.array?[0].number == 1 && value["e"]?.string == "f")
        #expect(value["a"]?.string == nil && value["e"]?.number == nil && value["missing"] == nil && value["e"]?["x"] == nil)
        #expect(value["d"]?.object?.isEmpty == true && value["a"]?.array?[1]["b"] == .null)
        let kinds = ["a", "d", "e", "g"].compactMap { value[$0]?.kindName } + [JSON.null.kindName, JSON.bool(true).kindName, JSON.number(1).kindName]
        #expect(kinds == ["an array", "an object", "a string", "an array", "null", "a boolean", "a number"])
    }

    @Test func theStringInitializerReadsAndRefusesAsTheBytesDo() throws {
        #expect(try JSON(parsing: #"{"k": [1.5]}"#) == .object(["k": .array([.number(1.5)])]))
        #expect(throws: JSONText.Failure.self) { try JSON(parsing: "[1,]") }
    }

    @Test(arguments: [
        ("", "the text ends too early", 0),
        ("   ", "the text ends too early", 3),
        ("[1,2", "the text ends too early", 4),
        ("-", "the text ends too early", 1),
        ("1e+", "the text ends too early", 3),
        ("\"\\", "the text ends too early", 2),
        ("\"\\u12", "the text ends too early", 5),
        ("[1] x", "unexpected 'x' after the value", 4),
        ("{}{}", "unexpected '{' after the value", 2),
        (#"{"a":1,}"#, "unexpected '}' where a key (a string) should be", 7),
        ("[1,]", "unexpected ']' where a value should start", 3),
        ("{1:2}", "unexpected '1' where a key (a string) should be", 1),
        (#"{"a" 1}"#, "unexpected '1' after a key, where ':' should be", 5),
        (#"{"a":1 "b":2}"#, "unexpected '\"' in an object, where ',' or '}' should be", 7),
        ("[1 2]", "unexpected '2' in an array, where ',' or ']' should be", 3),
        ("[01]", "unexpected '1' in an array, where ',' or ']' should be", 2),
        ("[1.]", "unexpected ']' in a number, where a digit should follow '.'", 3),
        ("[.5]", "unexpected '.' where a value should start", 1),
        ("-x", "unexpected 'x' in a number, where a digit should be", 1),
        ("1ex", "unexpected 'x' in a number's exponent, where a digit should be", 2),
        ("+1", "unexpected '+' where a value should start", 0),
        ("'a'", "unexpected ''' where a value should start", 0),
        ("\u{0C}1", "unexpected byte 0xc where a value should start", 0),
        ("[tru]", "a misspelt true", 1),
        ("nul", "a misspelt null", 0),
        ("fals", "a misspelt false", 0),
        ("\"abc", "a string is not closed", 0),
        ("[\"a\\qb\"]", "unexpected 'q' after '\\' in a string", 4),
        (#""\u12G4""#, "unexpected 'G' in a \\u escape, where a hex digit should be", 5),
        (#""\ud800""#, "a \\u escape is half of a surrogate pair", 1),
        (#""\udc00x""#, "a \\u escape is half of a surrogate pair", 1),
        (#"[ "\ud800\u0041"]"#, "a \\u escape is half of a surrogate pair", 3),
        ("\"a\u{1}b\"", "a control character (0x1) inside a string must be escaped", 2),
        ("\"a\nb\"", "a control character (0xa) inside a string must be escaped", 2),
        (#"{"a":1,"a":2}"#, "the key \"a\" appears twice in one object", 7),
    ])
    func malformedTextIsRefusedSayingWhatAndWhere(text: String, message: String, offset: Int) {
        #expect(Self.read(text) == .failure(.syntax(message, offset: offset)))
    }

    @Test func bytesThatAreNotUTF8AreRefused() throws {
        // In a string as it is, in one with an escape, and outside any string.
        #expect(Self.read([0x22, 0xC3, 0x28, 0x22]) == .failure(.syntax("a string is not valid UTF-8", offset: 0)))
        #expect(Self.read([0x5B, 0x22, 0x5C, 0x6E, 0xFF, 0x22, 0x5D]) == .failure(.syntax("a string is not valid UTF-8", offset: 1)))
        #expect(Self.read([0xC3, 0xA9]) == .failure(.syntax("unexpected byte 0xc3 where a value should start", offset: 0)))
        #expect(try Self.read([0x22, 0xC3, 0xA9, 0x22]).get() == .string("é"))
    }

    @Test func nestingIsBoundedAtTheMaximumDepth() throws {
        let depth = JSONText.maximumDepth
        var deepest = try Self.read(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).get()
        var levels = 1
        while let inner = deepest.array?.first {
            deepest = inner
            levels += 1
        }
        #expect(levels == depth)
        let message = "arrays and objects nest deeper than \(depth)"
        #expect(Self.read(String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)) == .failure(.syntax(message, offset: depth)))
        #expect(Self.read(String(repeating: #"{"a":"#, count: depth + 1)) == .failure(.syntax(message, offset: depth * 5)))
        // Far deeper input is refused at the same place, not recursed into.
        #expect(Self.read(String(repeating: "[{\"k\":", count: 100_000)) == .failure(.syntax(message, offset: depth / 2 * 6)))
    }

    @Test(arguments: [
        ("1e400", [String]()), ("-1e999", []), ("[1e308, 1e309]", ["1"]), (#"{"a": [0, {"b": -1e999}]}"#, ["a", "1", "b"]),
    ])
    func aNumberNoDoubleHoldsIsRefusedWithItsPath(text: String, path: [String]) {
        #expect(Self.read(text) == .failure(.numberOutOfRange(path: path)))
    }
}
