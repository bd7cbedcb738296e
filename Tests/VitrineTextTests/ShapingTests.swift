import Testing
@testable import VitrineText

@Suite struct ShapingTests {
    @Test func avIsKerned() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let kerned = Shaper.shape("AV", face: sans, size: 100)
        let plain = Shaper.shape("AV", face: sans, size: 100, features: [.noKerning])
        #expect(kerned.glyphs.count == 2)
        #expect(kerned.advance < plain.advance - 1)
    }

    @Test func ffiLigatesInDejaVuSerif() throws {
        let library = try fonts()
        let serif = try face("DejaVu Serif", in: library)
        try #require(serif.hasFeature("liga"), "DejaVu Serif has no liga feature")
        let ligated = Shaper.shape("ffi", face: serif, size: 40)
        let separate = Shaper.shape("ffi", face: serif, size: 40, features: [.noLigatures])
        #expect(separate.glyphs.count == 3)
        #expect(ligated.glyphs.count < 3)
        #expect(ligated.glyphs.allSatisfy { $0.cluster == 0 } || ligated.glyphs.count == 2)
    }

    @Test func tabularDigitsHaveEqualWidths() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let run = Shaper.shape("0123456789", face: sans, size: 50, features: [.tabularNumbers])
        let widths = Set(run.glyphs.map(\.xAdvance))
        #expect(run.glyphs.count == 10)
        #expect(widths.count == 1)
        // DejaVu Sans draws tabular digits already (it has no tnum feature), so this only
        // guards that asking for tnum keeps them so; the next test shows features apply.
        #expect(try FontFeature(parsing: "tnum") == .tabularNumbers)
        #expect(try FontFeature(parsing: "-kern") == .noKerning)
        #expect(throws: TextError.self) { try FontFeature(parsing: "=") }
    }

    @Test func featuresReachTheShaper() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        // Stylistic alternates (off by default) swap DejaVu Sans's "l" for a tailed one.
        let plain = Shaper.shape("l", face: sans, size: 40).glyphs[0].glyphID
        let alternate = Shaper.shape("l", face: sans, size: 40, features: [try FontFeature(parsing: "salt")])
        #expect(alternate.glyphs[0].glyphID != plain)
        #expect(Shaper.shape("l", face: sans, size: 40, features: [FontFeature("salt", 0)]).glyphs[0].glyphID == plain)
    }

    @Test func arabicIsRightToLeftWithContextualForms() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let word = "مرحبا"
        let run = Shaper.shape(word, face: sans, size: 40)
        #expect(run.direction == .rightToLeft)
        #expect(run.script == "Arab")
        #expect(run.glyphs.count == 5)
        // Visual order: the first glyph on the left is the last letter.
        #expect(run.glyphs.map(\.cluster) == [4, 3, 2, 1, 0])
        let isolated = word.unicodeScalars.map { Shaper.shape(String($0), face: sans, size: 40).glyphs[0].glyphID }
        let inWord = run.glyphs.reversed().map(\.glyphID)
        let differing = zip(isolated, inWord).filter { $0 != $1 }.count
        // م initial, ر final, ح initial, ب medial, ا final: all five join.
        #expect(differing >= 4)
        #expect(!inWord.contains(0))
    }

    @Test func hebrewIsRightToLeft() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let run = Shaper.shape("שלום", face: sans, size: 40)
        #expect(run.direction == .rightToLeft)
        #expect(run.script == "Hebr")
        #expect(run.glyphs.map(\.cluster) == [3, 2, 1, 0])
        #expect(!run.glyphs.contains { $0.glyphID == 0 })
    }

    @Test func bidiLevelsOfMixedText() {
        let mixed = BidiLevels(Array("abc שלום 12 def".unicodeScalars))
        #expect(mixed.paragraphLevel == 0)
        // Letters: Latin 0, Hebrew 1; the space between Hebrew and the digits is neutral
        // between R and a number (counted as R), so it is 1; the digits after Hebrew are 2.
        #expect(Array(mixed.levels[0..<3]) == [0, 0, 0])
        #expect(Array(mixed.levels[4..<8]) == [1, 1, 1, 1])
        #expect(Array(mixed.levels[9..<11]) == [2, 2])
        #expect(mixed.levels[12] == 0)
        let rtl = BidiLevels(Array("שלום abc".unicodeScalars))
        #expect(rtl.paragraphLevel == 1)
        #expect(Array(rtl.levels) == [1, 1, 1, 1, 1, 2, 2, 2])
        #expect(visualOrder(levels: [0, 1, 1, 2, 0]) == [0, 3, 2, 1, 4])
    }
}
