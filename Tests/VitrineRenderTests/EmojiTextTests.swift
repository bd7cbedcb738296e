import Testing
import VitrineCore
import VitrineRaster
import VitrineRender

/// Colour emoji in text layers: the text colour and its animations leave them alone, the
/// layer's opacity applies.
@Suite struct EmojiTextTests {
    static let scene = """
        {"layers": [{"id": "t", "kind": "text", "properties": {"bounds": [0, 0, 200, 60], "position": [100, 30],
          "string": "Hi 😀", "fontSize": 40, "foregroundColor": "white"},
          "animations": [{"keyPath": "foregroundColor", "from": "white", "to": "#ff0000", "duration": 2}]}]}
        """

    /// The pixels of `rect` in `image`.
    static func pixels(_ image: Surface, _ rect: PixelRect) -> [UInt32] {
        (rect.y..<rect.maxY).flatMap { y in (rect.x..<rect.maxX).map { image.pixel(x: $0, y: y).argb } }
    }

    @Test func colourAnimationLeavesTheEmojiAlone() throws {
        let scene = try Golden.scene(size: Size(width: 200, height: 60), Self.scene)
        let renderer = Golden.renderer()
        _ = scene.advance(to: 0)
        let start = try renderer.snapshot(scene, root: "root", at: 0)
        _ = scene.advance(to: 1.5)
        let later = try renderer.snapshot(scene, root: "root", at: 1.5)
        // "Hi " takes the first ~55 px; the emoji the next ~40.
        let text = PixelRect(x: 0, y: 0, width: 50, height: 60), emoji = PixelRect(x: 62, y: 0, width: 60, height: 60)
        #expect(Self.pixels(start, text) != Self.pixels(later, text))
        #expect(Self.pixels(start, emoji) == Self.pixels(later, emoji))
        let colourful = Self.pixels(later, emoji).filter { p in
            let c = PremultipliedColor(unchecked: p)
            return c.alpha == 255 && c.red > 200 && c.green > 150 && c.blue < 100
        }
        #expect(colourful.count > 100, "the emoji's yellow face")
    }

    @Test func transparentTextColourAndOpacity() throws {
        let clear = try Golden.scene(
            size: Size(width: 200, height: 60),
            """
            {"layers": [{"id": "t", "kind": "text", "properties": {"bounds": [0, 0, 200, 60], "position": [100, 30],
              "string": "Hi 😀", "fontSize": 40, "foregroundColor": "#ffffff00", "opacity": 0.5}}]}
            """)
        let image = try Golden.renderer().snapshot(clear, root: "root", at: 0)
        let text = PixelRect(x: 0, y: 0, width: 50, height: 60), emoji = PixelRect(x: 62, y: 0, width: 60, height: 60)
        let background = image.pixel(x: 0, y: 0).argb
        #expect(Self.pixels(image, text).allSatisfy { $0 == background })
        // Over the black root the half-opaque emoji's yellow reaches half of 255.
        let reds = Self.pixels(image, emoji).map { PremultipliedColor(unchecked: $0).red }
        #expect((120...129).contains(reds.max() ?? 0))
    }
}
