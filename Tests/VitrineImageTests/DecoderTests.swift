import Foundation
import Testing
import VitrineCodecs
import VitrineCore
import VitrineImage
import VitrineRaster
import VitrineTestSupport

/// The references of the decoder tests.
let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")

/// The colour of a pixel, as 0xAARRGGBB.
func pixel(_ surface: Surface, _ x: Int, _ y: Int) -> UInt32 { surface.pixels[y * surface.stride + x] }

/// Whether two opaque colours are within `tolerance` in every channel (JPEG is lossy).
func near(_ a: UInt32, _ b: UInt32, _ tolerance: Int = 12) -> Bool {
    [0, 8, 16, 24].allSatisfy { abs(Int(a >> UInt32($0) & 0xFF) - Int(b >> UInt32($0) & 0xFF)) <= tolerance }
}

func decode(_ data: [UInt8], fitting target: TargetSize? = nil, limit: Int = 256 << 20) throws -> Picture {
    try ImageDecoder.decode(data, fitting: target, byteLimit: limit)
}

/// The message of the error decoding `data` throws.
func failure(_ data: [UInt8], limit: Int = 256 << 20) -> ImageError? {
    do {
        _ = try ImageDecoder.decode(data, fitting: nil, byteLimit: limit)
        return nil
    } catch {
        return error
    }
}

let red: UInt32 = 0xFFFF_0000, green: UInt32 = 0xFF00_FF00, blue: UInt32 = 0xFF00_00FF, white: UInt32 = 0xFFFF_FFFF

@Suite struct FormatTests {
    @Test func formatsAreToldByTheirFirstBytes() throws {
        let q = ImageFixtures.quadrants(width: 8, height: 8)
        #expect(ImageFormat(sniffing: try q.pngData()) == .png)
        #expect(ImageFormat(sniffing: ImageFixtures.jpeg(q)) == .jpeg)
        #expect(ImageFormat(sniffing: ImageFixtures.webp(q)) == .webp)
        #expect(
            ImageFormat(
                sniffing: ImageFixtures.gif(
                    width: 2, height: 2, palette: [0, 0xFF0000], frames: [.init(rect: PixelRect(x: 0, y: 0, width: 2, height: 2), index: 1, delay: 0)])) == .gif
        )
        #expect(ImageFormat(sniffing: Array("\u{FEFF}\n <?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == .svg)
        #expect(ImageFormat(sniffing: Array("<html><body>no</body></html>".utf8)) == nil)
    }

    @Test func anUnknownFormatSaysWhatItStartsWith() {
        let error = failure(Array("BM6\u{0}".utf8) + [UInt8](repeating: 0, count: 60))
        #expect(error?.kind == .unsupported)
        #expect(error?.message.contains("starts with 0x42 0x4D 0x36 0x00") == true, "\(String(describing: error))")
        #expect(failure([])?.message == "the file is empty")
    }

    @Test func aBombIsRefusedFromItsHeaderBeforeDecoding() throws {
        let header = ImageFixtures.hugePNGHeader()
        let probe = try ImageDecoder.probe(header)
        #expect(probe == ImageProbe(format: .png, width: 100_000, height: 100_000, frames: 1))
        // The header alone: decoding would fail on the missing data, so a size error
        // shows the header was refused first.
        let error = failure(header)
        #expect(error?.kind == .tooLarge)
        #expect(error?.message.contains("100000×100000") == true, "\(String(describing: error))")
        let gif = failure(ImageFixtures.hugeGIFHeader())
        #expect(gif?.kind == .tooLarge, "\(String(describing: gif))")
        // A small screen with a frame that claims to be huge: giflib would allocate it.
        var frame = ImageFixtures.hugeGIFHeader(width: 4, height: 4)
        frame.replaceSubrange(18..<22, with: [0x60, 0xEA, 0x60, 0xEA])  // the frame: 60 000 × 60 000
        #expect(try ImageDecoder.probe(frame).width == 60_000)
        #expect(failure(frame)?.kind == .tooLarge)
        // Within the side limit but not the budget: every frame counts.
        let frames = (0..<4).map { _ in ImageFixtures.GIFFrame(rect: PixelRect(x: 0, y: 0, width: 1, height: 1), index: 1, delay: 10) }
        let animation = ImageFixtures.gif(width: 1000, height: 1000, palette: [0, 0xFF0000], frames: frames)
        #expect(try ImageDecoder.probe(animation).frames == 4)
        #expect(failure(animation, limit: 3 * 4_000_000)?.kind == .tooLarge)
        #expect(try decode(animation, limit: 4 * 4_000_000).frames.count == 4)
    }
}

@Suite struct JPEGTests {
    @Test func decodesColoursWithinJPEGsLoss() throws {
        let source = ImageFixtures.quadrants(width: 64, height: 48)
        let picture = try decode(ImageFixtures.jpeg(source))
        let image = picture.frames[0]
        #expect((image.width, image.height) == (64, 48))
        #expect(picture.naturalSize == Size(width: 64, height: 48))
        #expect(near(pixel(image, 8, 8), red) && near(pixel(image, 56, 8), green))
        #expect(near(pixel(image, 8, 40), blue) && near(pixel(image, 56, 40), white))
        try GoldenImage.expectMatches(image, named: "jpeg-quadrants", in: references, tolerance: 8)
    }

    @Test func scaledDecodingPicksTheSmallestScaleThatCovers() throws {
        let data = ImageFixtures.jpeg(ImageFixtures.quadrants(width: 1600, height: 1200), quality: 80)
        func size(_ target: TargetSize?) throws -> (Int, Int) {
            let image = try decode(data, fitting: target).frames[0]
            return (image.width, image.height)
        }
        #expect(try size(nil) == (1600, 1200))
        #expect(try size(TargetSize(width: 400, height: 300)) == (400, 300))  // 2/8
        #expect(try size(TargetSize(width: 401, height: 300)) == (800, 600))  // 1/2
        #expect(try size(TargetSize(width: 100, height: 10)) == (200, 150))  // 1/8
        #expect(try size(TargetSize(width: 4000, height: 3000)) == (1600, 1200))  // never larger
        let picture = try decode(data, fitting: TargetSize(width: 400, height: 300))
        #expect(picture.naturalSize == Size(width: 1600, height: 1200))
        #expect(picture.scaling == .upToNatural)
        let probe = try ImageDecoder.probe(data)
        #expect(ImageDecoder.decodedBytes(of: probe, fitting: TargetSize(width: 400, height: 300)) == 400 * 300 * 4)
    }

    @Test(arguments: [(6, blue, red), (3, white, blue)])
    func exifOrientationTurnsThePicture(orientation: Int, topLeft: UInt32, topRight: UInt32) throws {
        let source = ImageFixtures.quadrants(width: 64, height: 32)
        let picture = try decode(ImageFixtures.jpeg(source, orientation: orientation))
        let image = picture.frames[0]
        let turned = orientation >= 5
        #expect((image.width, image.height) == (turned ? (32, 64) : (64, 32)))
        #expect(picture.naturalSize == Size(width: Double(image.width), height: Double(image.height)))
        #expect(near(pixel(image, 4, 4), topLeft), "\(String(pixel(image, 4, 4), radix: 16))")
        #expect(near(pixel(image, image.width - 5, 4), topRight), "\(String(pixel(image, image.width - 5, 4), radix: 16))")
        try GoldenImage.expectMatches(image, named: "jpeg-orientation-\(orientation)", in: references, tolerance: 8)
    }

    @Test func aTruncatedOrCorruptJPEGGivesLibjpegsReason() {
        let data = ImageFixtures.jpeg(ImageFixtures.quadrants(width: 64, height: 64))
        let truncated = failure(Array(data.prefix(data.count / 2)))
        #expect(truncated?.kind == .corrupt)
        #expect(truncated?.message == "JPEG: Premature end of JPEG file", "\(String(describing: truncated))")
        let corrupt = failure([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x03, 0x00] + [UInt8](repeating: 0x55, count: 40))
        #expect(corrupt?.message.hasPrefix("JPEG: ") == true, "\(String(describing: corrupt))")
    }
}

@Suite struct WebPTests {
    @Test func aLosslessStillDecodesToItsPixels() throws {
        let source = ImageFixtures.quadrants(width: 40, height: 30)
        source.fill(PixelRect(x: 0, y: 0, width: 10, height: 10), PremultipliedColor(unchecked: 0x8040_0000))  // translucent
        let picture = try decode(ImageFixtures.webp(source))
        try GoldenImage.expectSamePixels(picture.frames[0], as: source, name: "webp-still", tolerance: 1, "lossless WebP")
        try GoldenImage.expectMatches(picture.frames[0], named: "webp-still", in: references, tolerance: 1)
    }

    @Test func aStillIsScaledByLibwebpToTheSizeShown() throws {
        let data = ImageFixtures.webp(ImageFixtures.quadrants(width: 400, height: 200))
        let picture = try decode(data, fitting: TargetSize(width: 100, height: 40))
        #expect((picture.frames[0].width, picture.frames[0].height) == (100, 50))
        #expect(picture.naturalSize == Size(width: 400, height: 200))
        #expect(near(pixel(picture.frames[0], 80, 40), white, 2))
    }

    @Test func anAnimationHasItsFramesAndDurations() throws {
        let frames = [red, green, blue].map { ImageFixtures.solid($0, width: 16, height: 8) }
        let picture = try decode(ImageFixtures.animatedWebP(frames, milliseconds: [100, 200, 300], loops: 2))
        #expect(picture.frames.count == 3)
        #expect(picture.durations == [0.1, 0.2, 0.3])
        #expect(picture.plays == 2)
        for (i, color) in [red, green, blue].enumerated() { #expect(pixel(picture.frames[i], 3, 3) == color) }
        #expect(picture.frame(at: 0).index == 0)
        #expect(picture.frame(at: 0.0999).index == 0)
        #expect(picture.frame(at: 0.1).index == 1)
        #expect(picture.frame(at: 0.3).index == 2)
        #expect(picture.frame(at: 0.6).index == 0)  // the second play
        #expect(picture.frame(at: 1.2).index == 2)  // played out: the last frame stays
        #expect(picture.frame(at: 1.2).untilNext == nil)
        let next = try #require(picture.frame(at: 0.05).untilNext)
        #expect(abs(next - 0.05) < 1e-9)
    }

    @Test func aTruncatedWebPSaysSo() {
        let still = ImageFixtures.webp(ImageFixtures.quadrants(width: 40, height: 30))
        let truncated = failure(Array(still.prefix(still.count - 20)))
        #expect(truncated?.kind == .corrupt)
        #expect(truncated?.message.contains("truncated") == true, "\(String(describing: truncated))")
        var corrupt = still
        for i in 30..<corrupt.count - 4 { corrupt[i] ^= 0x5A }
        #expect(failure(corrupt)?.message.hasPrefix("WebP: ") == true, "\(String(describing: failure(corrupt)))")
    }
}

@Suite struct GIFTests {
    let palette: [UInt32] = [0x000000, 0xFF0000, 0x00FF00, 0x0000FF]

    /// Red all over; a green square disposed to the background; a blue pixel; then a frame
    /// that is transparent but for one green pixel.
    var frames: [ImageFixtures.GIFFrame] {
        [
            .init(rect: PixelRect(x: 0, y: 0, width: 8, height: 8), index: 1, delay: 10),
            .init(rect: PixelRect(x: 2, y: 2, width: 4, height: 4), index: 2, delay: 20, disposal: 2),
            .init(rect: PixelRect(x: 0, y: 0, width: 1, height: 1), index: 3, delay: 5, disposal: 3),
            .init(rect: PixelRect(x: 0, y: 0, width: 8, height: 8), indices: [UInt8](repeating: 0, count: 63) + [2], delay: 1, transparent: 0),
        ]
    }

    @Test func framesAreComposedWithDisposalAndTransparency() throws {
        let picture = try decode(ImageFixtures.gif(width: 8, height: 8, palette: palette, frames: frames, loops: 2))
        #expect(picture.frames.count == 4)
        let (f0, f1, f2, f3) = (picture.frames[0], picture.frames[1], picture.frames[2], picture.frames[3])
        #expect(pixel(f0, 3, 3) == red)
        #expect(pixel(f1, 3, 3) == green && pixel(f1, 0, 0) == red)
        // The green square went back to the background (transparent) before the blue pixel.
        #expect(pixel(f2, 3, 3) == 0 && pixel(f2, 0, 0) == blue && pixel(f2, 7, 7) == red)
        // The blue pixel went back to what was before it; transparent pixels kept the rest.
        #expect(pixel(f3, 0, 0) == red && pixel(f3, 3, 3) == 0 && pixel(f3, 7, 7) == green)
        // A delay of 1 cs shows for 100 ms, as in browsers.
        #expect(picture.durations == [0.1, 0.2, 0.05, 0.1])
        #expect(picture.plays == 3)  // NETSCAPE2.0 says 2 repetitions after the first play
        try GoldenImage.expectMatches(f2, named: "gif-frame-3", in: references, tolerance: 0)
    }

    @Test func framesChangeAtTheirExactTimes() throws {
        let picture = try decode(ImageFixtures.gif(width: 8, height: 8, palette: palette, frames: frames, loops: 0))
        #expect(picture.plays == 0)
        let cases: [(Double, Int)] = [(0, 0), (0.1 - 1e-6, 0), (0.1, 1), (0.3, 2), (0.35, 3), (0.45, 0), (9, 0), (9.1, 1), (9.35, 3)]
        for (time, index) in cases { #expect(picture.frame(at: time).index == index, "at \(time) s") }
        let once = try decode(ImageFixtures.gif(width: 8, height: 8, palette: palette, frames: frames, loops: nil))
        #expect(once.plays == 1)
        #expect(once.frame(at: 0.45).untilNext == nil)
        #expect(once.frame(at: 7).index == 3)
    }

    @Test func aTruncatedGIFGivesGiflibsReason() {
        let data = ImageFixtures.gif(width: 8, height: 8, palette: palette, frames: frames)
        let error = failure(Array(data.prefix(data.count - 12)))
        #expect(error?.kind == .corrupt)
        #expect(error?.message.hasPrefix("GIF: giflib says ") == true, "\(String(describing: error))")
        #expect(error?.message.contains("truncated") == true, "\(String(describing: error))")
    }
}

@Suite struct SVGTests {
    static let document = Array(
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50">
          <rect x="0" y="0" width="100" height="50" fill="#204080"/>
          <circle cx="25" cy="25" r="20" fill="#ffcc00"/>
          <path d="M55 45 L75 5 L95 45 Z" fill="white" stroke="black" stroke-width="2"/>
        </svg>
        """.utf8)

    @Test func drawsAtItsSizeOrTheSizeShown() throws {
        let natural = try decode(Self.document)
        #expect((natural.frames[0].width, natural.frames[0].height) == (100, 50))
        #expect(natural.naturalSize == Size(width: 100, height: 50))
        #expect(natural.scaling == .vector)
        try GoldenImage.expectMatches(natural.frames[0], named: "svg-1x", in: references)
        let double = try decode(Self.document, fitting: TargetSize(width: 200, height: 100))
        #expect((double.frames[0].width, double.frames[0].height) == (200, 100))
        #expect(double.naturalSize == Size(width: 100, height: 50))
        try GoldenImage.expectMatches(double.frames[0], named: "svg-2x", in: references)
        // Sharp: the circle's edge is one or two pixels wide at 2×, not blurred by upscaling.
        #expect(pixel(double.frames[0], 50, 50) == 0xFFFF_CC00 && pixel(double.frames[0], 50, 8) == 0xFF20_4080)
    }

    @Test func aViewBoxAloneGivesTheSize() throws {
        let picture = try decode(Array(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20"><rect width="30" height="20" fill="red"/></svg>"#.utf8))
        #expect(picture.naturalSize == Size(width: 30, height: 20))
        #expect(pixel(picture.frames[0], 15, 10) == red)
    }

    @Test func aBrokenDocumentGivesLibrsvgsReason() {
        let error = failure(Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="3" "#.utf8))
        #expect(error?.kind == .corrupt)
        #expect(error?.message.hasPrefix("SVG: librsvg cannot read the document: ") == true, "\(String(describing: error))")
    }
}

@Suite struct PNGThroughTheDecoderTests {
    @Test func aTruncatedPNGGivesLibpngsReason() throws {
        let data = try ImageFixtures.quadrants(width: 64, height: 64).pngData()
        let error = failure(Array(data.prefix(data.count - 30)))
        #expect(error?.kind == .corrupt)
        #expect(error?.message.hasPrefix("PNG: ") == true, "\(String(describing: error))")
    }
}

/// An SVG whose size no integer holds (found by fuzz-image) is probed and refused for its
/// size instead of crashing the daemon.
@Suite struct HugeSVGTests {
    @Test func anSVGBeyondAnyIntegerSizeIsRefused() throws {
        let svg = Array(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="6999999999999999999999999999999999999" viewBox="0 0 8 6"><rect width="8" height="6"/></svg>"#
                .utf8)
        let probe = try ImageDecoder.probe(svg)
        #expect(probe.width == 8 && probe.height == Int(Int32.max), "\(probe)")
        #expect(failure(svg)?.kind == .tooLarge)
    }
}
