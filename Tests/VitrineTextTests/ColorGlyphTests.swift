import Foundation
import Testing
import VitrineRaster
import VitrineTestSupport
@testable import VitrineText

/// Colour glyphs: Noto Color Emoji's CBDT bitmaps, the COLR v0/v1 and sbix test fonts
/// made by `Fonts/make-color-test-font.py`, emoji sequences and the cache's bounds.
@Suite struct ColorGlyphTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let references = directory.appendingPathComponent("References")

    static func testFont(_ name: String, in library: FontLibrary) throws -> FontFace {
        try library.face(path: directory.appendingPathComponent("Fonts/\(name).ttf").path)
    }

    /// The glyphs `text` is set in, with their faces.
    static func glyphs(_ text: String, size: Double = 32, in library: FontLibrary) throws -> [PositionedGlyph] {
        try TextLayout(text, style: TextStyle(fontSize: size), library: library).lines.flatMap(\.glyphs)
    }

    /// `mask`'s colour image on white, with a margin, for looking at and comparing.
    static func onWhite(_ masks: [GlyphMask], size: Int) -> Surface {
        let surface = Surface(width: size * masks.count + 8, height: size * 3 / 2 + 8)
        surface.clear(.white)
        for (i, mask) in masks.enumerated() {
            guard let image = mask.image else { continue }
            surface.composite(image, x: 4 + i * size + mask.left, y: 4 + size - mask.top)
        }
        return surface
    }

    @Test(arguments: ["😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "1️⃣", "❤️", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "🧑🏿‍🚀"])
    func emojiSequenceIsOneColourGlyph(_ sequence: String) throws {
        let library = try fonts()
        let glyphs = try Self.glyphs(sequence, in: library)
        #expect(glyphs.count == 1, "\(glyphs.map(\.glyphID))")
        let glyph = try #require(glyphs.first)
        #expect(glyph.face.familyName == "Noto Color Emoji")
        #expect(glyph.face.isColorGlyph(glyph.glyphID))
        let mask = library.glyphCache.mask(face: glyph.face, size64: 32 * 64, glyph: glyph.glyphID, subpixel: 0)
        #expect(mask.isColor)
        #expect((26...40).contains(mask.width) && (26...40).contains(mask.height), "\(mask.width)x\(mask.height)")
    }

    @Test func textAroundAnEmojiKeepsTheTextFace() throws {
        let library = try fonts()
        let glyphs = try Self.glyphs("a😀 b ❤ 1", in: library)
        #expect(
            glyphs.map(\.face.familyName) == [
                "DejaVu Sans", "Noto Color Emoji", "DejaVu Sans", "DejaVu Sans", "DejaVu Sans", "DejaVu Sans", "DejaVu Sans", "DejaVu Sans",
            ])
    }

    @Test func notoEmojiAtFourSizes() throws {
        let library = try fonts()
        let face = try #require(Self.glyphs("😀", in: library).first).face
        for size in [16, 32, 48, 96] {
            let masks = ["😀", "🎉", "👍🏽", "🇯🇵"].map { text in
                let glyph = try! #require(try! Self.glyphs(text, in: library).first)
                return library.glyphCache.mask(face: face, size64: size * 64, glyph: glyph.glyphID, subpixel: 0)
            }
            try GoldenImage.expectMatches(Self.onWhite(masks, size: size + size / 4), named: "noto-emoji-\(size)", in: Self.references)
        }
    }

    @Test func colrGlyphsDrawThroughOurRasterizer() throws {
        let library = try fonts()
        let face = try Self.testFont("VitrineColorTest", in: library)
        #expect(face.hasColorGlyphs)
        let masks = (0xE000...0xE005).map { code in
            library.glyphCache.mask(face: face, size64: 48 * 64, glyph: face.glyphIndex(for: Unicode.Scalar(code)!), subpixel: 0)
        }
        #expect(masks.allSatisfy { $0.isColor })
        let image = Self.onWhite(masks, size: 56)
        try GoldenImage.expectMatches(image, named: "colr-glyphs-48", in: Self.references)
        // The v0 glyph: a red square with a blue triangle over it.
        let v0 = try #require(masks[0].image)
        #expect(v0.pixel(x: 1, y: 1) == PremultipliedColor(straightRed: 255, green: 0, blue: 0, alpha: 255))
        let blue = v0.pixel(x: v0.width / 2, y: v0.height - 4)
        #expect(blue.red == 0 && (76...77).contains(blue.green) && blue.blue == 255)
    }

    @Test func sbixBitmapIsScaled() throws {
        let library = try fonts()
        let face = try Self.testFont("VitrineSbixTest", in: library)
        let glyph = face.glyphIndex(for: "\u{E000}")
        let exact = library.glyphCache.mask(face: face, size64: 20 * 64, glyph: glyph, subpixel: 0)
        let image = try #require(exact.image)
        #expect(image.width == 20 && image.height == 20 && exact.left == 0 && exact.top == 16)
        #expect(image.pixel(x: 2, y: 2) == PremultipliedColor(straightRed: 255, green: 0, blue: 0, alpha: 255))
        #expect(image.pixel(x: 17, y: 17).alpha == 128)
        let doubled = library.glyphCache.mask(face: face, size64: 40 * 64, glyph: glyph, subpixel: 0)
        #expect(doubled.width == 40 && doubled.height == 40 && doubled.top == 32)
        #expect(doubled.image?.pixel(x: 30, y: 5) == PremultipliedColor(straightRed: 0, green: 160, blue: 0, alpha: 255))
    }

    @Test func colourGlyphsCountTheirBytesWithinTheCacheBounds() throws {
        let library = try fonts()
        let face = try #require(Self.glyphs("😀", in: library).first).face
        let cache = GlyphCache(capacity: 1000, byteLimit: 100_000)
        var rendered = 0
        for code in 0x1F600...0x1F61F {
            let glyph = face.glyphIndex(for: Unicode.Scalar(code)!)
            let mask = cache.mask(face: face, size64: 64 * 64, glyph: glyph, subpixel: 0)
            // 64 px emoji: about 64 × 64 pixels of 4 bytes plus their 1-byte alpha.
            #expect(mask.byteCount >= 60 * 60 * 5)
            rendered += mask.byteCount
            #expect(cache.byteCount <= 100_000)
        }
        #expect(rendered > 500_000)
        #expect(cache.count < 8)
        // A glyph too big for a quarter of the cache is drawn smaller, not kept at any size.
        let huge = cache.mask(face: face, size64: 2000 * 64, glyph: face.glyphIndex(for: "😀"), subpixel: 0)
        #expect(huge.byteCount <= 32_000 && huge.width > 40, "\(huge.byteCount) bytes, \(huge.width) px")
    }
}
