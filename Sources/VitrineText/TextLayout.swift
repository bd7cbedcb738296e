import VitrineCore

/// A glyph placed in a layout. Coordinates are y-down, from the layout box's top-left.
public struct PositionedGlyph {
    /// The face the glyph comes from.
    public let face: FontFace
    /// The glyph's index in `face`.
    public let glyphID: UInt32
    /// The pen position: where the glyph's origin sits horizontally.
    public let x: Double
    /// The baseline under the glyph (plus any mark offset), down positive.
    public let y: Double
    /// The index, in the text's Unicode scalars, of the first character the glyph shows;
    /// an ellipsis from truncation takes the index where the text was cut.
    public let cluster: Int
    /// The glyph's style, an index into `TextLayout.styleSizes` (0 for plain text).
    public let style: Int
    /// How far the pen moves after the glyph (letter spacing included).
    public let advance: Double

    /// A glyph of `face` with its pen at (`x`, `y`).
    public init(face: FontFace, glyphID: UInt32, x: Double, y: Double, cluster: Int, style: Int = 0, advance: Double = 0) {
        self.face = face
        self.glyphID = glyphID
        self.x = x
        self.y = y
        self.cluster = cluster
        self.style = style
        self.advance = advance
    }

    /// `x` quantized to the glyph cache's subpixel steps: whole pixels and the remaining
    /// quarter pixels (0…3).
    public var pixelPosition: (x: Int, subpixel: Int, y: Int) {
        let steps = GlyphCache.subpixelSteps
        let quarters = Int((x * Double(steps)).rounded())
        let whole = quarters >= 0 ? quarters / steps : (quarters - steps + 1) / steps
        return (whole, quarters - whole * steps, Int(y.rounded()))
    }
}

/// One line of a layout.
public struct TextLine {
    /// The text's scalars this line shows, trailing spaces excluded (before truncation).
    public let range: Range<Int>
    /// The baseline, down from the layout's top.
    public let baseline: Double
    /// How far the line reaches above its baseline (its top is `baseline - ascent`).
    public let ascent: Double
    /// How far the line reaches below its baseline.
    public let descent: Double
    /// The line's left edge after alignment.
    public let x: Double
    /// The advance width of the line's glyphs (with justification).
    public let width: Double
    /// The direction of the line's paragraph.
    public let direction: TextDirection
    /// True when "…" stands for text that did not fit.
    public let isTruncated: Bool
    /// The glyphs, left to right on screen.
    public let glyphs: [PositionedGlyph]
}

/// A text set in lines for a width: what a text layer draws.
///
/// ```swift
/// let fonts = try FontLibrary()
/// let layout = try TextLayout("Hello, world", style: TextStyle(fontSize: 24, alignment: .center),
///                             width: 300, library: fonts)
/// layout.forEachGlyph { mask, x, y in blit(mask, at: x, y) }
/// ```
///
/// Lines stack from the top of the box: the first line's top (its ascent above the
/// baseline) is at y = 0, and lines are `lineHeight` apart, taken from the primary face's
/// ascender, descender and line gap (fallback faces on a line do not change it).
public struct TextLayout {
    /// The text laid out.
    public let string: String
    public let style: TextStyle
    /// The width lines wrap, truncate and align in; nil lays out without a limit and
    /// aligns in the widest line.
    public let width: Double?
    /// The font the style resolved to.
    public let font: ResolvedFont
    /// The primary face's metrics at the font size.
    public let metrics: FontMetrics
    public let lines: [TextLine]
    /// The text's size: the widest line by the lines' total height.
    public let size: Size
    /// The runs of an attributed text (empty for plain text): what `glyph.cluster`s
    /// are coloured and decorated by.
    public let runs: [AttributedRun]
    /// The pixel size of each glyph style (`PositionedGlyph.style`).
    public let styleSizes: [Double]
    /// `styleSizes` in 1/64 px, as the glyph cache takes them.
    private let sizes64: [Int]
    /// For each scalar, its run's index in `runs` (empty for plain text).
    let runOfScalar: [Int]
    let spans: StyleSpans
    let glyphCache: GlyphCache

    /// The distance between baselines.
    public var lineHeight: Double { metrics.lineHeight }

    /// Lays out `string`.
    /// - Parameters:
    ///   - style: the font size is clamped to 0…`maximumFontSize`.
    ///   - width: the box width; nil (or not finite) for no limit: no wrapping or
    ///     truncation.
    ///   - height: the box height. With wrapping and a truncation mode, the lines that fit
    ///     in it are kept and the last of them ends with "…" when text is left over.
    ///   - library: where faces and glyph masks come from.
    public init(
        _ string: String, style: TextStyle = TextStyle(), width: Double? = nil, height: Double? = nil,
        library: FontLibrary
    ) throws(TextError) {
        try self.init(string, runs: [], style: style, width: width, height: height, library: library)
    }

    /// Lays out an attributed text: its runs' fonts, sizes, features, letter spacing and
    /// rise; runs that change only colours or decorations lay out as plain text.
    public init(
        _ text: AttributedText, style: TextStyle = TextStyle(), width: Double? = nil, height: Double? = nil,
        library: FontLibrary
    ) throws(TextError) {
        try self.init(text.string, runs: text.runs, style: style, width: width, height: height, library: library)
    }

    private init(
        _ string: String, runs: [AttributedRun], style: TextStyle, width: Double?, height: Double?, library: FontLibrary
    ) throws(TextError) {
        var style = style
        style.fontSize = style.fontSize.isFinite ? min(max(0, style.fontSize), maximumFontSize) : 0
        let width = width.flatMap { $0.isFinite ? max(0, $0) : nil }
        let height = height.flatMap { $0.isFinite ? max(0, $0) : nil }
        self.string = string
        self.style = style
        self.width = width
        font = try library.font(for: style.font)
        metrics = font.primary.metrics(size: style.fontSize)
        glyphCache = library.glyphCache
        self.runs = runs
        runOfScalar = Self.runIndex(runs)
        let shaping = runs.contains { $0.attributes.affectsLayout }
        spans =
            shaping
            ? try StyleSpans(AttributedText(string: string, runs: runs), style: style, library: library)
            : StyleSpans(
                SpanStyle(font: font, size: style.fontSize, features: style.features, letterSpacing: style.letterSpacing, rise: 0))
        styleSizes = spans.styles.map(\.size)
        sizes64 = styleSizes.map { Int(($0 * 64).rounded()) }

        let scalars = Array(string.unicodeScalars)
        // Tabs are set as spaces (there are no tab stops); fonts have no glyph for them.
        let codepoints = scalars.map { $0 == "\t" ? 0x20 : $0.value }
        var setter = LineSetter(
            scalars: scalars, codepoints: codepoints, spans: spans, style: style, width: width)
        for range in LineBreaking.paragraphs(scalars) { setter.add(paragraph: range) }
        if let height, style.isWrapped, style.truncation != .none, width != nil, metrics.lineHeight > 0 {
            setter.limit(toLines: max(1, Int(min(1e9, (height + 1e-6) / metrics.lineHeight))))
        }
        lines = setter.finish(metrics: metrics)
        let textHeight = spans.index.isEmpty ? Double(lines.count) * metrics.lineHeight : lines.last.map { $0.baseline + $0.descent } ?? 0
        size = Size(width: lines.map(\.width).max() ?? 0, height: textHeight)
    }

    /// Calls `body` for every glyph with ink, with its cached coverage mask and the
    /// integer position of the mask's top-left pixel in the layout's space. Glyphs are
    /// placed at quarter-pixel horizontal precision (the mask is rendered shifted) and
    /// whole-pixel vertical precision.
    public func forEachGlyph(_ body: (_ mask: GlyphMask, _ x: Int, _ y: Int) throws -> Void) rethrows {
        try forEachGlyph { mask, x, y, _ in try body(mask, x, y) }
    }

    /// The same, with each glyph's first character (an index into the text's scalars),
    /// for attributed texts whose runs colour glyphs differently.
    public func forEachGlyph(_ body: (_ mask: GlyphMask, _ x: Int, _ y: Int, _ cluster: Int) throws -> Void) rethrows {
        guard sizes64.contains(where: { $0 > 0 }) else { return }
        for line in lines {
            for glyph in line.glyphs {
                let size64 = sizes64[glyph.style]
                guard size64 > 0 else { continue }
                let p = glyph.pixelPosition
                let mask = glyphCache.mask(face: glyph.face, size64: size64, glyph: glyph.glyphID, subpixel: p.subpixel)
                if mask.isEmpty { continue }
                try body(mask, p.x + mask.left, p.y - mask.top, glyph.cluster)
            }
        }
    }

    /// The union of the glyph masks' pixels, in the layout's space; `Rect.null` when
    /// nothing has ink. Useful for damage and for clipping a layer's drawing.
    public var inkBounds: Rect {
        var bounds = Rect.null
        forEachGlyph { mask, x, y in
            bounds = bounds.union(Rect(x: Double(x), y: Double(y), width: Double(mask.width), height: Double(mask.height)))
        }
        return bounds
    }
}
