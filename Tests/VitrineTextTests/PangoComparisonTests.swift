import Testing
@testable import VitrineText

/// Layouts held to Pango's (PangoCairo over HarfBuzz, FriBidi and libthai) with the same
/// font files and size: the same line breaks, and every glyph at the same place within
/// 1/64 px.
@Suite(.serialized) struct PangoComparisonTests {
    /// A glyph with its position: x from the layout's left, y from its line's baseline.
    struct Placed: CustomStringConvertible {
        var glyph: UInt32
        var x: Double
        var y: Double
        var description: String { "\(glyph)@\((x * 64).rounded() / 64),\((y * 64).rounded() / 64)" }
    }

    /// Lays `text` out with Vitrine and with Pango and compares lines and glyphs; spaces
    /// are left out (Pango keeps a zero-width glyph for a space a line ends with, Vitrine
    /// none), their advances show in the glyphs after them.
    func compare(
        _ text: String, family: String, size: Double = 20, width: Double, letterSpacing: Double = 0,
        language: String = "en", direction: TextDirection? = nil, tolerance: Double = 1.0 / 64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let scalars = Array(text.unicodeScalars)
        let style = TextStyle(
            font: FontDescriptor(family: family), fontSize: size, isWrapped: true, direction: direction,
            language: language, letterSpacing: letterSpacing)
        let ours = try TextLayout(text, style: style, width: width, library: fonts())
        let pango = PangoReference().lines(
            text, family: family, size: size, width: width, letterSpacing: letterSpacing, language: language,
            direction: direction.map { $0 == .rightToLeft })
        let ourStarts = ours.lines.map(\.range.lowerBound)
        let theirStarts = pango.map(\.start)
        #expect(ourStarts == theirStarts, "line starts", sourceLocation: sourceLocation)
        guard ourStarts == theirStarts else { return }
        for (line, reference) in zip(ours.lines, pango) {
            let a = line.glyphs.filter { !scalars[$0.cluster].properties.isWhitespace }
                .map { Placed(glyph: $0.glyphID, x: $0.x, y: $0.y - line.baseline) }
            let baseline = reference.glyphs.first.map { $0.y } ?? 0
            let b = reference.glyphs.filter { !scalars[$0.cluster].properties.isWhitespace }
                .map { Placed(glyph: $0.glyph, x: $0.x, y: $0.y - baseline) }
            #expect(a.map(\.glyph) == b.map(\.glyph), "glyphs of line at \(line.range)", sourceLocation: sourceLocation)
            guard a.count == b.count else { continue }
            let worst = zip(a, b).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max() ?? 0
            #expect(worst <= tolerance, "line at \(line.range): \(a) vs Pango \(b)", sourceLocation: sourceLocation)
        }
    }

    @Test func latinWithKerningAndLigatures() throws {
        try compare(
            "AVATAR Wave To Yesterday, “Täglich” office 1,234.56 — WAVY Type/Face (fi) final.", family: "DejaVu Serif",
            width: 260)
        try compare("Yesterday's AWAY team, Too Vivid; LT Ty Va", family: "DejaVu Sans", size: 31, width: 300)
    }

    @Test func arabicWithJoiningAndMixedDirection() throws {
        try compare("مرحبا بالعالم hello world 123 مرحبا بكم في المحطة رقم ٤٥ (القاهرة)", family: "DejaVu Sans", width: 260, language: "ar")
        try compare("Departure: القاهرة 14:35 → الإسكندرية", family: "DejaVu Sans", width: 600, language: "ar")
    }

    @Test func hebrewWithNumbers() throws {
        try compare("שלום עולם 123.45 ₪ ביום 2024-12-03 (אבג) abc def, רציף 7!", family: "DejaVu Sans", width: 220, language: "he")
        try compare("מחיר: 1,234.50 ₪ – 20% הנחה", family: "DejaVu Sans", width: 600, language: "he")
    }

    @Test func forcedDirection() throws {
        try compare("abc שלום 12 def", family: "DejaVu Sans", width: 400, direction: .rightToLeft)
        try compare("שלום abc 12", family: "DejaVu Sans", width: 400, direction: .leftToRight)
    }

    @Test func devanagariConjuncts() throws {
        try compare("नमस्ते दुनिया क्षत्रिय द्वार स्त्री हिन्दी भाषा में पाठ", family: "Lohit Devanagari", width: 200, language: "hi")
    }

    @Test func thaiBreaksBetweenWordsWithoutSpaces() throws {
        try compare("สวัสดีชาวโลกภาษาไทยไม่มีช่องว่างระหว่างคำรถไฟขบวนนี้จะออกเวลาสิบโมง", family: "Garuda", width: 180, language: "th")
    }

    @Test func chineseAndJapaneseBreakBetweenCharacters() throws {
        try compare("中文文本没有空格，标点符号不能出现在行首。日本語の文章もそうです。", family: "WenQuanYi Micro Hei", width: 170, language: "zh-CN")
        try compare("次の電車は「東京」行きです。", family: "WenQuanYi Micro Hei", width: 120, language: "ja")
    }

    @Test func letterSpacingAsPango() throws {
        try compare("Letter spacing office AVA", family: "DejaVu Sans", width: 600, letterSpacing: 3)
        try compare("Spaced out text wraps by words like Pango's", family: "DejaVu Serif", width: 240, letterSpacing: 2.5)
        try compare("Tight", family: "DejaVu Sans", width: 600, letterSpacing: -1)
    }
}
