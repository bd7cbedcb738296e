import CThai
import CUnibreak
import Synchronization

/// Where lines may break, and greedy wrapping to a width.
///
/// Break opportunities are UAX #14's, from libunibreak, with `language` tailoring its
/// rules (Chinese, Japanese and Korean). Thai is written without spaces between words:
/// UAX #14 leaves such "complex context" text to a dictionary, and runs of Thai letters
/// get theirs from libthai, as in Pango. Other such scripts (Lao, Khmer, Myanmar) break
/// only at spaces.
enum LineBreaking {
    /// For each scalar of `range`, true when a line may start there (never at the first).
    static func opportunities(_ scalars: [Unicode.Scalar], range: Range<Int>, language: String) -> [Bool] {
        var result = [Bool](repeating: false, count: range.count)
        guard range.count > 1 else { return result }
        _ = unibreakReady
        let text = scalars[range].map { utf32_t($0.value) }
        let safe = text.map(\.unibreakSafe)
        var breaks = [CChar](repeating: 0, count: text.count)
        language.withCString { lang in
            safe.withUnsafeBufferPointer { set_linebreaks_utf32($0.baseAddress, $0.count, lang, &breaks) }
        }
        for k in 0..<(text.count - 1) where breaks[k] == CChar(LINEBREAK_ALLOWBREAK) || breaks[k] == CChar(LINEBREAK_MUSTBREAK) {
            result[k + 1] = true
        }
        // UAX #14 LB30a: regional indicators pair up (a flag), and a line never starts
        // inside a pair.
        var k = 0
        while k < text.count {
            guard text[k].isRegionalIndicator else { k += 1; continue }
            var end = k
            while end < text.count, text[end].isRegionalIndicator { end += 1 }
            for inside in stride(from: k + 1, to: end, by: 2) { result[inside] = false }
            k = end
        }
        k = 0
        while k < text.count {
            guard text[k].isThai else { k += 1; continue }
            var end = k
            while end < text.count, text[end].isThai { end += 1 }
            for position in ThaiBreaker.shared.breaks(Array(text[k..<end])) where position > 0 && position < end - k {
                result[k + position] = true
            }
            k = end
        }
        return result
    }

    /// The paragraph's lines, each as the scalars it holds (trailing spaces included),
    /// greedily filled so that each line's width without its trailing spaces is at most
    /// `width`. A word wider than the width is split between grapheme clusters.
    static func wrap(_ p: ShapedParagraph, width: Double, language: String) -> [Range<Int>] {
        let r = p.range
        guard !r.isEmpty else { return [r] }
        let allowed = opportunities(p.scalars, range: r, language: language)
        var candidates = (r.lowerBound + 1..<r.upperBound).filter {
            allowed[$0 - r.lowerBound] && p.isClusterBoundary($0)
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
        var end = p.nextCut(after: start)
        while end < p.range.upperBound {
            let candidate = p.nextCut(after: end)
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

    /// For each scalar of `range`, true when an extended grapheme cluster (UAX #29, as
    /// Swift's `Character`) starts there.
    static func graphemeStarts(_ scalars: [Unicode.Scalar], range: Range<Int>) -> [Bool] {
        var result = [Bool](repeating: false, count: range.count)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[range])
        var k = 0
        for character in String(view) {
            result[k] = true
            k += character.unicodeScalars.count
        }
        return result
    }
}

/// libunibreak's tables, set up once.
private let unibreakReady: Void = init_linebreak()

extension utf32_t {
    /// Thai letters, vowels, tone marks and digits.
    fileprivate var isThai: Bool { (0x0E01...0x0E5B).contains(self) }

    /// The regional indicator letters, two of which make a flag.
    fileprivate var isRegionalIndicator: Bool { (0x1F1E6...0x1F1FF).contains(self) }

    /// This scalar as given to libunibreak: Debian's libunibreak 1.1 aborts (an assertion
    /// in `set_linebreaks`) on regional indicators and on U+FFFF. A regional indicator
    /// breaks as an ideograph (breaks before and after; the pairs are kept together
    /// afterwards) and U+FFFF as U+FFFD.
    fileprivate var unibreakSafe: utf32_t {
        if isRegionalIndicator { return 0x4E00 }
        return self == 0xFFFF ? 0xFFFD : self
    }
}

/// libthai's dictionary word breaker, loaded once (the dictionary is a few megabytes) and
/// used by one thread at a time.
private final class ThaiBreaker: Sendable {
    static let shared = ThaiBreaker()

    private let breaker: Mutex<OpaquePointer?>

    private init() {
        breaker = Mutex(th_brk_new(nil))
    }

    deinit { breaker.withLock { if let b = $0 { th_brk_delete(b) } } }

    /// Where words start within `text` (all Thai), as offsets; empty without a dictionary.
    func breaks(_ text: [utf32_t]) -> [Int] {
        breaker.withLock { brk -> [Int] in
            guard let brk else { return [] }
            let wide = text.map { wchar_t(bitPattern: $0) } + [0]
            var positions = [Int32](repeating: 0, count: text.count + 1)
            let found = th_brk_wc_find_breaks(brk, wide, &positions, positions.count)
            return positions.prefix(Int(max(0, found))).map(Int.init)
        }
    }
}
