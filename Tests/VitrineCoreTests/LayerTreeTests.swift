import Foundation
import Testing
import VitrineCore

/// The layer tree through transactions: placement, removal, moves, the errors, CALayer's
/// defaults, value validation and the atomicity of a failing transaction.
@Suite struct LayerTreeTests {
    @Test func placementsAmongSiblings() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "a", parent: rootID)
            $0.add(layer: "b", parent: rootID)
            $0.add(layer: "c", parent: rootID, placement: .top)
        }
        #expect(try s.sublayers(of: rootID) == ["a", "b", "c"])
        try commit(s, at: 0) { $0.add(layer: "d", parent: rootID, placement: .bottom) }
        #expect(try s.sublayers(of: rootID) == ["d", "a", "b", "c"])
        try commit(s, at: 0) { $0.add(layer: "e", parent: rootID, placement: .index(2)) }
        #expect(try s.sublayers(of: rootID) == ["d", "a", "e", "b", "c"])
        try commit(s, at: 0) { $0.add(layer: "f", parent: rootID, placement: .above("a")) }
        #expect(try s.sublayers(of: rootID) == ["d", "a", "f", "e", "b", "c"])
        try commit(s, at: 0) { $0.add(layer: "g", parent: rootID, placement: .below("c")) }
        #expect(try s.sublayers(of: rootID) == ["d", "a", "f", "e", "b", "g", "c"])
        try commit(s, at: 0) {
            $0.add(layer: "h", parent: rootID, placement: .index(100))
            $0.add(layer: "i", parent: rootID, placement: .index(-3))
        }
        #expect(try s.sublayers(of: rootID) == ["i", "d", "a", "f", "e", "b", "g", "c", "h"])
        #expect(try s.parent(of: "h") == rootID)
        #expect(try s.parent(of: rootID) == nil)
        #expect(s.layerCount == 10)
    }

    @Test func placementRelativeToANonSiblingFails() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "a", parent: rootID)
            $0.add(layer: "a1", parent: "a")
        }
        expectError("invalid_value") { try commit(s, at: 0) { $0.add(layer: "x", parent: rootID, placement: .above("a1")) } }
        expectError("unknown_layer") { try commit(s, at: 0) { $0.add(layer: "x", parent: rootID, placement: .below("zz")) } }
        #expect(!s.contains("x"))
    }

    @Test func removingALayerRemovesItsSubtreeAndStopsItsAnimations() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "a", parent: rootID)
            $0.add(layer: "a1", parent: "a")
            $0.add(layer: "a1x", parent: "a1")
            $0.add(layer: "b", parent: rootID)
        }
        let animating = try commit(s, at: 0) {
            $0.addAnimation(.basic("opacity", from: .number(0), to: .number(1), duration: 5), forKey: "fade", to: "a")
            $0.addAnimation(.basic("position.x", by: .number(10), duration: 5), forKey: "nudge", to: "a1x")
        }
        let ids = try s.animations(of: "a").map(\.id) + s.animations(of: "a1x").map(\.id)
        _ = s.advance(to: 1)
        try commit(s, at: 1) { $0.remove(layer: "a") }
        for id in ["a", "a1", "a1x"] { #expect(!s.contains(id)) }
        #expect(s.contains("b"))
        #expect(try s.sublayers(of: rootID) == ["b"])
        expectError("unknown_layer") { _ = try s.modelValues(of: "a1x") }
        let events = s.takeEvents()
        #expect(events.contains(.animationStopped(layer: "a", key: "fade", animation: ids[0], finished: false)))
        #expect(events.contains(.animationStopped(layer: "a1x", key: "nudge", animation: ids[1], finished: false)))
        #expect(events.contains(.transactionCompleted(transaction: animating)))
        #expect(!s.hasAnimations)
        #expect(s.advance(to: 10).isEmpty)
        // The id is free again.
        try commit(s, at: 10) { $0.add(layer: "a1x", parent: "b") }
        #expect(try s.parent(of: "a1x") == "b")
    }

    @Test func movingLayers() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "a", parent: rootID)
            $0.add(layer: "b", parent: rootID)
            $0.add(layer: "c", parent: rootID)
            $0.add(layer: "a1", parent: "a")
        }
        try commit(s, at: 0) { $0.move(layer: "c", to: "a", placement: .bottom) }
        #expect(try s.sublayers(of: "a") == ["c", "a1"])
        #expect(try s.sublayers(of: rootID) == ["a", "b"])
        #expect(try s.parent(of: "c") == "a")
        try commit(s, at: 0) { $0.move(layer: "a", to: rootID, placement: .top) }
        #expect(try s.sublayers(of: rootID) == ["b", "a"])
        try commit(s, at: 0) { $0.move(layer: "c", to: "a", placement: .above("a1")) }
        #expect(try s.sublayers(of: "a") == ["a1", "c"])
    }

    @Test func movedLayersKeepTheirSubtreeAndAnimations() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "a", parent: rootID)
            $0.add(layer: "b", parent: rootID)
            $0.add(layer: "b1", parent: "b")
        }
        try commit(s, at: 0) { $0.addAnimation(.basic("zPosition", from: .number(0), to: .number(10), duration: 2), forKey: "z", to: "b") }
        _ = s.takeEvents()
        try commit(s, at: 1) { $0.move(layer: "b", to: "a") }
        #expect(try s.sublayers(of: "b") == ["b1"])
        #expect(try s.animations(of: "b").map(\.key) == ["z"])
        expectClose(try presented(s, "b", "zPosition", at: 1.5), 7.5)
        #expect(!s.takeEvents().contains { if case .animationStopped = $0 { true } else { false } })
    }

    @Test func resizingARoot() throws {
        let s = makeScene()
        try s.resizeRoot(id: rootID, size: Size(width: 1080, height: 1920))
        #expect(try s.modelValue("bounds", of: rootID) == .rect(Rect(x: 0, y: 0, width: 1080, height: 1920)))
        #expect(try s.modelValue("position", of: rootID) == .point(Point(x: 540, y: 960)))
        try commit(s, at: 0) { $0.add(layer: "a", parent: rootID) }
        expectError("unknown_layer") { try s.resizeRoot(id: "a", size: Size(width: 1, height: 1)) }
        expectError("unknown_layer") { try s.resizeRoot(id: "zz", size: Size(width: 1, height: 1)) }
        try s.addRoot(id: "second", output: "HDMI-2", size: Size(width: 10, height: 10))
        #expect(s.rootIDs == [rootID, "second"])
        expectError("duplicate_id") { try s.addRoot(id: "a", output: "X", size: Size(width: 1, height: 1)) }
    }

    @Test func limitsAreEnforcedAtomically() throws {
        var configuration = Scene.Configuration()
        configuration.maximumLayers = 3
        configuration.maximumAnimationsPerLayer = 2
        let s = Scene(configuration: configuration)
        try s.addRoot(id: rootID, output: "X", size: Size(width: 10, height: 10))
        expectError("limit_exceeded") {
            try commit(s, at: 0) {
                $0.add(layer: "a", parent: rootID)
                $0.add(layer: "b", parent: rootID)
                $0.add(layer: "c", parent: rootID)
            }
        }
        #expect(s.layerCount == 1)
        try commit(s, at: 0) {
            $0.add(layer: "a", parent: rootID)
            $0.add(layer: "b", parent: rootID)
        }
        expectError("limit_exceeded") {
            try commit(s, at: 0) {
                for _ in 0..<3 { $0.addAnimation(.basic("zPosition", to: .number(1), duration: 1), to: "a") }
            }
        }
        #expect(try s.animations(of: "a").isEmpty)
    }

    @Test func cyclesAndRootsAreRefused() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "a", parent: rootID)
            $0.add(layer: "a1", parent: "a")
            $0.add(layer: "a1x", parent: "a1")
        }
        expectError("cycle") { try commit(s, at: 0) { $0.move(layer: "a", to: "a1x") } }
        expectError("cycle") { try commit(s, at: 0) { $0.move(layer: "a", to: "a") } }
        expectError("root_layer") { try commit(s, at: 0) { $0.remove(layer: rootID) } }
        expectError("root_layer") { try commit(s, at: 0) { $0.move(layer: rootID, to: "a") } }
        expectError("unknown_layer") { try commit(s, at: 0) { $0.move(layer: "zz", to: "a") } }
        expectError("unknown_layer") { try commit(s, at: 0) { $0.move(layer: "a1", to: "zz") } }
        expectError("unknown_layer") { try commit(s, at: 0) { $0.remove(layer: "zz") } }
        #expect(try s.parent(of: "a") == rootID)
        #expect(try s.parent(of: "a1x") == "a1")
    }

    @Test func addErrors() throws {
        let s = makeScene()
        try commit(s, at: 0) { $0.add(layer: "a", parent: rootID) }
        expectError("duplicate_id") { try commit(s, at: 0) { $0.add(layer: "a", parent: rootID) } }
        expectError("duplicate_id") { try commit(s, at: 0) { $0.add(layer: rootID, parent: "a") } }
        expectError("duplicate_id") {
            try commit(s, at: 0) {
                $0.add(layer: "n", parent: rootID)
                $0.add(layer: "n", parent: rootID)
            }
        }
        for bad in ["", "a b", "é", "a/b", String(repeating: "x", count: 129)] {
            expectError("invalid_id", "\(bad)") { try commit(s, at: 0) { $0.add(layer: bad, parent: rootID) } }
        }
        try commit(s, at: 0) { $0.add(layer: String(repeating: "x", count: 128), parent: rootID) }
        try commit(s, at: 0) { $0.add(layer: "ok-1_2:3.4", parent: rootID) }
        expectError("unknown_kind") { try commit(s, at: 0) { $0.add(layer: "k", kind: "sprocket", parent: rootID) } }
        expectError("unknown_layer") { try commit(s, at: 0) { $0.add(layer: "k", parent: "nowhere") } }
        expectError("invalid_id") { try s.addRoot(id: "bad id", output: "X", size: Size(width: 1, height: 1)) }
        #expect(!s.contains("n") && !s.contains("k"))
        #expect(s.layerCount == 4)
    }

    @Test func malformedPropertyNamesWhenAddingAreRejected() throws {
        let s = makeScene()
        for name in ["", ".", "position..x", ".opacity", "opacity."] {
            expectError("invalid_key_path", "\(name)") {
                try commit(s, at: 0) { $0.add(layer: "x", parent: rootID, properties: [name: .number(1)]) }
            }
        }
        #expect(!s.contains("x"))
        try commit(s, at: 0) { $0.add(layer: "x", parent: rootID, properties: ["position.x": .number(4)]) }
        #expect(try model(s, "x", "position.x") == 4)
    }

    @Test func registeredKindsAddTheirProperties() throws {
        let s = makeScene()
        s.register(
            LayerKind(
                name: "text",
                extraProperties: [
                    PropertyDescriptor("string", .string("")),
                    PropertyDescriptor("fontSize", .number(17), range: 1...1000),
                ]))
        try commit(s, at: 0) { $0.add(layer: "t", kind: "text", parent: rootID, properties: ["string": .string("hi")]) }
        #expect(try s.kind(of: "t").name == "text")
        #expect(try s.modelValue("string", of: "t") == .string("hi"))
        #expect(try s.modelValue("fontSize", of: "t") == .number(17))
        #expect(try s.modelValue("opacity", of: "t") == .number(1))
        expectError("invalid_value") { try commit(s, at: 0) { $0.set("t", "fontSize", .number(0)) } }
        expectError("wrong_type") { try commit(s, at: 0) { $0.set("t", "string", .number(1)) } }
    }

    @Test func coreAnimationDefaults() throws {
        let s = makeScene()
        try commit(s, at: 0) { $0.add(layer: "a", parent: rootID) }
        let v = try s.modelValues(of: "a")
        #expect(v[.anchorPoint] == .point(Point(x: 0.5, y: 0.5)))
        #expect(v[.opacity] == .number(1))
        #expect(v[.shadowOffset] == .size(Size(width: 0, height: -3)))
        #expect(v[.shadowRadius] == .number(3))
        #expect(v[.shadowOpacity] == .number(0))
        #expect(v[.shadowColor] == .color(Color(red: 0, green: 0, blue: 0, alpha: 1)))
        #expect(v[.borderColor] == .color(Color(red: 0, green: 0, blue: 0, alpha: 1)))
        #expect(v[.borderWidth] == .number(0))
        #expect(v[.cornerRadius] == .number(0))
        #expect(v[.backgroundColor].color?.alpha == 0)
        #expect(v[.bounds] == .rect(.zero))
        #expect(v[.position] == .point(.zero))
        #expect(v[.zPosition] == .number(0))
        #expect(v[.transform] == .transform(.identity))
        #expect(v[.sublayerTransform] == .transform(.identity))
        #expect(v[.hidden] == .bool(false))
        #expect(v[.masksToBounds] == .bool(false))
        #expect(v[.maskedCorners] == .number(15))
        #expect(v[.contentsGravity] == .string("resize"))
        #expect(v[.allowsGroupOpacity] == .bool(true))
        #expect(v[.userInteractionEnabled] == .bool(true))
        #expect(v.timing == MediaTiming())
        #expect(v.timing.speed == 1 && v.timing.fillMode == .removed)
        #expect(v.custom.isEmpty)
        let root = try s.modelValues(of: rootID)
        #expect(root[.bounds] == .rect(Rect(x: 0, y: 0, width: 800, height: 600)))
        #expect(root[.position] == .point(Point(x: 400, y: 300)))
    }

    @Test(
        arguments: [
            ("opacity", Value.string("half"), "wrong_type"),
            ("position", .number(3), "wrong_type"),
            ("backgroundColor", .number(1), "wrong_type"),
            ("hidden", .number(1), "wrong_type"),
            ("transform", .point(.zero), "wrong_type"),
            ("opacity", .number(.nan), "invalid_value"),
            ("zPosition", .number(.infinity), "invalid_value"),
            ("zPosition", .number(-.infinity), "invalid_value"),
            ("position", .point(Point(x: .nan, y: 0)), "invalid_value"),
            ("bounds", .rect(Rect(x: 0, y: 0, width: 1e10, height: 1)), "invalid_value"),
            ("zPosition", .number(2e9), "invalid_value"),
            ("transform", .transform(AffineTransform(a: 1, b: 0, c: 0, d: .nan, tx: 0, ty: 0)), "invalid_value"),
            ("backgroundColor", .color(Color(red: .nan, green: 0, blue: 0)), "invalid_value"),
            ("opacity", .number(1.5), "invalid_value"),
            ("opacity", .number(-0.1), "invalid_value"),
            ("cornerRadius", .number(-1), "invalid_value"),
            ("shadowOpacity", .number(2), "invalid_value"),
            ("maskedCorners", .number(3.5), "invalid_value"),
            ("maskedCorners", .number(16), "invalid_value"),
            ("contentsGravity", .string("sideways"), "invalid_value"),
            ("fillMode", .string("sometimes"), "invalid_value"),
            ("speed", .number(5000), "invalid_value"),
            ("duration", .number(-1), "invalid_value"),
        ] as [(KeyPath, Value, String)])
    func invalidValuesAreRejected(_ path: KeyPath, _ value: Value, _ code: String) throws {
        let s = makeSceneWithLayer()
        let before = try s.modelValues(of: "box")
        expectError(code, "\(path) = \(value)") { try commit(s, at: 0) { $0.set("box", path, value) } }
        expectError(code, "adding with \(path) = \(value)") {
            try commit(s, at: 0) { $0.add(layer: "new", parent: rootID, properties: [path.description: value]) }
        }
        #expect(try s.modelValues(of: "box") == before)
        #expect(!s.contains("new"))
        #expect(s.takeEvents().isEmpty)
    }

    @Test func extremeButValidValuesAreAccepted() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0, quiet) {
            $0.set("box", "zPosition", .number(1e9))
            $0.set("box", "position", .point(Point(x: -1e9, y: 1e9)))
            $0.set("box", "maskedCorners", .number(5))
            $0.set("box", "contentsGravity", .string("topLeft"))
            $0.set("box", "fillMode", .string("both"))
        }
        #expect(try model(s, "box", "zPosition") == 1e9)
        #expect(try s.modelValue("contentsGravity", of: "box") == .string("topLeft"))
    }

    @Test func invalidCommitTimeAndDurationAreRejected() throws {
        let s = makeSceneWithLayer()
        expectError("invalid_timing") { try commit(s, at: .nan) { $0.set("box", "opacity", .number(0.5)) } }
        expectError("invalid_timing") { try commit(s, at: 0, Transaction(animationDuration: -1)) { $0.set("box", "opacity", .number(0.5)) } }
        expectError("invalid_timing") { try commit(s, at: 0, Transaction(animationDuration: .infinity)) { $0.set("box", "opacity", .number(0.5)) } }
        #expect(try s.modelValue("opacity", of: "box") == .number(1))
    }
}

/// A transaction whose third operation fails changes nothing at all.
@Suite struct AtomicityTests {
    /// root → a (animated opacity, from transaction `first`) → a1 (animated position); b.
    func scene() throws -> (Scene, first: UInt64) {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "a", parent: rootID, properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 10, height: 10))])
            $0.add(layer: "a1", parent: "a")
            $0.add(layer: "b", parent: rootID)
            $0.set("b", "count", .number(1))
        }
        let first = try commit(s, at: 0) {
            $0.set("a", "opacity", .number(0.2))  // implicit, 0.25 s
            $0.addAnimation(.basic("position.x", from: .number(0), to: .number(100), duration: 2), forKey: "slide", to: "a1")
        }
        _ = s.advance(to: 0.1)
        return (s, first)
    }

    func expectUnchanged(_ s: Scene, first: UInt64, sourceLocation: SourceLocation = #_sourceLocation, failing ops: [Transaction.Operation], code: String)
        throws
    {
        let before = try SceneSnapshot(s)
        let shown = try [0.1, 0.2, 1, 3].map { t in try ["a", "a1", "b"].map { try s.presentationValues(of: $0, at: t) } }
        var tx = Transaction()
        tx.operations = ops
        expectError(code, sourceLocation: sourceLocation) { try s.commit(tx, at: 0.1) }
        #expect(try SceneSnapshot(s) == before, sourceLocation: sourceLocation)
        #expect(
            try [0.1, 0.2, 1, 3].map { t in try ["a", "a1", "b"].map { try s.presentationValues(of: $0, at: t) } } == shown,
            sourceLocation: sourceLocation)
        #expect(s.takeEvents().isEmpty, sourceLocation: sourceLocation)
        // The earlier transaction still completes when its animations end, and only then.
        let middle = s.advance(to: 1)
        #expect(!middle.contains(.transactionCompleted(transaction: first)), sourceLocation: sourceLocation)
        #expect(!middle.contains { if case .animationStopped(_, _, _, false) = $0 { true } else { false } }, sourceLocation: sourceLocation)
        #expect(s.advance(to: 2.5).contains(.transactionCompleted(transaction: first)), sourceLocation: sourceLocation)
        // The scene is usable after the failure.
        try commit(s, at: 3) { $0.add(layer: "n", parent: "a") }
        #expect(try s.sublayers(of: "a") == ["a1", "n"], sourceLocation: sourceLocation)
    }

    @Test func addSetThenRemovingTheRootFails() throws {
        let (s, first) = try scene()
        try expectUnchanged(
            s, first: first,
            failing: [
                .addLayer(id: "n", kind: "layer", parent: "a", placement: .bottom, properties: [("opacity", .number(0.5))]),
                .set(layer: "a", keyPath: "opacity", value: .number(0.9)),  // replaces the running implicit animation
                .removeLayer(rootID),
            ], code: "root_layer")
    }

    @Test func removeMoveThenABadIDFails() throws {
        let (s, first) = try scene()
        try expectUnchanged(
            s, first: first,
            failing: [
                .removeLayer("a"),  // stops both animations unfinished
                .moveLayer("b", parent: rootID, placement: .bottom),
                .addLayer(id: "bad id", kind: "layer", parent: rootID, placement: .top, properties: []),
            ], code: "invalid_id")
    }

    @Test func animationsAndActionsThenATypeErrorInANestedBatchFails() throws {
        let (s, first) = try scene()
        var inner = Transaction(animationDuration: 3)
        inner.set("b", "count", .number(5))
        inner.set("b", "position", .point(Point(x: 9, y: 9)))
        var failing = Transaction()
        failing.set("b", "opacity", .number(0.5))
        failing.set("a", "opacity", .string("oops"))
        try expectUnchanged(
            s, first: first,
            failing: [
                .nested(inner),
                .addAnimation(layer: "a1", key: "slide", animation: .basic("position.y", to: .number(5), duration: 1)),
                .nested(failing),
            ], code: "wrong_type")
    }

    @Test func settingsThenAnUnknownAnimationFails() throws {
        let (s, first) = try scene()
        try expectUnchanged(
            s, first: first,
            failing: [
                .setActions(layer: "a", actions: ["opacity": ActionRule.none]),
                .setActionPolicy(layer: "b", policy: .explicitOnly),
                .removeAnimation(layer: "a1", key: "nothing"),
            ], code: "unknown_animation")
        let (s2, first2) = try scene()
        try expectUnchanged(
            s2, first: first2,
            failing: [
                .setActionsFrom(layer: "a1", source: "a"),
                .removeAllAnimations(layer: "a"),
                .moveLayer("a", parent: "a1", placement: .top),
            ], code: "cycle")
    }
}
