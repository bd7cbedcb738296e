import Foundation
import Testing
import VitrineCore
import VitrineTestSupport

/// `Scene.hitTest(_:root:at:)` and the conversions between an output's pixels and a
/// layer's coordinates: CALayer.hitTest's rules on presentation geometry, agreeing with
/// where the render tree draws each layer.
@Suite struct HitTestTests {
    /// Adds `id` under `parent` with `bounds`, `position` and `extra`.
    func add(
        _ scene: Scene, _ id: String, parent: String = rootID, bounds: Rect, position: Point, _ extra: [String: Value] = [:]
    ) throws {
        var properties: [String: Value] = ["bounds": .rect(bounds), "position": .point(position)]
        properties.merge(extra) { $1 }
        try commit(scene, at: 0, quiet) { $0.add(layer: id, parent: parent, properties: properties) }
    }

    func set(_ scene: Scene, _ id: String, _ key: KeyPath, _ value: Value) throws {
        try commit(scene, at: 0, quiet) { $0.set(id, key, value) }
    }

    /// The hit at `point` at time `time` (0 by default).
    func hit(_ scene: Scene, _ x: Double, _ y: Double, at time: Double = 0) -> HitTestResult? {
        scene.hitTest(Point(x: x, y: y), root: rootID, at: time)
    }

    func expectHit(
        _ result: HitTestResult?, _ layer: String, _ point: Point, tolerance: Double = 1e-9,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result?.layer == layer, sourceLocation: sourceLocation)
        if let p = result?.point { expectClose(p, point, tolerance: tolerance, sourceLocation: sourceLocation) }
    }

    /// Parent "p" turned a quarter clockwise about its centre, with a sublayerTransform
    /// halving about its anchor; child "c" anchored at its bounds' corner (10, 10) and
    /// doubled. Worked by hand: c's (30, 20) is p's (60, 50) before the sublayerTransform
    /// and (80, 50) after it; p's (x, y) is the screen's (400 − (y − 50), 300 + (x − 100)).
    func nested() throws -> Scene {
        let s = makeScene()
        try add(
            s, "p", bounds: Rect(x: 0, y: 0, width: 200, height: 100), position: Point(x: 400, y: 300),
            [
                "transform": .transform(AffineTransform(rotationAngle: .pi / 2)),
                "sublayerTransform": .transform(AffineTransform(scaleX: 0.5, y: 0.5)),
            ])
        try add(
            s, "c", parent: "p", bounds: Rect(x: 10, y: 10, width: 40, height: 20), position: Point(x: 20, y: 30),
            [
                "anchorPoint": .point(.zero), "transform": .transform(AffineTransform(scaleX: 2, y: 2)),
            ])
        return s
    }

    @Test func nestedTransformsGiveThePointInTheLayersCoordinates() throws {
        let s = try nested()
        expectHit(hit(s, 400, 280), "c", Point(x: 30, y: 20))
        // Beside c but in p (p's (150, 50)): p, in its own coordinates.
        expectHit(hit(s, 400, 350), "p", Point(x: 150, y: 50))
        // Outside both: the root, in its coordinates (the screen's).
        expectHit(hit(s, 10, 20), rootID, Point(x: 10, y: 20))
        expectClose(try #require(s.convert(Point(x: 400, y: 280), fromRoot: rootID, to: "c", at: 0)), Point(x: 30, y: 20))
        expectClose(try #require(s.convert(Point(x: 30, y: 20), from: "c", toRoot: rootID, at: 0)), Point(x: 400, y: 280))
    }

    @Test func theHitPointIsWhereTheRenderTreeDrawsTheLayer() throws {
        let s = try nested()
        let tree = try s.renderTree(root: rootID, at: 0)
        let node = try #require(tree.nodes.first { $0.id == "c" })
        let screenTransform = try #require(s.screenTransform(of: "c", root: rootID, at: 0))
        expectClose(node.transform, screenTransform)
        for screen in [Point(x: 400, y: 280), Point(x: 391.5, y: 262.25), Point(x: 409.75, y: 299)] {
            let result = try #require(hit(s, screen.x, screen.y))
            #expect(result.layer == "c")
            expectClose(node.transform.apply(to: result.point), screen)
            expectClose(try #require(node.transform.inverted).apply(to: screen), result.point)
        }
    }

    @Test func aMovingLayerIsHitWhereItIsDrawnAtTheEventsTime() throws {
        let s = makeScene()
        try add(s, "box", bounds: Rect(x: 0, y: 0, width: 50, height: 50), position: Point(x: 500, y: 100))
        try commit(s, at: 0) {
            $0.addAnimation(.basic("position", from: .point(Point(x: 100, y: 100)), to: .point(Point(x: 500, y: 100)), duration: 2), to: "box")
        }
        // Halfway at t = 1 it is drawn at (300, 100), not where its model is.
        expectHit(hit(s, 300, 100, at: 1), "box", Point(x: 25, y: 25))
        expectHit(hit(s, 310, 90, at: 1), "box", Point(x: 35, y: 15))
        expectHit(hit(s, 500, 100, at: 1), rootID, Point(x: 500, y: 100))
        expectHit(hit(s, 100, 100, at: 0), "box", Point(x: 25, y: 25))
        // After the animation, at its model position.
        expectHit(hit(s, 500, 100, at: 3), "box", Point(x: 25, y: 25))
        expectClose(try #require(s.convert(Point(x: 300, y: 100), fromRoot: rootID, to: "box", at: 1)), Point(x: 25, y: 25))
    }

    @Test func aLayersTimeRunsThroughItsAncestorsTiming() throws {
        let s = makeScene()
        try add(s, "fast", bounds: Rect(x: 0, y: 0, width: 800, height: 600), position: Point(x: 400, y: 300), ["speed": .number(2)])
        try add(s, "box", parent: "fast", bounds: Rect(x: 0, y: 0, width: 50, height: 50), position: Point(x: 500, y: 100))
        try commit(s, at: 0) {
            $0.addAnimation(.basic("position", from: .point(Point(x: 100, y: 100)), to: .point(Point(x: 500, y: 100)), duration: 2), to: "box")
        }
        // At media time 0.5 the doubled layer time is 1: halfway.
        expectHit(hit(s, 300, 100, at: 0.5), "box", Point(x: 25, y: 25))
    }

    @Test func hiddenTransparentAndNonInteractiveLayersArePassedOverWithTheirSublayers() throws {
        let s = makeScene()
        try add(s, "under", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 100, y: 100))
        try add(s, "over", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 120, y: 120))
        try add(s, "child", parent: "over", bounds: Rect(x: 0, y: 0, width: 20, height: 20), position: Point(x: 0, y: 0))
        expectHit(hit(s, 110, 110), "over", Point(x: 40, y: 40))
        expectHit(hit(s, 72, 72), "child", Point(x: 12, y: 12))
        let cases: [(KeyPath, Value, Value)] = [
            ("hidden", .bool(true), .bool(false)), ("opacity", .number(0.009), .number(1)),
            ("opacity", .number(0), .number(1)), ("userInteractionEnabled", .bool(false), .bool(true)),
        ]
        for (key, off, on) in cases {
            try set(s, "over", key, off)
            expectHit(hit(s, 110, 110), "under", Point(x: 60, y: 60))
            expectHit(hit(s, 72, 72), "under", Point(x: 22, y: 22))
            try set(s, "over", key, on)
        }
        // Faint but above UIKit's threshold: still hit.
        try set(s, "over", "opacity", .number(0.01))
        expectHit(hit(s, 110, 110), "over", Point(x: 40, y: 40))
        // A non-interactive layer passes the touch to what lies under it, its parent too.
        try set(s, "child", "userInteractionEnabled", .bool(false))
        expectHit(hit(s, 72, 72), "over", Point(x: 2, y: 2))
        // The root too: nothing is hit.
        try set(s, rootID, "userInteractionEnabled", .bool(false))
        #expect(hit(s, 110, 110) == nil)
    }

    @Test func opacityAndHiddenAreReadAtTheEventsTime() throws {
        let s = makeScene()
        try add(s, "box", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 100, y: 100))
        try commit(s, at: 0) { $0.addAnimation(.basic("opacity", from: .number(1), to: .number(0), duration: 1), to: "box") }
        #expect(hit(s, 100, 100, at: 0.5)?.layer == "box")
        #expect(hit(s, 100, 100, at: 0.995)?.layer == rootID)
    }

    @Test func masksToBoundsHoldsSublayersToTheRoundedBounds() throws {
        let s = makeScene()
        try add(s, "p", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 150, y: 150))
        // A child covering p and reaching 50 past its right edge.
        try add(s, "c", parent: "p", bounds: Rect(x: 0, y: 0, width: 150, height: 100), position: Point(x: 75, y: 50))
        // Without masksToBounds a sublayer outside its parent's bounds is hit (CA's rule).
        expectHit(hit(s, 220, 150), "c", Point(x: 120, y: 50))
        try set(s, "p", "masksToBounds", .bool(true))
        expectHit(hit(s, 220, 150), rootID, Point(x: 220, y: 150))
        expectHit(hit(s, 102, 102), "c", Point(x: 2, y: 2))
        // Rounded: the corner outside the curve is clipped away, the layer's own too.
        try set(s, "p", "cornerRadius", .number(20))
        expectHit(hit(s, 102, 102), rootID, Point(x: 102, y: 102))
        expectHit(hit(s, 102, 150), "c", Point(x: 2, y: 50))
        // Just inside the curve at 45°: 20 − 20/√2 ≈ 5.86 in from both edges.
        expectHit(hit(s, 106.5, 106.5), "c", Point(x: 6.5, y: 6.5))
        expectHit(hit(s, 197, 197), rootID, Point(x: 197, y: 197))
        // Only the top-right corner (maxXMinY) rounded: the top-left is square.
        try set(s, "p", "maskedCorners", .number(2))
        expectHit(hit(s, 102, 102), "c", Point(x: 2, y: 2))
        expectHit(hit(s, 198, 102), rootID, Point(x: 198, y: 102))
        // Without masksToBounds the corner radius does not clip (CALayer.containsPoint).
        try set(s, "p", "masksToBounds", .bool(false))
        expectHit(hit(s, 198, 102), "c", Point(x: 98, y: 2))
    }

    @Test func theFrontMostLayerIsHitByZPositionThenOrder() throws {
        let s = makeScene()
        try add(s, "a", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 100, y: 100))
        try add(s, "a1", parent: "a", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 50, y: 50))
        try add(s, "b", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 120, y: 120))
        // b is drawn after a's whole subtree.
        expectHit(hit(s, 100, 100), "b", Point(x: 30, y: 30))
        expectHit(hit(s, 60, 60), "a1", Point(x: 10, y: 10))
        try set(s, "a", "zPosition", .number(1))
        expectHit(hit(s, 100, 100), "a1", Point(x: 50, y: 50))
        try set(s, "b", "zPosition", .number(2))
        expectHit(hit(s, 100, 100), "b", Point(x: 30, y: 30))
        // zPosition orders siblings only: a1 far forward still stays inside a's place.
        try set(s, "a1", "zPosition", .number(100))
        expectHit(hit(s, 100, 100), "b", Point(x: 30, y: 30))
        try commit(s, at: 0, quiet) {
            $0.set("a", "zPosition", .number(0)); $0.set("b", "zPosition", .number(-1))
        }
        expectHit(hit(s, 100, 100), "a1", Point(x: 50, y: 50))
    }

    @Test func boundsOriginScrollsTheContent() throws {
        let s = makeScene()
        try add(s, "scroller", bounds: Rect(x: 40, y: 20, width: 100, height: 80), position: Point(x: 80, y: 60), ["masksToBounds": .bool(true)])
        try add(s, "item", parent: "scroller", bounds: Rect(x: 0, y: 0, width: 30, height: 30), position: Point(x: 60, y: 40))
        // scroller's bounds (40, 20, 100, 80) lie at (30, 20)…(130, 100) on screen.
        expectHit(hit(s, 50, 40), "item", Point(x: 15, y: 15))
        expectHit(hit(s, 100, 90), "scroller", Point(x: 110, y: 90))
    }

    @Test func singularTransformsAreSkipped() throws {
        let s = makeScene()
        try add(
            s, "flat", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 100, y: 100),
            [
                "transform": .transform(AffineTransform(scaleX: 0, y: 1))
            ])
        expectHit(hit(s, 100, 100), rootID, Point(x: 100, y: 100))
        try add(
            s, "p", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 300, y: 300),
            [
                "sublayerTransform": .transform(AffineTransform(scaleX: 1, y: 0))
            ])
        try add(s, "c", parent: "p", bounds: Rect(x: 0, y: 0, width: 100, height: 100), position: Point(x: 50, y: 50))
        expectHit(hit(s, 300, 300), "p", Point(x: 50, y: 50))
        #expect(s.convert(Point(x: 300, y: 300), fromRoot: rootID, to: "c", at: 0) == nil)
        #expect(s.convert(Point(x: 1, y: 1), from: "c", toRoot: rootID, at: 0) != nil)
    }

    @Test func badArgumentsHitNothing() throws {
        let s = makeSceneWithLayer()
        #expect(hit(s, .nan, 10) == nil)
        #expect(hit(s, 10, .infinity) == nil)
        #expect(hit(s, 10, 10, at: .nan) == nil)
        #expect(hit(s, -1, 10) == nil)
        #expect(hit(s, 800, 10) == nil)
        expectHit(hit(s, 799.5, 599.5), rootID, Point(x: 799.5, y: 599.5))
        #expect(s.hitTest(Point(x: 10, y: 10), root: "nope", at: 0) == nil)
        // A layer that is no output's root.
        #expect(s.hitTest(Point(x: 10, y: 10), root: "box", at: 0) == nil)
        #expect(s.convert(Point(x: 10, y: 10), fromRoot: rootID, to: "nope", at: 0) == nil)
        #expect(s.convert(Point(x: 10, y: 10), fromRoot: "box", to: "box", at: 0) == nil)
        #expect(s.convert(Point(x: .nan, y: 10), fromRoot: rootID, to: "box", at: 0) == nil)
    }

    /// Random trees (transforms, 3D turns and m34 sublayerTransforms, one-sided layers,
    /// masks with rounded corners, zPositions, faint, hidden and non-interactive layers,
    /// animations): every hit agrees with a
    /// search of the render tree built at the same time — the last drawn node whose
    /// bounds hold the point through its screen transform, inside every masking
    /// ancestor's shape, with no ancestor passed over.
    @Test(arguments: 0..<12)
    func agreesWithTheRenderTree(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let s = makeScene(width: 640, height: 480)
        var ids = [rootID]
        var tx = quiet
        for i in 0..<60 {
            let id = "l\(i)"
            let parent = Int.random(in: 0..<3, using: &random) == 0 ? rootID : ids.randomElement(using: &random)!
            tx.add(layer: id, parent: parent, properties: randomHitProperties(under: parent == rootID, using: &random))
            if Int.random(in: 0..<4, using: &random) == 0 {
                tx.addAnimation(.basic("position", by: .point(Point(x: 60, y: -40)), duration: 2), to: id)
            }
            if Int.random(in: 0..<8, using: &random) == 0 {
                tx.addAnimation(.basic("transform.rotation.z", from: .number(0), to: .number(2), duration: 3), to: id)
            }
            if Int.random(in: 0..<10, using: &random) == 0 {
                tx.addAnimation(.basic("transform.rotation.y", from: .number(0), to: .number(3), duration: 3), to: id)
            }
            ids.append(id)
        }
        try s.commit(tx, at: 0)
        var layersHit: Set<String> = []
        for time in [0.0, 0.7, 2.5] {
            let tree = try s.renderTree(root: rootID, at: time)
            for _ in 0..<600 {
                let p = Point(x: .random(in: 0..<640, using: &random), y: .random(in: 0..<480, using: &random))
                let expected = Self.reference(tree, p)
                let got = s.hitTest(p, root: rootID, at: time)
                #expect(got?.layer == expected?.layer, "seed \(seed) t \(time) at \(p)")
                if let got { layersHit.insert(got.layer) }
                if let got, let expected, got.layer == expected.layer {
                    expectClose(got.point, expected.point, tolerance: 1e-7)
                }
            }
        }
        #expect(layersHit.count >= 20, "seed \(seed): only \(layersHit.sorted()) hit")
    }

    /// Properties of a layer placed on the screen (`onRoot`) or about its parent's bounds.
    private func randomHitProperties(under onRoot: Bool, using random: inout SeededGenerator) -> [String: Value] {
        func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
        let reach = onRoot ? Point(x: 660, y: 500) : Point(x: 140, y: 100)
        var p: [String: Value] = [
            "bounds": .rect(
                Rect(
                    x: chance(0.2) ? 15 : 0, y: 0, width: .random(in: 10...140, using: &random), height: .random(in: 10...100, using: &random))),
            "position": .point(Point(x: .random(in: -20...reach.x, using: &random), y: .random(in: -20...reach.y, using: &random))),
        ]
        if chance(0.25) { p["transform"] = .transform(AffineTransform(rotationAngle: .random(in: -1...1, using: &random))) }
        if chance(0.1) { p["transform"] = .transform(AffineTransform(scaleX: 0.6, y: 1.7)) }
        if chance(0.1) { p["sublayerTransform"] = .transform(AffineTransform(scaleX: 1.4, y: 0.8)) }
        if chance(0.12) {
            let axis = chance(0.5) ? (0.0, 1.0) : (1.0, 0.0)
            p["transform"] = .transform3D(Transform3D(rotationAngle: .random(in: -2.6...2.6, using: &random), x: axis.0, y: axis.1, z: 0))
        }
        if chance(0.12) { p["sublayerTransform"] = .transform3D(Transform3D(perspective: .random(in: 500...900, using: &random))) }
        if chance(0.15) { p["doubleSided"] = .bool(false) }
        if chance(0.25) { p["masksToBounds"] = .bool(true) }
        if chance(0.5) { p["cornerRadius"] = .number(.random(in: 0...60, using: &random)) }
        if chance(0.4) { p["maskedCorners"] = .number(Double(Int.random(in: 0...15, using: &random))) }
        if chance(0.15) { p["zPosition"] = .number(Double(Int.random(in: -1...1, using: &random))) }
        if chance(0.1) { p["opacity"] = .number([0, 0.005, 0.01, 0.5].randomElement(using: &random)!) }
        if chance(0.05) { p["hidden"] = .bool(true) }
        if chance(0.08) { p["userInteractionEnabled"] = .bool(false) }
        if chance(0.1) { p["speed"] = .number(2) }
        return p
    }

    /// The hit by another route: the render tree's nodes from the last drawn back, each
    /// tried through the inverse of its screen transform.
    static func reference(_ tree: RenderTree, _ p: Point) -> HitTestResult? {
        let nodes = tree.nodes
        func local(_ i: Int) -> Point? {
            guard let plane = nodes[i].plane else { return nodes[i].transform.inverted?.apply(to: p) }
            // Seen in perspective: back through the whole map to the screen, in front of the eye.
            let m = ProjectiveTransform(nodes[i].transform).concatenating(plane.toScreen)
            guard let (x, y, w) = m.inverted?.homogeneous(p.x, p.y), w != 0 else { return nil }
            let q = Point(x: x / w, y: y / w)
            return m.homogeneous(q.x, q.y).2 > 0 ? q : nil
        }
        func takesTouches(_ i: Int) -> Bool {
            let v = nodes[i].values
            return v.number(.opacity) >= 0.01 && v.bool(.userInteractionEnabled) && local(i) != nil
        }
        func insideClip(_ i: Int) -> Bool {
            let v = nodes[i].values, bounds = v.rect(.bounds)
            guard v.bool(.masksToBounds) else { return true }
            guard let q = local(i), bounds.contains(q) else { return false }
            let r = min(v.number(.cornerRadius), bounds.width / 2, bounds.height / 2), mask = Int(v.number(.maskedCorners))
            // The four corners' circles: outside one whose corner is rounded is clipped.
            for (bit, cx, cy, sx, sy) in [
                (1, bounds.minX + r, bounds.minY + r, -1.0, -1.0), (2, bounds.maxX - r, bounds.minY + r, 1, -1),
                (4, bounds.minX + r, bounds.maxY - r, -1, 1), (8, bounds.maxX - r, bounds.maxY - r, 1, 1),
            ] where r > 0 && mask & bit != 0 && (q.x - cx) * sx > 0 && (q.y - cy) * sy > 0 {
                if (q.x - cx) * (q.x - cx) + (q.y - cy) * (q.y - cy) > r * r { return false }
            }
            return true
        }
        for i in nodes.indices.reversed() {
            var chain: [Int] = [], node: Int? = i
            while let n = node { chain.append(n); node = nodes[n].parent }
            guard chain.allSatisfy({ takesTouches($0) && insideClip($0) }), let q = local(i), nodes[i].values.rect(.bounds).contains(q) else { continue }
            return HitTestResult(layer: nodes[i].id, point: q)
        }
        return nil
    }

    /// Ten thousand layers, none under the point: the search visits every one (the worst
    /// case) and finds the root; a point on a small layer finds it. What it costs is
    /// `vitrine-bench core`'s `core.large.hit_test`.
    @Test func tenThousandLayers() throws {
        var configuration = Scene.Configuration()
        configuration.maximumLayers = 10_001
        let s = Scene(configuration: configuration)
        try s.addRoot(id: rootID, output: "TEST-1", size: Size(width: 1920, height: 1080))
        var tx = quiet
        for g in 0..<100 {
            tx.add(
                layer: "g\(g)", parent: rootID,
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 100)),
                    "position": .point(Point(x: Double(g % 10) * 150 + 60, y: Double(g / 10) * 100 + 60)),
                ])
            for i in 0..<99 {
                tx.add(
                    layer: "g\(g)-\(i)", parent: "g\(g)",
                    properties: [
                        "bounds": .rect(Rect(x: 0, y: 0, width: 8, height: 8)),
                        "position": .point(Point(x: Double(i % 10) * 10 + 5, y: Double(i / 10) * 10 + 5)),
                    ])
            }
        }
        try s.commit(tx, at: 0)
        #expect(s.layerCount == 10_001)
        let background = Point(x: 1900, y: 1000)
        #expect(s.hitTest(background, root: rootID, at: 0)?.layer == rootID)
        expectHit(s.hitTest(Point(x: 16, y: 16), root: rootID, at: 0), "g0-0", Point(x: 5, y: 5))
    }
}
