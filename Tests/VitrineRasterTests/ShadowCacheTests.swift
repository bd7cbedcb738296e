import Testing
import VitrineCore
@testable import VitrineRaster

/// The shadow cache: hits, eviction, a changed key redrawing, and the same pixels as
/// drawing without a cache.
@Suite struct ShadowCacheTests {
    static let card = Rect(x: 40.25, y: 30.5, width: 260, height: 150)
    static let shadow = Shadow(color: .black, opacity: 0.6, offset: Size(width: 0, height: 6), radius: 14)
    static let shape = ShadowShape.roundedRect(card, radii: CornerRadii(20), corners: .all)

    /// A grey surface with `shadow` of `shape` drawn through `transform`, with `cache`.
    func draw(_ shape: ShadowShape = shape, shadow: Shadow = shadow, transform: AffineTransform = .identity,
              clip: Clip? = nil, cache: ShadowCache?) -> Surface {
        let s = Surface(width: 420, height: 300)
        s.clear(PremultipliedColor(Color(red: 0.8, green: 0.8, blue: 0.8)))
        s.drawShadow(shadow, of: shape, transform: transform, clip: clip, cache: cache)
        return s
    }

    @Test func secondDrawIsAHitWithTheSamePixels() {
        let cache = ShadowCache()
        let first = draw(cache: cache)
        #expect((cache.misses, cache.hits, cache.count) == (1, 0, 1))
        let second = draw(cache: cache)
        #expect((cache.misses, cache.hits, cache.count) == (1, 1, 1))
        #expect(first.hasSamePixels(as: draw(cache: nil)))
        #expect(second.hasSamePixels(as: first))
    }

    @Test func movingByWholePixelsReusesTheBlur() {
        let cache = ShadowCache()
        _ = draw(cache: cache)
        let moved = AffineTransform(translationX: 37, y: -11)
        let cached = draw(transform: moved, cache: cache)
        #expect((cache.misses, cache.hits) == (1, 1))
        #expect(cached.hasSamePixels(as: draw(transform: moved, cache: nil)))
    }

    @Test func changedKeyRedraws() {
        let cache = ShadowCache()
        _ = draw(cache: cache)
        let changes: [(String, Surface, Surface)] = [
            ("sub-pixel move", draw(transform: AffineTransform(translationX: 0.5, y: 0), cache: cache),
             draw(transform: AffineTransform(translationX: 0.5, y: 0), cache: nil)),
            ("radius", draw(shadow: Shadow(color: .black, opacity: 0.6, offset: Size(width: 0, height: 6), radius: 8), cache: cache),
             draw(shadow: Shadow(color: .black, opacity: 0.6, offset: Size(width: 0, height: 6), radius: 8), cache: nil)),
            ("size", draw(.roundedRect(Rect(x: 40.25, y: 30.5, width: 200.5, height: 150), radii: CornerRadii(20), corners: .all), cache: cache),
             draw(.roundedRect(Rect(x: 40.25, y: 30.5, width: 200.5, height: 150), radii: CornerRadii(20), corners: .all), cache: nil)),
            ("corners", draw(.roundedRect(Self.card, radii: CornerRadii(20), corners: .minXMinY), cache: cache),
             draw(.roundedRect(Self.card, radii: CornerRadii(20), corners: .minXMinY), cache: nil)),
            ("scale", draw(transform: AffineTransform(scaleX: 1.25, y: 1.25), cache: cache),
             draw(transform: AffineTransform(scaleX: 1.25, y: 1.25), cache: nil)),
        ]
        #expect(cache.misses == 1 + changes.count)
        #expect(cache.hits == 0)
        for (name, cached, fresh) in changes {
            #expect(cached.hasSamePixels(as: fresh), "\(name)")
            #expect(!cached.hasSamePixels(as: draw(cache: nil)), "\(name) drew the old shadow")
        }
    }

    /// Only the corners are blurred (the middle is stretched), so a rectangle resized by
    /// whole pixels has the same blurred corners.
    @Test func resizingByWholePixelsReusesTheBlur() {
        let cache = ShadowCache()
        _ = draw(cache: cache)
        let wider = ShadowShape.roundedRect(Rect(x: 40.25, y: 30.5, width: 300, height: 170), radii: CornerRadii(20), corners: .all)
        let cached = draw(wider, cache: cache)
        #expect((cache.misses, cache.hits) == (1, 1))
        #expect(cached.hasSamePixels(as: draw(wider, cache: nil)))
    }

    @Test func leastRecentlyUsedIsEvicted() {
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
        #expect(again.hasSamePixels(as: draw(shadow: shadow(radii[1]), cache: nil)))
    }

    @Test func byteLimitEvictsAndRefusesHugeMasks() {
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
        #expect(drawn.hasSamePixels(as: draw(transform: turned, cache: nil)))
    }

    @Test func rotatedShadowsAreCachedAndMatchTheUncachedBlur() {
        let cache = ShadowCache()
        let turned = AffineTransform(rotationAngle: 0.1)
        let first = draw(transform: turned, cache: cache)
        let moved = turned.concatenating(AffineTransform(translationX: 20, y: 10))
        let second = draw(transform: moved, cache: cache)
        #expect((cache.misses, cache.hits) == (1, 1))
        #expect(maxDifference(first, draw(transform: turned, cache: nil)) <= 1)
        #expect(maxDifference(second, draw(transform: moved, cache: nil)) <= 1)
    }

    @Test func shadowOutsideTheClipIsNotBlurred() {
        let cache = ShadowCache()
        let far = Clip(rect: PixelRect(x: 380, y: 260, width: 40, height: 40))
        _ = draw(clip: far, cache: cache)
        _ = draw(transform: AffineTransform(rotationAngle: 0.1), clip: far, cache: cache)
        #expect(cache.misses == 0)
    }

    func maxDifference(_ a: Surface, _ b: Surface) -> Int {
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y).argb, q = b.pixel(x: x, y: y).argb
                for shift in stride(from: 0, to: 32, by: 8) {
                    worst = max(worst, abs(Int((p >> UInt32(shift)) & 0xFF) - Int((q >> UInt32(shift)) & 0xFF)))
                }
            }
        }
        return worst
    }
}
