/// The emoji presentation sequences of a paragraph: grapheme clusters (UAX #29) that show
/// as one emoji — a character with emoji presentation, anything with VS16 (U+FE0F), keycaps
/// (U+20E3), skin-tone modifiers, ZWJ sequences, flags (regional indicator pairs and tag
/// sequences). Each is set in one colour face for the whole cluster, so that HarfBuzz can
/// shape it into one glyph.
struct EmojiSequences {
    /// For each scalar of the paragraph, the sequence it belongs to; empty when the
    /// paragraph has none.
    private var sequences: [Range<Int>?] = []
    private let start: Int

    /// The sequences of `scalars[range]`.
    init(_ scalars: [Unicode.Scalar], range: Range<Int>) {
        start = range.lowerBound
        guard scalars[range].contains(where: Self.mayStartOrJoinEmoji) else { return }
        sequences = Array(repeating: nil, count: range.count)
        var i = range.lowerBound
        for character in String(String.UnicodeScalarView(scalars[range])) {
            let count = character.unicodeScalars.count
            if Self.isEmoji(character.unicodeScalars) {
                for k in i..<(i + count) { sequences[k - start] = i..<(i + count) }
            }
            i += count
        }
    }

    /// The sequence scalar `i` belongs to, nil when it is not part of an emoji (or is
    /// outside the paragraph).
    func sequence(containing i: Int) -> Range<Int>? {
        sequences.indices.contains(i - start) ? sequences[i - start] : nil
    }

    /// True when a paragraph with `scalar` may hold an emoji sequence (a quick test that
    /// spares plain text the grapheme walk).
    private static func mayStartOrJoinEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x1F000 || scalar.value == 0xFE0F || scalar.value == 0x20E3 || scalar.properties.isEmojiPresentation
    }

    /// True when the grapheme cluster `scalars` shows as an emoji.
    static func isEmoji(_ scalars: Character.UnicodeScalarView) -> Bool {
        guard let first = scalars.first else { return false }
        var hasModifier = false, hasJoiner = false, hasTag = false
        for s in scalars {
            switch s.value {
            case 0xFE0E: return false
            case 0xFE0F, 0x20E3: return true
            case 0x1F3FB...0x1F3FF: hasModifier = true
            case 0x200D: hasJoiner = true
            case 0xE0020...0xE007F: hasTag = true
            default: break
            }
        }
        if first.properties.isEmojiPresentation { return true }
        return first.properties.isEmoji && scalars.count > 1 && (hasModifier || hasJoiner || hasTag)
    }
}
