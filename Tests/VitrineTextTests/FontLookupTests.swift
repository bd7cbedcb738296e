import Testing
@testable import VitrineText

@Suite struct FontLookupTests {
    @Test func findsDejaVuSansAndMono() throws {
        let library = try fonts()
        let sans = try library.font(for: FontDescriptor(family: "DejaVu Sans"))
        #expect(sans.primary.familyName == "DejaVu Sans")
        #expect(sans.primary.path.hasSuffix("DejaVuSans.ttf"))
        #expect(!sans.isFallback)
        let mono = try library.font(for: FontDescriptor(family: "dejavu sans mono"))
        #expect(mono.primary.familyName == "DejaVu Sans Mono")
        #expect(!mono.isFallback)
    }

    @Test func findsBoldAndItalic() throws {
        let library = try fonts()
        let bold = try library.font(for: FontDescriptor(family: "DejaVu Sans", weight: .bold)).primary
        #expect(bold.path.hasSuffix("DejaVuSans-Bold.ttf"))
        #expect(bold.styleName == "Bold")
        let italic = try library.font(for: FontDescriptor(family: "DejaVu Serif", style: .italic)).primary
        #expect(italic.path.hasSuffix("DejaVuSerif-Italic.ttf"))
        let named = try library.font(for: FontDescriptor(parsing: "DejaVu Sans Mono:bold:oblique")).primary
        #expect(named.path.hasSuffix("DejaVuSansMono-BoldOblique.ttf"))
    }

    @Test func missingFamilyFallsBackToDefault() throws {
        let library = try fonts()
        let font = try library.font(for: FontDescriptor(family: "No Such Family 42", weight: .bold))
        #expect(font.isFallback)
        #expect(font.primary.familyName == FontLibrary.defaultFamily)
        #expect(font.primary.styleName == "Bold")
    }

    @Test func genericFamiliesAreHonoured() throws {
        let library = try fonts()
        let mono = try library.font(for: FontDescriptor(family: "monospace"))
        #expect(mono.primary.familyName == "DejaVu Sans Mono")
        #expect(!mono.isFallback)
        let serif = try library.font(for: FontDescriptor(family: "serif", weight: .bold))
        #expect(serif.primary.path.hasSuffix("DejaVuSerif-Bold.ttf"))
        // CATextLayer's default family is not installed here: DejaVu Sans stands in.
        let helvetica = try library.font(for: FontDescriptor(family: "Helvetica"))
        #expect(helvetica.isFallback && helvetica.primary.familyName == "DejaVu Sans")
    }

    @Test func facesAreCachedByPathAndIndex() throws {
        let library = try fonts()
        let a = try library.font(for: FontDescriptor(family: "DejaVu Sans")).primary
        let b = try library.face(path: a.path, index: 0)
        let c = try library.font(for: FontDescriptor(family: "Missing Family")).primary
        #expect(a === b)
        #expect(a === c)
        #expect(library.openFaceCount == 1)
    }

    @Test func perCharacterFallback() throws {
        let library = try fonts()
        let mono = try library.font(for: FontDescriptor(family: "DejaVu Sans Mono"))
        // DejaVu Sans Mono has no Hebrew letters; DejaVu Sans does.
        #expect(!mono.primary.hasGlyph(for: "ש"))
        let hebrew = mono.face(for: "ש")
        #expect(hebrew !== mono.primary)
        #expect(hebrew.familyName == "DejaVu Sans")
        // DejaVu Serif has no Arabic letters.
        let serif = try library.font(for: FontDescriptor(family: "DejaVu Serif"))
        #expect(!serif.primary.hasGlyph(for: "م"))
        #expect(serif.face(for: "م").hasGlyph(for: "م"))
        #expect(mono.face(for: "a") === mono.primary)
        // No font has an unassigned code point: the primary face stands in and draws .notdef.
        #expect(mono.face(for: "\u{0378}") === mono.primary)
        #expect(mono.primary.glyphIndex(for: "\u{0378}") == 0)
    }

    @Test func badInputsSayWhatFailed() throws {
        let library = try fonts()
        #expect(throws: TextError.self) { try library.face(path: "/nonexistent/font.ttf") }
        do {
            _ = try library.face(path: "/etc/hostname")
            Issue.record("a text file opened as a font")
        } catch {
            #expect(error.message.contains("/etc/hostname"))
        }
        #expect(throws: TextError.cannotAddFontDirectory(path: "/nonexistent/fonts")) {
            try library.addFontDirectory("/nonexistent/fonts")
        }
        #expect(throws: TextError.self) { try FontDescriptor(parsing: "DejaVu Sans:wobbly") }
    }

    @Test func extraFontDirectory() throws {
        let library = try fonts()
        try library.addFontDirectory("/usr/share/fonts/truetype/dejavu")
        #expect(try library.font(for: FontDescriptor(family: "DejaVu Serif")).primary.familyName == "DejaVu Serif")
    }

    @Test func weightNames() throws {
        #expect(FontWeight(name: "SemiBold") == .semibold)
        #expect(FontWeight(name: "extra-light") == .extraLight)
        #expect(FontWeight(name: "650")?.rawValue == 650)
        #expect(FontWeight(name: "1200") == nil)
        let d = try FontDescriptor(parsing: "DejaVu Serif:600:italic")
        #expect(d == FontDescriptor(family: "DejaVu Serif", weight: .semibold, style: .italic))
        #expect(try FontDescriptor(parsing: d.description) == d)
    }

    @Test(arguments: ["DejaVu Sans", " DejaVu Sans", "DejaVu Sans\t", "\u{A0}DejaVu Sans\u{2003}"])
    func spaceAroundAFamilyIsNotPartOfIt(name: String) throws {
        #expect(try FontDescriptor(parsing: name) == FontDescriptor(family: "DejaVu Sans"))
    }

    @Test func aFamilyMayStartAndEndWithAnyLetter() throws {
        #expect(try FontDescriptor(parsing: "Ärger Grotesk É").family == "Ärger Grotesk É")
        #expect(try FontDescriptor(parsing: "源ノ角ゴシック").family == "源ノ角ゴシック")
    }
}
