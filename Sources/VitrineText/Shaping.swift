import CHarfBuzz
import Glibc

/// The direction text runs in.
public enum TextDirection: String, Hashable, Sendable {
    case leftToRight, rightToLeft

    var harfBuzz: hb_direction_t { self == .leftToRight ? HB_DIRECTION_LTR : HB_DIRECTION_RTL }
}

/// An OpenType feature setting passed to the shaper, e.g. `tnum` on or `liga` off.
///
/// Kerning (`kern`) and standard ligatures (`liga`, `clig`) are on unless turned off.
public struct FontFeature: Hashable, Sendable, CustomStringConvertible {
    /// The four-letter feature tag.
    public var tag: String
    /// 0 turns the feature off, 1 on; larger values pick alternates.
    public var value: UInt32

    /// `tag` set to `value` for the whole run.
    public init(_ tag: String, _ value: UInt32 = 1) {
        self.tag = tag
        self.value = value
    }

    /// Reads HarfBuzz's feature syntax: `"tnum"`, `"-liga"`, `"+kern"`, `"salt=2"`.
    public init(parsing text: String) throws(TextError) {
        var feature = hb_feature_t()
        guard hb_feature_from_string(text, -1, &feature) != 0 else { throw .invalidFeature(text) }
        self.init(hbTagString(feature.tag), feature.value)
    }

    public static let tabularNumbers = FontFeature("tnum")
    public static let noKerning = FontFeature("kern", 0)
    public static let noLigatures = FontFeature("liga", 0)

    public var description: String { value == 1 ? tag : "\(tag)=\(value)" }

    var harfBuzz: hb_feature_t {
        hb_feature_t(tag: hbTag(tag), value: value, start: 0, end: UInt32.max)
    }
}

/// A language for shaping and line breaking: a BCP 47 tag ("ar", "sr-Latn", "zh-Hant")
/// and HarfBuzz's interned language for it.
struct ShapingLanguage {
    /// The tag as given, with POSIX locale spellings ("de_CH.UTF-8") made BCP 47 ("de-CH").
    let tag: String
    let harfBuzz: hb_language_t?

    /// The language `tag` names; nil or empty takes the process locale (`LC_ALL`,
    /// `LC_CTYPE`, `LANG`), as Pango does, and "en" without one.
    init(_ tag: String?) {
        var text = tag ?? ""
        if text.isEmpty { text = Self.processLocale }
        self.tag = Self.bcp47(text)
        harfBuzz = self.tag.isEmpty ? nil : hb_language_from_string(self.tag, -1)
    }

    /// A POSIX locale name as a BCP 47 tag: "pt_BR.UTF-8@euro" is "pt-BR"; "C" and
    /// "POSIX" are "en".
    static func bcp47(_ locale: String) -> String {
        let base = locale.prefix { $0 != "." && $0 != "@" }.replacingUnderscores
        return base.isEmpty || base == "C" || base == "POSIX" ? "en" : base
    }

    private static let processLocale: String = {
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty { return value }
        }
        return "en"
    }()
}

extension Substring {
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? "-" : $0 }) }
}

/// One shaped glyph. Lengths are in pixels; offsets are y-down.
public struct ShapedGlyph: Hashable, Sendable {
    /// The glyph's index in its face.
    public var glyphID: UInt32
    /// The index, in the shaped text's Unicode scalars, of the first character the glyph
    /// comes from (a ligature covers several).
    public var cluster: Int
    /// How far the pen moves after this glyph.
    public var xAdvance: Double
    /// Vertical pen movement (0 for horizontal text).
    public var yAdvance: Double
    /// Horizontal offset of the glyph from the pen.
    public var xOffset: Double
    /// Vertical offset of the glyph from the pen, down positive.
    public var yOffset: Double
}

/// A run of text in one face, script and direction, shaped: glyphs in visual order (left
/// to right), so an RTL run's clusters decrease along the array.
public struct ShapedRun {
    /// The face every glyph comes from.
    public let face: FontFace
    /// Pixels per em.
    public let fontSize: Double
    /// The run's direction.
    public let direction: TextDirection
    /// The ISO 15924 script tag HarfBuzz shaped with ("Latn", "Arab", "Hebr", …).
    public let script: String
    /// The scalars shaped, as indices into the text.
    public let range: Range<Int>
    /// The glyphs, left to right.
    public let glyphs: [ShapedGlyph]

    /// The sum of the horizontal advances.
    public var advance: Double { glyphs.reduce(0) { $0 + $1.xAdvance } }
}

/// Shapes text with HarfBuzz.
public enum Shaper {
    /// Shapes `text` as one run in `face`, guessing script and direction from its
    /// characters unless `direction` is given. Clusters index `text.unicodeScalars`.
    ///
    /// This does no font fallback and no bidi: `TextLayout` splits text into runs first.
    /// `language` is a BCP 47 tag (nil: the process locale).
    public static func shape(
        _ text: String, face: FontFace, size: Double, features: [FontFeature] = [],
        direction: TextDirection? = nil, language: String? = nil
    ) -> ShapedRun {
        let codepoints = text.unicodeScalars.map(\.value)
        return shape(
            codepoints, range: 0..<codepoints.count, face: face, size: size,
            features: features, direction: direction, script: nil, language: ShapingLanguage(language))
    }

    /// Shapes `codepoints[range]`, with the codepoints around it as context (Arabic
    /// joining looks across run boundaries). Clusters index `codepoints`.
    static func shape(
        _ codepoints: [UInt32], range: Range<Int>, face: FontFace, size: Double,
        features: [FontFeature], direction: TextDirection?, script: hb_script_t?, language: ShapingLanguage
    ) -> ShapedRun {
        let buffer = HarfBuzzBuffer()
        let b = buffer.handle
        codepoints.withUnsafeBufferPointer {
            hb_buffer_add_utf32(b, $0.baseAddress, Int32($0.count), UInt32(range.lowerBound), Int32(range.count))
        }
        if let direction { hb_buffer_set_direction(b, direction.harfBuzz) }
        if let script, script != HB_SCRIPT_COMMON, script != HB_SCRIPT_INHERITED, script != HB_SCRIPT_UNKNOWN {
            hb_buffer_set_script(b, script)
        }
        if let language = language.harfBuzz { hb_buffer_set_language(b, language) }
        hb_buffer_guess_segment_properties(b)
        let hbFeatures = features.map(\.harfBuzz)
        hb_shape(face.shaping.font, b, hbFeatures, UInt32(hbFeatures.count))

        var count: UInt32 = 0
        let infos = hb_buffer_get_glyph_infos(b, &count)
        let positions = hb_buffer_get_glyph_positions(b, &count)
        let scale = size / Double(face.shaping.unitsPerEm)
        var glyphs: [ShapedGlyph] = []
        glyphs.reserveCapacity(Int(count))
        if let infos, let positions {
            for i in 0..<Int(count) {
                let p = positions[i]
                glyphs.append(
                    ShapedGlyph(
                        glyphID: infos[i].codepoint, cluster: Int(infos[i].cluster),
                        xAdvance: Double(p.x_advance) * scale, yAdvance: -Double(p.y_advance) * scale,
                        xOffset: Double(p.x_offset) * scale, yOffset: -Double(p.y_offset) * scale))
            }
        }
        let shapedDirection: TextDirection = hb_buffer_get_direction(b) == HB_DIRECTION_RTL ? .rightToLeft : .leftToRight
        return ShapedRun(
            face: face, fontSize: size, direction: shapedDirection,
            script: hbTagString(hb_buffer_get_script(b).rawValue), range: range, glyphs: glyphs)
    }
}
