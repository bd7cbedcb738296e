import FoundationEssentials
import Testing
import VitrineJSON
import VitrineTestSupport

/// `JSONText.write` and `JSON.text`: the compact, canonical text the wire relies on (keys
/// sorted by their UTF-8 bytes, whole numbers without `.0`, `null` for what is not finite,
/// only what must be escaped escaped), and that what is written reads back as the same
/// value, bit for bit for numbers.
@Suite struct JSONWritingTests {
    @Test(arguments: [
        (JSON.null, "null"), (.bool(true), "true"), (.bool(false), "false"),
        (.number(1), "1"), (.number(-0.0), "-0"), (.number(0.5), "0.5"), (.number(-2.25), "-2.25"), (.number(0.1), "0.1"),
        (.number(999_999_999_999_999), "999999999999999"), (.number(1e15), "1000000000000000"), (.number(-1e15), "-1000000000000000"),
        (.number(1e16), "1e+16"), (.number(1e-7), "1e-07"), (.number(123_456_789.5), "123456789.5"),
        (.number(.greatestFiniteMagnitude), "1.7976931348623157e+308"),
        (.number(.nan), "null"), (.number(.infinity), "null"), (.number(-.infinity), "null"),
        (.string("a/b\"c\\d"), #""a/b\"c\\d""#),
        (.string("\u{0}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f} \u{7f}"), #""\u0000\b\t\n\f\r\u001f "# + "\u{7f}\""),
        (.string("é😀\u{2028}"), "\"é😀\u{2028}\""),
        (.array([.null, .bool(true), .array([]), .object([:]), .array([.number(3)])]), "[null,true,[],{},[3]]"),
        (.object(["b": .number(1), "a": .number(2), "B": .number(3), "é": .number(4), "z": .number(5)]), #"{"B":3,"a":2,"b":1,"z":5,"é":4}"#),
        // By UTF-8 bytes (EF BD A1 before F0 9F 98 80), not by UTF-16 units (D83D before FF61).
        (.object(["\u{FF61}": .number(1), "😀": .number(2)]), "{\"\u{FF61}\":1,\"😀\":2}"),
        (.object(["k": .object(["y": .null, "x": .array([.string("")])])]), #"{"k":{"x":[""],"y":null}}"#),
    ])
    func valuesAreWrittenCompactAndCanonical(value: JSON, expected: String) {
        #expect(value.text == expected)
        #expect(value.description == expected)
        var bytes: [UInt8] = Array("prefix ".utf8)
        JSONText.write(value, to: &bytes)
        #expect(bytes == Array(("prefix " + expected).utf8))
    }

    @Test(arguments: [
        (#" { "b" : [ 1.0 , 2E1, -0.0 ] , "a" : "\u0041\/" } "#, #"{"a":"A/","b":[1,20,-0]}"#),
        ("0.000001", "1e-06"), ("1e2", "100"), ("12.50", "12.5"), (#"["\ud83d\ude00", "\u00e9"]"#, #"["😀","é"]"#),
        (#""\u001F\u007f""#, #""\u001f"# + "\u{7f}\""), ("\t[\n]\r", "[]"),
    ])
    func textIsWrittenBackInItsCanonicalForm(text: String, canonical: String) throws {
        let value = try JSON(parsing: text)
        #expect(value.text == canonical)
        #expect(try JSON(parsing: canonical) == value)
        #expect(try JSON(parsing: canonical).text == canonical)
    }

    @Test func everyFiniteDoubleReadsBackBitForBit() throws {
        var g = SeededGenerator(seed: 0x5EED)
        var numbers: [Double] = [0, -0.0, .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude, 1e15 - 0.5, 0x1p53 + 2]
        while numbers.count < 20_000 {
            let random = Double(bitPattern: g.next())
            if random.isFinite { numbers.append(random) }
            numbers.append(Double(Int64.random(in: -(1 << 62)...(1 << 62), using: &g)) / 1024)
        }
        let failures = try numbers.filter { n in try JSON(parsing: JSON.number(n).text).number?.bitPattern != n.bitPattern }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test func everyScalarReadsBackInAStringAndAsAKey() throws {
        var scalars = (0..<0x800).compactMap { Unicode.Scalar(UInt32($0)) }
        scalars += [0x2028, 0x2029, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF].compactMap { Unicode.Scalar(UInt32($0)) }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        let value = JSON.object([text: .array([.string(text), .string("")])])
        #expect(try JSON(parsing: value.text) == value)
        // Only the quote, the backslash and the 32 C0 controls are escaped (5 of them as \b, \t,
        // \n, \f, \r; 27 as \u00XX): the rest is written as it was.
        let written = JSON.string(text).text
        #expect(written.unicodeScalars.count == 2 + scalars.count + 2 + 5 + 27 * 5)
    }

    @Test func anEncoderWritesTheSameValueAndNullForWhatIsNotFinite() throws {
        let value = JSON.object([
            "n": .number(.nan), "a": .array([.number(1.5), .null, .bool(false)]), "s": .string("x/y"), "o": .object(["i": .number(-.infinity)]),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let encoded = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(encoded == #"{"a":[1.5,null,false],"n":null,"o":{"i":null},"s":"x/y"}"#)
        #expect(encoded == value.text)
    }
}
