import Foundation
import Testing
import VitrineCore

/// Issue 22 item 4: a new custom key that is close to a property of the layer's kind (a
/// misspelling, a different case) is refused with `unknown_property` and a suggestion;
/// other custom keys, existing ones and keys starting with `_` are accepted.
@Suite struct NearMissTests {
    /// The CoreError `body` throws, or nil.
    func error(_ body: () throws(CoreError) -> Void) -> CoreError? {
        do throws(CoreError) { try body(); return nil } catch { return error }
    }

    /// Expects `body` to be refused with `unknown_property` suggesting `suggestion` for `key`.
    func expectNearMiss(
        _ key: String, _ suggestion: String, layer: String = "box", kind: String = "layer",
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws(CoreError) -> Void
    ) {
        let e = error(body)
        #expect(e?.code == "unknown_property", "\(key): \(String(describing: e))", sourceLocation: sourceLocation)
        #expect(e == .unknownProperty(key, layer: layer, kind: kind, suggestion: suggestion), sourceLocation: sourceLocation)
        #expect(
            e?.message.contains("layer '\(layer)' (\(kind)) has no property '\(key)'; did you mean '\(suggestion)'?") == true,
            "\(String(describing: e?.message))", sourceLocation: sourceLocation)
        #expect(e?.message.contains("'_\(key)'") == true, sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        ("backgroundColour", "backgroundColor"), ("cornerRaduis", "cornerRadius"), ("Opacity", "opacity"),
        ("opacty", "opacity"), ("postion", "position"), ("BACKGROUNDCOLOR", "backgroundColor"),
        ("shadowRadus", "shadowRadius"), ("bound", "bounds"), ("hiden", "hidden"), ("sped", "speed"),
        ("masksToBound", "masksToBounds"), ("zposition", "zPosition"), ("anchorPiont", "anchorPoint"),
    ])
    func nearMissesAreRefusedBySet(_ key: String, _ suggestion: String) {
        let scene = makeSceneWithLayer()
        expectNearMiss(key, suggestion) { () throws(CoreError) in try commit(scene, at: 1, quiet) { $0.set("box", KeyPath(stringLiteral: key), .number(1)) } }
        #expect((try? scene.modelValues(of: "box").custom.isEmpty) == true, "a refused set created the key")
    }

    @Test func nearMissesAreRefusedByAddAndTheAddIsUndone() {
        let scene = makeScene()
        expectNearMiss("cornerRaduis", "cornerRadius", layer: "card") { () throws(CoreError) in
            try commit(scene, at: 0) { $0.add(layer: "card", parent: rootID, properties: ["cornerRaduis": .number(8)]) }
        }
        #expect(!scene.contains("card"))
        // A nested path under a new near-miss key is refused too.
        expectNearMiss("backgroundColour", "backgroundColor", layer: "card") { () throws(CoreError) in
            try commit(scene, at: 0) { $0.add(layer: "card", parent: rootID, properties: ["backgroundColour.red": .number(1)]) }
        }
    }

    @Test func distantCustomNamesAreAccepted() throws {
        let scene = makeSceneWithLayer()
        try commit(scene, at: 1) {
            for key in ["count", "score", "touches", "price", "radius", "label", "temperature", "roll", "colour"] {
                $0.set("box", KeyPath(stringLiteral: key), .number(1))
            }
            $0.set("box", "touches2.a.scale", .number(2))
        }
        #expect(try scene.modelValue("radius", of: "box") == .number(1))
        #expect(try scene.modelValue("touches2.a.scale", of: "box") == .number(2))
    }

    @Test func underscoreKeysAreNeverChecked() throws {
        let scene = makeSceneWithLayer()
        try commit(scene, at: 1) {
            $0.set("box", "_cornerRaduis", .number(3))
            $0.set("box", "_opacity", .number(0.5))
            $0.set("box", "_", .bool(true))
        }
        #expect(try scene.modelValue("_cornerRaduis", of: "box") == .number(3))
        #expect(try scene.modelValue("opacity", of: "box") == .number(1))
        try commit(scene, at: 0) { $0.add(layer: "card", parent: rootID, properties: ["_backgroundColour": .string("mine")]) }
        #expect(try scene.modelValue("_backgroundColour", of: "card") == .string("mine"))
    }

    @Test func anExistingCustomKeyIsSetAgain() throws {
        // A key that exists already (restored from a snapshot taken before the check, or
        // created while it was not a near miss) is no new key: setting it is accepted.
        let scene = makeSceneWithLayer()
        var snapshot = scene.snapshot()
        let index = try #require(snapshot.layers.firstIndex { $0.id == "box" })
        snapshot.layers[index].custom["cornerRaduis"] = .number(1)
        try scene.restore(snapshot)
        try commit(scene, at: 1, quiet) {
            $0.set("box", "cornerRaduis", .number(2))
        }
        #expect(try scene.modelValue("cornerRaduis", of: "box") == .number(2))
        try commit(scene, at: 1) { $0.addAnimation(.basic("cornerRaduis", to: .number(5), duration: 1), to: "box") }
    }

    @Test func builtInPropertiesAndTheirPartsAreUnaffected() throws {
        let scene = makeSceneWithLayer()
        try commit(scene, at: 1, quiet) {
            $0.set("box", "cornerRadius", .number(4))
            $0.set("box", "position.x", .number(4))
        }
        #expect(try scene.modelValue("cornerRadius", of: "box") == .number(4))
        // A part that a built-in property does not have stays invalid_key_path / unknown_key_path.
        let e = error { () throws(CoreError) in try commit(scene, at: 1, quiet) { $0.set("box", "position.z", .number(1)) } }
        #expect(e?.code != "unknown_property")
    }

    @Test func animationsOfANearMissKeyGetTheSuggestion() {
        let scene = makeSceneWithLayer()
        expectNearMiss("opacty", "opacity") { () throws(CoreError) in
            try commit(scene, at: 1) { $0.addAnimation(.basic("opacty", to: .number(0), duration: 1), to: "box") }
        }
        // A distant missing key keeps its unknown_key_path ("set it first").
        let e = error { () throws(CoreError) in
            try commit(scene, at: 1) { $0.addAnimation(.basic("glow", to: .number(0), duration: 1), to: "box") }
        }
        #expect(e?.code == "unknown_key_path")
    }

    @Test func kindsSuggestTheirOwnPropertiesAndAliases() throws {
        let scene = makeScene()
        scene.register(
            LayerKind(
                name: "text",
                extraProperties: [
                    PropertyDescriptor("string", .string("")),
                    PropertyDescriptor("fontSize", .number(36)),
                    PropertyDescriptor("foregroundColor", .color(.white), aliases: ["textColor"]),
                ], customPropertiesAffectDisplay: true))
        scene.register(
            LayerKind(
                name: "rolling-number",
                extraProperties: [
                    PropertyDescriptor("value", .number(0)),
                    PropertyDescriptor("currencyCode", .string("USD")),
                    PropertyDescriptor("minimumFractionDigits", .number(-1)),
                ]))
        try commit(scene, at: 0) {
            $0.add(layer: "t", kind: "text", parent: rootID)
            $0.add(layer: "n", kind: "rolling-number", parent: rootID)
        }
        expectNearMiss("foregroundColour", "foregroundColor", layer: "t", kind: "text") { () throws(CoreError) in
            try commit(scene, at: 1, quiet) { $0.set("t", "foregroundColour", .string("x")) }
        }
        expectNearMiss("textColour", "textColor", layer: "t", kind: "text") { () throws(CoreError) in
            try commit(scene, at: 1, quiet) { $0.set("t", "textColour", .string("x")) }
        }
        expectNearMiss("fontsize", "fontSize", layer: "t", kind: "text") { () throws(CoreError) in
            try commit(scene, at: 1, quiet) { $0.set("t", "fontsize", .number(3)) }
        }
        expectNearMiss("currencyCod", "currencyCode", layer: "n", kind: "rolling-number") { () throws(CoreError) in
            try commit(scene, at: 1, quiet) { $0.set("n", "currencyCod", .string("EUR")) }
        }
        expectNearMiss("minimumFractionDigit", "minimumFractionDigits", layer: "n", kind: "rolling-number") { () throws(CoreError) in
            try commit(scene, at: 1, quiet) { $0.set("n", "minimumFractionDigit", .number(2)) }
        }
        expectNearMiss("Value", "value", layer: "n", kind: "rolling-number") { () throws(CoreError) in
            try commit(scene, at: 1, quiet) { $0.set("n", "Value", .number(2)) }
        }
        // The same names are no near misses of a plain layer, whose kind lacks them.
        try commit(scene, at: 1, quiet) { $0.add(layer: "plain", parent: rootID, properties: ["fontsize": .number(3), "Value": .number(1)]) }
    }

    @Test func distance() {
        let kind = LayerKind.layer
        #expect(kind.nearMiss(for: "cornerRadius") == nil, "a built-in name is no near miss")
        #expect(kind.nearMiss(for: "cornerRaduis") == "cornerRadius", "a transposition counts once")
        #expect(kind.nearMiss(for: "cornrRaduis") == "cornerRadius", "a deletion and a transposition")
        #expect(kind.nearMiss(for: "kornrRadus") == nil, "three edits are too many")
        #expect(kind.nearMiss(for: "opcity") == "opacity")
        #expect(kind.nearMiss(for: "OPACITY") == "opacity")
        #expect(kind.nearMiss(for: "spd") == nil, "two edits from a short name are too many")
        #expect(kind.nearMiss(for: "frame") == nil)
        #expect(kind.nearMiss(for: "_opacity") == nil)
        #expect(LayerKind.gradient.nearMiss(for: "colours") == "colors")
        #expect(LayerKind.gradient.nearMiss(for: "Type") == "type")
    }
}
