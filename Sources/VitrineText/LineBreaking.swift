import CHarfBuzz

/// Where lines may break, and greedy wrapping to a width.
///
/// A simplified take on UAX #14: a line may break after a run of spaces, after a hyphen or
/// dash that follows a letter, around Chinese and Japanese characters (which are written
/// without spaces) and after a zero-width space; never before closing punctuation. Full
/// UAX #14 adds a pair table over ~40 classes (quotes, numbers with their prefixes and
/// suffixes, Korean syllable blocks, emoji sequences, …).
enum LineBreaking {
    /// True when a line may start at scalar `i` of `scalars` (`lower < i < upper`).
    static func canBreak(before i: Int, in scalars: [Unicode.Scalar], lower: Int) -> Bool {
        let previous = scalars[i - 1], current = scalars[i]
        if current.isBreakingWhitespace || current.isClosingPunctuation { return false }
        if previous.isBreakingWhitespace || previous.value == 0x200B { return true }
        if previous.isHyphen, i - 2 >= lower, scalars[i - 2].properties.isAlphabetic { return true }
        if current.properties.generalCategory == .nonspacingMark { return false }
        return previous.isIdeographic || current.isIdeographic
    }

    /// The paragraph's lines, each as the scalars it holds (trailing spaces included),
    /// greedily filled so that each line's width without its trailing spaces is at most
    /// `width`. A word wider than the width is split between clusters.
    static func wrap(_ p: ShapedParagraph, width: Double) -> [Range<Int>] {
        let r = p.range
        guard !r.isEmpty else { return [r] }
        var candidates = (r.lowerBound + 1..<r.upperBound).filter {
            p.isClusterBoundary($0) && canBreak(before: $0, in: p.scalars, lower: r.lowerBound)
        }
        candidates.append(r.upperBound)
        let limit = width + 1e-6
        var lines: [Range<Int>] = []
        var start = r.lowerBound
        var next = 0
        while start < r.upperBound {
            while next < candidates.count, candidates[next] <= start { next += 1 }
            var end: Int?
            var k = next
            while k < candidates.count, p.width(p.trimmingTrailingWhitespace(start..<candidates[k])) <= limit {
                end = candidates[k]
                k += 1
            }
            if end == nil { end = emergencyBreak(p, from: start, limit: limit) }
            lines.append(start..<end!)
            start = end!
        }
        return lines
    }

    /// The end of the longest run of whole clusters from `start` that fits (at least one
    /// cluster, so that wrapping always advances).
    private static func emergencyBreak(_ p: ShapedParagraph, from start: Int, limit: Double) -> Int {
        var end = start + 1
        while end < p.range.upperBound, !p.isClusterBoundary(end) { end += 1 }
        var candidate = end
        while candidate < p.range.upperBound {
            candidate += 1
            while candidate < p.range.upperBound, !p.isClusterBoundary(candidate) { candidate += 1 }
            guard p.width(start..<candidate) <= limit else { break }
            end = candidate
        }
        return end
    }

    /// Splits `scalars` at hard line breaks (LF, CR, CR LF, NEL, LS, PS) into paragraphs,
    /// without the terminators. An empty text has no paragraphs; a trailing terminator
    /// ends the last paragraph without starting another.
    static func paragraphs(_ scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        var i = 0
        while i < scalars.count {
            switch scalars[i].value {
            case 0x0A, 0x0B, 0x0C, 0x85, 0x2028, 0x2029:
                result.append(start..<i)
                start = i + 1
            case 0x0D:
                result.append(start..<i)
                if i + 1 < scalars.count, scalars[i + 1].value == 0x0A { i += 1 }
                start = i + 1
            default:
                break
            }
            i += 1
        }
        if start < scalars.count { result.append(start..<scalars.count) }
        return result
    }
}

extension Unicode.Scalar {
    fileprivate var isHyphen: Bool {
        value == 0x2D || value == 0x2010 || value == 0x2013 || value == 0x2014
    }

    fileprivate var isClosingPunctuation: Bool {
        switch properties.generalCategory {
        case .closePunctuation, .finalPunctuation: return true
        case .otherPunctuation: return ",.;:!?、。，．：；！？".unicodeScalars.contains(self)
        default: return false
        }
    }

    fileprivate var isIdeographic: Bool {
        let s = script(of: self)
        return s == HB_SCRIPT_HAN || s == HB_SCRIPT_HIRAGANA || s == HB_SCRIPT_KATAKANA
    }
}
