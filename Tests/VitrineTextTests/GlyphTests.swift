import Testing
@testable import VitrineText

@Suite struct GlyphTests {
    @Test func capitalIInMonoIsAVerticalBar() throws {
        let library = try fonts()
        let mono = try face("DejaVu Sans Mono", in: library)
        let glyph = mono.glyphIndex(for: "I")
        let mask = library.glyphCache.mask(face: mono, size64: 40 * 64, glyph: glyph, subpixel: 0)
        // Cap height of DejaVu Sans Mono is 0.73 em: about 29 px at 40 px.
        #expect((27...31).contains(mask.height))
        #expect(mask.top == mask.height)  // sits on the baseline
        #expect(mask.width < 20)
        let fullColumns = (0..<mask.width).filter { x in
            (0..<mask.height).filter { mask[x, $0] == 255 }.count >= mask.height - 2
        }
        #expect(fullColumns.count >= 2)
        // The middle of the stem is inked all the way down; the corners beside it are empty.
        let middleRow = mask.height / 2
        let rowInk = (0..<mask.width).filter { mask[$0, middleRow] > 128 }.count
        #expect(rowInk <= 6)
        #expect(mask[0, middleRow] == 0 && mask[mask.width - 1, middleRow] == 0)
    }

    @Test func subpixelOffsetShiftsTheCoverage() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let glyph = sans.glyphIndex(for: "l")
        func centroid(_ m: GlyphMask) -> Double {
            var sum = 0.0, weight = 0.0
            for y in 0..<m.height { for x in 0..<m.width { sum += Double(x + m.left) * Double(m[x, y]); weight += Double(m[x, y]) } }
            return sum / weight
        }
        let base = library.glyphCache.mask(face: sans, size64: 30 * 64, glyph: glyph, subpixel: 0)
        let half = library.glyphCache.mask(face: sans, size64: 30 * 64, glyph: glyph, subpixel: 2)
        #expect(abs(centroid(half) - centroid(base) - 0.5) < 0.1)
    }

    @Test func cacheReturnsTheSameMaskAndIsBounded() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let cache = GlyphCache(capacity: 8)
        let a = sans.glyphIndex(for: "a")
        let first = cache.mask(face: sans, size64: 20 * 64, glyph: a, subpixel: 0)
        #expect(cache.mask(face: sans, size64: 20 * 64, glyph: a, subpixel: 0) === first)
        #expect(cache.mask(face: sans, size64: 20 * 64, glyph: a, subpixel: 1) !== first)
        #expect(cache.mask(face: sans, size64: 21 * 64, glyph: a, subpixel: 0) !== first)
        #expect(cache.hits == 1 && cache.misses == 3)
        for letter in "bcdefghijklmnop".unicodeScalars {
            _ = cache.mask(face: sans, size64: 20 * 64, glyph: sans.glyphIndex(for: letter), subpixel: 0)
            _ = cache.mask(face: sans, size64: 20 * 64, glyph: a, subpixel: 0)  // keep "a" recent
        }
        #expect(cache.count == 8)
        #expect(cache.mask(face: sans, size64: 20 * 64, glyph: a, subpixel: 0) === first)
        let b = GlyphCache.Key(faceID: sans.id, size64: 20 * 64, glyph: sans.glyphIndex(for: "b"), subpixel: 0)
        #expect(cache.cachedMask(for: b) == nil)
    }

    @Test func cacheIsBoundedInBytes() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let cache = GlyphCache(capacity: 1000, byteLimit: 20_000)
        for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars {
            _ = cache.mask(face: sans, size64: 60 * 64, glyph: sans.glyphIndex(for: letter), subpixel: 0)
        }
        #expect(cache.byteCount <= 20_000)
        #expect(cache.count < 26)
    }

    @Test func spaceHasNoInk() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        #expect(library.glyphCache.mask(face: sans, size64: 2560, glyph: sans.glyphIndex(for: " "), subpixel: 0).isEmpty)
    }
}
