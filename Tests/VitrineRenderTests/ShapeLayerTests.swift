import Testing
import VitrineCore
import VitrineProtocol
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// Shape layers in a scene: a progress ring whose strokeEnd animates, drawn at exact
/// manual-clock times; path animation; damage that covers a stroke past the bounds.
@Suite struct ShapeLayerTests {
    static let ring = "M100 40 C133.137 40 160 66.863 160 100 C160 133.137 133.137 160 100 160 C66.863 160 40 133.137 40 100 C40 66.863 66.863 40 100 40 Z"

    /// A 200 × 200 screen with a ring layer whose strokeEnd runs 0 → 1 from t = 0 to 2 s.
    func ringScene() throws -> Scene {
        try Golden.scene(
            size: Size(width: 200, height: 200),
            """
            {"background": "#101820", "layers": [
              {"id": "ring", "kind": "shape", "properties": {"bounds": [0, 0, 200, 200], "position": [100, 100],
                "path": "\(Self.ring)", "fillColor": "#00000000", "strokeColor": "#2ec4b6", "lineWidth": 14, "lineCap": "round"},
               "animations": [{"keyPath": "strokeEnd", "from": 0, "to": 1, "duration": 2, "timing": "linear"}]}]}
            """)
    }

    @Test func strokeEndAtManualClockTimes() throws {
        let scene = try ringScene()
        let renderer = StandardKinds.renderer()
        for (time, name) in [(0.5, "shape-ring-quarter"), (1.5, "shape-ring-three-quarters")] {
            _ = scene.advance(to: time)
            #expect(try scene.presentationValue(KeyPath(parsing: "strokeEnd"), of: "ring", at: time) == .number(time / 2))
            let image = try renderer.snapshot(scene, root: "root", at: time)
            try Golden.check(image, named: name)
            // The same as the rasterizer's stroke cut at that fraction of the length.
            let expected = Surface(width: 200, height: 200)
            expected.clear(PremultipliedColor(Color(css: "#101820")!))
            expected.stroke(
                Path(try PathData(parsing: Self.ring)), style: StrokeStyle(width: 14, cap: .round, end: time / 2),
                color: PremultipliedColor(Color(css: "#2ec4b6")!))
            try GoldenImage.expectSamePixels(image, as: expected, name: "shape-ring-\(time)", "strokeEnd \(time / 2)")
        }
    }

    /// Between two paths of the same commands every point moves linearly (CA's path
    /// animation); between different ones the path switches halfway.
    @Test func pathAnimation() throws {
        let scene = try ringScene()
        var tx = Transaction()
        tx.add(layer: "tri", kind: "shape", parent: "root", properties: ["path": .string("M0 0 L100 0 Q100 50 50 100 Z")])
        tx.addAnimation(.basic(try KeyPath(parsing: "path"), to: .string("M20 10 L60 0 Q80 90 50 50 Z"), duration: 1), forKey: "morph", to: "tri")
        tx.addAnimation(.basic(try KeyPath(parsing: "path"), to: .string("M0 0 L10 10"), duration: 1), forKey: "other", to: "ring")
        try scene.commit(tx, at: 0)
        let path = try KeyPath(parsing: "path")
        let quarter = try scene.presentationValue(path, of: "tri", at: 0.25).string ?? ""
        #expect(
            try PathData(parsing: quarter).elements == [
                .move(Point(x: 5, y: 2.5)), .line(Point(x: 90, y: 0)), .quad(Point(x: 50, y: 87.5), control: Point(x: 95, y: 60)), .close,
            ])
        #expect(try scene.presentationValue(path, of: "ring", at: 0.49) == .string(Self.ring))
        #expect(try scene.presentationValue(path, of: "ring", at: 0.5) == .string("M0 0 L10 10"))
    }

    @Test func badValuesAreRefused() throws {
        let scene = try ringScene()
        for (key, value) in [
            ("path", Value.string("M0 0 A 5 5 0 0 1 10 10")), ("lineDashPattern", .array([.number(4), .number(-1)])), ("strokeEnd", .number(1.5)),
            ("lineCap", .string("pointy")), ("fillRule", .string("nonzero")),
        ] {
            var tx = Transaction()
            tx.set("ring", try KeyPath(parsing: key), value)
            #expect(throws: CoreError.self, "\(key)") { try scene.commit(tx, at: 0) }
        }
    }

    /// A stroke reaching past the layer's bounds is inside its visual bounds, and frames
    /// repainted over their damage alone equal full repaints as the path and stroke change.
    @Test func damageCoversTheStroke() throws {
        let scene = try Golden.scene(
            size: Size(width: 200, height: 200),
            """
            {"layers": [{"id": "zig", "kind": "shape", "properties": {"bounds": [0, 0, 40, 40], "position": [100, 100],
              "path": "M0 40 L20 0 L40 40", "fillColor": "#00000000", "strokeColor": "white", "lineWidth": 10}}]}
            """)
        let renderer = StandardKinds.renderer()
        let surface = Surface(width: 200, height: 200)
        var previous = try scene.renderTree(root: "root", at: 0)
        renderer.render(previous, into: surface, region: [surface.bounds])
        // The miter of a 53° corner reaches 5 / sin(26.6°) ≈ 11.2 px above the tip at y = 80.
        let node = try #require(previous.nodes.first { $0.id == "zig" })
        #expect(node.visualBounds.minY <= 68)
        let changes: [(String, Value)] = [
            ("lineWidth", .number(24)), ("path", .string("M-30 50 L20 -40 L70 50")), ("lineJoin", .string("round")),
            ("strokeEnd", .number(0.4)), ("lineDashPattern", .array([.number(6), .number(4)])), ("path", .string("M0 40 L40 40")),
        ]
        for (k, (key, value)) in changes.enumerated() {
            var change = Transaction(disableActions: true)
            change.set("zig", try KeyPath(parsing: key), value)
            let time = Double(k + 1)
            try scene.commit(change, at: time)
            let tree = try scene.renderTree(root: "root", at: time)
            let region = tree.damage(since: previous, refine: renderer.contentDamage)
                .map { PixelRect(covering: $0).intersection(surface.bounds) }.filter { !$0.isEmpty }
            renderer.render(tree, into: surface, region: region)
            previous = tree
            try GoldenImage.expectSamePixels(
                surface, as: StandardKinds.renderer().snapshot(scene, root: "root", at: time), name: "shape-damage-\(k)", "after \(key)")
        }
    }
}
