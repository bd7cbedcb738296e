import Foundation
import Testing
import VitrineTestSupport
import VitrineCore
@testable import VitrineProtocol

/// A scene taken as a snapshot, written as JSON text, read back and restored into a fresh
/// scene shows what the original shows, at every later time: random trees with every kind
/// of animation, layer timing, custom properties and action rules.
@Suite struct SnapshotCodingTests {
    @Test(arguments: 1...16)
    func aRestoredSceneShowsWhatTheOriginalShows(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let original = Self.scene()
        var ids = ["screen"]
        var time = 0.0
        for round in 0..<4 {
            try original.commit(randomLayers(count: 12, under: &ids, using: &random), at: time)
            time += Double.random(in: 0.1...1.2, using: &random)
            _ = original.advance(to: time)
            if round == 2 { try original.commit(randomSets(ids: ids, using: &random), at: time) }
        }
        let snapshot = original.snapshot()
        let animations = snapshot.layers.flatMap(\.animations).map(\.animation)
        #expect(
            animations.count > 40 && animations.contains { if case .group = $0.kind { true } else { false } }
                && animations.contains { if case .spring = $0.kind { true } else { false } }
                && animations.contains { if case .keyframe = $0.kind { true } else { false } }, "seed \(seed): every kind of animation")
        let text = snapshot.json.text
        let decoded = try Scene.Snapshot(json: JSON(parsing: Data(text.utf8)))
        #expect(decoded == snapshot, "seed \(seed): the snapshot reads back as written")
        let restored = Self.scene()
        try restored.restore(decoded)
        #expect(restored.snapshot() == snapshot, "seed \(seed): the restored scene's snapshot is the original's")
        for step in 0..<12 {
            let t = time + Double(step) * 0.37
            #expect(original.advance(to: t).count == restored.advance(to: t).count, "seed \(seed): events at \(t)")
            for id in ids {
                let p = try original.presentationValues(of: id, at: t), q = try restored.presentationValues(of: id, at: t)
                #expect(p == q, "seed \(seed): \(id) at \(t)")
            }
            #expect(try original.renderTree(root: "screen", at: t).nodes.map(\.id) == restored.renderTree(root: "screen", at: t).nodes.map(\.id))
        }
        // Both go on alike: the next ids, and the next change.
        var tx = Transaction()
        tx.set(ids.last!, "opacity", .number(0.25))
        #expect(try original.commit(tx, at: time + 5) == restored.commit(tx, at: time + 5))
        #expect(original.snapshot() == restored.snapshot())
    }

    /// A transition reads back as written (without its old rendering, which is not kept).
    @Test(arguments: Transition.Style.allCases)
    func transitionsReadBackAsWritten(style: Transition.Style) throws {
        var animation = Animation.transition(
            Transition(style, direction: .fromBottom, startProgress: 0.25, endProgress: 0.75), duration: 0.6, timingFunction: .easeInEaseOut)
        animation.timing.beginTime = 3
        let json = try JSON(parsing: Data(animation.journalJSON.text.utf8))
        #expect(try Animation(journalJSON: json, at: "a") == animation)
        var bad = json.object!
        bad["transition"] = .object(["style": .string("cube"), "direction": .string("fromLeft"), "startProgress": .number(0), "endProgress": .number(1)])
        #expect(throws: ProtocolError.self) { try Animation(journalJSON: .object(bad), at: "a") }
    }

    @Test func masksAndLayersOutsideTheTreeReadBackAsWritten() throws {
        let original = Self.scene()
        var tx = Transaction(disableActions: true)
        tx.add(layer: "wipe", parent: nil, properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 50, height: 40))])
        tx.add(layer: "edge", parent: "wipe", properties: ["opacity": .number(0.5)])
        tx.add(layer: "photo", parent: "screen", properties: ["mask": .string("wipe")])
        tx.addAnimation(.basic("position.x", from: .number(0), to: .number(80), duration: 2), to: "wipe")
        try original.commit(tx, at: 0)
        let snapshot = original.snapshot()
        let text = snapshot.json.text
        #expect(text.contains(#""detached":true"#))
        let decoded = try Scene.Snapshot(json: JSON(parsing: Data(text.utf8)))
        #expect(decoded == snapshot)
        let restored = Self.scene()
        try restored.restore(decoded)
        #expect(restored.snapshot() == snapshot)
        for t in [0.0, 0.9, 2.5] {
            #expect(try restored.convert(Point(x: 0, y: 0), from: "edge", to: nil, at: t) == original.convert(Point(x: 0, y: 0), from: "edge", to: nil, at: t))
            #expect(try restored.renderTree(root: "screen", at: t).nodes.map(\.id) == ["screen", "photo", "wipe", "edge"])
        }
    }

    /// A keyframe path, its rotation mode and cubicPaced survive the journal.
    @Test func pathKeyframesReadBackAsWritten() throws {
        let path = try PathData(parsing: "M0 0 C10 20 30 40 50 60 L70.25 -3 Z")
        let animation = Animation.keyframe(
            try KeyPath(parsing: "position"), Keyframes(values: [], calculationMode: .cubicPaced, path: path, rotationMode: .autoReverse), duration: 2)
        let back = try Animation(journalJSON: JSON(parsing: Data(animation.journalJSON.text.utf8)), at: "a")
        #expect(back == animation)
    }

    @Test func valuesKeepTheirTypesAndExactComponents() throws {
        let values: [Value] = [
            .number(0.1 + 0.2), .bool(true), .string("{\"point\": 1}"), .point(Point(x: 1e-9, y: -3)), .size(Size(width: 2, height: 3)),
            .rect(Rect(x: 1, y: 2, width: 3, height: 4)), .color(Color(red: 0.123456789, green: 1 / 3, blue: 0, alpha: 0.5)),
            .transform(AffineTransform(rotationAngle: 0.7)), .array([.number(1), .number(2)]),
            .dictionary(["point": .array([.number(1), .number(2)]), "c": .color(.white)]),
        ]
        for v in values {
            let text = v.taggedJSON.text
            #expect(try Value(taggedJSON: JSON(parsing: Data(text.utf8)), at: "v") == v, "\(text)")
        }
    }

    @Test func decodingErrorsSayWhere() throws {
        func error(_ text: String) -> String {
            do {
                _ = try Scene.Snapshot(json: JSON(parsing: Data(text.utf8)))
                return "decoded"
            } catch { return error.message }
        }
        let layer =
            #"{"id": "a", "kind": "layer", "parent": "screen", "animations": [{"id": 1, "key": "k", "started": true, "finished": false, "animation": {"type": "basic", "keyPath": "opacity", "timing": {"beginTime": 0, "duration": 1, "speed": "fast", "timeOffset": 0, "repeatCount": 0, "repeatDuration": 0, "autoreverses": false, "fillMode": "removed"}}}]}"#
        #expect(error(#"{"nextAnimation": 1, "nextTransaction": 1, "layers": [\#(layer)]}"#).contains("scene.layers[0].animations[0].animation.timing.speed"))
        #expect(
            error(#"{"nextAnimation": 1, "nextTransaction": 1, "layers": [{"id": "a", "kind": "layer", "colour": 1}]}"#).contains(
                "scene.layers[0] has no field 'colour'"))
        #expect(error(#"{"nextAnimation": 1, "layers": []}"#).contains("nextTransaction"))
        #expect(
            error(#"{"nextAnimation": 1, "nextTransaction": 1, "layers": [{"id": "a", "kind": "layer", "properties": {"bounds": [0, 0, 1, 1]}}]}"#)
                .contains("scene.layers[0].properties.bounds"))
    }

    // MARK: Random scenes

    static func scene() -> Scene {
        let scene = Scene()
        scene.register(LayerKind(name: "dial", extraProperties: [PropertyDescriptor("level", .number(0), range: 0...10)]))
        try! scene.addRoot(id: "screen", output: "TEST-1", size: Size(width: 640, height: 480))
        return scene
    }

    private func randomLayers(count: Int, under ids: inout [String], using random: inout SeededGenerator) -> Transaction {
        var tx = Transaction(disableActions: true)
        for i in 0..<count {
            let id = "l\(ids.count)-\(i)"
            let kind = Int.random(in: 0..<4, using: &random) == 0 ? "dial" : Bool.random(using: &random) ? "gradient" : "layer"
            var properties: [String: Value] = [
                "bounds": .rect(Rect(x: 0, y: 0, width: .random(in: 5...200, using: &random), height: .random(in: 5...150, using: &random))),
                "position": .point(Point(x: .random(in: 0...600, using: &random), y: .random(in: 0...400, using: &random))),
                "backgroundColor": .color(Color(red: .random(in: 0...1, using: &random), green: 0.5, blue: 1 / 3)),
                "level": .number(.random(in: 0...5, using: &random)),
                "roll": .dictionary(["pos": .array([.number(1), .number(2.5)]), "strips": .array([.string("0123")])]),
            ]
            if Bool.random(using: &random) { properties["speed"] = .number([0.5, 2, 0].randomElement(using: &random)!) }
            if Bool.random(using: &random) { properties["timeOffset"] = .number(0.7) }
            if kind == "gradient" { properties["colors"] = .array([.color(.white), .color(Color(red: 0.2, green: 0.1, blue: 0.9, alpha: 0.6))]) }
            tx.add(layer: id, kind: kind, parent: ids.randomElement(using: &random)!, properties: properties)
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                tx.addAnimation(randomAnimation(kind: kind, using: &random), to: id)
            }
            if Int.random(in: 0..<4, using: &random) == 0 {
                tx.operations.append(
                    .setActions(
                        layer: id,
                        actions: [
                            "position": .animation(.spring("position", spring: try! Spring(damping: 12), duration: 0)), "opacity": ActionRule.none,
                        ]))
                tx.operations.append(.setActionPolicy(layer: id, policy: .explicitOnly))
                tx.operations.append(.setDisplayKeys(layer: id, keys: ["level", "roll"]))
            }
            if Int.random(in: 0..<5, using: &random) == 0, let source = ids.last { tx.operations.append(.setActionsFrom(layer: id, source: source)) }
            ids.append(id)
        }
        return tx
    }

    /// Sets that animate implicitly (and by the layers' rules) on top of what runs.
    private func randomSets(ids: [String], using random: inout SeededGenerator) -> Transaction {
        var tx = Transaction(animationDuration: 0.8, isAnimated: true)
        for id in ids.dropFirst().shuffled(using: &random).prefix(6) {
            tx.set(id, "position", .point(Point(x: .random(in: 0...600, using: &random), y: 10)))
            tx.set(id, "opacity", .number(0.5))
            tx.set(id, "roll.pos.1", .number(0))
        }
        return tx
    }

    private func randomAnimation(kind: String, using random: inout SeededGenerator) -> Animation {
        let duration = Double.random(in: 0.3...3, using: &random)
        var animation: Animation =
            switch Int.random(in: 0..<9, using: &random) {
            case 0: .basic("opacity", from: .number(1), to: .number(0), duration: duration)
            case 1: .keyframe("hidden", Keyframes(values: [.bool(false), .bool(true)], calculationMode: .discrete), duration: duration)
            case 2: .basic("position", by: .point(Point(x: 30, y: -20)), duration: duration, timingFunction: .easeInEaseOut)
            case 3:
                .keyframe(
                    "backgroundColor",
                    Keyframes(
                        values: [.color(.white), .color(Color(red: 0.3, green: 0.6, blue: 0.9)), .color(.clear)], keyTimes: [0, 0.3, 1],
                        timingFunctions: [.easeIn, .easeOut], calculationMode: [.linear, .cubic, .paced].randomElement(using: &random)!), duration: duration)
            case 4: .spring("bounds.size.width", to: .number(40), spring: try! Spring(mass: 2, stiffness: 80, damping: 9, initialVelocity: 0.5), duration: 0)
            case 5:
                .group(
                    [
                        .basic("transform.rotation.z", from: .number(0), to: .number(3)),
                        .basic("roll.pos.0", from: .number(0), to: .number(3), duration: duration / 2),
                    ], duration: duration)
            case 6 where kind == "dial": .basic("level", from: .number(0), to: .number(9), duration: duration)
            case 7: .basic("roll.pos.1", by: .number(1), duration: duration)
            default: .basic("sublayerTransform.scale", from: .number(1), to: .number(0.5), duration: duration)
            }
        animation.timing.beginTime = Bool.random(using: &random) ? 0 : .random(in: 0...2, using: &random)
        if Bool.random(using: &random) { animation.timing.repeatCount = [1.5, 3, .infinity].randomElement(using: &random)! }
        animation.timing.autoreverses = Bool.random(using: &random)
        animation.timing.fillMode = [.removed, .forwards, .both].randomElement(using: &random)!
        animation.isAdditive = Int.random(in: 0..<5, using: &random) == 0
        animation.isCumulative = Int.random(in: 0..<5, using: &random) == 0
        animation.isRemovedOnCompletion = Int.random(in: 0..<4, using: &random) != 0
        return animation
    }
}
