import VitrineCodecs
import Testing
import VitrineCore
import VitrineRaster
import VitrineRender

/// Hit testing agrees with the pixels: wherever a whole pixel lies in one layer by the hit
/// test, the rendered frame shows that layer's colour there — through rotation, scale, a
/// sublayerTransform, a rounded masksToBounds, zPosition and an animation in flight.
@Suite struct HitTestPixelTests {
    static let colors: [String: String] = [
        "root": "#202020", "card": "#ff0000", "turned": "#00ff00", "clip": "#0000ff", "inner": "#ffff00",
        "scaled": "#ff00ff", "front": "#00ffff", "moving": "#ffffff", "ghost": "#808000",
    ]

    func scene() throws -> Scene {
        let s = Scene()
        try s.addRoot(id: "root", output: "test", size: Size(width: 240, height: 160))
        var tx = Transaction(disableActions: true)
        func add(_ id: String, _ parent: String, _ bounds: Rect, _ position: Point, _ extra: [String: Value] = [:]) {
            var p: [String: Value] = [
                "bounds": .rect(bounds), "position": .point(position), "backgroundColor": .color(Color(css: Self.colors[id]!)!),
            ]
            p.merge(extra) { $1 }
            tx.add(layer: id, parent: parent, properties: p)
        }
        tx.set("root", "backgroundColor", .color(Color(css: Self.colors["root"]!)!))
        add("card", "root", Rect(x: 0, y: 0, width: 90, height: 70), Point(x: 60, y: 50), ["zPosition": .number(1)])
        add("turned", "card", Rect(x: 10, y: 5, width: 40, height: 30), Point(x: 70, y: 60), ["transform": .transform(AffineTransform(rotationAngle: 0.6))])
        add(
            "clip", "root", Rect(x: 0, y: 0, width: 80, height: 80), Point(x: 170, y: 60),
            [
                "masksToBounds": .bool(true), "cornerRadius": .number(22),
                "sublayerTransform": .transform(AffineTransform(scaleX: 1.2, y: 0.9)),
            ])
        add("inner", "clip", Rect(x: 0, y: 0, width: 70, height: 50), Point(x: 60, y: 30), ["transform": .transform(AffineTransform(rotationAngle: -0.4))])
        add(
            "scaled", "root", Rect(x: 0, y: 0, width: 20, height: 20), Point(x: 90, y: 120),
            [
                "anchorPoint": .point(Point(x: 0, y: 1)), "transform": .transform(AffineTransform(scaleX: 3, y: 1.5)),
            ])
        add("front", "root", Rect(x: 0, y: 0, width: 50, height: 30), Point(x: 100, y: 80))
        add("moving", "root", Rect(x: 0, y: 0, width: 24, height: 24), Point(x: 200, y: 140))
        // Drawn faintly, it takes no touches: the hit test sees the layer under it.
        add("ghost", "root", Rect(x: 0, y: 0, width: 40, height: 40), Point(x: 30, y: 130), ["opacity": .number(0.005)])
        tx.addAnimation(.basic("position", from: .point(Point(x: 20, y: 140)), to: .point(Point(x: 200, y: 140)), duration: 2), to: "moving")
        try s.commit(tx, at: 0)
        return s
    }

    @Test(arguments: [0.0, 0.5, 1.3])
    func wholePixelsShowTheLayerHit(at time: Double) throws {
        let s = try scene()
        let surface = try Renderer(images: ImageStore(loader: ImageDecoder.readImage)).snapshot(s, root: "root", at: time)
        var seen: Set<String> = []
        for y in 0..<160 {
            for x in 0..<240 {
                let centre = Point(x: Double(x) + 0.5, y: Double(y) + 0.5)
                let layer = s.hitTest(centre, root: "root", at: time)?.layer
                // The pixel's corners, a little beyond: all in one layer, the pixel is covered.
                let corners = [(-0.55, -0.55), (0.55, -0.55), (-0.55, 0.55), (0.55, 0.55)].map { d in
                    s.hitTest(Point(x: centre.x + d.0, y: centre.y + d.1), root: "root", at: time)?.layer
                }
                guard let layer, layer != "ghost", corners.allSatisfy({ $0 == layer }) else { continue }
                seen.insert(layer)
                let expected = PremultipliedColor(Color(css: Self.colors[layer]!)!)
                let got = surface.pixel(x: x, y: y)
                // Within 2 of 255 per channel: the faint ghost is drawn over some of them.
                let close = stride(from: 0, to: 32, by: 8).allSatisfy { shift in
                    abs(Int((got.argb >> UInt32(shift)) & 0xFF) - Int((expected.argb >> UInt32(shift)) & 0xFF)) <= 2
                }
                #expect(close, "t \(time) (\(x), \(y)) hits \(layer): drawn \(got), expected \(expected)")
            }
        }
        #expect(seen == Set(Self.colors.keys).subtracting(["ghost"]), "layers hit: \(seen.sorted())")
    }
}
