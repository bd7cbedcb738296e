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
    /// strong character (Hebrew or Arabic letter: right to left).
    public var direction: TextDirection?

    public init(
        font: FontDescriptor = FontDescriptor(), fontSize: Double = 36, features: [FontFeature] = [],
        alignment: TextAlignment = .natural, isWrapped: Bool = false, truncation: TruncationMode = .none,
        direction: TextDirection? = nil
    ) {
        self.font = font
        self.fontSize = fontSize
        self.features = features
        self.alignment = alignment
        self.isWrapped = isWrapped
        self.truncation = truncation
        self.direction = direction
    }
}
