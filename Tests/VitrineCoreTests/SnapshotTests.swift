import Testing
@testable import VitrineCore

/// `Scene.snapshot()` and `Scene.restore(_:)`: a restored scene is the same scene, with
/// roots kept as the output has them; a snapshot that cannot be restored changes nothing.
@Suite struct SnapshotTests {
    /// A scene with a tree, an implicit animation, a kept finished animation, a custom
    /// property under animation, action rules and a paused subtree.
    func busyScene() throws -> Scene {
        let scene = makeSceneWithLayer("box", properties: ["marker": .dictionary(["n": .number(1)])])
        try commit(scene, at: 0, quiet) {
            $0.add(layer: "child", parent: "box", properties: ["opacity": .number(0.5)])
            $0.add(layer: "paused", parent: rootID, properties: ["speed": .number(0), "timeOffset": .number(0.4)])
            $0.add(layer: "spinner", parent: "paused")
            $0.operations.append(.setActions(layer: "box", actions: ["opacity": .animation(.basic("opacity", duration: 2)), "position": ActionRule.none]))
            $0.operations.append(.setActionsFrom(layer: "child", source: "box"))
            $0.operations.append(.setDisplayKeys(layer: "box", keys: ["marker"]))
        }
        var kept = Animation.basic("bounds.size.width", to: .number(30), duration: 0.5)
        kept.isRemovedOnCompletion = false
        kept.timing.fillMode = .forwards
        try commit(scene, at: 0.5, quiet) {
            $0.addAnimation(kept, forKey: "kept", to: "box")
            $0.addAnimation(.basic("marker.n", from: .number(0), to: .number(10), duration: 4), to: "box")
            $0.addAnimation(.basic("transform.rotation.z", from: .number(0), to: .number(6), duration: 1), to: "spinner")
        }
        try commit(scene, at: 1.2) { $0.set("box", "opacity", .number(0.2)) }
        _ = scene.advance(to: 1.5)
        return scene
    }

    @Test func aRestoredSceneIsTheSameScene() throws {
        let original = try busyScene()
        let copy = makeScene()
        try copy.restore(original.snapshot())
        #expect(try SceneSnapshot(copy) == SceneSnapshot(original))
        #expect(copy.snapshot() == original.snapshot())
        for t in [1.5, 2.0, 3.3, 10] {
            #expect(original.advance(to: t) == copy.advance(to: t))
            for id in ["box", "child", "paused", "spinner"] {
                #expect(try copy.presentationValues(of: id, at: t) == original.presentationValues(of: id, at: t), "\(id) at \(t)")
            }
        }
        // The rules came back: the box's opacity action lasts 2 s, its position has none.
        try commit(copy, at: 10) {
            $0.set("box", "opacity", .number(1)); $0.set("box", "position", .point(Point(x: 0, y: 0)))
        }
        #expect(try copy.animations(of: "box").last?.animation.timing.duration == 2)
        #expect(try copy.animations(of: "box").map(\.key) == ["kept", "opacity"])
    }

    @Test func rootsKeepTheirOutputSizeAndTakeTheRest() throws {
        let original = makeScene(width: 800, height: 600)
        try commit(original, at: 0, quiet) {
            $0.set(rootID, "backgroundColor", .color(.white)); $0.set(rootID, "level", .number(3))
        }
        let smaller = makeScene(width: 320, height: 200)
        try smaller.restore(original.snapshot())
        #expect(try smaller.modelValue("bounds", of: rootID) == .rect(Rect(x: 0, y: 0, width: 320, height: 200)))
        #expect(try smaller.modelValue("backgroundColor", of: rootID) == .color(.white))
        #expect(try smaller.modelValue("level", of: rootID) == .number(3))
    }

    @Test func restoringReplacesWhatWasThere() throws {
        let scene = makeSceneWithLayer("old")
        try commit(scene, at: 0, quiet) { $0.addAnimation(.basic("opacity", from: .number(0), to: .number(1), duration: 5), to: "old") }
        try scene.restore(Scene.Snapshot(layers: [.init(id: rootID, parent: nil), .init(id: "new", parent: rootID)]))
        #expect(try scene.sublayers(of: rootID) == ["new"])
        #expect(!scene.contains("old") && !scene.hasAnimations)
        // Ids go on from where either left off.
        #expect(try commit(scene, at: 1) { $0.set("new", "opacity", .number(0)) } > 2)
    }

    @Test func aSnapshotKeepingRootsLeavesOutTheTreesOfMissingOnes() throws {
        let mask: [String: Value] = ["mask": .string("shade")]
        let snapshot = Scene.Snapshot(layers: [
            .init(id: rootID, parent: nil), .init(id: "gone", parent: nil),
            .init(id: "here", parent: rootID), .init(id: "shade", parent: nil, isDetached: true),
            .init(id: "spare", parent: nil, isDetached: true), .init(id: "a", parent: "gone", properties: mask),
            .init(id: "b", parent: "a"), .init(id: "dot", parent: "shade"),
            .init(id: "follower", parent: "here", actionsFrom: "b"),
        ])
        let (kept, leftOut) = snapshot.keeping(roots: [rootID])
        #expect(kept.layers.map(\.id) == [rootID, "here", "spare", "follower"])
        #expect(leftOut == ["gone": 2])
        #expect(kept.layers.last?.actionsFrom == nil)
        let scene = makeScene()
        #expect(throws: CoreError.self) { try scene.restore(snapshot) }
        try scene.restore(kept)
        #expect(try scene.sublayers(of: rootID) == ["here"])
        #expect(snapshot.keeping(roots: [rootID, "gone"]).snapshot == snapshot)
    }

    @Test func aSnapshotThatCannotBeRestoredChangesNothing() throws {
        let scene = try busyScene()
        let before = try SceneSnapshot(scene)
        let good = scene.snapshot()
        func broken(_ change: (inout Scene.Snapshot) -> Void) -> Scene.Snapshot {
            var s = good
            change(&s)
            return s
        }
        func index(_ id: String) -> Int { good.layers.firstIndex { $0.id == id }! }
        let cases: [(String, Scene.Snapshot)] = [
            ("unknown_kind", broken { $0.layers[index("child")].kind = "hologram" }),
            ("unknown_layer", broken { $0.layers[0].id = "elsewhere" }),
            ("invalid_value", broken { $0.layers.swapAt(index("box"), index("child")) }),
            ("duplicate_id", broken { $0.layers.append(.init(id: "box", parent: rootID)) }),
            ("invalid_id", broken { $0.layers.append(.init(id: "no spaces", parent: rootID)) }),
            ("wrong_type", broken { $0.layers[index("box")].properties["opacity"] = .string("half") }),
            ("invalid_value", broken { $0.layers[index("box")].properties["opacity"] = .number(2) }),
            ("unknown_key_path", broken { $0.layers[index("box")].properties["opacityy"] = .number(1) }),
            ("invalid_key_path", broken { $0.layers[index("box")].custom["a.b"] = .number(1) }),
            ("wrong_type", broken { $0.layers[index("box")].animations[0].animation.kind = .basic(.init(to: .string("wide"))) }),
            ("invalid_animation", broken { $0.layers[index("box")].animations.append($0.layers[index("box")].animations[0]) }),
            ("invalid_timing", broken { $0.layers[index("spinner")].animations[0].animation.timing.speed = .nan }),
            ("unknown_layer", broken { $0.layers[index("child")].actionsFrom = "nobody" }),
        ]
        for (code, snapshot) in cases {
            expectError(code, "\(code)") { try scene.restore(snapshot) }
            #expect(try SceneSnapshot(scene) == before, "\(code)")
        }
        scene.configuration.maximumLayers = 3
        expectError("limit_exceeded") { try scene.restore(good) }
        #expect(try SceneSnapshot(scene) == before)
    }
}

@Suite struct SnapshotBudgetTests {
    @Test func aRestoredSceneCountsItsValuesAgainstTheBudget() throws {
        let scene = Scene()
        try scene.addRoot(id: "root", output: "test", size: Size(width: 100, height: 100))
        var tx = Transaction(disableActions: true)
        tx.add(layer: "a", kind: "layer", parent: "root", properties: ["note": .string(String(repeating: "x", count: 1000))])
        try scene.commit(tx, at: 0)
        let fresh = Scene()
        try fresh.addRoot(id: "root", output: "test", size: Size(width: 100, height: 100))
        try fresh.restore(scene.snapshot())
        #expect(fresh.valueBytes == scene.valueBytes)
        #expect(fresh.valueBytes >= 1000)
    }
}
