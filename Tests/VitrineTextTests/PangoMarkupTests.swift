import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineTestSupport
@testable import VitrineText

/// Attributed strings held to Pango given the same markup (without Vitrine's `name`
/// attribute, which Pango refuses): the same line breaks, baselines and glyph positions
/// within 1/64 px, and the same pixels for backgrounds, underlines and strike-throughs.
@Suite(.serialized) struct PangoMarkupTests {
    static let menu =
        "<b>Grilled salmon</b> with herbs <span name=\"price\" foreground=\"#c00000\" font_features=\"tnum\">24.50</span>"
    static let mixed =
        "Departure <span font_family=\"DejaVu Serif\" size=\"18pt\">14:35</span> to <i>Lyon Part-Dieu</i> from platform <span size=\"10pt\" weight=\"bold\">7</span>, <span letter_spacing=\"3072\">spaced out</span> and on time."
    static let decorated =
        "<u>Underlined</u> and <s>struck</s>, <span underline=\"double\">double</span>, <span background=\"#ffd000\">highlighted <b>bold</b></span> <span underline=\"low\">low</span>."
    static let risen = "E = mc<span rise=\"6000\" size=\"10pt\">2</span> and CO<span rise=\"-3000\" size=\"10pt\">2</span> <span rise=\"4pt\">up</span>"
    static let figures = "<span font_features=\"tnum\">1111.11 4</span> <span font_features=\"smcp, -liga\">fine Small Caps</span>"
    static let arabic =
        "<b>السعر</b>: <span foreground=\"#008000\" name=\"price\">١٢٫٥</span> price <i>مرحبا بكم</i> world <span font_family=\"DejaVu Serif\">القاهرة</span> end"

    /// `markup` without the `name` attributes Pango does not know.
    static func forPango(_ markup: String) -> String {
        markup.replacing(#/ name="[^"]*"/#, with: "")
    }

    func layout(_ markup: String, family: String, size: Double, width: Double, language: String) throws -> TextLayout {
        let style = TextStyle(font: FontDescriptor(family: family), fontSize: size, isWrapped: true, language: language)
        return try TextLayout(AttributedText(parsing: markup), style: style, width: width, library: fonts())
    }

    func compare(
        _ markup: String, family: String = "DejaVu Sans", size: Double = 20, width: Double, language: String = "en",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let ours = try layout(markup, family: family, size: size, width: width, language: language)
        let scalars = Array(ours.string.unicodeScalars)
        let pango = PangoReference().lines(Self.forPango(markup), family: family, size: size, width: width, language: language, markup: true)
        #expect(ours.lines.map(\.range.lowerBound) == pango.map(\.start), "line starts", sourceLocation: sourceLocation)
        guard ours.lines.count == pango.count else { return }
        for (line, reference) in zip(ours.lines, pango) {
            #expect(
                abs(line.baseline - reference.baseline) <= 1.0 / 64, "baseline \(line.baseline) vs Pango \(reference.baseline)", sourceLocation: sourceLocation)
            let a = line.glyphs.filter { !scalars[$0.cluster].properties.isWhitespace }
            let b = reference.glyphs.filter { !scalars[$0.cluster].properties.isWhitespace }
            #expect(a.map(\.glyphID) == b.map(\.glyph), "glyphs of line at \(line.range)", sourceLocation: sourceLocation)
            guard a.count == b.count else { continue }
            let worst = zip(a, b).map { max(abs($0.x - $1.x), abs($0.y - $1.y)) }.max() ?? 0
            #expect(
                worst <= 1.0 / 64, "line at \(line.range): \(a.map { ($0.x, $0.y) }) vs Pango \(b.map { ($0.x, $0.y) })",
                sourceLocation: sourceLocation)
        }
    }

    @Test func menuLineWithBoldDishAndColouredPrice() throws {
        try compare(Self.menu, width: 500)
        try compare(Self.menu, width: 150)
    }

    @Test func mixedFontsSizesAndSpacingWrapLikePango() throws {
        try compare(Self.mixed, width: 260)
        try compare(Self.mixed, family: "DejaVu Serif", size: 17, width: 330)
    }

    @Test func decorationsDoNotMoveGlyphs() throws {
        try compare(Self.decorated, width: 300)
    }

    @Test func riseMovesBaselinesAndLines() throws {
        try compare(Self.risen, width: 400)
        try compare(Self.risen, width: 120)
    }

    @Test func openTypeFeatures() throws {
        try compare(Self.figures, family: "DejaVu Serif", width: 500)
    }

    @Test func arabicAndLatinRuns() throws {
        try compare(Self.arabic, width: 600, language: "ar")
        try compare(Self.arabic, width: 200, language: "ar")
    }

    /// The decorated and coloured texts drawn by both on white: away from glyphs (where
    /// Pango's cairo places glyphs at whole pixels and Vitrine at quarter pixels) every
    /// pixel within 2/255, and the glyphs' ink (each channel, over every glyph's box) within 2 % of Pango's.
    @Test(arguments: [("decorated", decorated), ("menu", menu), ("risen", risen), ("arabic", arabic)])
    func pixelsLikePango(name: String, markup: String) throws {
        let (width, height) = (420, 120)
        let layout = try layout(markup, family: "DejaVu Sans", size: 20, width: Double(width), language: "ar")
        let surface = Surface(width: width, height: height)
        surface.clear(.white)
        RichTextPainter(layout: layout, foregroundColor: .black).draw(on: surface, x: 0, y: 0)
        let cairo = PangoReference().render(Self.forPango(markup), family: "DejaVu Sans", size: 20, width: width, height: height, markup: true)
        let reference = Surface(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let argb = UInt32(cairo[i + 3]) << 24 | UInt32(cairo[i + 2]) << 16 | UInt32(cairo[i + 1]) << 8 | UInt32(cairo[i])
                reference.setPixel(x: x, y: y, PremultipliedColor(argb: argb)!)
            }
        }
        try surface.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("rich-\(name)-ours.png").path)
        try reference.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("rich-\(name)-pango.png").path)
        var glyphBoxes: [PixelRect] = []
        layout.forEachGlyph { mask, x, y in
            glyphBoxes.append(PixelRect(x: x - 1, y: y - 1, width: mask.width + 2, height: mask.height + 2))
        }
        var worst = 0
        var worstAt = (0, 0)
        for y in 0..<height {
            for x in 0..<width where !glyphBoxes.contains(where: { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }) {
                let d = Self.difference(surface.pixel(x: x, y: y), reference.pixel(x: x, y: y))
                if d > worst { (worst, worstAt) = (d, (x, y)) }
            }
        }
        #expect(worst <= 2, "\(name): \(worst)/255 at \(worstAt) away from glyphs")
        var (ours, theirs) = ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
        for box in glyphBoxes {
            for (k, (a, b)) in zip(Self.ink(surface, box), Self.ink(reference, box)).enumerated() {
                ours[k] += a
                theirs[k] += b
            }
        }
        #expect(zip(ours, theirs).allSatisfy { abs($0 - $1) <= 0.02 * max($0, $1) }, "\(name): glyph ink \(ours) vs Pango \(theirs)")
    }

    static func difference(_ a: PremultipliedColor, _ b: PremultipliedColor) -> Int {
        max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)))
    }

    /// The ink per channel (255 minus the value, summed) in `box`.
    static func ink(_ s: Surface, _ box: PixelRect) -> [Double] {
        var sums = [0.0, 0.0, 0.0]
        for y in max(0, box.y)..<min(s.height, box.y + box.height) {
            for x in max(0, box.x)..<min(s.width, box.x + box.width) {
                let p = s.pixel(x: x, y: y)
                sums[0] += 255 - Double(p.red)
                sums[1] += 255 - Double(p.green)
                sums[2] += 255 - Double(p.blue)
            }
        }
        return sums
    }
}
