import VitrineCore

/// How a run is underlined (Pango's `underline` values that Vitrine draws).
public enum UnderlineStyle: String, Hashable, Sendable, CaseIterable {
    case none, single, double, low
}

/// What a run sets; nil takes the layer's own property (its `font`, `fontSize`,
/// `foregroundColor`, `letterSpacing`) or nothing (no background, no decoration).
public struct RunAttributes: Hashable, Sendable {
    public var family: String?
    public var weight: FontWeight?
    public var style: FontStyle?
    /// Pixels per em.
    public var size: Double?
    /// A factor on the size (from `<big>`, `<small>`, `size="120%"`), applied after `size`.
    public var sizeScale: Double?
    public var foregroundColor: Color?
    public var backgroundColor: Color?
    public var underline: UnderlineStyle?
    public var strikethrough: Bool?
    /// How far the run's baseline is raised, in pixels (negative lowers).
    public var rise: Double?
    /// Pixels between grapheme clusters.
    public var letterSpacing: Double?
    /// OpenType features, added to the layer's.
    public var features: [FontFeature]?
    /// The name key paths address the run by (`runs.NAME.foregroundColor`).
    public var name: String?

    public init() {}

    /// `self` with the attributes `inner` sets laid over it (an inner span of markup).
    func merged(with inner: RunAttributes) -> RunAttributes {
        var m = self
        m.family = inner.family ?? family
        m.weight = inner.weight ?? weight
        m.style = inner.style ?? style
        m.size = inner.size ?? size
        if let scale = inner.sizeScale { m.sizeScale = (sizeScale ?? 1) * scale }
        m.foregroundColor = inner.foregroundColor ?? foregroundColor
        m.backgroundColor = inner.backgroundColor ?? backgroundColor
        m.underline = inner.underline ?? underline
        m.strikethrough = inner.strikethrough ?? strikethrough
        if let rise = inner.rise { m.rise = (self.rise ?? 0) + rise }
        m.letterSpacing = inner.letterSpacing ?? letterSpacing
        if let f = inner.features { m.features = (features ?? []) + f }
        m.name = inner.name ?? name
        return m
    }

    /// True when the attributes change glyphs or their places, not only colours.
    var affectsLayout: Bool {
        family != nil || weight != nil || style != nil || size != nil || sizeScale != nil || rise != nil
            || letterSpacing != nil || features != nil
    }
}

/// A stretch of an attributed text with its attributes.
public struct AttributedRun: Hashable, Sendable {
    /// The run's Unicode scalars, as indices into the text's `unicodeScalars`.
    public var range: Range<Int>
    public var attributes: RunAttributes

    public init(range: Range<Int>, attributes: RunAttributes) {
        self.range = range
        self.attributes = attributes
    }
}

/// A text with runs of attributes: a text layer's `attributedString`, read from Pango
/// markup or from a JSON list of runs.
///
/// ```swift
/// let menu = try AttributedText(parsing: "<b>Soup</b> <span name='price' foreground='#c00'>4.50</span>")
/// menu.string            // "Soup 4.50"
/// menu.runs.count        // 3: "Soup", " ", "4.50"
/// ```
public struct AttributedText: Hashable, Sendable {
    /// The plain text.
    public let string: String
    /// Runs in order, covering the text without gaps (runs without attributes included).
    public let runs: [AttributedRun]

    /// A text and its runs; scalars no run covers take no attributes.
    public init(string: String, runs: [AttributedRun]) {
        self.string = string
        let count = string.unicodeScalars.count
        var filled: [AttributedRun] = []
        var at = 0
        for run in runs where !run.range.isEmpty && run.range.lowerBound >= at && run.range.upperBound <= count {
            if run.range.lowerBound > at { filled.append(AttributedRun(range: at..<run.range.lowerBound, attributes: RunAttributes())) }
            if let last = filled.last, last.attributes == run.attributes, last.range.upperBound == run.range.lowerBound {
                filled[filled.count - 1].range = last.range.lowerBound..<run.range.upperBound
            } else {
                filled.append(run)
            }
            at = run.range.upperBound
        }
        if at < count { filled.append(AttributedRun(range: at..<count, attributes: RunAttributes())) }
        self.runs = filled
    }

    /// Reads `text` as a JSON list of runs when it starts with `[`, else as Pango markup.
    /// Throws an error naming the place and what to write instead.
    public init(parsing text: String) throws(AttributedTextError) {
        if text.utf8.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x09 && $0 != 0x0D }) == UInt8(ascii: "[") {
            self = try RunsJSON.parse(text)
        } else {
            self = try Markup.parse(text)
        }
    }

    /// The text with its runs' sizes, rises and letter spacings multiplied by `factor`
    /// (a layer drawn scaled).
    public func scaled(by factor: Double) -> AttributedText {
        guard factor != 1 else { return self }
        return AttributedText(
            string: string,
            runs: runs.map { run in
                var a = run.attributes
                a.size = a.size.map { $0 * factor }
                a.rise = a.rise.map { $0 * factor }
                a.letterSpacing = a.letterSpacing.map { $0 * factor }
                return AttributedRun(range: run.range, attributes: a)
            })
    }

    /// The names of the named runs, each once, in order.
    public var names: [String] {
        var seen: Set<String> = []
        return runs.compactMap(\.attributes.name).filter { seen.insert($0).inserted }
    }

    /// True when no run changes glyphs or their places: the text lays out as plain text.
    var isLayoutPlain: Bool { runs.allSatisfy { !$0.attributes.affectsLayout } }
}

/// Why an attributed string was refused: where, and what to write instead.
public struct AttributedTextError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
