import Testing
import VitrineCore
import VitrineOutput
import VitrineOutputSet
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// `shouldRasterize`: a layer drawn once into a bitmap looks as the layer drawn directly
/// at the whole pixel it is placed on, and frames of it sliding and changing, repainted
/// only where damaged, equal frames drawn whole.
@Suite struct RasterizeTests {
    static let size = Size(width: 480, height: 320)

    /// A page with a card, and a panel of rounded keys with labels over its lower part.
    func scene(rasterize: Bool, panelY: Double) throws -> Scene {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Self.size)
        var tx = Transaction(disableActions: true)
        tx.add(
            layer: "page", kind: "gradient", parent: "root",
            properties: [
                "bounds": .rect(Rect(origin: .zero, size: Self.size)), "position": .point(Point(x: 240, y: 160)),
                "colors": .array([.color(Color(css: "#0f2027")!), .color(Color(css: "#2c5364")!)]),
            ])
        tx.add(
            layer: "card", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 120)), "position": .point(Point(x: 240, y: 120)),
                "backgroundColor": .color(Color(css: "#f0e0c0")!), "cornerRadius": .number(10), "shadowOpacity": .number(0.6),
            ])
        tx.add(
            layer: "panel", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 480, height: 140)), "position": .point(Point(x: 240, y: panelY)),
                "backgroundColor": .color(Color(css: "#1c1f24")!), "shouldRasterize": .bool(rasterize),
            ])
        for k in 0..<6 {
            tx.add(
                layer: "key\(k)", parent: "panel",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 70, height: 56)), "position": .point(Point(x: 42.5 + Double(k) * 79, y: 40.25)),
                    "backgroundColor": .color(Color(css: "#50555e")!), "cornerRadius": .number(7),
                ])
            tx.add(
                layer: "label\(k)", kind: "text", parent: "key\(k)",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 70, height: 56)), "position": .point(Point(x: 35, y: 28)),
                    "string": .string(["q", "w", "e", "r", "t", "y"][k]), "fontSize": .number(24), "alignmentMode": .string("center"),
                ])
        }
        try scene.commit(tx, at: 0)
        return scene
    }

    /// At a whole pixel, the bitmap shows what drawing the layer directly shows; at a
    /// fractional place, what drawing it at the nearest whole pixel shows.
    @Test(arguments: [(250.0, 250.0), (250.3, 250.0), (250.5, 251.0), (249.75, 250.0)])
    func bitmapShowsTheLayerAtTheNearestWholePixel(at y: Double, nearest: Double) throws {
        let rasterized = try StandardKinds.renderer().snapshot(scene(rasterize: true, panelY: y), root: "root", at: 0)
        let direct = try StandardKinds.renderer().snapshot(scene(rasterize: false, panelY: nearest), root: "root", at: 0)
        try GoldenImage.expectSamePixels(rasterized, as: direct, name: "rasterize-\(y)", "the panel rasterized at y = \(y)")
    }

    /// A slide with a key recoloured half-way: each frame repainted over its damage (one
    /// and two buffers) equals the frame drawn whole by a renderer that rasterizes nothing.
    @Test(arguments: [1, 2])
    func slidingRasterizedLayerRepaintsExactly(bufferCount: Int) throws {
        let scene = try scene(rasterize: true, panelY: 400)
        var tx = Transaction()
        tx.addAnimation(.basic("position.y", from: .number(400), to: .number(250), duration: 1), to: "panel")
        try scene.commit(tx, at: 0)
        let output = try HeadlessOutput(width: 480, height: 320, bufferCount: bufferCount)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        for frame in 0...14 {
            let t = Double(frame) / 12
            if frame == 6 {
                var press = Transaction(disableActions: true)
                press.set("key2", "backgroundColor", .color(Color(css: "#c0c8d0")!))
                try scene.commit(press, at: t)
            }
            _ = scene.advance(to: t)
            try pipeline.render(scene.renderTree(root: "root", at: t))
            let whole = try StandardKinds.renderer().snapshot(scene, root: "root", at: t)
            try GoldenImage.expectSamePixels(
                #require(output.frontBuffer), as: whole, name: "rasterize-slide-\(frame)-buffers\(bufferCount)", "frame \(frame)")
        }
    }

    /// A layer at rest whose sublayers change one by one (a label's text, a key moved, a
    /// key's shadow on and off, a key hidden, a key added): its bitmap, drawn again where
    /// they changed, equals a bitmap drawn whole, frame after frame.
    @Test func changingSublayersRedrawTheirPartExactly() throws {
        let scene = try scene(rasterize: true, panelY: 250)
        let output = try HeadlessOutput(width: 480, height: 320, bufferCount: 2)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        let changes: [(String, KeyPath, Value)] = [
            ("label2", "string", .string("WW")), ("key3", "position", .point(Point(x: 284, y: 46))),
            ("key1", "shadowOpacity", .number(0.8)), ("key1", "shadowRadius", .number(9)), ("label0", "fontSize", .number(30)),
            ("key1", "shadowOpacity", .number(0)), ("key4", "hidden", .bool(true)), ("label2", "string", .string("e")),
        ]
        try pipeline.render(scene.renderTree(root: "root", at: 0))
        for (frame, (layer, key, value)) in changes.enumerated() {
            let t = Double(frame + 1) / 60
            var tx = Transaction(disableActions: true)
            tx.set(layer, key, value)
            if frame == 6 {
                tx.add(
                    layer: "key6", parent: "panel",
                    properties: [
                        "bounds": .rect(Rect(x: 0, y: 0, width: 40, height: 40)), "position": .point(Point(x: 440, y: 110)), "backgroundColor": .color(.white),
                    ])
            }
            try scene.commit(tx, at: t)
            _ = scene.advance(to: t)
            try pipeline.render(scene.renderTree(root: "root", at: t))
            let whole = try StandardKinds.renderer().snapshot(scene, root: "root", at: t)
            try GoldenImage.expectSamePixels(#require(output.frontBuffer), as: whole, name: "rasterize-change-\(frame)", "after \(layer).\(key)")
        }
    }

    /// A rasterized layer larger than the bitmaps' memory bound is drawn directly, as if
    /// it were not rasterized.
    @Test func layerPastTheMemoryBoundIsDrawnDirectly() throws {
        let scene = try scene(rasterize: true, panelY: 250)
        var tx = Transaction(disableActions: true)
        tx.set("panel", "bounds", .rect(Rect(x: 0, y: 0, width: 8000, height: 3000)))
        try scene.commit(tx, at: 0)
        let rasterized = try StandardKinds.renderer().snapshot(scene, root: "root", at: 0)
        tx = Transaction(disableActions: true)
        tx.set("panel", "shouldRasterize", .bool(false))
        try scene.commit(tx, at: 0)
        let direct = try StandardKinds.renderer().snapshot(scene, root: "root", at: 0)
        try GoldenImage.expectSamePixels(rasterized, as: direct, name: "rasterize-too-large", "the panel past the bound")
    }
}
