import Testing
@testable import VitrineCore

/// CALayer.mask: a layer outside the tree named by `mask` is drawn into its layer's mask,
/// in that layer's space and time; refused when it cannot be a mask, and unset when it goes.
@Suite struct MaskTests {
    /// The root with `photo` (200×100 at its origin (20, 10)) masked by `wipe`, a layer
    /// outside the tree, 100×100 with its top-left at (0, 0) of the photo.
    func maskedScene() throws -> Scene {
        let scene = makeScene()
        try commit(scene, at: 0, quiet) {
            $0.add(
                layer: "wipe", parent: nil,
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 100)), "anchorPoint": .point(Point(x: 0, y: 0)),
                    "backgroundColor": .color(.white),
                ])
            $0.add(
                layer: "photo", parent: rootID,
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 100)), "position": .point(Point(x: 120, y: 60)),
                    "sublayerTransform": .transform(AffineTransform(scaleX: 2, y: 2)), "mask": .string("wipe"),
                ])
            $0.add(layer: "caption", parent: "photo")
        }
        return scene
    }

    @Test func theMaskIsDrawnAfterItsLayerInItsSpaceAndNotOnScreen() throws {
        let scene = try maskedScene()
        let tree = try scene.renderTree(root: rootID, at: 0)
        #expect(tree.nodes.map(\.id) == [rootID, "photo", "wipe", "caption"])
        #expect(tree.nodes.map(\.isMask) == [false, false, true, false])
        #expect(tree.nodes.map(\.hasMask) == [false, true, false, false])
        #expect(tree.nodes[2].parent == 1 && tree.nodes[1].subtreeEnd == 4 && tree.nodes[2].subtreeEnd == 3)
        // In the photo's space: its origin, without the photo's sublayerTransform.
        #expect(tree.nodes[2].transform == AffineTransform(translationX: 20, y: 10))
        #expect(try scene.convert(Point(x: 0, y: 0), from: "wipe", to: nil) == Point(x: 20, y: 10))
        #expect(try scene.parent(of: "wipe") == nil)
        #expect(scene.hitTest(Point(x: 30, y: 20), root: rootID, at: 0)?.layer == "photo")
    }

    @Test func theMaskRunsInItsLayersTime() throws {
        let scene = try maskedScene()
        try commit(scene, at: 0, quiet) {
            $0.addAnimation(.basic("position.x", from: .number(0), to: .number(100), duration: 1), to: "wipe")
        }
        #expect(try scene.presentationValue("position.x", of: "wipe", at: 0.5) == .number(50))
        // Paused with its layer (layer.pause's recipe: speed 0 at its time then).
        try commit(scene, at: 0.5, quiet) {
            $0.set("photo", "timeOffset", .number(0.5)); $0.set("photo", "speed", .number(0))
        }
        for t in [0.5, 0.9, 3] {
            let tree = try scene.renderTree(root: rootID, at: t)
            #expect(tree.nodes.first { $0.id == "wipe" }?.transform == AffineTransform(translationX: 70, y: 10), "at \(t)")
        }
    }

    @Test func anAnimatedMaskRebuildsAloneAndMatchesAWholeBuild() throws {
        let scene = try maskedScene()
        try commit(scene, at: 0, quiet) {
            $0.addAnimation(.basic("position.x", from: .number(-100), to: .number(200), duration: 3), to: "wipe")
        }
        _ = try scene.renderTree(root: rootID, at: 0)
        let reused = scene.treesReused
        for t in [0.5, 1, 1.7, 2.9] {
            let tree = try scene.renderTree(root: rootID, at: t)
            let whole = try scene.renderTreeBuiltWhole(root: rootID, at: t)
            #expect(tree.nodes.map(\.id) == whole.nodes.map(\.id))
            #expect(zip(tree.nodes, whole.nodes).allSatisfy { $0.transform == $1.transform && $0.visualBounds == $1.visualBounds })
        }
        #expect(scene.treesReused == reused + 4)
    }

    @Test func movingTheMaskDamagesOnlyWhereItWasAndIs() throws {
        let scene = try maskedScene()
        try commit(scene, at: 0, quiet) {
            $0.add(
                layer: "backdrop", parent: rootID, placement: .bottom,
                properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 800, height: 600)), "position": .point(Point(x: 400, y: 300))])
            $0.addAnimation(.basic("position.x", from: .number(0), to: .number(100), duration: 1, timingFunction: .linear), to: "wipe")
        }
        let before = try scene.renderTree(root: rootID, at: 0.2)
        let after = try scene.renderTree(root: rootID, at: 0.3)
        let damage = after.damage(since: before)
        // The wipe was at x 40…140 and is at 50…150 on screen (y 10…110), a pixel around.
        #expect(damage == [Rect(x: 39, y: 9, width: 112, height: 102)])
        // Setting the mask damages the photo whole; so does unsetting it.
        let masked = try scene.renderTree(root: rootID, at: 0.3)
        try commit(scene, at: 0.3, quiet) { $0.set("photo", "mask", .string("")) }
        let unmasked = try scene.renderTree(root: rootID, at: 0.3)
        #expect(unmasked.damage(since: masked).contains { $0.contains(Rect(x: 20, y: 10, width: 200, height: 100)) })
    }

    @Test func badMasksAreRefusedAndChangeNothing() throws {
        let scene = try maskedScene()
        try commit(scene, at: 0, quiet) {
            $0.add(layer: "free", parent: nil)
            $0.add(layer: "inner", parent: "free")
        }
        let before = try SceneSnapshot(scene)
        func refused(_ layer: String, _ mask: String, _ code: String, _ words: String) {
            do {
                try commit(scene, at: 1, quiet) { $0.set(layer, "mask", .string(mask)) }
                Issue.record("\(layer).mask = \(mask) was accepted")
            } catch {
                #expect(error.code == code, "\(layer).mask = \(mask)")
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
        refused("photo", "nothing", "invalid_value", "there is no layer 'nothing'")
        refused("photo", "photo", "invalid_value", "its own mask")
        refused("photo", "caption", "invalid_value", "is in the layer tree")
        refused("photo", rootID, "invalid_value", "is in the layer tree")
        refused("caption", "wipe", "invalid_value", "is the mask of 'photo' already")
        refused("inner", "free", "invalid_value", "the mask would clip itself")
        // Two masks of each other.
        try commit(scene, at: 1, quiet) { $0.add(layer: "other", parent: nil, properties: ["mask": .string("free")]) }
        refused("free", "other", "invalid_value", "the mask would clip itself")
        try commit(scene, at: 1, quiet) {
            $0.set("other", "mask", .string("")); $0.remove(layer: "other")
        }
        // A mask cannot join the tree; a failed transaction keeps what it undid.
        #expect(throws: CoreError.self) {
            try commit(scene, at: 1, quiet) {
                $0.set("photo", "mask", .string("free"))
                $0.move(layer: "free", to: rootID)
            }
        }
        #expect(throws: CoreError.self) { try commit(scene, at: 1, quiet) { $0.move(layer: "wipe", to: rootID) } }
        #expect(try SceneSnapshot(scene) == before)
        #expect(try scene.renderTree(root: rootID, at: 1).nodes.map(\.id) == [rootID, "photo", "wipe", "caption"])
    }

    @Test func removingTheMaskUnsetsItAndRemovingItsLayerRemovesIt() throws {
        let scene = try maskedScene()
        try commit(scene, at: 0, quiet) { $0.add(layer: "shape", parent: "wipe") }
        try commit(scene, at: 1, quiet) { $0.remove(layer: "wipe") }
        #expect(try scene.modelValue("mask", of: "photo") == .string(""))
        #expect(!scene.contains("shape"))
        #expect(try scene.renderTree(root: rootID, at: 1).nodes.map(\.id) == [rootID, "photo", "caption"])
        let again = try maskedScene()
        try commit(again, at: 1, quiet) { $0.remove(layer: "photo") }
        #expect(!again.contains("wipe") && again.layerCount == 1)
        // Unset, the mask stays outside the tree and may mask another layer.
        let third = try maskedScene()
        try commit(third, at: 1, quiet) {
            $0.set("photo", "mask", .string("")); $0.set("caption", "mask", .string("wipe"))
        }
        #expect(try third.renderTree(root: rootID, at: 1).nodes.map(\.id) == [rootID, "photo", "caption", "wipe"])
    }

    @Test func everyCopyOfAReplicatedLayerHasItsMask() throws {
        let scene = makeScene()
        try commit(scene, at: 0, quiet) {
            $0.add(layer: "wipe", parent: nil, properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 10, height: 10))])
            $0.add(layer: "spinner", kind: LayerKind.replicatorName, parent: rootID, properties: ["instanceCount": .number(3)])
            $0.add(layer: "bar", parent: "spinner", properties: ["mask": .string("wipe")])
            $0.add(layer: "tick", parent: "bar")
        }
        let tree = try scene.renderTree(root: rootID, at: 0)
        #expect(tree.nodes.map(\.id) == [rootID, "spinner"] + Array(repeating: ["bar", "wipe", "tick"], count: 3).flatMap { $0 })
        #expect(tree.nodes.filter(\.isMask).allSatisfy { tree.nodes[$0.parent!].id == "bar" })
    }

    @Test func aSnapshotKeepsTheMasks() throws {
        let original = try maskedScene()
        try commit(original, at: 0, quiet) {
            $0.add(layer: "spare", parent: nil, properties: ["opacity": .number(0.5)])
            $0.add(layer: "edge", parent: "wipe")
            $0.addAnimation(.basic("position.x", from: .number(0), to: .number(100), duration: 2), to: "wipe")
        }
        let snapshot = original.snapshot()
        #expect(snapshot.layers.filter(\.isDetached).map(\.id) == ["spare", "wipe"])
        let copy = makeScene()
        try copy.restore(snapshot)
        #expect(copy.snapshot() == snapshot)
        for t in [0.0, 0.7, 1.5] {
            let a = try original.renderTree(root: rootID, at: t), b = try copy.renderTree(root: rootID, at: t)
            #expect(a.nodes.map(\.id) == b.nodes.map(\.id))
            #expect(zip(a.nodes, b.nodes).allSatisfy { $0.transform == $1.transform && $0.isMask == $1.isMask && $0.hasMask == $1.hasMask })
        }
        // A snapshot naming a mask in the tree, or a layer masked twice, changes nothing.
        var bad = snapshot
        let photo = bad.layers.firstIndex { $0.id == "photo" }!
        bad.layers[photo].properties["mask"] = .string("caption")
        #expect(throws: CoreError.self) { try copy.restore(bad) }
        bad.layers[photo].properties["mask"] = .string("wipe")
        bad.layers[bad.layers.firstIndex { $0.id == "caption" }!].properties["mask"] = .string("wipe")
        #expect(throws: CoreError.self) { try copy.restore(bad) }
        #expect(copy.snapshot() == snapshot)
    }
}
