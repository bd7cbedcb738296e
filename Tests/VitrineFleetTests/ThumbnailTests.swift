import Testing
import VitrineFleet
import VitrineRaster

/// Thumbnails' scaling and size cap, on pictures whose right answer is known.
@Suite struct ThumbnailTests {
    /// A surface of `width`×`height` whose pixel (x, y) is `color(x, y)` (opaque grey levels).
    static func surface(_ width: Int, _ height: Int, _ level: (Int, Int) -> UInt32) -> Surface {
        let surface = Surface(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let v = level(x, y)
                surface.pixels[y * surface.stride + x] = 0xFF00_0000 | v << 16 | v << 8 | v
            }
        }
        return surface
    }

    @Test func downscalingAveragesTheAreaEachPixelCovers() {
        // One-pixel black and white stripes: a nearest-neighbour scaler gives black or white.
        let stripes = Self.surface(300, 90) { x, _ in x % 2 == 0 ? 0 : 255 }
        let half = Thumbnail.scaled(stripes, to: 150, 45)
        for x in [0, 1, 77, 149] { #expect(half.pixels[10 * half.stride + x] & 0xFF == 128, "pixel \(x)") }
        // At 3:2 each pixel covers 1.5 stripes: 2/3 or 1/3 white, never all of one.
        let third = Thumbnail.scaled(stripes, to: 200, 60)
        let levels = Set((0..<200).map { third.pixels[5 * third.stride + $0] & 0xFF })
        #expect(levels == [85, 170], "\(levels.sorted())")
        // A ramp keeps its mean.
        let ramp = Self.surface(256, 16) { x, _ in UInt32(x) }
        let small = Thumbnail.scaled(ramp, to: 64, 4)
        #expect((0..<64).allSatisfy { Int(small.pixels[$0] & 0xFF) == 4 * $0 + 2 || Int(small.pixels[$0] & 0xFF) == 4 * $0 + 1 })
    }

    @Test func theBoxKeepsTheAspectAndNeverEnlarges() {
        #expect(Thumbnail.fitted(1920, 1080, into: (320, 320)) == (320, 180))
        #expect(Thumbnail.fitted(1080, 1920, into: (320, 180)) == (101, 180))
        #expect(Thumbnail.fitted(200, 100, into: (4096, 4096)) == (200, 100))
    }

    @Test func aJPEGComesDownInQualityThenSizeUntilItFitsAndAPNGInSize() throws {
        var state: UInt32 = 7
        let noise = Self.surface(640, 360) { _, _ in
            state = state &* 1_103_515_245 &+ 12345
            return (state >> 16) & 0xFF
        }
        let roomy = try Thumbnail.make(from: noise, Thumbnail.Spec(format: .jpeg, width: 640, height: 360, maxBytes: 1 << 24))
        #expect(roomy.quality == 80 && roomy.width == 640 && roomy.data.prefix(2) == [0xFF, 0xD8])
        let tight = try Thumbnail.make(from: noise, Thumbnail.Spec(format: .jpeg, width: 640, height: 360, maxBytes: 20000))
        #expect(
            tight.data.count <= 20000 && (tight.quality ?? 100) < 80 && tight.width < 640,
            "\(tight.data.count) \(String(describing: tight.quality)) \(tight.width)")
        let png = try Thumbnail.make(from: noise, Thumbnail.Spec(format: .png, width: 640, height: 360, maxBytes: 4096))
        #expect(png.data.count <= 4096 && png.width < 640 && png.quality == nil && png.data.prefix(4) == [0x89, 0x50, 0x4E, 0x47])
    }
}
