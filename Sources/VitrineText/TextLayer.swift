import VitrineCore
import VitrineFormat

/// The text layer kind: CATextLayer's properties on top of CALayer's.
public enum TextLayer {
    /// CATextLayer's properties with its defaults, except `font`: CA's Helvetica is
    /// replaced by `FontLibrary.defaultFamily`. `font` takes `FontDescriptor`'s short
    /// form ("DejaVu Sans:bold:italic"). Colour and size animate; the rest switch.
    /// `template`, when not empty, replaces `string`: it is drawn every frame with its
    /// `{key}` placeholders filled from the layer's custom properties' presentation
    /// values (see `TextTemplate`), so animating a custom property animates the text.
    /// `language` (a BCP 47 tag, empty for the layer's `locale`) guides shaping and line
    /// breaking; `direction` (`auto`, `ltr`, `rtl`) sets the paragraphs' base direction;
    /// `letterSpacing` (pixels, animatable) spaces grapheme clusters.
    /// `attributedString`, when not empty, replaces `string` and `template`: Pango markup
    /// or a JSON list of runs (`AttributedText`) whose runs set fonts, colours and
    /// decorations over the layer's own; a named run's colours animate through the custom
    /// key paths `runs.NAME.foregroundColor` and `runs.NAME.backgroundColor`.
    public static let textLayerKind = kind()

    /// The text kind whose layers that name no `font` take `defaultFamily`
    /// (`[fonts] default_family`).
    public static func kind(defaultFamily: String = FontLibrary.defaultFamily) -> LayerKind {
        LayerKind(
            name: "text",
            extraProperties: [
                PropertyDescriptor("string", .string(""), animatable: false, check: lengthProblem),
                PropertyDescriptor("font", .string(defaultFamily), animatable: false),
                PropertyDescriptor("fontSize", .number(36), range: 0...maximumFontSize),
                PropertyDescriptor("foregroundColor", .color(.white), aliases: ["textColor"]),
                PropertyDescriptor(
                    "alignmentMode", .string(TextAlignment.natural.rawValue), animatable: false,
                    allowed: TextAlignment.allCases.map(\.rawValue)),
                PropertyDescriptor("isWrapped", .bool(false), animatable: false),
                PropertyDescriptor(
                    "truncationMode", .string(TruncationMode.none.rawValue), animatable: false,
                    allowed: TruncationMode.allCases.map(\.rawValue)),
                PropertyDescriptor("template", .string(""), animatable: false, check: lengthProblem),
                PropertyDescriptor("locale", .string("en_US"), animatable: false, check: Formatting.localeProblem),
                PropertyDescriptor("language", .string(""), animatable: false, check: languageProblem),
                PropertyDescriptor("direction", .string("auto"), animatable: false, allowed: ["auto", "ltr", "rtl"]),
                PropertyDescriptor("letterSpacing", .number(0), range: -maximumFontSize...maximumFontSize),
                PropertyDescriptor("attributedString", .string(""), animatable: false, check: attributedProblem),
            ], customPropertiesAffectDisplay: true, customShape: runShape)
    }
}

extension TextLayer {
    /// The most characters a text layer sets: a screen shows far fewer, and laying out
    /// megabytes of text would stall every frame (and every other client) for seconds. A
    /// longer `string` or `template` is refused; a template whose filled-in text grows
    /// longer is cut there, ending in "…".
    public static let maximumLength = 16384

    /// What is wrong with `tag` as a BCP 47 language tag, nil when nothing (empty is fine).
    @Sendable static func languageProblem(_ tag: String) -> String? {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        let isTag =
            tag.utf8.count <= 35 && parts.allSatisfy { (1...8).contains($0.utf8.count) && $0.utf8.allSatisfy(isAlphanumeric) }
            && (2...3).contains(parts[0].utf8.count) && parts[0].utf8.allSatisfy { !(48...57).contains($0) }
        return tag.isEmpty || isTag
            ? nil : "'\(tag)' is not a BCP 47 language tag; use one such as \"ar\", \"he\", \"zh-Hant\" or \"sr-Latn\""
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    /// Whether `text` has more than `maximumLength` characters (its UTF-8 length first:
    /// counting characters walks the whole string).
    static func isTooLong(_ text: String) -> Bool { text.utf8.count > maximumLength && text.count > maximumLength }

    /// The colours of named runs, `runs.NAME.foregroundColor` and
    /// `runs.NAME.backgroundColor`: colours before they are set.
    @Sendable static func runShape(_ path: KeyPath) -> ValueType? {
        let c = path.components
        return c.count == 3 && c[0] == "runs" && (c[2] == "foregroundColor" || c[2] == "backgroundColor") ? .color : nil
    }

    /// What is wrong with `text` as a text layer's attributed string, nil when nothing.
    @Sendable static func attributedProblem(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        do {
            let parsed = try AttributedText(parsing: text)
            return lengthProblem(parsed.string)
        } catch {
            return error.message
        }
    }

    /// What is wrong with `text` as a text layer's string or template, nil when nothing.
    @Sendable static func lengthProblem(_ text: String) -> String? {
        guard isTooLong(text) else { return nil }
        return "a text layer shows at most \(maximumLength) characters, not \(text.count); split the text over several layers"
    }
}

/// The largest font size a text layer accepts, in pixels per em: one glyph mask at this
/// size can take tens of megabytes.
public let maximumFontSize = 4096.0

extension LayerKind {
    /// The text layer kind, `TextLayer.textLayerKind`.
    public static var text: LayerKind { TextLayer.textLayerKind }
}

/// A text layer's properties, read from its values.
public struct TextLayerContent: Hashable, Sendable {
    public var string: String
    /// The `attributedString` as written (markup or JSON runs); when not empty it is
    /// drawn instead of `string`.
    public var attributedString: String
    public var style: TextStyle
    public var foregroundColor: Color
    /// The layer's bounds size: lines wrap, truncate and align in its width.
    public var boxSize: Size

    /// Where a layer kind keeps the text properties, looked up once: a renderer reads them
    /// on every frame a text layer animates.
    public struct Slots: Sendable {
        public let template, string, locale, font, fontSize, alignment, isWrapped, truncation, foregroundColor: Int?
        public let language, direction, letterSpacing, attributedString: Int?

        public init(kind: LayerKind) {
            template = kind.slot(of: "template")
            string = kind.slot(of: "string")
            locale = kind.slot(of: "locale")
            font = kind.slot(of: "font")
            fontSize = kind.slot(of: "fontSize")
            alignment = kind.slot(of: "alignmentMode")
            isWrapped = kind.slot(of: "isWrapped")
            truncation = kind.slot(of: "truncationMode")
            foregroundColor = kind.slot(of: "foregroundColor")
            language = kind.slot(of: "language")
            direction = kind.slot(of: "direction")
            letterSpacing = kind.slot(of: "letterSpacing")
            attributedString = kind.slot(of: "attributedString")
        }
    }

    /// Reads the text properties of a layer of `kind` (a kind made like
    /// `TextLayer.textLayerKind`); properties the kind lacks take CATextLayer's defaults.
    /// Throws when `font` is not a readable font name.
    public init(_ values: PropertyValues, kind: LayerKind = TextLayer.textLayerKind) throws(TextError) {
        try self.init(values, slots: Slots(kind: kind))
    }

    /// The same, with the kind's slots looked up before.
    public init(_ values: PropertyValues, slots: Slots) throws(TextError) {
        func value(_ slot: Int?) -> Value? { slot.map { values[slot: $0] } }
        let template = value(slots.template)?.string ?? ""
        let locale = value(slots.locale)?.string ?? "en_US"
        attributedString = value(slots.attributedString)?.string ?? ""
        string = template.isEmpty ? value(slots.string)?.string ?? "" : TextTemplate(template).render(values.custom, locale: locale)
        if TextLayer.isTooLong(string) {
            string = String(string.prefix(TextLayer.maximumLength - 1)) + "…"
        }
        let font = try FontDescriptor(parsing: value(slots.font)?.string ?? FontLibrary.defaultFamily)
        style = TextStyle(
            font: font, fontSize: min(maximumFontSize, max(0, value(slots.fontSize)?.number ?? 36)),
            alignment: value(slots.alignment)?.string.flatMap(TextAlignment.init(rawValue:)) ?? .natural,
            isWrapped: value(slots.isWrapped)?.bool ?? false,
            truncation: value(slots.truncation)?.string.flatMap(TruncationMode.init(rawValue:)) ?? TruncationMode.none,
            direction: value(slots.direction)?.string.flatMap(Self.direction),
            language: (value(slots.language)?.string).flatMap { $0.isEmpty ? nil : $0 } ?? locale,
            letterSpacing: min(maximumFontSize, max(-maximumFontSize, value(slots.letterSpacing)?.number ?? 0)))
        foregroundColor = value(slots.foregroundColor)?.color ?? .white
        boxSize = values.rect(.bounds).size
    }

    private static func direction(_ name: String) -> TextDirection? {
        switch name {
        case "ltr": .leftToRight
        case "rtl": .rightToLeft
        default: nil
        }
    }
}

extension TextLayout {
    /// The layout a text layer draws: its string and style set in its bounds, first
    /// line at the top. Truncation of wrapped text uses the bounds height.
    public init(layer values: PropertyValues, kind: LayerKind = TextLayer.textLayerKind, library: FontLibrary) throws(TextError) {
        let content = try TextLayerContent(values, kind: kind)
        try self.init(
            content.string, style: content.style, width: abs(content.boxSize.width),
            height: abs(content.boxSize.height), library: library)
    }
}
