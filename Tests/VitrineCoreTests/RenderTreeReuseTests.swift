import Foundation
import Testing
@testable import VitrineCore
import VitrineTestSupport

/// A render tree built by reusing the previous one (only animated subtrees built again)
/// must equal a tree built from scratch, frame after frame, whatever the animations do:
/// move, fade to nothing, hide, finish, run inside layers with their own timing or inside
/// replicators' copies, run transitions, or move masks.
@Suite struct RenderTreeReuseTests {
    @Test(arguments: 1...24)
    func reusedTreesEqualFreshOnes(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let scene = makeScene(width: 640, height: 480)
        var ids = [rootID]
        try scene.commit(randomLayers(count: 60, under: &ids, using: &random), at: 0)
        var time = 0.0
        var reused = 0
        for frame in 0..<240 {
            time += frame % 50 == 49 ? Double.random(in: 0.2...1.5, using: &random) : 1.0 / 30
            if frame % 60 == 59 {
                try scene.commit(randomChanges(ids: &ids, using: &random), at: time)
            } else if frame % 7 == 3 {
                try scene.commit(randomValueChanges(ids: ids, using: &random), at: time)
            }
            _ = scene.advance(to: time)
            let before = scene.treesReused
            let tree = try scene.renderTree(root: rootID, at: time)
            reused += scene.treesReused - before
            let fresh = try freshTree(of: scene, at: time)
            try expectSame(tree, fresh, "seed \(seed), frame \(frame), t \(time)")
            expectGeometryShortcutExact(scene, at: time)
        }
        #expect(reused > 100, "most frames should reuse the previous tree (seed \(seed): \(reused))")
    }

    @Test func aLayerThatFadesInIsAddedToTheTree() throws {
        let scene = makeSceneWithLayer("box", properties: ["opacity": .number(0)])
        var fade = Animation.basic("opacity", from: .number(0), to: .number(1), duration: 1)
        fade.timing.beginTime = 0.5
        try commit(scene, at: 0, quiet) { $0.addAnimation(fade, to: "box") }
        _ = scene.advance(to: 0.1)
        #expect(try scene.renderTree(root: rootID, at: 0.1).nodes.map(\.id) == [rootID])
        _ = scene.advance(to: 0.6)
        #expect(try scene.renderTree(root: rootID, at: 0.6).nodes.map(\.id) == [rootID, "box"])
    }

    @Test func aChangedValueRebuildsOnlyItsSubtree() throws {
        let scene = makeSceneWithLayer("box")
        try commit(scene, at: 0) { $0.add(layer: "other", parent: rootID) }
        let first = try scene.renderTree(root: rootID, at: 0)
        let reused = scene.treesReused
        try commit(scene, at: 0.1, quiet) { $0.set("box", "backgroundColor", .color(.white)) }
        let second = try scene.renderTree(root: rootID, at: 0.1)
        #expect(scene.treesReused == reused + 1)
        #expect(second.nodes[1].values.color(.backgroundColor) == .white)
        #expect(first.nodes[2].content === second.nodes[2].content)
        // zPosition reorders siblings: the tree is built whole.
        try commit(scene, at: 0.2, quiet) { $0.set("box", "zPosition", .number(1)) }
        let third = try scene.renderTree(root: rootID, at: 0.2)
        #expect(scene.treesReused == reused + 1)
        #expect(third.nodes.map(\.id) == [rootID, "other", "box"])
    }

    @Test func valuesChangedEveryFrameWhileThePreviousTreeIsHeld() throws {
        let scene = makeScene()
        try commit(scene, at: 0, quiet) { tx in
            for g in 0..<3 {
                tx.add(
                    layer: "g\(g)", parent: rootID,
                    properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 90, height: 90)), "position": .point(Point(x: 100 + Double(g) * 100, y: 100))])
                for i in 0..<4 {
                    tx.add(
                        layer: "g\(g).\(i)", parent: "g\(g)",
                        properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 10, height: 10)), "position": .point(Point(x: Double(i) * 20, y: 5))])
                }
            }
            tx.addAnimation(.basic("position.y", from: .number(5), to: .number(60), duration: 2), to: "g1.2")
        }
        var previous = try scene.renderTree(root: rootID, at: 0)
        var time = 0.0
        for frame in 0..<40 {
            time += 1.0 / 60
            // A value every frame, now and then two, now and then none.
            try commit(scene, at: time, quiet) { tx in
                guard frame % 9 != 4 else { return }
                tx.set("g\(frame % 3).\(frame % 4)", "backgroundColor", .color(Color(red: Double(frame % 5) / 5, green: 0, blue: 1)))
                if frame % 4 == 1 { tx.set("g\((frame + 1) % 3)", "opacity", .number(0.5 + Double(frame % 2) / 4)) }
            }
            _ = scene.advance(to: time)
            let tree = try scene.renderTree(root: rootID, at: time)
            try expectSame(tree, try freshTree(of: scene, at: time), "frame \(frame)")
            #expect(!tree.damage(since: previous).isEmpty)
            previous = tree
        }
    }

    @Test func anUnchangedLayerSharesItsContentBetweenTrees() throws {
        let scene = makeSceneWithLayer("box")
        try commit(scene, at: 0) { $0.add(layer: "spinner", parent: rootID) }
        try commit(scene, at: 0, quiet) {
            $0.addAnimation(.basic("transform.rotation.z", from: .number(0), to: .number(1), duration: 2), to: "spinner")
        }
        _ = scene.advance(to: 0.5)
        let a = try scene.renderTree(root: rootID, at: 0.5)
        _ = scene.advance(to: 0.6)
        let b = try scene.renderTree(root: rootID, at: 0.6)
        #expect(a.nodes[1].content === b.nodes[1].content)
        #expect(a.nodes[2].content !== b.nodes[2].content)
        #expect(b.damage(since: a).count == 1)
    }

    /// Animated layers' geometry, decoded from the model's where the animations leave it
    /// alone, equals the geometry decoded from every presentation value.
    private func expectGeometryShortcutExact(_ scene: Scene, at time: Double) {
        for layer in scene.animatedLayers.values {
            let values = Scene.presentation(of: layer, localTime: scene.localTime(of: layer, at: time))
            let short = LayerGeometry(values, model: layer.geometry), full = LayerGeometry(values)
            #expect(
                short.bounds == full.bounds && short.toParent == full.toParent && short.sublayerMatrix == full.sublayerMatrix
                    && short.opacity == full.opacity && short.isHidden == full.isHidden && short.masksToBounds == full.masksToBounds
                    && short.zPosition == full.zPosition && short.shadowReach == full.shadowReach, "\(layer.id) at \(time)")
        }
    }

    /// The tree the scene builds with no previous tree to reuse.
    private func freshTree(of scene: Scene, at time: Double) throws -> RenderTree {
        try scene.renderTreeBuiltWhole(root: rootID, at: time)
    }

    private func expectSame(_ a: RenderTree, _ b: RenderTree, _ context: String) throws {
        try #require(a.nodes.map(\.id) == b.nodes.map(\.id), "\(context): drawn layers")
        for (x, y) in zip(a.nodes, b.nodes) {
            #expect(
                x.parent == y.parent && x.subtreeEnd == y.subtreeEnd && x.isMask == y.isMask && x.hasMask == y.hasMask, "\(context): \(x.id) placement")
            #expect(x.transform == y.transform && x.clip == y.clip && x.visualBounds == y.visualBounds, "\(context): \(x.id) geometry")
            #expect(x.inheritedOpacity == y.inheritedOpacity && x.tint == y.tint, "\(context): \(x.id) opacity")
            #expect(
                x.plane?.toScreen == y.plane?.toScreen && x.plane?.projection == y.plane?.projection
                    && x.plane?.drawingBounds == y.plane?.drawingBounds, "\(context): \(x.id) plane")
            #expect(x.values == y.values && x.displayKeys == y.displayKeys, "\(context): \(x.id) values")
        }
    }

    private func randomLayers(count: Int, under ids: inout [String], using random: inout SeededGenerator) -> Transaction {
        var tx = quiet
        for i in 0..<count {
            let id = "l\(ids.count)-\(i)"
            var properties = randomProperties(using: &random), kind = "layer"
            if Double.random(in: 0..<1, using: &random) < 0.08 {
                // A replicator: copies whose time, place and tint differ.
                kind = "replicator"
                properties["instanceCount"] = .number(Double(Int.random(in: 0...3, using: &random)))
                properties["instanceTransform"] = .transform(AffineTransform(rotationAngle: .random(in: -1...1, using: &random)))
                properties["instanceDelay"] = .number(.random(in: -0.5...0.5, using: &random))
                properties["instanceAlphaOffset"] = .number(-0.2)
            }
            if Double.random(in: 0..<1, using: &random) < 0.1 {
                // A mask outside the tree, animated too; later layers may go under it.
                let mask = id + "-mask"
                tx.add(layer: mask, parent: nil, properties: randomProperties(using: &random))
                tx.addAnimation(randomAnimation(using: &random), to: mask)
                properties["mask"] = .string(mask)
            }
            tx.add(layer: id, kind: kind, parent: ids.randomElement(using: &random)!, properties: properties)
            if case .string(let mask)? = properties["mask"] { ids.append(mask) }
            for animation in (0..<Int.random(in: 0...2, using: &random)).map({ _ in randomAnimation(using: &random) }) {
                tx.addAnimation(animation, to: id)
            }
            ids.append(id)
        }
        return tx
    }

    private func randomChanges(ids: inout [String], using random: inout SeededGenerator) -> Transaction {
        var tx = quiet
        let target = ids.dropFirst().randomElement(using: &random)!
        tx.set(target, "position", .point(Point(x: .random(in: 0...600, using: &random), y: .random(in: 0...400, using: &random))))
        tx.addAnimation(randomAnimation(using: &random), to: ids.dropFirst().randomElement(using: &random)!)
        tx.nest(randomLayers(count: 3, under: &ids, using: &random))
        return tx
    }

    /// Model values of a few layers, without animation: the tree keeps its shape unless
    /// a layer shows or hides.
    private func randomValueChanges(ids: [String], using random: inout SeededGenerator) -> Transaction {
        var tx = quiet
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let target = ids.randomElement(using: &random)!
            let (key, value): (KeyPath, Value) =
                switch Int.random(in: 0..<11, using: &random) {
                case 0: ("opacity", .number([0, 0.5, 1].randomElement(using: &random)!))
                case 1: ("hidden", .bool(Bool.random(using: &random)))
                case 2: ("position", .point(Point(x: .random(in: 0...600, using: &random), y: .random(in: 0...400, using: &random))))
                case 3: ("transform", .transform(AffineTransform(rotationAngle: .random(in: -1...1, using: &random))))
                case 4: ("sublayerTransform", .transform(AffineTransform(scaleX: .random(in: 0.5...2, using: &random), y: 1)))
                case 5: ("masksToBounds", .bool(Bool.random(using: &random)))
                case 6: ("bounds", .rect(Rect(x: 0, y: 0, width: .random(in: 5...300, using: &random), height: .random(in: 5...200, using: &random))))
                case 7: ("backgroundColor", .color(Color(red: .random(in: 0...1, using: &random), green: 0.2, blue: 0.7)))
                case 8: ("speed", .number([0, 0.5, 1, 2].randomElement(using: &random)!))
                case 9: ("shadowOpacity", .number(Double.random(in: 0...1, using: &random)))
                default: ("level", .number(Double.random(in: 0...5, using: &random)))
                }
            guard target != rootID || ["backgroundColor", "level"].contains(key.description) else { continue }
            tx.set(target, key, value)
        }
        return tx
    }

    private func randomProperties(using random: inout SeededGenerator) -> [String: Value] {
        func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
        var p: [String: Value] = [
            "bounds": .rect(Rect(x: 0, y: 0, width: .random(in: 5...200, using: &random), height: .random(in: 5...150, using: &random))),
            "position": .point(Point(x: .random(in: -20...620, using: &random), y: .random(in: -20...460, using: &random))),
            "backgroundColor": .color(Color(red: .random(in: 0...1, using: &random), green: 0.5, blue: 0.5)),
        ]
        if chance(0.2) { p["transform"] = .transform(AffineTransform(rotationAngle: .random(in: -1...1, using: &random))) }
        if chance(0.1) { p["sublayerTransform"] = .transform(AffineTransform(scaleX: 1.5, y: 0.75)) }
        if chance(0.1) { p["transform"] = .transform3D(Transform3D(rotationAngle: .random(in: -2.5...2.5, using: &random), x: 0, y: 1, z: 0)) }
        if chance(0.1) { p["sublayerTransform"] = .transform3D(Transform3D(perspective: 600)) }
        if chance(0.1) { p["doubleSided"] = .bool(false) }
        if chance(0.2) { p["masksToBounds"] = .bool(true) }
        if chance(0.15) { p["zPosition"] = .number(Double(Int.random(in: -1...1, using: &random))) }
        if chance(0.1) { p["opacity"] = .number(chance(0.5) ? 0 : 0.5) }
        if chance(0.05) { p["hidden"] = .bool(true) }
        if chance(0.1) { p["shadowOpacity"] = .number(0.5) }
        if chance(0.1) { p["speed"] = .number(2) }
        if chance(0.1) { p["timeOffset"] = .number(0.7) }
        if chance(0.08) {
            p["beginTime"] = .number(.random(in: 0...3, using: &random))
            p["duration"] = .number(.random(in: 0.5...3, using: &random))
        }
        if chance(0.1) { p["level"] = .number(1) }
        return p
    }

    private func randomAnimation(using random: inout SeededGenerator) -> Animation {
        let duration = Double.random(in: 0.3...3, using: &random)
        var animation: Animation =
            switch Int.random(in: 0..<9, using: &random) {
            case 0: .basic("opacity", from: .number(1), to: .number(0), duration: duration)
            case 1: .keyframe("hidden", Keyframes(values: [.bool(false), .bool(true)], calculationMode: .discrete), duration: duration)
            case 2: .basic("position", by: .point(Point(x: 30, y: -20)), duration: duration)
            case 3: .basic("transform.rotation.z", from: .number(0), to: .number(3), duration: duration)
            case 4: .spring("bounds.size.width", to: .number(40), spring: try! Spring(), duration: duration)
            case 5: .basic("backgroundColor", to: .color(.white), duration: duration)
            case 6: .transition(Transition([.push, .fade].randomElement(using: &random)!, direction: .fromTop), duration: duration)
            case 7: .basic("sublayerTransform.scale", from: .number(1), to: .number(0.5), duration: duration)
            default: .basic("transform.rotation.y", from: .number(0), to: .number(3), duration: duration)
            }
        animation.timing.beginTime = .random(in: 0...2, using: &random)
        if Bool.random(using: &random) { animation.timing.repeatCount = [1.5, 3, .infinity].randomElement(using: &random)! }
        animation.timing.autoreverses = Bool.random(using: &random)
        animation.timing.fillMode = [.removed, .forwards, .both].randomElement(using: &random)!
        return animation
    }
}
