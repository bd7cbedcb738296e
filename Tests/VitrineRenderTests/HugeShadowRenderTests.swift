import Testing
import VitrineCore
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// A layer far larger than the screen with a wide shadow: the screen shows the part of
/// the whole shadow it covers, drawn at the cost of the screen, not of the layer.
@Suite struct HugeShadowRenderTests {
    static let screen = Size(width: 96, height: 64)

    /// The screen with one layer of `size` whose top-left corner is at `corner`, casting
    /// a shadow of `radius` up and to the left.
    func render(size: Double, corner: Point, cornerRadius: Double = 0, radius: Double = 500) throws -> Surface {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Self.screen)
        var tx = Transaction(disableActions: true)
        tx.set("root", "backgroundColor", .color(Color(css: "#ffffff")!))
        tx.add(
            layer: "card", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: size, height: size)),
                "position": .point(Point(x: corner.x + size / 2, y: corner.y + size / 2)),
                "backgroundColor": .color(Color(css: "#336699")!), "cornerRadius": .number(cornerRadius),
                "shadowOpacity": .number(1), "shadowRadius": .number(radius), "shadowOffset": .size(Size(width: -30, height: -20)),
            ])
        try scene.commit(tx, at: 0)
        return try StandardKinds.renderer().snapshot(scene, root: "root", at: 0)
    }

    @Test func hundredThousandPixelLayerShowsTheCornerOfItsWholeShadow() throws {
        let corner = Point(x: 50.5, y: 30.25)
        let huge = try render(size: 100_000, corner: corner)
        // 3 000 pixels: the far edges lie beyond the blur's reach of the screen.
        let normal = try render(size: 3_000, corner: corner)
        try GoldenImage.expectSamePixels(huge, as: normal, name: "huge-shadow-render", "the huge layer against a 3 000-pixel one")
        // Beside the layer, the shadow is darker inside its corner than outside it.
        #expect(huge.pixel(x: 45, y: 25).red < huge.pixel(x: 0, y: 0).red)
    }

    /// A million pixels wide with 400 000-pixel round corners: blurred whole, its shadow's
    /// nine-patch mask would not fit in memory.
    @Test func millionPixelRoundedLayerRendersOnASmallScreen() throws {
        let s = try render(size: 1_000_000, corner: Point(x: -500_000, y: 40), cornerRadius: 400_000)
        // The layer's top edge at y = 40; its shadow, 20 pixels higher, darkens what is above.
        #expect(s.pixel(x: 48, y: 10).red < s.pixel(x: 48, y: 0).red)
        #expect(s.pixel(x: 48, y: 50) == s.pixel(x: 0, y: 50))
    }
}
