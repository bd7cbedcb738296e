import Testing
import VitrineCore
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// Repaints skip clearing only when a layer overwrites every pixel: drawn over stale
/// pixels, each scene must look the same as drawn on a fresh surface.
@Suite struct OcclusionTests {
    typealias Variant = (String, [String: Value])

    static let full = Rect(x: 0, y: 0, width: 160, height: 100)
    static let variants: [Variant] = [
        ("opaque gradient", ["colors": .array([.color(Color(css: "#0f2027")!), .color(Color(css: "#2c5364")!)])]),
        ("translucent gradient", ["colors": .array([.color(Color(css: "#0f2027")!), .color(Color(css: "#2c536480")!)])]),
        ("empty gradient", ["colors": .array([])]),
        ("opaque background", ["backgroundColor": .color(Color(css: "#336699")!)]),
        ("rounded background", ["backgroundColor": .color(Color(css: "#336699")!), "cornerRadius": .number(12)]),
        ("faded background", ["backgroundColor": .color(Color(css: "#336699")!), "opacity": .number(0.5)]),
        ("translucent background", ["backgroundColor": .color(Color(css: "#33669980")!)]),
        ("turned background", ["backgroundColor": .color(Color(css: "#336699")!), "transform.rotation.z": .number(0.05)]),
        ("small background", ["backgroundColor": .color(Color(css: "#336699")!), "bounds": .rect(Rect(x: 0, y: 0, width: 150, height: 100))]),
        ("fractional background", ["backgroundColor": .color(Color(css: "#336699")!), "position": .point(Point(x: 80.5, y: 50))]),
    ]

    func scene(_ properties: [String: Value], roundedParent: Bool) throws -> Scene {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Self.full.size)
        var tx = Transaction(disableActions: true)
        if roundedParent {
            tx.set("root", "masksToBounds", .bool(true))
            tx.set("root", "cornerRadius", .number(20))
        }
        var base: [String: Value] = ["bounds": .rect(Self.full), "position": .point(Point(x: 80, y: 50))]
        let kind = properties["colors"] == nil ? "layer" : "gradient"
        for (key, value) in properties where key.contains(".") == false { base[key] = value }
        tx.add(layer: "cover", kind: kind, parent: "root", properties: base)
        for (key, value) in properties where key.contains(".") { tx.set("cover", try KeyPath(parsing: key), value) }
        tx.add(
            layer: "dot", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 30, height: 30)), "position": .point(Point(x: 40, y: 40)),
                "backgroundColor": .color(Color(css: "#ffd16680")!), "cornerRadius": .number(15),
            ])
        try scene.commit(tx, at: 0)
        return scene
    }

    @Test(arguments: [false, true])
    func stalePixelsNeverShowThrough(roundedParent: Bool) throws {
        for (name, properties) in Self.variants {
            let scene = try scene(properties, roundedParent: roundedParent)
            let renderer = StandardKinds.renderer()
            let tree = try scene.renderTree(root: "root", at: 0)
            let stale = Surface(width: 160, height: 100)
            stale.clear(PremultipliedColor(Color(css: "magenta")!))
            renderer.render(tree, into: stale, region: [stale.bounds])
            let fresh = try StandardKinds.renderer().snapshot(scene, root: "root", at: 0)
            try GoldenImage.expectSamePixels(
                stale, as: fresh, name: "occlusion-\(name)\(roundedParent ? "-rounded-parent" : "")",
                "\(name)\(roundedParent ? " in a rounded parent" : "")")
        }
    }

    /// Under a layer that paints every pixel of the repaint opaquely, nothing is painted;
    /// its parent's border (drawn over its sublayers) and the layers over it still are.
    @Test func layersUnderAnOpaqueCoverAreLeftOutButBordersAndLayersOverItShow() throws {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Self.full.size)
        var tx = Transaction(disableActions: true)
        tx.set("root", "backgroundColor", .color(Color(css: "#ff0000")!))
        tx.set("root", "borderWidth", .number(4))
        tx.set("root", "borderColor", .color(Color(css: "#ffff00")!))
        let center = Point(x: 80, y: 50)
        tx.add(
            layer: "under", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 60, height: 40)), "position": .point(center), "backgroundColor": .color(Color(css: "#00ff00")!),
                "shadowOpacity": .number(1), "shadowRadius": .number(6),
            ])
        tx.add(
            layer: "cover", parent: "root",
            properties: ["bounds": .rect(Self.full), "position": .point(center), "backgroundColor": .color(Color(css: "#0000ff")!)])
        tx.add(
            layer: "over", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 20, height: 20)), "position": .point(center), "backgroundColor": .color(Color(css: "#ffffff")!),
            ])
        try scene.commit(tx, at: 0)
        let surface = Surface(width: 160, height: 100)
        surface.clear(PremultipliedColor(Color(css: "magenta")!))
        StandardKinds.renderer().render(try scene.renderTree(root: "root", at: 0), into: surface, region: [surface.bounds])
        func pixel(_ x: Int, _ y: Int) -> UInt32 { surface.pixels[y * surface.stride + x] }
        #expect(pixel(1, 1) == 0xFFFF_FF00 && pixel(158, 98) == 0xFFFF_FF00, "the root's border")
        #expect(pixel(40, 50) == 0xFF00_00FF && pixel(10, 10) == 0xFF00_00FF, "the cover")
        #expect(pixel(80, 50) == 0xFFFF_FFFF, "the layer over the cover")
    }

    /// A panel over most of a repaint (a keyboard sliding in over a page, at fractional
    /// places) is drawn apart from the rest of the repaint: drawn over stale pixels, the
    /// frame equals a fresh one, whatever the panel is like.
    @Test(arguments: [
        ("opaque", "#1c1f24", 0.0), ("opaque-half-pixel", "#1c1f24", 0.5), ("opaque-third", "#1c1f24", 0.33), ("translucent", "#1c1f2480", 0.25),
        ("rounded", "#1c1f24", 0.75),
    ])
    func panelOverMostOfARepaintIsDrawnApart(name: String, colour: String, fraction: Double) throws {
        let scene = Scene()
        StandardKinds.register(in: scene)
        let size = Size(width: 400, height: 300)
        try scene.addRoot(id: "root", output: "test", size: size)
        var tx = Transaction(disableActions: true)
        tx.add(
            layer: "page", kind: "gradient", parent: "root",
            properties: [
                "bounds": .rect(Rect(origin: .zero, size: size)), "position": .point(Point(x: 200, y: 150)),
                "colors": .array([.color(Color(css: "#0f2027")!), .color(Color(css: "#2c5364")!)]),
            ])
        tx.add(
            layer: "card", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 160)), "position": .point(Point(x: 200, y: 180)),
                "backgroundColor": .color(Color(css: "#f0e0c0")!), "cornerRadius": .number(10), "shadowOpacity": .number(0.6), "shadowRadius": .number(8),
            ])
        tx.add(
            layer: "panel", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 400, height: 200)), "position": .point(Point(x: 200, y: 230 + fraction)),
                "backgroundColor": .color(Color(css: colour)!), "cornerRadius": .number(name == "rounded" ? 16 : 0),
            ])
        tx.add(
            layer: "key", parent: "panel",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 60, height: 50)), "position": .point(Point(x: 50.5, y: 40)),
                "backgroundColor": .color(Color(css: "#50555e")!), "cornerRadius": .number(6),
            ])
        try scene.commit(tx, at: 0)
        let stale = Surface(width: 400, height: 300)
        stale.clear(PremultipliedColor(Color(css: "magenta")!))
        StandardKinds.renderer().render(try scene.renderTree(root: "root", at: 0), into: stale, region: [PixelRect(x: 0, y: 100, width: 400, height: 200)])
        let fresh = try StandardKinds.renderer().snapshot(scene, root: "root", at: 0)
        for y in 0..<100 { for x in 0..<400 { fresh.setPixel(x: x, y: y, PremultipliedColor(Color(css: "magenta")!)) } }
        try GoldenImage.expectSamePixels(stale, as: fresh, name: "occlusion-panel-\(name)", "a \(name) panel over most of the repaint")
    }
}
