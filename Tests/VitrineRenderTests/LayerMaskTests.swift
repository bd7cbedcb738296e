import VitrineCodecs
import Testing
import VitrineCore
import VitrineRaster
import VitrineProtocol
import VitrineRender
import VitrineTestSupport

/// Masks in pixels: a wipe at exact times of a manual clock, a mask's gradient alpha, a
/// hidden mask, and damage that repaints what a moving mask changes.
@Suite struct LayerMaskTests {
    static let red = PremultipliedColor(unchecked: 0xFFFF_0000), green = PremultipliedColor(unchecked: 0xFF00_FF00)

    /// `before` (red) under `after` (green), both 200×100 with their origin at (20, 10);
    /// `after` is masked by `wipe`, 200×100 of `maskColor` whose position.x goes from
    /// −200 to 0 in 2 s (linear): its right edge is at x = 100·t in `after`.
    func wipeScene(maskColor: Color = .white, extra: [String: Value] = [:]) throws -> Scene {
        let scene = Scene()
        try scene.addRoot(id: "root", output: "test", size: Size(width: 240, height: 120))
        var tx = Transaction(disableActions: true)
        let frame: [String: Value] = ["bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 100)), "position": .point(Point(x: 120, y: 60))]
        tx.add(layer: "before", parent: "root", properties: frame.merging(["backgroundColor": .color(Color(red: 1, green: 0, blue: 0))]) { $1 })
        var wipe: [String: Value] = [
            "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 100)), "anchorPoint": .point(Point(x: 0, y: 0)),
            "position": .point(Point(x: -200, y: 0)), "backgroundColor": .color(maskColor),
        ]
        wipe.merge(extra) { $1 }
        tx.add(layer: "wipe", parent: nil, properties: wipe)
        tx.add(
            layer: "after", parent: "root",
            properties: frame.merging(["backgroundColor": .color(Color(red: 0, green: 1, blue: 0)), "mask": .string("wipe")]) { $1 })
        tx.addAnimation(.basic("position.x", from: .number(-200), to: .number(0), duration: 2, timingFunction: .linear), forKey: "wipe", to: "wipe")
        try scene.commit(tx, at: 0)
        return scene
    }

    @Test(arguments: [0.0, 0.25, 0.5, 1.0, 1.37, 1.75])
    func aWipeRevealsUpToItsEdgeAtExactTimes(_ time: Double) throws {
        let scene = try wipeScene()
        _ = scene.advance(to: time)
        let image = try Renderer(images: ImageStore(loader: ImageDecoder.readImage)).snapshot(scene, root: "root", at: time)
        let edge = 20 + 100 * time
        for x in 20..<220 {
            let shown = image.pixel(x: x, y: 60)
            let covered = min(1, max(0, edge - Double(x)))
            if covered == 1 {
                #expect(shown == Self.green, "x \(x) at \(time)")
            } else if covered == 0 {
                #expect(shown == Self.red, "x \(x) at \(time)")
            } else {
                // The edge pixel: green as far as the mask covers it.
                #expect(abs(Double(shown.green) - 255 * covered) <= 2, "x \(x) at \(time): \(shown)")
            }
        }
        // Outside the masked layer the mask shows nothing.
        #expect(image.pixel(x: 5, y: 60) == .black)
    }

    @Test func aGradientMaskScalesAlphaByItsAlpha() throws {
        let scene = try wipeScene()
        var tx = Transaction(disableActions: true)
        tx.operations.append(.removeAnimation(layer: "wipe", key: "wipe"))
        tx.set("wipe", "position", .point(.zero))
        tx.set("wipe", "backgroundColor", .color(.clear))
        tx.add(
            layer: "ramp", kind: "gradient", parent: "wipe",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 100)), "position": .point(Point(x: 100, y: 50)),
                "colors": .array([.color(Color(red: 0, green: 0, blue: 1, alpha: 1)), .color(Color(red: 1, green: 1, blue: 0, alpha: 0))]),
                "startPoint": .point(Point(x: 0, y: 0.5)), "endPoint": .point(Point(x: 1, y: 0.5)),
            ])
        try scene.commit(tx, at: 0)
        let image = try Renderer(images: ImageStore(loader: ImageDecoder.readImage)).snapshot(scene, root: "root", at: 0)
        for x in stride(from: 20, to: 220, by: 7) {
            // The ramp's alpha at the pixel centre: 1 → 0 from left to right.
            let alpha = 1 - (Double(x - 20) + 0.5) / 200
            let shown = image.pixel(x: x, y: 40)
            #expect(abs(Double(shown.green) - 255 * alpha) <= 2, "x \(x): \(shown)")
            #expect(abs(Double(shown.red) - 255 * (1 - alpha)) <= 2, "x \(x): \(shown)")
        }
    }

    @Test func aHiddenOrTransparentMaskShowsNothingOfItsLayer() throws {
        for (key, value) in [("hidden", Value.bool(true)), ("opacity", .number(0))] {
            let scene = try wipeScene()
            var tx = Transaction(disableActions: true)
            tx.set("wipe", VitrineCore.KeyPath(stringLiteral: key), value)
            try scene.commit(tx, at: 0)
            let image = try Renderer(images: ImageStore(loader: ImageDecoder.readImage)).snapshot(scene, root: "root", at: 1.5)
            #expect(image.pixel(x: 30, y: 60) == Self.red, "\(key)")
        }
    }

    @Test func repaintingTheDamageOfAMovingMaskGivesTheWholeFrame() throws {
        let scene = try wipeScene(maskColor: Color(red: 1, green: 1, blue: 1, alpha: 0.6), extra: ["cornerRadius": .number(30)])
        let renderer = Renderer()
        let surface = Surface(width: 240, height: 120)
        var previous: RenderTree?
        for time in stride(from: 0.0, through: 2.0, by: 0.13) {
            _ = scene.advance(to: time)
            let tree = try scene.renderTree(root: "root", at: time)
            let damage = tree.damage(since: previous).map { PixelRect(covering: $0) }
            renderer.render(tree, into: surface, region: damage)
            previous = tree
            let whole = try Renderer(images: ImageStore(loader: ImageDecoder.readImage)).snapshot(scene, root: "root", at: time)
            #expect(surface.hasSamePixels(as: whole), "at \(time)")
        }
    }

    /// One renderer drawing frame after frame — a gradient mask, and a translucent rounded
    /// mask inside a masked layer — draws each as a new renderer does, and gives its mask
    /// memory back after a frame with no mask.
    @Test func aRendererReusingMaskMemoryDrawsEveryFrameAsANewOne() throws {
        let scene = Scene()
        try scene.addRoot(id: "root", output: "test", size: Size(width: 240, height: 120))
        var tx = Transaction(disableActions: true)
        let frame: [String: Value] = ["bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 100)), "position": .point(Point(x: 120, y: 60))]
        tx.add(layer: "before", parent: "root", properties: frame.merging(["backgroundColor": .color(Color(red: 1, green: 0, blue: 0))]) { $1 })
        tx.add(
            layer: "ramp", kind: "gradient", parent: nil,
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 300, height: 120)), "anchorPoint": .point(.zero),
                "colors": .array([.color(.white), .color(Color(red: 1, green: 1, blue: 1, alpha: 0))]),
                "startPoint": .point(Point(x: 0.5, y: 0.5)), "endPoint": .point(Point(x: 1, y: 0.5)),
            ])
        tx.add(
            layer: "holder", parent: "root",
            properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 240, height: 120)), "anchorPoint": .point(.zero), "mask": .string("ramp")])
        tx.add(
            layer: "wipe", parent: nil,
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 100)), "anchorPoint": .point(.zero), "cornerRadius": .number(30),
                "backgroundColor": .color(Color(red: 1, green: 1, blue: 1, alpha: 0.6)),
            ])
        tx.add(
            layer: "after", parent: "holder",
            properties: frame.merging(["backgroundColor": .color(Color(red: 0, green: 1, blue: 0)), "mask": .string("wipe")]) { $1 })
        tx.addAnimation(.basic("position.x", from: .number(-200), to: .number(0), duration: 2, timingFunction: .linear), forKey: "wipe", to: "wipe")
        tx.addAnimation(.basic("position.x", from: .number(-150), to: .number(60.5), duration: 2, timingFunction: .linear), forKey: "ramp", to: "ramp")
        try scene.commit(tx, at: 0)
        let renderer = Renderer()
        let surface = Surface(width: 240, height: 120)
        for time in stride(from: 0.0, through: 2.0, by: 0.17) {
            _ = scene.advance(to: time)
            renderer.render(try scene.renderTree(root: "root", at: time), into: surface, region: [surface.bounds])
            let whole = try Renderer(images: ImageStore(loader: ImageDecoder.readImage)).snapshot(scene, root: "root", at: time)
            #expect(surface.hasSamePixels(as: whole), "at \(time)")
            #expect(renderer.maskMemory > 0)
        }
        var unmask = Transaction(disableActions: true)
        unmask.set("holder", "mask", .string(""))
        unmask.set("after", "mask", .string(""))
        try scene.commit(unmask, at: 2)
        renderer.render(try scene.renderTree(root: "root", at: 2), into: surface, region: [surface.bounds])
        #expect(renderer.maskMemory == 0)
    }
}

/// docs/examples/wipe.json drawn at 0.6 s is docs/examples/wipe.png, its screenshot.
@Suite struct WipeExampleTests {
    @Test func theExampleDrawsItsScreenshot() throws {
        try Golden.checkExample("wipe", at: 0.6)
    }
}
