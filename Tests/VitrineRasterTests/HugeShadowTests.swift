import Testing
import VitrineCore
@testable import VitrineRaster
import VitrineTestSupport

/// Shadows of layers far larger than the surface: what shows is the visible part of the
/// whole shadow, and drawing it costs what the visible part does.
@Suite struct HugeShadowTests {
    static let huge = 100_000.0
    static let white = PremultipliedColor(Color(red: 1, green: 1, blue: 1))

    /// A white `width`×`height` surface with `shadow` of `shape` drawn on it.
    func draw(
        _ shape: ShadowShape, _ shadow: Shadow, width: Int = 64, height: Int = 64, clip: Clip? = nil, cache: ShadowCache? = nil
    ) -> Surface {
        let s = Surface(width: width, height: height)
        s.clear(Self.white)
        s.drawShadow(shadow, of: shape, transform: .identity, clip: clip, cache: cache)
        return s
    }

    /// The shadow's coverage at a pixel of a white surface with a black shadow.
    func coverage(_ s: Surface, _ x: Int, _ y: Int) -> Int { 255 - Int(s.pixel(x: x, y: y).red) }

    @Test func hugeShadowIsTheVisiblePartOfTheWholeBlur() throws {
        let shadow = Shadow(color: .black, opacity: 1, offset: Size(width: 12, height: 18), radius: 40)
        let rect = Rect(x: 30.25, y: 20.5, width: Self.huge, height: Self.huge)
        // Kept, the whole nine-patch mask is blurred; the general path blurs the rectangle
        // itself where it can reach the surface.
        let whole = draw(.rect(rect), shadow, width: 200, height: 150, cache: ShadowCache())
        let general = draw(.path(Path(rect: rect)), shadow, width: 200, height: 150)
        let bounded = draw(.rect(rect), shadow, width: 200, height: 150)
        try GoldenImage.expectSamePixels(bounded, as: whole, name: "huge-shadow-whole", "the shadow blurred where it shows")
        try GoldenImage.expectSamePixels(general, as: whole, name: "huge-shadow-general", "the rectangle's shadow as a path")
        // Through small clips at the corner, on the edges and inside.
        for (x, y) in [(0, 0), (40, 30), (150, 10), (5, 120), (120, 100)] {
            let window = PixelRect(x: x, y: y, width: 37, height: 23)
            let clipped = draw(.rect(rect), shadow, width: 200, height: 150, clip: Clip(rect: window))
            let expected = Surface(width: 200, height: 150)
            expected.clear(Self.white)
            for y in window.y..<window.maxY { (expected.row(y) + x).update(from: whole.row(y) + x, count: window.width) }
            try GoldenImage.expectSamePixels(clipped, as: expected, name: "huge-shadow-clip-\(x)-\(y)", "the shadow through a clip at (\(x), \(y))")
        }
    }

    /// Radius 500 (σ 250, reaching 750 pixels): a 64-pixel view of the corner, of an edge,
    /// of the inside and of the outside of a 100 000-pixel layer's shadow.
    @Test func radius500ShadowSeenThroughASmallSurface() throws {
        let shadow = Shadow(color: .black, opacity: 1, offset: Size(width: 40, height: 60), radius: 500)
        func layer(at x: Double, _ y: Double, size: Double = Self.huge) -> ShadowShape {
            .rect(Rect(x: x - 40, y: y - 60, width: size, height: size))
        }
        // The shadow's corner at (32, 32): a quarter of the rectangle's coverage there.
        let corner = draw(layer(at: 32, 32), shadow)
        #expect(abs(coverage(corner, 32, 32) - 64) <= 2)
        #expect(coverage(corner, 0, 0) < coverage(corner, 32, 32))
        #expect(coverage(corner, 63, 63) > coverage(corner, 32, 32))
        // Its left edge at x = 32, thousands of pixels from the corners: half.
        let edge = draw(layer(at: 32, -5_000), shadow)
        #expect((0..<64).allSatisfy { abs(coverage(edge, 32, $0) - 128) <= 2 })
        // A layer of 3 000 pixels has the same edge within 750 pixels of it.
        let normal = draw(layer(at: 32, -1_400, size: 3_000), shadow)
        try GoldenImage.expectSamePixels(edge, as: normal, name: "huge-shadow-edge", "the huge layer's edge against a 3 000-pixel layer's")
        // 750 pixels inside both edges: all shadow; 750 outside: none.
        let inside = draw(layer(at: -800, -800), shadow)
        #expect((0..<64).allSatisfy { y in (0..<64).allSatisfy { coverage(inside, $0, y) == 255 } })
        let outside = draw(layer(at: 900, -5_000), shadow)
        #expect((0..<64).allSatisfy { y in (0..<64).allSatisfy { coverage(outside, $0, y) == 0 } })
    }

    /// Blurred whole, the nine-patch mask of this shape would take 650 GB: only the
    /// 64×64 pixels seen and the blur's reach around them are made.
    @Test func aMillionPixelLayerWithRoundCornersOnASmallSurface() throws {
        let shadow = Shadow(color: .black, opacity: 1, offset: Size(width: 0, height: 0), radius: 500)
        let side = 1_000_000.0
        let shape = ShadowShape.roundedRect(
            Rect(x: -side / 2, y: -side + 32, width: side, height: side), radii: CornerRadii(400_000), corners: .all)
        let s = draw(shape, shadow, cache: ShadowCache())
        // The bottom edge at y = 32, half a million pixels from the corners' arcs.
        #expect((0..<64).allSatisfy { abs(coverage(s, $0, 32) - 128) <= 2 })
        #expect((0..<64).allSatisfy { coverage(s, $0, 0) > coverage(s, $0, 63) })
    }
}
