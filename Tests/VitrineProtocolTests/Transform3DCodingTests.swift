import FoundationEssentials
import Testing
import VitrineCore
import VitrineJSON
import VitrineProtocol

@Suite struct Transform3DCodingTests {
    func decode(_ text: String) throws -> Value {
        try Value(json: JSON(parsing: Data(text.utf8)), as: .transform, at: "transform")
    }

    @Test func sixNumbersStayAnAffineTransform() throws {
        #expect(try decode("[1, 0, 0, 1, 5, 6]") == .transform(AffineTransform(translationX: 5, y: 6)))
        #expect(try decode(#"{"rotation": 0.5}"#) == .transform(AffineTransform(rotationAngle: 0.5)))
    }

    @Test func sixteenNumbersAndTheNamedFormGiveA4x4Transform() throws {
        let turn = Transform3D(rotationAngle: 0.5, x: 0, y: 1, z: 0)
        var perspective = Transform3D.identity
        perspective.m34 = -0.002
        let expected = Value.transform3D(turn.concatenating(Transform3D(translationX: 3, y: 4, z: 5)).concatenating(perspective))
        #expect(try decode(#"{"rotationY": 0.5, "translation": [3, 4, 5], "m34": -0.002}"#) == expected)
        let entries = expected.transform3D!.entries.map(\.description).joined(separator: ", ")
        #expect(try decode("[\(entries)]") == expected)
        #expect(try Value(json: expected.json, as: .transform, at: "transform") == expected)
        #expect(try Value(taggedJSON: expected.taggedJSON, at: "transform") == expected)
        // A 4×4 transform that is affine is stored as one.
        #expect(try decode("[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 8, 0, 1]") == .transform(AffineTransform(translationX: 7, y: 8)))
    }

    @Test func unknownNamesAndWrongCountsAreRefused() {
        #expect(throws: ProtocolError.self) { try decode(#"{"rotateY": 0.5}"#) }
        #expect(throws: ProtocolError.self) { try decode("[1, 2, 3, 4, 5, 6, 7, 8]") }
        #expect(throws: ProtocolError.self) { try decode(#"{"m34": "far"}"#) }
    }
}
