import Testing
@testable import VitrineCore

/// `shadowPath` as SVG path data, and how far shadows drawn from content spread in the
/// render tree and its damage.
@Suite struct ShadowPathTests {
    @Test func pathDataIsParsedAbsolute() throws {
        let p = try PathData(parsing: "M10 20 l30,0 h-5 V40 c1 2 3 4 5 6 s 7 8 9 10 q1-1 2-2 t3.5.5 z m1 1 2 2")
        #expect(
            p.elements == [
                .move(Point(x: 10, y: 20)), .line(Point(x: 40, y: 20)), .line(Point(x: 35, y: 20)), .line(Point(x: 35, y: 40)),
                .cubic(Point(x: 40, y: 46), control1: Point(x: 36, y: 42), control2: Point(x: 38, y: 44)),
                // S reflects the previous second control point (38, 44) about (40, 46).
                .cubic(Point(x: 49, y: 56), control1: Point(x: 42, y: 48), control2: Point(x: 47, y: 54)),
                .quad(Point(x: 51, y: 54), control: Point(x: 50, y: 55)),
                // T reflects the previous control point (50, 55) about (51, 54).
                .quad(Point(x: 54.5, y: 54.5), control: Point(x: 52, y: 53)),
                .close,
                // After Z the current point is the subpath's start; pairs after m are lines.
                .move(Point(x: 11, y: 21)), .line(Point(x: 13, y: 23)),
            ])
        #expect(try PathData(parsing: "M0 0 L100 0 L50 80 Z").controlBounds == Rect(x: 0, y: 0, width: 100, height: 80))
        #expect(try PathData(parsing: "M1e1-2.5.5.5").elements == [.move(Point(x: 10, y: -2.5)), .line(Point(x: 0.5, y: 0.5))])
        #expect(try PathData(parsing: "  ").elements.isEmpty)
    }

    @Test(arguments: [
        ("L0 0", "must start with M"), ("M0", "lacks numbers"), ("M0 0 L1", "lacks numbers"), ("0 0", "command letter"),
        ("M0 0 A1 1 0 0 1 5 5", "not a supported command"), ("M0 0 Z 5", "command letter"), ("M0,,0", "expected a number"),
        ("M0 2e10", "within ±1e9"),
    ])
    func badPathDataIsRefused(_ text: String, _ problem: String) {
        #expect(PathData.problem(in: text)?.contains(problem) == true, "\(text): \(PathData.problem(in: text) ?? "accepted")")
    }

    @Test func shadowPathIsAPropertyOfEveryLayer() throws {
        let s = makeSceneWithLayer()
        #expect(try s.modelValue("shadowPath", of: "box") == .string(""))
        try commit(s, at: 0) { $0.set("box", "shadowPath", .string("M0 0 L100 0 L50 80 Z")) }
        #expect(try s.modelValue("shadowPath", of: "box") == .string("M0 0 L100 0 L50 80 Z"))
        // Not animatable: set at once, with no implicit animation.
        #expect(try s.animations(of: "box").isEmpty)
        expectError("invalid_value") { try commit(s, at: 0) { $0.set("box", "shadowPath", .string("M0 0 A1 1 0 0 1 5 5")) } }
        #expect(try s.modelValue("shadowPath", of: "box") == .string("M0 0 L100 0 L50 80 Z"))
        #expect(LayerKind.layer.nearMiss(for: "shadowPth") == "shadowPath")

        let copy = makeScene()
        try copy.restore(s.snapshot())
        #expect(try copy.modelValue("shadowPath", of: "box") == .string("M0 0 L100 0 L50 80 Z"))
    }

    @Test func aShadowPathSetsWhereTheShadowReaches() throws {
        let s = makeSceneWithLayer(
            "box",
            properties: [
                "shadowOpacity": .number(1), "shadowRadius": .number(0), "shadowOffset": .size(Size(width: 0, height: 0)),
                "shadowPath": .string("M0 0 L300 0 L300 10 Z"),
            ])
        let node = try #require(try s.renderTree(root: rootID, at: 0).nodes.first { $0.id == "box" })
        // The box is at 0…100; its shadow path reaches 300 (+1 pixel of margin).
        #expect(node.visualBounds.maxX == 301)
        #expect(node.shadowSpread == .zero)
    }

    @Test func sublayersOfAShadowedLayerSpreadByItsShadow() throws {
        let s = makeSceneWithLayer(
            "card",
            properties: [
                "shadowOpacity": .number(0.5), "shadowRadius": .number(4), "shadowOffset": .size(Size(width: 0, height: 10)),
            ])
        try commit(s, at: 0, quiet) {
            $0.add(
                layer: "label", parent: "card",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 20, height: 20)), "position": .point(Point(x: 50, y: 50)),
                ])
        }
        let tree = try s.renderTree(root: rootID, at: 0)
        let label = try #require(tree.nodes.first { $0.id == "label" })
        // σ = 2: the blur reaches 6 pixels and one more; the offset moves it 10 down.
        #expect(label.shadowSpread == ShadowSpread(left: 7, top: 7, right: 7, bottom: 17))
        #expect(label.visualBounds == Rect(x: 39 - 7, y: 39 - 7, width: 22 + 14, height: 22 + 24))

        // A change of the label damages where its shadow falls too.
        try commit(s, at: 0, quiet) { $0.set("label", "backgroundColor", .color(.white)) }
        let damage = try s.renderTree(root: rootID, at: 0).damage(since: tree)
        #expect(damage.contains { $0.contains(Rect(x: 40, y: 50, width: 20, height: 20)) })

        // A change of the card's shadow colour damages its sublayers' shadow.
        let before = try s.renderTree(root: rootID, at: 0)
        try commit(s, at: 0, quiet) { $0.set("card", "shadowColor", .color(.white)) }
        let colour = try s.renderTree(root: rootID, at: 0).damage(since: before)
        #expect(colour.contains { $0.contains(label.visualBounds) })
    }
}
