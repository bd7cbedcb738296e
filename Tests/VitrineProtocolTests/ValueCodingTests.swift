import Foundation
import Testing
import VitrineCore
@testable import VitrineProtocol

@Suite struct ValueCodingTests {
    private func json(_ text: String) throws -> JSON { try JSON(parsing: Data(text.utf8)) }

    @Test func decodesEveryTypeFromItsWireForm() throws {
        #expect(try Value(json: json("12.5"), as: .number, at: "x") == .number(12.5))
        #expect(try Value(json: json("[1, 2]"), as: .point, at: "p") == .point(Point(x: 1, y: 2)))
        #expect(try Value(json: json("[3, 4]"), as: .size, at: "s") == .size(Size(width: 3, height: 4)))
        #expect(try Value(json: json("[1, 2, 3, 4]"), as: .rect, at: "r") == .rect(Rect(x: 1, y: 2, width: 3, height: 4)))
        #expect(try Value(json: json("\"#ff0000\""), as: .color, at: "c") == .color(Color(red: 1, green: 0, blue: 0)))
        #expect(try Value(json: json("[0, 0, 1, 0.5]"), as: .color, at: "c") == .color(Color(red: 0, green: 0, blue: 1, alpha: 0.5)))
        #expect(try Value(json: json("\"navy\""), as: .color, at: "c") == .color(Color(css: "navy")!))
        #expect(try Value(json: json("true"), as: .bool, at: "b") == .bool(true))
        #expect(try Value(json: json("\"hi\""), as: .string, at: "s") == .string("hi"))
    }

    @Test func anglesBecomeRadians() throws {
        let v = try Value(json: json("\"90deg\""), as: .number, at: "transform.rotation.z").number!
        #expect(abs(v - Double.pi / 2) < 1e-12)
        #expect(abs(try Value(json: json("\"0.5turn\""), as: .number, at: "a").number! - Double.pi) < 1e-12)
        #expect(throws: ProtocolError.self) { try Value(json: json("\"ninety deg\""), as: .number, at: "a") }
    }

    @Test func transformObjectsComposeScaleRotationTranslation() throws {
        let v = try Value(json: json(#"{"scale": 2, "rotation": "90deg", "translation": [10, 20]}"#), as: .transform, at: "transform")
        let t = try #require(v.transform)
        let p = t.apply(to: Point(x: 1, y: 0))
        #expect(abs(p.x - 10) < 1e-9 && abs(p.y - 22) < 1e-9)
        #expect(throws: ProtocolError.self) { try Value(json: json(#"{"skew": 1}"#), as: .transform, at: "transform") }
    }

    @Test func wrongTypesNameTheKeyAndTheExpectedForm() throws {
        do {
            _ = try Value(json: json("[1, 2, 3]"), as: .point, at: "position")
            Issue.record("a 3-array is not a point")
        } catch let error as ProtocolError {
            #expect(error.code == "wrong_type")
            #expect(error.message.contains("position") && error.message.contains("[x, y]"))
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(throws: ProtocolError.self) { try Value(json: json("[2, 0, 0]"), as: .color, at: "c") }
        #expect(throws: ProtocolError.self) { try Value(json: json("null"), as: nil, at: "count") }
    }

    @Test func customValuesInferTheirType() throws {
        #expect(try Value(json: json("3"), as: nil, at: "count") == .number(3))
        #expect(try Value(json: json("\"#00ff00\""), as: nil, at: "tint") == .color(Color(red: 0, green: 1, blue: 0)))
        #expect(
            try Value(json: json(#"{"a": {"scale": 2}}"#), as: nil, at: "touches")
                == .dictionary(["a": .dictionary(["scale": .number(2)])]))
    }

    @Test func valuesRoundTripThroughJSON() throws {
        let values: [Value] = [
            .number(1.5), .point(Point(x: 1, y: -2)), .size(Size(width: 3, height: 4)),
            .rect(Rect(x: 1, y: 2, width: 3, height: 4)), .color(Color(css: "#336699")!),
            .transform(AffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)), .bool(false), .string("x"),
        ]
        for v in values {
            #expect(try Value(json: v.json, as: v.type, at: "k") == v)
        }
    }

    @Test func malformedJSONIsReported() {
        #expect(throws: ProtocolError.self) { try JSON(parsing: Data("{\"a\": ".utf8)) }
        #expect(throws: ProtocolError.self) { try JSON(parsing: Data([0xff, 0xfe])) }
    }

    /// A reply is always one JSON object per line: a number with no JSON form inside it is
    /// written `null` instead of the whole line becoming `null`.
    @Test func nonFiniteNumbersAreWrittenNull() throws {
        #expect(
            Wire.reply(id: .number(1), result: .object(["t": .number(.infinity), "u": .number(2)]))
                == #"{"id":1,"ok":true,"result":{"t":null,"u":2}}"#)
        #expect(JSON.array([.number(.nan), .number(-.infinity)]).text == "[null,null]")
        #expect(try json(Wire.event(.videoStarted(layer: "x", src: "y", duration: .nan))).object?["duration"] == .null)
    }
}
