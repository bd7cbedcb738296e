/// A font weight on the OpenType / CSS scale, 1…1000 (400 regular, 700 bold).
public struct FontWeight: RawRepresentable, Hashable, Comparable, Sendable {
    public let rawValue: Int

    /// A weight clamped to 1…1000.
    public init(rawValue: Int) { self.rawValue = min(1000, max(1, rawValue)) }

    public static let thin = FontWeight(rawValue: 100)
    public static let extraLight = FontWeight(rawValue: 200)
    public static let light = FontWeight(rawValue: 300)
    public static let regular = FontWeight(rawValue: 400)
    public static let medium = FontWeight(rawValue: 500)
    public static let semibold = FontWeight(rawValue: 600)
    public static let bold = FontWeight(rawValue: 700)
    public static let extraBold = FontWeight(rawValue: 800)
    public static let black = FontWeight(rawValue: 900)

    /// The names `FontWeight(name:)` accepts, lowercased, with their weights.
    public static let names: [String: FontWeight] = [
        "thin": .thin, "hairline": .thin, "extralight": .extraLight, "ultralight": .extraLight,
        "light": .light, "regular": .regular, "normal": .regular, "book": .regular,
        "medium": .medium, "semibold": .semibold, "demibold": .semibold, "bold": .bold,
        "extrabold": .extraBold, "ultrabold": .extraBold, "black": .black, "heavy": .black,
    ]

    /// A weight by name ("bold", "SemiBold", "extra-light", …) or number ("600"), or nil.
    public init?(name: String) {
        let key = name.lowercased().filter { $0 != "-" && $0 != " " && $0 != "_" }
        if let w = Self.names[key] { self = w; return }
        guard let n = Int(key), (1...1000).contains(n) else { return nil }
        self.init(rawValue: n)
    }

    public static func < (a: FontWeight, b: FontWeight) -> Bool { a.rawValue < b.rawValue }
}

/// Upright or italic (an oblique face is accepted where no italic exists).
public enum FontStyle: String, Hashable, Sendable, CaseIterable {
    case normal, italic
}

/// What a text asks for: a family, a weight and a style. Which file answers is
/// `FontLibrary`'s business.
public struct FontDescriptor: Hashable, Sendable, CustomStringConvertible {
    public var family: String
    public var weight: FontWeight
    public var style: FontStyle

    public init(family: String = FontLibrary.defaultFamily, weight: FontWeight = .regular, style: FontStyle = .normal) {
        self.family = family
        self.weight = weight
        self.style = style
    }

    /// Reads a font name in fontconfig's short form: the family, then optional
    /// colon-separated weight and style, e.g. `"DejaVu Sans"`, `"DejaVu Sans:bold"`,
    /// `"DejaVu Serif:600:italic"`. An empty family means the default family.
    public init(parsing name: String) throws(TextError) {
        // A bare family name, the usual case, is the family as it is: a text layer's font
        // is read on every frame it animates, so its ends are looked at as bytes
        // (Character.isWhitespace reads Unicode's tables).
        if let first = name.utf8.first, let last = name.utf8.last, !Self.mayBeSpace(first), !Self.mayBeSpace(last),
            !name.utf8.contains(UInt8(ascii: ":"))
        {
            self.init(family: name)
            return
        }
        let parts = name.split(separator: ":", omittingEmptySubsequences: false)
            .map { $0.trimmingWhitespace() }
        self.init(family: parts[0].isEmpty ? FontLibrary.defaultFamily : parts[0])
        for token in parts.dropFirst() where !token.isEmpty {
            if let w = FontWeight(name: token) {
                weight = w
            } else if let s = FontStyle(rawValue: token.lowercased()) {
                style = s
            } else if token.lowercased() == "oblique" {
                style = .italic
            } else {
                throw .invalidFontName(name, reason: "'\(token)' is neither a weight (100…900, bold, light, …) nor a style (italic)")
            }
        }
    }

    /// Whether a name's first or last UTF-8 byte may belong to whitespace: ASCII spaces
    /// and control characters, and any byte of a multi-byte character.
    private static func mayBeSpace(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte >= 0x80
    }

    /// The short form `init(parsing:)` reads.
    public var description: String {
        var text = family
        if weight != .regular { text += ":\(weight.rawValue)" }
        if style != .normal { text += ":\(style.rawValue)" }
        return text
    }
}
