import Testing
import VitrineCore
@testable import VitrineRaster
import VitrineTestSupport

/// The shadow cache: hits, eviction, a changed key redrawing, and the same pixels as
/// drawing without a cache.
@Suite struct ShadowCacheTests {
    static let card = Rect(x: 40.25, y: 30.5, width: 260, height: 150)
    static let shadow = Shadow(color: .black, opacity: 0.6, offset: Size(width: 0, height: 6), radius: 14)
    static let shape = ShadowShape.roundedRect(card, radii: CornerRadii(20), corners: .all)

    /// A grey surface with `shadow` of `shape` drawn through `transform`, with `cache`.
    func draw(
        _ shape: ShadowShape = shape, shadow: Shadow = shadow, transform: AffineTransform = .identity,
        clip: Clip? = nil, cache: ShadowCache?
    ) -> Surface {
        let s = Surface(width: 420, height: 300)
        s.clear(PremultipliedColor(Color(red: 0.8, green: 0.8, blue: 0.8)))
        s.drawShadow(shadow, of: shape, transform: transform, clip: clip, cache: cache)
        return s
    }

    @Test func secondDrawIsAHitWithTheSamePixels() throws {
        let cache = ShadowCache()
        let first = draw(cache: cache)
        #expect((cache.misses, cache.hits, cache.count) == (1, 0, 1))
        let second = draw(cache: cache)
        #expect((cache.misses, cache.hits, cache.count) == (1, 1, 1))
        try GoldenImage.expectSamePixels(first, as: draw(cache: nil), name: "shadow-cache-first", "the first drawing")
        try GoldenImage.expectSamePixels(second, as: first, name: "shadow-cache-hit", "the drawing from the cache")
    }

    @Test func movingByWholePixelsReusesTheBlur() throws {
        let cache = ShadowCache()
        _ = draw(cache: cache)
        let moved = AffineTransform(translationX: 37, y: -11)
        let cached = draw(transform: moved, cache: cache)
        #expect((cache.misses, cache.hits) == (1, 1))
        try GoldenImage.expectSamePixels(cached, as: draw(transform: moved, cache: nil), name: "shadow-cache-moved", "the shadow moved by whole pixels")
    }

    @Test func changedKeyRedraws() throws {
        let cache = ShadowCache()
        _ = draw(cache: cache)
        let changes: [(String, Surface, Surface)] = [
            (
                "sub-pixel move", draw(transform: AffineTransform(translationX: 0.5, y: 0), cache: cache),
                draw(transform: AffineTransform(translationX: 0.5, y: 0), cache: nil)
            ),
            (
                "radius", draw(shadow: Shadow(color: .black, opacity: 0.6, offset: Size(width: 0, height: 6), radius: 8), cache: cache),
                draw(shadow: Shadow(color: .black, opacity: 0.6, offset: Size(width: 0, height: 6), radius: 8), cache: nil)
            ),
            (
                "size", draw(.roundedRect(Rect(x: 40.25, y: 30.5, width: 200.5, height: 150), radii: CornerRadii(20), corners: .all), cache: cache),
                draw(.roundedRect(Rect(x: 40.25, y: 30.5, width: 200.5, height: 150), radii: CornerRadii(20), corners: .all), cache: nil)
            ),
            (
                "corners", draw(.roundedRect(Self.card, radii: CornerRadii(20), corners: .minXMinY), cache: cache),
                draw(.roundedRect(Self.card, radii: CornerRadii(20), corners: .minXMinY), cache: nil)
            ),
            (
                "scale", draw(transform: AffineTransform(scaleX: 1.25, y: 1.25), cache: cache),
                draw(transform: AffineTransform(scaleX: 1.25, y: 1.25), cache: nil)
            ),
        ]
        #expect(cache.misses == 1 + changes.count)
        #expect(cache.hits == 0)
        for (name, cached, fresh) in changes {
            try GoldenImage.expectSamePixels(cached, as: fresh, name: "shadow-cache-changed-\(name)", name)
            #expect(!cached.hasSamePixels(as: draw(cache: nil)), "\(name) drew the old shadow")
        }
    }

    /// Only the corners are blurred (the middle is stretched), so a rectangle resized by
    /// whole pixels has the same blurred corners.
    @Test func resizingByWholePixelsReusesTheBlur() throws {
        let cache = ShadowCache()
        _ = draw(cache: cache)
        let wider = ShadowShape.roundedRect(Rect(x: 40.25, y: 30.5, width: 300, height: 170), radii: CornerRadii(20), corners: .all)
        let cached = draw(wider, cache: cache)
        #expect((cache.misses, cache.hits) == (1, 1))
        try GoldenImage.expectSamePixels(cached, as: draw(wider, cache: nil), name: "shadow-cache-resized", "the shadow resized by whole pixels")
    }

    @Test func leastRecentlyUsedIsEvicted() throws {
        let cache = ShadowCache(capacity: 2)
        let radii = [10.0, 12, 14]
        func shadow(_ r: Double) -> Shadow { Shadow(color: .black, opacity: 0.6, offset: .zero, radius: r) }
        _ = draw(shadow: shadow(radii[0]), cache: cache)
        _ = draw(shadow: shadow(radii[1]), cache: cache)
        _ = draw(shadow: shadow(radii[0]), cache: cache)  // radius 10 is now the most recent
        _ = draw(shadow: shadow(radii[2]), cache: cache)  // evicts radius 12
        #expect(cache.count == 2)
        #expect((cache.misses, cache.hits) == (3, 1))
        _ = draw(shadow: shadow(radii[0]), cache: cache)
        #expect((cache.misses, cache.hits) == (3, 2))
        let again = draw(shadow: shadow(radii[1]), cache: cache)
        #expect((cache.misses, cache.hits) == (4, 2))
        try GoldenImage.expectSamePixels(again, as: draw(shadow: shadow(radii[1]), cache: nil), name: "shadow-cache-evicted", "the evicted shadow drawn again")
    }

    @Test func byteLimitEvictsAndRefusesHugeMasks() throws {
        let cache = ShadowCache(capacity: 100, byteLimit: 64 << 10)
        for r in stride(from: 10.0, through: 30, by: 2) {
            _ = draw(shadow: Shadow(color: .black, opacity: 0.6, offset: .zero, radius: r), cache: cache)
            #expect(cache.byteCount <= 64 << 10)
        }
        #expect(cache.count < 11)
        // A rotated full-size shadow needs more than a quarter of the limit: drawn, not kept.
        let big = ShadowCache(capacity: 4, byteLimit: 64 << 10)
        let turned = AffineTransform(rotationAngle: 0.1)
        let drawn = draw(transform: turned, cache: big)
        #expect(big.count == 0)
        try GoldenImage.expectSamePixels(drawn, as: draw(transform: turned, cache: nil), name: "shadow-cache-not-kept", "the shadow too large to keep")
    }

    @Test func rotatedShadowsAreCachedAndMatchTheUncachedBlur() throws {
        let cache = ShadowCache()
        let turned = AffineTransform(rotationAngle: 0.1)
        let first = draw(transform: turned, cache: cache)
        let moved = turned.concatenating(AffineTransform(translationX: 20, y: 10))
        let second = draw(transform: moved, cache: cache)
        #expect((cache.misses, cache.hits) == (1, 1))
        try GoldenImage.expectSamePixels(first, as: draw(transform: turned, cache: nil), name: "shadow-cache-rotated", tolerance: 1, "the rotated shadow")
        try GoldenImage.expectSamePixels(
            second, as: draw(transform: moved, cache: nil), name: "shadow-cache-rotated-moved", tolerance: 1, "the rotated shadow moved, from the cache")
    }

    @Test func shadowOutsideTheClipIsNotBlurred() {
        let cache = ShadowCache()
        let far = Clip(rect: PixelRect(x: 380, y: 260, width: 40, height: 40))
        _ = draw(clip: far, cache: cache)
        _ = draw(transform: AffineTransform(rotationAngle: 0.1), clip: far, cache: cache)
        #expect(cache.misses == 0)
    }
}
