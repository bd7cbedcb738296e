import Testing
import VitrineCore
@testable import VitrineText

private let paragraph = """
    Vitrine shows kiosk scenes on a plain Linux box. Scripts talk to it over a socket, \
    and every change animates the way Core Animation would animate it, so a script author \
    who knows CALayer guesses right.
    """

private func layout(
    _ text: String, width: Double?, height: Double? = nil, size: Double = 20, alignment: TextAlignment = .left,
    wrapped: Bool = false, truncation: TruncationMode = .none, family: String = "DejaVu Sans",
    library: FontLibrary
) throws -> TextLayout {
    let style = TextStyle(
        font: FontDescriptor(family: family), fontSize: size, alignment: alignment, isWrapped: wrapped,
        truncation: truncation)
    return try TextLayout(text, style: style, width: width, height: height, library: library)
}

@Suite struct LayoutTests {
    @Test func wrapsIntoLinesNoWiderThanTheWidth() throws {
        let library = try fonts()
        let l = try layout(paragraph, width: 300, wrapped: true, library: library)
        #expect(l.lines.count >= 4)
        for line in l.lines {
            #expect(line.width <= 300 + 1e-6)
            #expect(line.glyphs.allSatisfy { $0.x >= -1e-6 && $0.x <= 300 })
        }
        // Every word is on some line, in order, and lines break at spaces.
        let scalars = Array(paragraph.unicodeScalars)
        let text = l.lines.map { String(String.UnicodeScalarView(scalars[$0.range])) }.joined(separator: " ")
        #expect(text == paragraph)
        for (a, b) in zip(l.lines, l.lines.dropFirst()) {
            #expect(b.baseline - a.baseline == l.lineHeight)
        }
        #expect(l.lines[0].baseline == l.metrics.ascent)
        #expect(l.size.height == Double(l.lines.count) * l.lineHeight)
        #expect(l.size.width <= 300)
        // Without wrapping it is one long line.
        let one = try layout(paragraph, width: 300, library: library)
        #expect(one.lines.count == 1)
        #expect(one.lines[0].width > 300)
    }

    @Test func lineHeightComesFromTheFont() throws {
        let library = try fonts()
        let l = try layout("a\nb\n\nc", width: nil, size: 20, library: library)
        #expect(l.lines.count == 4)
        // DejaVu Sans: ascender 1901, descender −483, 2048 units per em, no line gap.
        #expect(abs(l.lineHeight - (1901.0 + 483.0) / 2048 * 20) < 1e-9)
        #expect(l.lines[2].glyphs.isEmpty)
    }

    @Test func longWordsBreakBetweenLetters() throws {
        let library = try fonts()
        let l = try layout("Donaudampfschifffahrtsgesellschaft", width: 100, wrapped: true, library: library)
        #expect(l.lines.count >= 3)
        #expect(l.lines.allSatisfy { $0.width <= 100 + 1e-6 && !$0.glyphs.isEmpty })
    }

    @Test func alignmentsPlaceLines() throws {
        let library = try fonts()
        let width = 320.0
        let left = try layout(paragraph, width: width, alignment: .left, wrapped: true, library: library)
        let right = try layout(paragraph, width: width, alignment: .right, wrapped: true, library: library)
        let center = try layout(paragraph, width: width, alignment: .center, wrapped: true, library: library)
        let justified = try layout(paragraph, width: width, alignment: .justified, wrapped: true, library: library)
        for i in left.lines.indices {
            let w = left.lines[i].width
            #expect(left.lines[i].x == 0)
            #expect(left.lines[i].glyphs.first!.x >= 0 && left.lines[i].glyphs.first!.x < 1)
            #expect(abs(right.lines[i].x + right.lines[i].width - width) < 1e-9)
            #expect(abs(center.lines[i].x - (width - w) / 2) < 1e-9)
            let isLast = i == left.lines.count - 1
            #expect(abs(justified.lines[i].width - (isLast ? w : width)) < 1e-6)
            #expect(justified.lines[i].x == 0)
        }
        #expect(right.lines.contains { $0.x > 5 })
    }

    @Test func truncationAtTheEnd() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let ellipsis = sans.glyphIndex(for: "…")
        let l = try layout(paragraph, width: 200, truncation: .end, library: library)
        let line = try #require(l.lines.first)
        #expect(l.lines.count == 1)
        #expect(line.isTruncated)
        #expect(line.width <= 200 + 1e-6)
        #expect(line.width > 150)
        #expect(line.glyphs.last?.glyphID == ellipsis)
        #expect(line.glyphs.first?.glyphID == sans.glyphIndex(for: "V"))
        #expect(line.glyphs.filter { $0.glyphID == ellipsis }.count == 1)
    }

    @Test func truncationAtTheStart() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let ellipsis = sans.glyphIndex(for: "…")
        let l = try layout(paragraph, width: 200, truncation: .start, library: library)
        let line = try #require(l.lines.first)
        #expect(line.isTruncated && line.width <= 200 + 1e-6 && line.width > 150)
        #expect(line.glyphs.first?.glyphID == ellipsis)
        #expect(line.glyphs.last?.glyphID == sans.glyphIndex(for: "."))
    }

    @Test func truncationInTheMiddle() throws {
        let library = try fonts()
        let sans = try face("DejaVu Sans", in: library)
        let ellipsis = sans.glyphIndex(for: "…")
        let l = try layout(paragraph, width: 200, truncation: .middle, library: library)
        let line = try #require(l.lines.first)
        #expect(line.isTruncated && line.width <= 200 + 1e-6 && line.width > 150)
        let at = try #require(line.glyphs.firstIndex { $0.glyphID == ellipsis })
        let ellipsisX = line.glyphs[at].x
        #expect(abs(ellipsisX - 100) < 25)
        #expect(line.glyphs.first?.glyphID == sans.glyphIndex(for: "V"))
        #expect(line.glyphs.last?.glyphID == sans.glyphIndex(for: "."))
    }

    @Test func shortTextIsNotTruncated() throws {
        let library = try fonts()
        let l = try layout("Short", width: 200, truncation: .end, library: library)
        #expect(!l.lines[0].isTruncated)
        #expect(l.lines[0].glyphs.count == 5)
    }

    @Test func wrappedTextTruncatesTheLastLineThatFits() throws {
        let library = try fonts()
        let full = try layout(paragraph, width: 300, wrapped: true, library: library)
        let height = full.lineHeight * 2.5
        let l = try layout(paragraph, width: 300, height: height, wrapped: true, truncation: .end, library: library)
        #expect(l.lines.count == 2)
        #expect(!l.lines[0].isTruncated)
        #expect(l.lines[1].isTruncated)
        #expect(l.lines[1].width <= 300 + 1e-6)
        let sans = try face("DejaVu Sans", in: library)
        #expect(l.lines[1].glyphs.last?.glyphID == sans.glyphIndex(for: "…"))
    }

    @Test func naturalAlignmentOfRightToLeftParagraphIsRight() throws {
        let library = try fonts()
        let l = try layout("שלום עולם", width: 400, alignment: .natural, library: library)
        let line = l.lines[0]
        #expect(line.direction == .rightToLeft)
        #expect(abs(line.x + line.width - 400) < 1e-9)
        let ltr = try layout("Hello", width: 400, alignment: .natural, library: library)
        #expect(ltr.lines[0].x == 0)
    }

    @Test func mixedDirectionRunsAreReordered() throws {
        let library = try fonts()
        let l = try layout("abc שלום def", width: nil, library: library)
        let clusters = l.lines[0].glyphs.map(\.cluster)
        #expect(clusters == [0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11])
        let xs = l.lines[0].glyphs.map(\.x)
        #expect(xs == xs.sorted())
        let rtl = try layout("שלום abc", width: nil, library: library)
        #expect(rtl.lines[0].glyphs.map(\.cluster) == [5, 6, 7, 4, 3, 2, 1, 0])
    }

    @Test func hebrewAndArabicFallBackFromFacesWithoutThem() throws {
        let library = try fonts()
        let mono = try layout("Hi שלום", width: nil, family: "DejaVu Sans Mono", library: library)
        #expect(Set(mono.lines[0].glyphs.map { ObjectIdentifier($0.face) }).count == 2)
        #expect(!mono.lines[0].glyphs.contains { $0.glyphID == 0 })
        let l = try layout("Hi مرحبا", width: nil, family: "DejaVu Serif", library: library)
        let faces = Set(l.lines[0].glyphs.map { ObjectIdentifier($0.face) })
        #expect(faces.count == 2)
        #expect(!l.lines[0].glyphs.contains { $0.glyphID == 0 })
    }

    @Test func forEachGlyphGivesMasksInsideTheLayout() throws {
        let library = try fonts()
        let l = try layout("Hello, world", width: nil, size: 30, library: library)
        var count = 0
        l.forEachGlyph { mask, x, y in
            count += 1
            #expect(x >= -1 && x + mask.width <= Int(l.size.width) + 2)
            #expect(y >= 0 && y + mask.height <= Int(l.size.height.rounded(.up)))
        }
        #expect(count == 11)  // the space has no ink
        #expect(!l.inkBounds.isNull)
    }

    @Test func layoutOutlivesItsLibrary() throws {
        var library: FontLibrary? = try fonts()
        let l = try layout("Hi", width: nil, library: library!)
        library = nil
        // Resolving a character the layout has not seen yet still works.
        #expect(l.font.face(for: "ש").hasGlyph(for: "ש"))
        var count = 0
        l.forEachGlyph { _, _, _ in count += 1 }
        #expect(count == 2)
    }

    @Test func hiddenParagraphsEndTheLastLineWithAnEllipsis() throws {
        let library = try fonts()
        let l = try layout("One\nTwo\nThree", width: 300, height: 50, wrapped: true, truncation: .end, library: library)
        #expect(l.lines.count == 2)
        let sans = try face("DejaVu Sans", in: library)
        #expect(l.lines[1].isTruncated)
        #expect(l.lines[1].glyphs.map(\.glyphID) == "Two…".unicodeScalars.map { sans.glyphIndex(for: $0) })
    }

    @Test func tabsAreSpaces() throws {
        let library = try fonts()
        let tab = try layout("a\tb", width: nil, library: library)
        let space = try layout("a b", width: nil, library: library)
        #expect(tab.lines[0].width == space.lines[0].width)
        #expect(!tab.lines[0].glyphs.contains { $0.glyphID == 0 })
    }

    @Test func degenerateSizesDoNotTrap() throws {
        let library = try fonts()
        for size in [0, -5, .nan, .infinity, 1e12] {
            for width in [0, -1, .nan, .infinity, 1e9] as [Double] {
                let l = try layout(
                    paragraph, width: width, height: 1, size: size, alignment: .right, wrapped: true,
                    truncation: .middle, library: library)
                if l.style.fontSize < 100 { l.forEachGlyph { _, _, _ in } }
                #expect(l.style.fontSize <= maximumFontSize)
            }
        }
    }

    @Test func emptyTextHasNoLines() throws {
        let library = try fonts()
        let l = try layout("", width: 100, library: library)
        #expect(l.lines.isEmpty && l.size == .zero)
    }

    @Test func wordsAndGraphemesAreNotSplitAtCuts() throws {
        let library = try fonts()
        // A decomposed "é" (e + combining acute) is one grapheme: a long word breaks
        // around it, never between the letter and its accent.
        let word = String(repeating: "e\u{301}", count: 30)
        let l = try layout(word, width: 60, wrapped: true, library: library)
        #expect(l.lines.count > 1)
        let scalars = Array(word.unicodeScalars)
        for line in l.lines {
            #expect(scalars[line.range.lowerBound] == "e")
        }
        let cut = try layout(word, width: 60, truncation: .end, library: library)
        #expect(cut.lines[0].isTruncated)
        // The ellipsis, last on the line, stands where the text was cut: before an "e".
        #expect(try #require(cut.lines[0].glyphs.last).cluster % 2 == 0)
    }

    @Test func thaiWrapsBetweenWords() throws {
        let library = try fonts()
        // สวัสดี | ชาว | โลก: no spaces, libthai's dictionary finds the words.
        let l = try layout("สวัสดีชาวโลก", width: 60, size: 20, wrapped: true, family: "Garuda", library: library)
        let scalars = Array("สวัสดีชาวโลก".unicodeScalars)
        let words = l.lines.map { String(String.UnicodeScalarView(scalars[$0.range])) }
        #expect(words.count >= 2)
        #expect(words.allSatisfy { ["สวัสดี", "ชาว", "โลก", "ชาวโลก", "สวัสดีชาว"].contains($0) }, "\(words)")
    }

    @Test func flagsWrapInPairsAndNoncharactersDoNotAbort() throws {
        // libunibreak 1.1 aborts on regional indicators and U+FFFF: they must reach it as
        // stand-ins, and a line may start between two flags but never inside one.
        let library = try fonts()
        let text = "🇫🇷🇧🇷🇩🇪🇯🇵🇺🇸🇬🇧 ok \u{FFFF} end"
        let l = try layout(text, width: 60, size: 20, wrapped: true, library: library)
        let scalars = Array(text.unicodeScalars)
        #expect(l.lines.count > 1)
        let flagStarts = l.lines.dropFirst().map(\.range.lowerBound).filter { (0x1F1E6...0x1F1FF).contains(scalars[$0].value) }
        #expect(!flagStarts.isEmpty)
        #expect(flagStarts.allSatisfy { $0 % 2 == 0 }, "a line starts inside a flag: \(flagStarts)")
    }

    @Test func languageTagsChangeShaping() throws {
        // Serbian and Macedonian Cyrillic have their own forms of б, г, д, п, т in italic
        // fonts and in DejaVu's locl feature.
        let library = try fonts()
        let russian = try TextLayout("бгдпт", style: TextStyle(fontSize: 20, language: "ru"), library: library)
        let serbian = try TextLayout("бгдпт", style: TextStyle(fontSize: 20, language: "sr"), library: library)
        #expect(russian.lines[0].glyphs.map(\.glyphID) != serbian.lines[0].glyphs.map(\.glyphID))
    }

    @Test func letterSpacingLeavesArabicJoinsAlone() throws {
        let library = try fonts()
        let word = "مرحبا"
        let plain = try TextLayout(word, style: TextStyle(fontSize: 30), library: library)
        let spaced = try TextLayout(word, style: TextStyle(fontSize: 30, letterSpacing: 8), library: library)
        #expect(spaced.lines[0].glyphs.map(\.glyphID) == plain.lines[0].glyphs.map(\.glyphID))
        #expect(spaced.lines[0].glyphs.map(\.x) == plain.lines[0].glyphs.map(\.x))
        // Latin around it is spaced: half of 8 px on each side of "a", "b", "c" and the
        // space, but none before the line's first letter.
        let mixed = try TextLayout("abc " + word, style: TextStyle(fontSize: 30, letterSpacing: 8), library: library)
        let mixedPlain = try TextLayout("abc " + word, style: TextStyle(fontSize: 30), library: library)
        #expect(abs(mixed.lines[0].width - mixedPlain.lines[0].width - 3.5 * 8) < 1e-9)
    }
}
