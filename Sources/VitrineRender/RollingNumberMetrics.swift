import VitrineText

/// What a rolling number's drawing needs from its font, kept between frames: a frame of
/// a roll then only reads the columns' positions, instead of parsing the font, shaping
/// the resting text and looking up every glyph again.
///
/// One per (font, size). It holds the `TextStyle` the number is shaped with (`tnum` asked
/// for), each character's glyph, advance and masks (shaped alone, as a column's
/// character is), and the resting metrics of each text the columns came to rest on.
final class RollingNumberFont {
    let style: TextStyle
    /// The style's size in 1/64 px, as the glyph cache takes it.
    let size64: Int
    private let library: FontLibrary

    /// A character shaped alone: its first glyph, and the width of its line.
    final class Shaped {
        let glyph: PositionedGlyph?
        let advance: Double?
        /// Masks by subpixel offset, filled as they are first drawn.
        private var masks: [GlyphMask?] = Array(repeating: nil, count: GlyphCache.subpixelSteps)

        init(glyph: PositionedGlyph?, advance: Double?) {
            self.glyph = glyph
            self.advance = advance
        }

        /// The mask of the glyph at `subpixel` quarter pixels, from `font`'s glyph cache.
        func mask(subpixel: Int, font: RollingNumberFont) -> GlyphMask {
            guard let glyph else { return .empty }
            if let mask = masks[subpixel] { return mask }
            let mask = font.library.glyphCache.mask(face: glyph.face, size64: font.size64, glyph: glyph.glyphID, subpixel: subpixel)
            masks[subpixel] = mask
            return mask
        }
    }

    /// The text the columns rest on, shaped whole.
    struct Rest {
        /// Each character's advance, from the right (column order).
        let advances: [Double]
        let lineHeight: Double
        let baseline: Double
    }

    private var ascii: [Shaped?] = Array(repeating: nil, count: 128)
    private var others: [Character: Shaped] = [:]
    private var rests: [String: Rest] = [:]
    private static let restCapacity = 512

    /// The font `font` at `fontSize` px (clamped to 0…4096); nil when `font` does not parse.
    init?(font: String, fontSize: Double, library: FontLibrary) {
        guard let descriptor = try? FontDescriptor(parsing: font) else { return nil }
        var style = TextStyle(font: descriptor, fontSize: min(4096, max(0, fontSize)), alignment: .left)
        style.features = [FontFeature("tnum", 1)]
        self.style = style
        size64 = Int((style.fontSize * 64).rounded())
        self.library = library
    }

    /// `c` shaped alone (a character without glyphs has neither glyph nor advance).
    func shaped(_ c: Character) -> Shaped {
        if let code = c.asciiValue {
            if let hit = ascii[Int(code)] { return hit }
            let shaped = shape(c)
            ascii[Int(code)] = shaped
            return shaped
        }
        if let hit = others[c] { return hit }
        let shaped = shape(c)
        if others.count >= 256 { others.removeAll(keepingCapacity: true) }
        others[c] = shaped
        return shaped
    }

    private func shape(_ c: Character) -> Shaped {
        let line = layout(String(c))?.lines.first
        return Shaped(glyph: line?.glyphs.first, advance: line?.width)
    }

    /// The resting metrics of `text`; nil when it cannot be laid out.
    func rest(_ text: String) -> Rest? {
        if let hit = rests[text] { return hit }
        guard let layout = layout(text) else { return nil }
        let glyphs = layout.lines.first?.glyphs ?? []
        var advances: [Double] = []
        advances.reserveCapacity(glyphs.count)
        for (i, g) in glyphs.enumerated().reversed() {
            advances.append((i + 1 < glyphs.count ? glyphs[i + 1].x : layout.lines[0].width + layout.lines[0].x) - g.x)
        }
        let rest = Rest(advances: advances, lineHeight: layout.lineHeight, baseline: layout.lines.first?.baseline ?? layout.lineHeight * 0.8)
        if rests.count >= Self.restCapacity { rests.removeAll(keepingCapacity: true) }
        rests[text] = rest
        return rest
    }

    private func layout(_ text: String) -> TextLayout? {
        try? TextLayout(text, style: style, width: nil, height: nil, library: library)
    }
}
