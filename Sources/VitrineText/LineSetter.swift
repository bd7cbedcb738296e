/// Turns paragraphs into positioned lines: wrapping, truncation with "…", justification
/// and alignment. `TextLayout` drives it.
struct LineSetter {
    let scalars: [Unicode.Scalar]
    let codepoints: [UInt32]
    let spans: StyleSpans
    let style: TextStyle
    let width: Double?

    private let language: ShapingLanguage
    private var paragraphs: [ShapedParagraph] = []
    private var pending: [Pending] = []

    private struct Pending {
        var paragraph: Int
        var range: Range<Int>
        var endsParagraph: Bool
        /// Text after this line is hidden: it ends with "…" even if it fits.
        var isCut: Bool
    }

    private struct SetLine {
        var range: Range<Int>
        var glyphs: [(PlacedGlyph, cluster: Int)]
        var width: Double
        var direction: TextDirection
        var isTruncated: Bool
    }

    init(scalars: [Unicode.Scalar], codepoints: [UInt32], spans: StyleSpans, style: TextStyle, width: Double?) {
        self.scalars = scalars
        self.codepoints = codepoints
        self.spans = spans
        self.style = style
        self.width = width
        language = ShapingLanguage(style.language)
    }

    private func options(direction: TextDirection?, neutral: TextDirection) -> ParagraphOptions {
        ParagraphOptions(direction: direction, neutralDirection: neutral, language: language)
    }

    /// Shapes the paragraph `range` and breaks it into lines.
    mutating func add(paragraph range: Range<Int>) {
        let p = ShapedParagraph(
            scalars: scalars, codepoints: codepoints, range: range, spans: spans,
            options: options(direction: style.direction, neutral: paragraphs.last?.direction ?? .leftToRight))
        paragraphs.append(p)
        let ranges =
            style.isWrapped && width != nil ? LineBreaking.wrap(p, width: width!, language: language.tag) : [range]
        for (i, r) in ranges.enumerated() {
            pending.append(Pending(paragraph: paragraphs.count - 1, range: r, endsParagraph: i == ranges.count - 1, isCut: false))
        }
    }

    /// Keeps the first `count` lines; the last kept line takes the rest of its paragraph
    /// and is truncated.
    mutating func limit(toLines count: Int) {
        guard pending.count > count else { return }
        var last = pending[count - 1]
        last.range = last.range.lowerBound..<paragraphs[last.paragraph].range.upperBound
        last.isCut = true
        last.endsParagraph = true
        pending = Array(pending.prefix(count - 1)) + [last]
    }

    /// The lines, aligned and positioned. Lines are `metrics.lineHeight` apart; with
    /// several styles each line is as tall as its styles' ascents and descents (raised or
    /// lowered by their rise) ask, as in Pango.
    func finish(metrics: FontMetrics) -> [TextLine] {
        let set = pending.map(setLine)
        let boxWidth = width ?? set.map(\.width).max() ?? 0
        var top = 0.0
        return set.enumerated().map { i, line in
            var baseline = Double(i) * metrics.lineHeight + metrics.ascent
            var (ascent, descent) = (metrics.ascent, metrics.descent)
            if !spans.index.isEmpty {
                (ascent, descent) = extent(line, metrics: metrics)
                baseline = top + ascent
                top = baseline + descent + metrics.lineGap
            }
            let x: Double
            switch resolvedAlignment(line.direction) {
            case .right: x = boxWidth - line.width
            case .center: x = (boxWidth - line.width) / 2
            default: x = 0
            }
            let glyphs = line.glyphs.map { p, cluster in
                PositionedGlyph(
                    face: p.face, glyphID: p.glyph.glyphID, x: x + p.x, y: baseline + p.glyph.yOffset - spans.styles[p.style].rise,
                    cluster: cluster, style: p.style, advance: p.advance)
            }
            return TextLine(
                range: line.range, baseline: baseline, ascent: ascent, descent: descent, x: x, width: line.width, direction: line.direction,
                isTruncated: line.isTruncated, glyphs: glyphs)
        }
    }

    /// The ascent and descent of a line of several styles: the largest of its glyphs'
    /// styles, or of the style at its start when it has no glyphs.
    private func extent(_ line: SetLine, metrics: FontMetrics) -> (ascent: Double, descent: Double) {
        var used = Set(line.glyphs.map(\.0.style))
        if used.isEmpty { used.insert(spans.style(at: min(line.range.lowerBound, max(0, scalars.count - 1)))) }
        var ascent = -Double.infinity, descent = -Double.infinity
        for k in used {
            let s = spans.styles[k]
            let m = s.metrics
            ascent = max(ascent, m.ascent + s.rise)
            descent = max(descent, m.descent - s.rise)
        }
        return (ascent, descent)
    }

    private func resolvedAlignment(_ direction: TextDirection) -> TextAlignment {
        switch style.alignment {
        case .natural, .justified: direction == .rightToLeft ? .right : .left
        default: style.alignment
        }
    }

    private func setLine(_ line: Pending) -> SetLine {
        let p = paragraphs[line.paragraph]
        let trimmed = p.trimmingTrailingWhitespace(line.range)
        if style.truncation != .none, let width, line.isCut || p.width(trimmed) > width + 1e-6 {
            return truncate(p, trimmed, width: width)
        }
        var extra = 0.0
        if style.alignment == .justified, style.isWrapped, let width, !line.endsParagraph {
            let spaces = trimmed.filter { scalars[$0] == " " }.count
            if spaces > 0 { extra = max(0, (width - p.width(trimmed)) / Double(spaces)) }
        }
        let (glyphs, w) = p.glyphs(in: trimmed, extraPerSpace: extra)
        return SetLine(
            range: trimmed, glyphs: glyphs.map { ($0, $0.glyph.cluster) }, width: w,
            direction: p.direction, isTruncated: false)
    }

    /// The line `r` of `p` cut to fit `width` with "…" where the truncation mode says,
    /// reshaped as a new paragraph so that joining and kerning at the cut are right.
    private func truncate(_ p: ShapedParagraph, _ r: Range<Int>, width: Double) -> SetLine {
        let ellipsis: Unicode.Scalar = "\u{2026}"
        let cutStyle = spans.styles[spans.style(at: min(max(r.lowerBound, r.upperBound - 1), max(0, scalars.count - 1)))]
        let ellipsisWidth =
            Shaper.shape(String(ellipsis), face: cutStyle.font.face(for: ellipsis), size: cutStyle.size, language: language.tag).advance
            + cutStyle.letterSpacing
        let budget = width - ellipsisWidth
        let cuts = r.filter { p.isCut($0) } + [r.upperBound]

        // Cuts are indices into `cuts`: the prefix ends at cuts[head], the suffix starts at
        // cuts[tail].
        var head = 0, tail = cuts.count - 1
        func prefixWidth(_ h: Int) -> Double { p.width(p.trimmingTrailingWhitespace(r.lowerBound..<cuts[h])) }
        func suffixWidth(_ t: Int) -> Double { p.width(skippingSpaces(cuts[t], r.upperBound)..<r.upperBound) }
        switch style.truncation {
        case .end, .none:
            while head + 1 < cuts.count, prefixWidth(head + 1) <= budget { head += 1 }
        case .start:
            while tail > 0, suffixWidth(tail - 1) <= budget { tail -= 1 }
        case .middle:
            while head + 1 < cuts.count, prefixWidth(head + 1) <= budget / 2 { head += 1 }
            while tail > head, prefixWidth(head) + suffixWidth(tail - 1) <= budget { tail -= 1 }
            while head + 1 < tail, prefixWidth(head + 1) + suffixWidth(tail) <= budget { head += 1 }
        }
        while true {
            let prefix = p.trimmingTrailingWhitespace(r.lowerBound..<cuts[head])
            let suffix = skippingSpaces(cuts[tail], r.upperBound)..<r.upperBound
            let synthetic = Array(scalars[prefix]) + [ellipsis] + Array(scalars[suffix])
            let syntheticCodepoints = Array(codepoints[prefix]) + [ellipsis.value] + Array(codepoints[suffix])
            let map = Array(prefix) + [cuts[head]] + Array(suffix)
            let q = ShapedParagraph(
                scalars: synthetic, codepoints: syntheticCodepoints, range: 0..<synthetic.count,
                spans: spans.remapped(Array(prefix) + [max(r.lowerBound, cuts[head] - 1)] + Array(suffix)),
                options: options(direction: p.direction, neutral: p.direction))
            let (glyphs, w) = q.glyphs(in: q.range)
            let canShrink = head > 0 || tail < cuts.count - 1
            if w <= width + 1e-6 || !canShrink {
                return SetLine(
                    range: r, glyphs: glyphs.map { ($0, map[$0.glyph.cluster]) }, width: w,
                    direction: p.direction, isTruncated: true)
            }
            let shrinkHead = head > 0 && (tail == cuts.count - 1 || prefixWidth(head) >= suffixWidth(tail))
            if shrinkHead { head -= 1 } else { tail += 1 }
        }
    }

    private func skippingSpaces(_ start: Int, _ end: Int) -> Int {
        var i = start
        while i < end, scalars[i].isBreakingWhitespace { i += 1 }
        return i
    }
}
