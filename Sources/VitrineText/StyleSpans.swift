import CHarfBuzz

/// What shapes and places a stretch of text: its font, size, features, letter spacing and
/// rise. Runs that differ only in colour or decoration share one.
struct SpanStyle {
    let font: ResolvedFont
    let size: Double
    let features: [FontFeature]
    let letterSpacing: Double
    /// Pixels the baseline is raised.
    let rise: Double

    /// The primary face's metrics at the size.
    var metrics: FontMetrics { font.primary.metrics(size: size) }

    /// True when the two shape the same text the same way.
    func shapesLike(_ other: SpanStyle) -> Bool {
        font === other.font && size == other.size && features == other.features && letterSpacing == other.letterSpacing
            && rise == other.rise
    }
}

/// The styles of a text's scalars: one for plain text, one per distinct shaping style
/// for an attributed text.
struct StyleSpans {
    let styles: [SpanStyle]
    /// The style of each scalar; empty when `styles` has one style, without rise, for the
    /// whole text: lines then take the layout's line height.
    let index: [Int]

    /// One style for every scalar.
    init(_ style: SpanStyle) {
        styles = [style]
        index = []
    }

    init(styles: [SpanStyle], index: [Int]) {
        self.styles = styles
        self.index = styles.count > 1 || styles[0].rise != 0 ? index : []
    }

    /// The runs of `text` resolved against the layer's `style`: fonts looked up, sizes
    /// scaled and clamped, features added to the layer's.
    init(_ text: AttributedText, style: TextStyle, library: FontLibrary) throws(TextError) {
        var styles: [SpanStyle] = []
        var index = [Int](repeating: 0, count: text.string.unicodeScalars.count)
        var fonts: [FontDescriptor: ResolvedFont] = [:]
        for run in text.runs {
            let a = run.attributes
            let descriptor = FontDescriptor(
                family: a.family ?? style.font.family, weight: a.weight ?? style.font.weight, style: a.style ?? style.font.style)
            let font: ResolvedFont
            if let f = fonts[descriptor] {
                font = f
            } else {
                font = try library.font(for: descriptor)
                fonts[descriptor] = font
            }
            let size = min(maximumFontSize, max(0, (a.size ?? style.fontSize) * (a.sizeScale ?? 1)))
            let span = SpanStyle(
                font: font, size: size.isFinite ? size : 0, features: style.features + (a.features ?? []),
                letterSpacing: a.letterSpacing ?? style.letterSpacing, rise: a.rise ?? 0)
            let k: Int
            if let found = styles.firstIndex(where: { $0.shapesLike(span) }) {
                k = found
            } else {
                k = styles.count
                styles.append(span)
            }
            for i in run.range { index[i] = k }
        }
        if styles.isEmpty {
            styles.append(
                SpanStyle(
                    font: try library.font(for: style.font), size: style.fontSize, features: style.features,
                    letterSpacing: style.letterSpacing, rise: 0))
        }
        self.init(styles: styles, index: index)
    }

    /// The style of the scalar `i`.
    @inline(__always) func style(at i: Int) -> Int { index.isEmpty ? 0 : index[i] }

    /// The spans of a text made of the scalars `map` of this one.
    func remapped(_ map: [Int]) -> StyleSpans {
        index.isEmpty ? self : StyleSpans(styles: styles, index: map.map { index[min($0, index.count - 1)] })
    }
}
