import Foundation
import PropertyBased
import Testing
@testable import VitrineCore
import VitrineTestSupport

/// CAReplicatorLayer: copies of the sublayers in the render tree, placed by the instance
/// transform about the anchor point, delayed by instanceDelay, tinted by instanceColor and
/// the colour offsets; hit testing sees only the sublayers themselves.
@Suite struct ReplicatorTests {
    /// A 12-copy spinner: a replicator of 120×120 at (400, 300) whose copies turn 30°
    /// each, with one bar 8×28 at the top whose opacity runs 1 → 0.25 every second.
    func spinner(delay: Double = 1.0 / 12, extra: [String: Value] = [:]) throws -> Scene {
        let scene = makeScene()
        var properties: [String: Value] = [
            "bounds": .rect(Rect(x: 0, y: 0, width: 120, height: 120)), "position": .point(Point(x: 400, y: 300)),
            "instanceCount": .number(12), "instanceTransform": .transform(AffineTransform(rotationAngle: .pi / 6)),
            "instanceDelay": .number(delay),
        ]
        properties.merge(extra) { $1 }
        var fade = Animation.basic("opacity", from: .number(1), to: .number(0.25), duration: 1)
        fade.timing.repeatCount = .infinity
        try commit(scene, at: 0, quiet) {
            $0.add(layer: "spinner", kind: "replicator", parent: rootID, properties: properties)
            $0.add(
                layer: "bar", parent: "spinner",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 8, height: 28)), "position": .point(Point(x: 60, y: 18)),
                    "backgroundColor": .color(.white), "opacity": .number(0.25),
                ])
            $0.addAnimation(fade, forKey: "fade", to: "bar")
        }
        _ = scene.takeEvents()
        return scene
    }

    @Test func copiesTurnAboutTheAnchorPoint() throws {
        let scene = try spinner()
        let tree = try scene.renderTree(root: rootID, at: 0)
        #expect(tree.nodes.map(\.id) == [rootID, "spinner"] + Array(repeating: "bar", count: 12))
        // The bar's centre is 42 above the replicator's centre; copy i turns it i × 30°.
        for i in 0..<12 {
            let node = tree.nodes[2 + i]
            #expect(node.parent == 1)
            let centre = node.transform.apply(to: Point(x: 4, y: 14))
            let angle = Double(i) * .pi / 6
            expectClose(centre.x, 400 + 42 * sin(angle), tolerance: 1e-9)
            expectClose(centre.y, 300 - 42 * cos(angle), tolerance: 1e-9)
        }
    }

    @Test(arguments: [0.0, 0.04, 0.5, 1.0 / 3, 0.97, 2.3])
    func copiesShowTheAnimationDelayed(time: Double) throws {
        let scene = try spinner()
        _ = scene.advance(to: time)
        let tree = try scene.renderTree(root: rootID, at: time)
        for i in 0..<12 {
            let shifted = time - Double(i) / 12
            // Before its delayed start a copy shows the model value; after it, the cycle.
            let expected = shifted < 0 ? 0.25 : 1 - 0.75 * (shifted - shifted.rounded(.down))
            expectClose(tree.nodes[2 + i].values.number(.opacity), expected, tolerance: 1e-9, "copy \(i) at \(time)")
        }
    }

    @Test func aPausedReplicatorFreezesEveryCopy() throws {
        let scene = try spinner()
        try commit(scene, at: 0.5, quiet) {
            $0.set("spinner", "timeOffset", .number(0.5))
            $0.set("spinner", "speed", .number(0))
        }
        let a = try scene.renderTree(root: rootID, at: 0.6).nodes.map { $0.values.number(.opacity) }
        let b = try scene.renderTree(root: rootID, at: 3.1).nodes.map { $0.values.number(.opacity) }
        #expect(a == b)
        expectClose(a[2 + 3], 1 - 0.75 * 0.25)
    }

    @Test func colourOffsetsAccumulatePerCopy() throws {
        let scene = try spinner(extra: [
            "instanceColor": .color(Color(red: 1, green: 0.5, blue: 0.2, alpha: 1)), "instanceGreenOffset": .number(0.1),
            "instanceBlueOffset": .number(-0.05), "instanceAlphaOffset": .number(-1.0 / 12),
        ])
        let tree = try scene.renderTree(root: rootID, at: 0)
        for i in 0..<12 {
            let tint = try #require(tree.nodes[2 + i].tint)
            let n = Double(i)
            expectClose(tint.red, 1)
            expectClose(tint.green, min(1, 0.5 + 0.1 * n))
            expectClose(tint.blue, max(0, 0.2 - 0.05 * n))
            expectClose(tint.alpha, 1 - n / 12)
        }
        #expect(tree.nodes[1].tint == nil)
    }

    @Test func whiteCopiesCarryNoTint() throws {
        let tree = try spinner().renderTree(root: rootID, at: 0)
        #expect(tree.nodes.allSatisfy { $0.tint == nil })
    }

    @Test func nestedReplicatorsMultiplyTheirCopies() throws {
        let scene = makeScene()
        try commit(scene, at: 0, quiet) {
            $0.add(
                layer: "rows", kind: "replicator", parent: rootID,
                properties: ["instanceCount": .number(3), "instanceTransform": .transform(AffineTransform(translationX: 0, y: 20))])
            $0.add(
                layer: "columns", kind: "replicator", parent: "rows",
                properties: ["instanceCount": .number(4), "instanceTransform": .transform(AffineTransform(translationX: 30, y: 0))])
            $0.add(layer: "dot", parent: "columns", properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 10, height: 10))])
        }
        let tree = try scene.renderTree(root: rootID, at: 0)
        let dots = tree.nodes.filter { $0.id == "dot" }.map { $0.transform.apply(to: Point(x: 5, y: 5)) }
        #expect(dots.count == 12)
        #expect(Set(dots.map { "\($0.x),\($0.y)" }).count == 12)
        #expect(dots.last == Point(x: 90, y: 40))
        #expect(tree.nodes.filter { $0.id == "columns" }.count == 3)
    }

    @Test func noCopiesWithACountOfZero() throws {
        let scene = try spinner(extra: ["instanceCount": .number(0)])
        #expect(try scene.renderTree(root: rootID, at: 0).nodes.map(\.id) == [rootID, "spinner"])
        #expect(throws: CoreError.self) {
            try commit(scene, at: 0, quiet) { $0.set("spinner", "instanceCount", .number(2.5)) }
        }
        #expect(throws: CoreError.self) {
            try commit(scene, at: 0, quiet) { $0.set("spinner", "instanceCount", .number(1001)) }
        }
    }

    /// Core Animation hit-tests the replicator's sublayers only: a copy is not hit.
    @Test func onlyTheSublayersThemselvesAreHit() throws {
        let scene = try spinner()
        // Copy 0 (the bar itself) is at the top, copy 3 on the right.
        #expect(scene.hitTest(Point(x: 400, y: 258), root: rootID, at: 0)?.layer == "bar")
        #expect(scene.hitTest(Point(x: 442, y: 300), root: rootID, at: 0)?.layer == "spinner")
    }

    /// A change inside a replicator, or of one, and the animated copies: the trees the
    /// scene reuses equal trees built whole.
    @Test func reusedTreesEqualFreshOnes() throws {
        let scene = try spinner()
        try commit(scene, at: 0, quiet) { $0.add(layer: "other", parent: rootID, properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 5, height: 5))]) }
        var time = 0.0
        for frame in 0..<40 {
            time += 1.0 / 30
            if frame == 10 { try commit(scene, at: time, quiet) { $0.set("bar", "backgroundColor", .color(.black)) } }
            if frame == 20 { try commit(scene, at: time, quiet) { $0.set("spinner", "instanceCount", .number(5)) } }
            if frame == 30 { try commit(scene, at: time, quiet) { $0.set("other", "backgroundColor", .color(.white)) } }
            _ = scene.advance(to: time)
            let tree = try scene.renderTree(root: rootID, at: time)
            let fresh = try scene.renderTreeBuiltWhole(root: rootID, at: time)
            try #require(tree.nodes.map(\.id) == fresh.nodes.map(\.id), "frame \(frame)")
            for (a, b) in zip(tree.nodes, fresh.nodes) {
                #expect(a.transform == b.transform && a.values == b.values && a.tint == b.tint, "frame \(frame): \(a.id)")
            }
        }
        #expect(scene.treesReused > 20)
    }

    /// Random timing on the replicator, the bar and its animation: copy i shows exactly
    /// what the bar shows under a plain layer whose `timeOffset` is −i × instanceDelay
    /// (CA's definition of the delay, through Core's ordinary layer time).
    @Test func copiesMatchLayersShiftedByTimeOffset() async {
        await seededCheck(
            count: 200, input: Gen.double(in: -1...1), Gen.double(in: 0.25...3), Gen.double(in: -2...2), Gen.double(in: 0.2...2), Gen.double(in: 0...3),
            Gen.int(in: 1...5), Gen.double(in: 0...6), Gen.bool
        ) { delay, speed, offset, duration, begin, count, time, reverses in
            let replicator: [String: Value] = [
                "speed": .number(speed), "timeOffset": .number(offset), "beginTime": .number(begin / 2),
                "instanceCount": .number(Double(count)), "instanceDelay": .number(delay),
            ]
            var wave = Animation.basic("position.x", from: .number(0), to: .number(100), duration: duration, timingFunction: .easeInEaseOut)
            wave.timing.beginTime = begin + 0.01
            wave.timing.repeatCount = 2.5
            wave.timing.autoreverses = reverses
            wave.timing.fillMode = .both
            let bar: [String: Value] = ["speed": .number(1.5), "timeOffset": .number(0.3), "bounds": .rect(Rect(x: 0, y: 0, width: 4, height: 4))]
            let copies = makeScene(), twins = makeScene()
            try commit(copies, at: 0, quiet) {
                $0.add(layer: "r", kind: "replicator", parent: rootID, properties: replicator)
                $0.add(layer: "bar", parent: "r", properties: bar)
                $0.addAnimation(wave, to: "bar")
            }
            try commit(twins, at: 0, quiet) {
                $0.add(layer: "r", parent: rootID, properties: replicator.filter { !$0.key.hasPrefix("instance") })
                for i in 0..<count {
                    $0.add(layer: "shift\(i)", parent: "r", properties: ["timeOffset": .number(-Double(i) * delay)])
                    $0.add(layer: "bar\(i)", parent: "shift\(i)", properties: bar)
                    $0.addAnimation(wave, to: "bar\(i)")
                }
            }
            let nodes = try copies.renderTree(root: rootID, at: time).nodes.filter { $0.id == "bar" }
            #expect(nodes.count == count)
            for (i, node) in nodes.enumerated() {
                let twin = try twins.presentationValue("position.x", of: "bar\(i)", at: time).number ?? .nan
                expectClose(node.values.point(.position).x, twin, tolerance: 1e-9, "copy \(i) at \(time)")
            }
        }
    }

    @Test func damageCoversTheSpinnerOnly() throws {
        let scene = try spinner()
        try commit(scene, at: 0, quiet) {
            $0.add(
                layer: "card", parent: rootID,
                properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 100)), "position": .point(Point(x: 100, y: 100))])
        }
        _ = scene.advance(to: 1)
        let a = try scene.renderTree(root: rootID, at: 1)
        _ = scene.advance(to: 1.05)
        let b = try scene.renderTree(root: rootID, at: 1.05)
        let damage = b.damage(since: a)
        let box = damage.reduce(Rect.null) { $0.union($1) }
        #expect(!damage.isEmpty)
        #expect(Rect(x: 340, y: 240, width: 120, height: 120).contains(box))
    }
}
