import Foundation
import Testing
import VitrineCore

/// Key paths: parsing, reading and writing parts of values, and custom properties
/// (seeds 000 and 003: an animated `count`, and `touches.<id>.scale` in dictionaries).
@Suite struct KeyPathParsingTests {
    @Test func parsesDottedNames() throws {
        #expect(try KeyPath(parsing: "opacity").components == ["opacity"])
        #expect(try KeyPath(parsing: "bounds.size.width").components == ["bounds", "size", "width"])
        let path = try KeyPath(parsing: "touches.a.scale")
        #expect(path.property == "touches")
        #expect(Array(path.subpath) == ["a", "scale"])
        #expect(path.description == "touches.a.scale")
    }

    @Test(arguments: ["", ".", ".a", "a.", "a..b", "..", "position..x"])
    func rejectsEmptyParts(_ text: String) {
        expectError("invalid_key_path", "\(text)") { _ = try KeyPath(parsing: text) }
    }

    @Test func containment() {
        #expect(KeyPath("position.x").isWithin("position"))
        #expect(KeyPath("position").isWithin("position"))
        #expect(!KeyPath("position").isWithin("position.x"))
        #expect(!KeyPath("positionx").isWithin("position"))
    }
}

@Suite struct KeyPathComponentTests {
    /// A layer with bounds (10, 20, 100, 50), position (5, 6) and transform
    /// scale (2, 3), then rotation 0.5, then translation (7, 8).
    static let transform = AffineTransform(scaleX: 2, y: 3).concatenating(AffineTransform(rotationAngle: 0.5))
        .concatenating(AffineTransform(translationX: 7, y: 8))

    func scene() -> Scene {
        makeSceneWithLayer(properties: [
            "bounds": .rect(Rect(x: 10, y: 20, width: 100, height: 50)),
            "position": .point(Point(x: 5, y: 6)),
            "transform": .transform(Self.transform),
        ])
    }

    @Test func readsParts() throws {
        let s = scene()
        #expect(try model(s, "box", "position.x") == 5)
        #expect(try model(s, "box", "position.y") == 6)
        #expect(try model(s, "box", "bounds.size.width") == 100)
        #expect(try model(s, "box", "bounds.size.height") == 50)
        #expect(try model(s, "box", "bounds.origin.y") == 20)
        #expect(try s.modelValue("bounds.origin", of: "box") == .point(Point(x: 10, y: 20)))
        #expect(try s.modelValue("bounds.size", of: "box") == .size(Size(width: 100, height: 50)))
        expectClose(try model(s, "box", "transform.rotation.z"), 0.5)
        expectClose(try model(s, "box", "transform.rotation"), 0.5)
        expectClose(try model(s, "box", "transform.scale.x"), 2)
        expectClose(try model(s, "box", "transform.scale.y"), 3)
        expectClose(try model(s, "box", "transform.translation.x"), 7)
        expectClose(try model(s, "box", "transform.translation.y"), 8)
        expectClose(try s.modelValue("transform.translation", of: "box"), .size(Size(width: 7, height: 8)))
    }

    @Test func uniformScaleReadsAsItsFactor() throws {
        let s = makeSceneWithLayer(properties: ["transform": .transform(AffineTransform(scaleX: 2, y: 2))])
        expectClose(try model(s, "box", "transform.scale"), 2)
    }

    @Test func settingAPartLeavesTheOthers() throws {
        let s = scene()
        try commit(s, at: 0, quiet) {
            $0.set("box", "position.x", .number(99))
            $0.set("box", "bounds.size.width", .number(42))
            $0.set("box", "bounds.origin.y", .number(-4))
        }
        #expect(try s.modelValue("position", of: "box") == .point(Point(x: 99, y: 6)))
        #expect(try s.modelValue("bounds", of: "box") == .rect(Rect(x: 10, y: -4, width: 42, height: 50)))
    }

    @Test func settingTransformPartsLeavesTheOthers() throws {
        let s = scene()
        try commit(s, at: 0, quiet) { $0.set("box", "transform.rotation.z", .number(1)) }
        expectClose(
            try s.modelValue("transform", of: "box"),
            .transform(
                AffineTransform(scaleX: 2, y: 3).concatenating(AffineTransform(rotationAngle: 1)).concatenating(AffineTransform(translationX: 7, y: 8))))
        try commit(s, at: 0, quiet) { $0.set("box", "transform.rotation", .number(-0.25)) }
        try commit(s, at: 0, quiet) { $0.set("box", "transform.scale.x", .number(4)) }
        try commit(s, at: 0, quiet) { $0.set("box", "transform.translation.y", .number(-1)) }
        expectClose(
            try s.modelValue("transform", of: "box"),
            .transform(
                AffineTransform(scaleX: 4, y: 3).concatenating(AffineTransform(rotationAngle: -0.25)).concatenating(AffineTransform(translationX: 7, y: -1))))
        try commit(s, at: 0, quiet) { $0.set("box", "transform.scale", .number(0.5)) }
        expectClose(
            try s.modelValue("transform", of: "box"),
            .transform(
                AffineTransform(scaleX: 0.5, y: 0.5).concatenating(AffineTransform(rotationAngle: -0.25)).concatenating(AffineTransform(translationX: 7, y: -1))
            ))
        try commit(s, at: 0, quiet) { $0.set("box", "transform.translation", .size(Size(width: 1, height: 2))) }
        expectClose(try model(s, "box", "transform.translation.x"), 1)
        expectClose(try model(s, "box", "transform.rotation.z"), -0.25)
    }

    @Test func unknownPartsAndWrongTypesAreRejected() {
        let s = scene()
        expectError("unknown_key_path") { try commit(s, at: 0, quiet) { $0.set("box", "position.z", .number(1)) } }
        expectError("unknown_key_path") { try commit(s, at: 0, quiet) { $0.set("box", "opacity.x", .number(1)) } }
        expectError("unknown_key_path") { try commit(s, at: 0, quiet) { $0.set("box", "transform.skew", .number(1)) } }
        expectError("wrong_type") { try commit(s, at: 0, quiet) { $0.set("box", "position.x", .point(.zero)) } }
        expectError("unknown_key_path") { _ = try s.modelValue("bounds.size.depth", of: "box") }
        expectError("unknown_key_path") { _ = try s.presentationValue("position.w", of: "box", at: 0) }
    }

    @Test func valueComponentsDirectly() {
        let r = Value.rect(Rect(x: 1, y: 2, width: 3, height: 4))
        #expect(r.component(["origin", "x"]) == .number(1))
        #expect(r.component(["size"]) == .size(Size(width: 3, height: 4)))
        #expect(r.component(["width"]) == nil)
        #expect(r.settingComponent(["size", "height"], to: .number(9)) == .rect(Rect(x: 1, y: 2, width: 3, height: 9)))
        #expect(r.settingComponent(["size", "height"], to: .string("x")) == nil)
        #expect(Value.number(1).component(["x"]) == nil)
        let d = Value.dictionary([:]).settingComponent(["touches", "a", "scale"], to: .number(2))
        #expect(d == .dictionary(["touches": .dictionary(["a": .dictionary(["scale": .number(2)])])]))
        #expect(d?.component(["touches", "a", "scale"]) == .number(2))
    }

    @Test func arrayElementsByIndex() {
        let a = Value.array([.number(1), .number(2), .dictionary(["x": .number(3)])])
        #expect(a.component(["1"]) == .number(2))
        #expect(a.component(["2", "x"]) == .number(3))
        // Indices are whole numbers within the array, written without sign or leading zeros.
        for part in ["3", "01", "-1", "+1", "x", "1.0", "99999999999999999999"] { #expect(a.component([part]) == nil) }
        #expect(a.settingComponent(["0"], to: .number(9)) == .array([.number(9), .number(2), .dictionary(["x": .number(3)])]))
        #expect(a.settingComponent(["2", "y"], to: .number(4))?.component(["2", "y"]) == .number(4))
        #expect(a.settingComponent(["3"], to: .number(9)) == nil)
        #expect(a.settingComponent(["0"], to: .string("x")) == nil)
    }
}

@Suite struct CustomPropertyTests {
    @Test func settingACustomKeyCreatesIt() throws {
        let s = makeSceneWithLayer()
        expectError("unknown_key_path") { _ = try s.modelValue("count", of: "box") }
        try commit(s, at: 0) { $0.set("box", "count", .number(0)) }
        #expect(try s.modelValue("count", of: "box") == .number(0))
        #expect(try s.modelValues(of: "box").custom["count"] == .number(0))
        try commit(s, at: 0) { $0.set("box", "label", .string("It took {count} seconds")) }
        #expect(try s.modelValue("label", of: "box") == .string("It took {count} seconds"))
    }

    @Test func customKeysCanBeGivenWhenAdding() throws {
        let s = makeScene()
        try commit(s, at: 0) { $0.add(layer: "c", parent: rootID, properties: ["count": .number(3), "touches.a.scale": .number(1)]) }
        #expect(try s.modelValue("count", of: "c") == .number(3))
        #expect(try s.modelValue("touches.a.scale", of: "c") == .number(1))
    }

    @Test func nestedKeysCreateDictionaries() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.set("box", "touches.a.scale", .number(1.5)) }
        #expect(try s.modelValue("touches", of: "box") == .dictionary(["a": .dictionary(["scale": .number(1.5)])]))
        try commit(s, at: 0) { $0.set("box", "touches.b.scale", .number(0.5)) }
        #expect(
            try s.modelValue("touches", of: "box")
                == .dictionary([
                    "a": .dictionary(["scale": .number(1.5)]), "b": .dictionary(["scale": .number(0.5)]),
                ]))
        try commit(s, at: 0) { $0.set("box", "touches.a.point", .point(Point(x: 3, y: 4))) }
        #expect(try s.modelValue("touches.a.scale", of: "box") == .number(1.5))
        #expect(try s.modelValue("touches.a.point.x", of: "box") == .number(3))
    }

    @Test func invalidCustomValuesAreRejected() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.set("box", "count", .number(1)) }
        expectError("invalid_value") { try commit(s, at: 0) { $0.set("box", "other", .number(.nan)) } }
        expectError("invalid_value") { try commit(s, at: 0) { $0.set("box", "touches.a.scale", .number(.infinity)) } }
        expectError("invalid_value") { try commit(s, at: 0) { $0.set("box", "big", .point(Point(x: 2e9, y: 0))) } }
        // A path through a number.
        expectError("wrong_type") { try commit(s, at: 0) { $0.set("box", "count.a", .number(1)) } }
        #expect(try s.modelValues(of: "box").custom == ["count": .number(1)])
    }

    @Test func animatedCountFollowsThePositionsCurve() throws {
        // Seed 000: a count animated 0 → 200 with the position animation's curve.
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.set("box", "count", .number(0)) }
        let curve = TimingFunction.easeInEaseOut
        try commit(s, at: 0) {
            $0.set("box", "count", .number(200))
            $0.addAnimation(.basic("position.y", from: .number(0), to: .number(300), duration: 2, timingFunction: curve), forKey: "position", to: "box")
            $0.addAnimation(.basic("count", from: .number(0), to: .number(200), duration: 2, timingFunction: curve), forKey: "count", to: "box")
        }
        expectClose(try presented(s, "box", "count", at: 1), 100, tolerance: 1e-7)
        for t in [0.3, 0.5, 1.7] {
            let expected = 200 * referenceProgress(curve, at: t / 2)
            expectClose(try presented(s, "box", "count", at: t), expected, tolerance: 1e-7)
            expectClose(try presented(s, "box", "count", at: t) / 200, try presented(s, "box", "position.y", at: t) / 300, tolerance: 1e-9)
        }
        #expect(try presented(s, "box", "count", at: 2.5) == 200)
        #expect(try model(s, "box", "count") == 200)
    }

    @Test func nestedTouchScaleAnimatesIndependently() throws {
        // Seed 003: animating touchPointForIdentifier.<id>.scale, keyed by its path.
        let s = makeSceneWithLayer()
        try commit(s, at: 0) {
            $0.set("box", "touches.a.scale", .number(1))
            $0.set("box", "touches.b.scale", .number(2))
        }
        try commit(s, at: 0) {
            $0.addAnimation(.basic("touches.a.scale", from: .number(0), to: .number(1), duration: 1), forKey: "touches.a.scale", to: "box")
        }
        expectClose(try presented(s, "box", "touches.a.scale", at: 0.25), 0.25)
        #expect(try presented(s, "box", "touches.b.scale", at: 0.25) == 2)
        let dict = try #require(try s.presentationValue("touches", of: "box", at: 0.5).dictionary)
        expectClose(try #require(dict["a"]?.component(["scale"])), .number(0.5))
        #expect(dict["b"] == .dictionary(["scale": .number(2)]))
        #expect(try s.animations(of: "box").map(\.key) == ["touches.a.scale"])
        #expect(try presented(s, "box", "touches.a.scale", at: 1.5) == 1)
    }

    @Test func customArrayElementsAnimateIndependently() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.set("box", "samples", .array([.number(0), .number(10), .number(20)])) }
        try commit(s, at: 0) {
            $0.addAnimation(.basic("samples.1", from: .number(0), to: .number(100), duration: 1), forKey: "samples.1", to: "box")
        }
        #expect(try s.presentationValue("samples", of: "box", at: 0.5) == .array([.number(0), .number(50), .number(20)]))
        #expect(try s.modelValue("samples", of: "box") == .array([.number(0), .number(10), .number(20)]))
        try commit(s, at: 0) { $0.set("box", "samples.2", .number(25)) }
        #expect(try presented(s, "box", "samples.2", at: 0.5) == 25)
        // A key path names elements within the array; it does not grow it.
        expectError("wrong_type") { try commit(s, at: 0) { $0.set("box", "samples.3", .number(1)) } }
        // The message says which indices there are.
        #expect(throws: CoreError.self) {
            do { try commit(s, at: 0) { $0.set("box", "samples.3", .number(1)) } } catch {
                #expect("\(error)".contains("3-element array 'samples' (0…2"), "\(error)")
                throw error
            }
        }
        expectError("unknown_key_path") {
            try commit(s, at: 0) { $0.addAnimation(.basic("samples.3", to: .number(2), duration: 1), to: "box") }
        }
        #expect(try s.modelValue("samples", of: "box") == .array([.number(0), .number(10), .number(25)]))
    }

    @Test func customPointsAndColoursAnimate() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) {
            $0.set("box", "marker", .point(.zero))
            $0.set("box", "tint", .color(.clear))
        }
        try commit(s, at: 0) {
            $0.addAnimation(.basic("marker", to: .point(Point(x: 10, y: 20)), duration: 1), to: "box")
            $0.addAnimation(.basic("tint", to: .color(Color(red: 0, green: 0, blue: 1)), duration: 1), to: "box")
        }
        expectClose(try s.presentationValue("marker", of: "box", at: 0.5), .point(Point(x: 5, y: 10)))
        expectClose(try s.presentationValue("tint", of: "box", at: 0.5), .color(Color(red: 0, green: 0, blue: 1, alpha: 0.5)))
    }

    @Test func displayKeysAreSettable() throws {
        let s = makeSceneWithLayer()
        #expect(try s.displayKeys(of: "box").isEmpty)
        try commit(s, at: 0) { $0.operations.append(.setDisplayKeys(layer: "box", keys: ["count", "touches"])) }
        #expect(try s.displayKeys(of: "box") == ["count", "touches"])
        try commit(s, at: 0) { $0.operations.append(.setDisplayKeys(layer: "box", keys: [])) }
        #expect(try s.displayKeys(of: "box").isEmpty)
        expectError("unknown_layer") { try commit(s, at: 0) { $0.operations.append(.setDisplayKeys(layer: "nope", keys: ["a"])) } }
    }

    @Test func animatingAMissingCustomKeyFails() throws {
        let s = makeSceneWithLayer()
        expectError("unknown_key_path") {
            try commit(s, at: 0) { $0.addAnimation(.basic("count", from: .number(0), to: .number(1), duration: 1), to: "box") }
        }
        try commit(s, at: 0) { $0.set("box", "touches.a.scale", .number(1)) }
        expectError("unknown_key_path") {
            try commit(s, at: 0) { $0.addAnimation(.basic("touches.zz.scale", to: .number(2), duration: 1), to: "box") }
        }
        try commit(s, at: 0) { $0.set("box", "count", .number(0)) }
        expectError("wrong_type") {
            try commit(s, at: 0) { $0.addAnimation(.basic("count", to: .point(.zero), duration: 1), to: "box") }
        }
        #expect(try s.animations(of: "box").isEmpty)
    }
}
