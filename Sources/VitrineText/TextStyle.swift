/// How lines sit horizontally in the layout width (CATextLayer's alignmentMode).
public enum TextAlignment: String, CaseIterable, Hashable, Sendable {
    /// Left for a left-to-right paragraph, right for a right-to-left one.
    case natural
    case left
    case right
    case center
    /// Lines of a wrapped paragraph stretch to the width by widening spaces; the last line
    /// of each paragraph aligns naturally.
    case justified
}

/// Where text that does not fit the width is cut and replaced by "…"
/// (CATextLayer's truncationMode).
public enum TruncationMode: String, CaseIterable, Hashable, Sendable {
    /// Lines overflow the width.
    case none
    /// "…" replaces the start: "…the end".
    case start
    /// "…" replaces the middle: "The b…end".
    case middle
    /// "…" replaces the end: "The begi…".
    case end
}

/// Everything about how a text is set, apart from the text and the box.
public struct TextStyle: Hashable, Sendable {
    /// The font asked for; missing characters come from fallback faces.
    public var font: FontDescriptor
    /// Pixels per em.
    public var fontSize: Double
    /// OpenType features for every run (kerning and ligatures are on by default).
    public var features: [FontFeature]
    public var alignment: TextAlignment
    /// Wrap lines at the layout width; hard line breaks always start a new line.
    public var isWrapped: Bool
    public var truncation: TruncationMode
    /// Forces every paragraph's base direction; nil takes it from the paragraph's first
    /// strong character outside isolates (UAX #9 P2–P3), and a paragraph without one
    /// takes the direction of the paragraph before it (the first: left to right), as in
    /// Pango.
    public var direction: TextDirection?
    /// The text's language as a BCP 47 tag ("ar", "zh-Hant", "sr-Latn"): shaping picks the
    /// language's forms and line breaking its rules. nil takes the process locale.
    public var language: String?
    /// Extra space between grapheme clusters, in pixels (negative tightens). Ligatures
    /// are off when it is not 0; letters of joining scripts (Arabic, Syriac, …) keep
    /// their joins and take no spacing.
    public var letterSpacing: Double

    public init(
        font: FontDescriptor = FontDescriptor(), fontSize: Double = 36, features: [FontFeature] = [],
        alignment: TextAlignment = .natural, isWrapped: Bool = false, truncation: TruncationMode = .none,
        direction: TextDirection? = nil, language: String? = nil, letterSpacing: Double = 0
    ) {
        self.font = font
        self.fontSize = fontSize
        self.features = features
        self.alignment = alignment
        self.isWrapped = isWrapped
        self.truncation = truncation
        self.direction = direction
        self.language = language
        self.letterSpacing = letterSpacing
    }
}
