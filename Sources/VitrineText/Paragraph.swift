import CHarfBuzz

/// A run of one paragraph: one face, one script, one bidi level, shaped.
struct ParagraphRun {
    let shaped: ShapedRun
    let level: UInt8
    /// The run's style in the paragraph's `StyleSpans`.
    let style: Int
    /// Letter spacing before each glyph (in visual order), in pixels.
    let padBefore: [Double]
    /// Letter spacing after each glyph.
    let padAfter: [Double]
}

/// How a paragraph is shaped apart from its text and font.
struct ParagraphOptions {
    /// The forced base direction, or nil to take it from the text.
    var direction: TextDirection?
    /// The base direction of a paragraph without strong characters (that of the one
    /// before, as in Pango).
    var neutralDirection: TextDirection = .leftToRight
    var language: ShapingLanguage
}

/// One paragraph (text between hard line breaks) split into runs by font fallback, script,
/// bidi level and style (font, size, features, letter spacing, rise), each run shaped with the paragraph around it as context.
///
/// Lines are later cut from these runs at cluster boundaries without shaping again; that
/// is exact at spaces and approximate only where a word itself is split.
struct ShapedParagraph {
    /// The whole text the paragraph belongs to.
    let scalars: [Unicode.Scalar]
    /// The paragraph's scalars within `scalars`, without the line terminator.
    let range: Range<Int>
    /// The paragraph's bidi level: 0 left to right, 1 right to left.
    let level: UInt8
    /// The runs in logical order.
    let runs: [ParagraphRun]
    /// Running sums of the cluster advances (a cluster's advance counts at the scalar it
    /// starts at): element k is the width of the paragraph's first k scalars.
    private let prefixWidths: [Double]
    /// For each scalar of `range`, true when a cluster starts there.
    let clusterStarts: [Bool]
    /// For each scalar of `range`, true when a grapheme cluster (UAX #29) starts there.
    let graphemeStarts: [Bool]

    init(scalars: [Unicode.Scalar], codepoints: [UInt32], range: Range<Int>, spans: StyleSpans, options: ParagraphOptions) {
        self.scalars = scalars
        self.range = range
        let bidi = BidiLevels(scalars[range], direction: options.direction, neutral: options.neutralDirection)
        level = bidi.paragraphLevel
        let graphemes = LineBreaking.graphemeStarts(scalars, range: range)
        graphemeStarts = graphemes
        let items = Self.itemize(scalars, range: range, levels: bidi.levels, spans: spans)
        runs = items.map { item in
            let style = spans.styles[item.style]
            let shaped = Shaper.shape(
                codepoints, range: item.range, face: item.face, size: style.size,
                features: style.letterSpacing != 0 ? Self.ligaturesOff + style.features : style.features,
                direction: item.level & 1 == 1 ? .rightToLeft : .leftToRight, script: item.script,
                language: options.language)
            let spacing = Self.distributed(item.script.isCursive ? 0 : style.letterSpacing)
            var before = [Double](repeating: 0, count: shaped.glyphs.count)
            var after = before
            if style.letterSpacing != 0, !item.script.isCursive {
                for (i, g) in shaped.glyphs.enumerated() where graphemes[g.cluster - range.lowerBound] {
                    if i == 0 || shaped.glyphs[i - 1].cluster != g.cluster { before[i] = spacing.before }
                    if i == shaped.glyphs.count - 1 || shaped.glyphs[i + 1].cluster != g.cluster { after[i] = spacing.after }
                }
            }
            return ParagraphRun(shaped: shaped, level: item.level, style: item.style, padBefore: before, padAfter: after)
        }
        var advances = [Double](repeating: 0, count: range.count)
        var starts = [Bool](repeating: false, count: range.count)
        for run in runs {
            for (i, g) in run.shaped.glyphs.enumerated() {
                advances[g.cluster - range.lowerBound] += g.xAdvance + run.padBefore[i] + run.padAfter[i]
                starts[g.cluster - range.lowerBound] = true
            }
        }
        var sums = [0.0]
        sums.reserveCapacity(range.count + 1)
        for a in advances { sums.append(sums.last! + a) }
        prefixWidths = sums
        clusterStarts = starts
    }

    /// Letter spacing split into the space before and after a cluster as Pango splits it
    /// (in 1/1024 px; a whole number of pixels puts the larger whole half before).
    static func distributed(_ spacing: Double) -> (before: Double, after: Double) {
        let units = Int((spacing * 1024).rounded())
        var left = units / 2
        if units & 1023 == 0 { left = (left + 512) & ~1023 }
        return (Double(left) / 1024, Double(units - left) / 1024)
    }

    /// Letter spacing turns off the ligatures that join letters into one glyph, as in
    /// Pango and CSS (required ligatures, such as Arabic lam-alef, stay).
    private static let ligaturesOff = [FontFeature("liga", 0), FontFeature("clig", 0), FontFeature("dlig", 0), FontFeature("hlig", 0)]

    /// The paragraph's direction.
    var direction: TextDirection { level & 1 == 1 ? .rightToLeft : .leftToRight }

    /// The advance width of the scalars `r` (a sub-range of `range`) as shaped here.
    func width(_ r: Range<Int>) -> Double {
        guard !r.isEmpty else { return 0 }
        return prefixWidths[r.upperBound - range.lowerBound] - prefixWidths[r.lowerBound - range.lowerBound]
    }

    /// True when a cluster starts at `i`, or `i` is the paragraph's end.
    func isClusterBoundary(_ i: Int) -> Bool {
        i >= range.upperBound || i <= range.lowerBound || clusterStarts[i - range.lowerBound]
    }

    /// True when text may be cut at `i` without splitting a shaped cluster or a grapheme
    /// cluster: where long words break and where truncation cuts.
    func isCut(_ i: Int) -> Bool {
        i >= range.upperBound || i <= range.lowerBound
            || (clusterStarts[i - range.lowerBound] && graphemeStarts[i - range.lowerBound])
    }

    /// The first cut after `i`.
    func nextCut(after i: Int) -> Int {
        var end = i + 1
        while !isCut(end) { end += 1 }
        return end
    }

    /// `r` without whitespace at its end.
    func trimmingTrailingWhitespace(_ r: Range<Int>) -> Range<Int> {
        var end = r.upperBound
        while end > r.lowerBound, scalars[end - 1].isBreakingWhitespace { end -= 1 }
        return r.lowerBound..<end
    }

    /// The glyphs of the scalars `r`, in visual order, with pen positions starting at 0;
    /// `extraPerSpace` widens every space (justification). Letter spacing goes between
    /// glyphs, not before the first or after the last (as in Pango). Returns the glyphs
    /// and the advance width; each glyph with its run's style and its advance (letter
    /// spacing and justification included).
    func glyphs(in r: Range<Int>, extraPerSpace: Double = 0) -> (glyphs: [PlacedGlyph], width: Double) {
        var slices: [(run: ParagraphRun, glyphs: ClosedRange<Int>)] = []
        var levels: [UInt8] = []
        for run in runs where run.shaped.range.overlaps(r) {
            let glyphs = run.shaped.glyphs
            guard let first = glyphs.firstIndex(where: { r.contains($0.cluster) }),
                let last = glyphs.lastIndex(where: { r.contains($0.cluster) })
            else { continue }
            slices.append((run, first...last))
            levels.append(run.level)
        }
        var out: [PlacedGlyph] = []
        var pen = 0.0
        var lastPad = 0.0
        for i in visualOrder(levels: levels) {
            let run = slices[i].run
            for k in slices[i].glyphs {
                let g = run.shaped.glyphs[k]
                if !out.isEmpty { pen += run.padBefore[k] }
                let start = pen
                out.append(PlacedGlyph(face: run.shaped.face, glyph: g, x: pen + g.xOffset, style: run.style, advance: 0))
                pen += g.xAdvance + run.padAfter[k]
                lastPad = run.padAfter[k]
                if extraPerSpace != 0, scalars[g.cluster] == " " { pen += extraPerSpace }
                out[out.count - 1].advance = pen - start
            }
        }
        return (out, pen - lastPad)
    }

    private struct Item {
        var range: Range<Int>
        var face: FontFace
        var script: hb_script_t
        var level: UInt8
        var style: Int
    }

    /// Splits `range` into maximal runs of one face, script, level and style. Spaces,
    /// punctuation and marks join the run before them when its face has them.
    private static func itemize(_ scalars: [Unicode.Scalar], range: Range<Int>, levels: [UInt8], spans: StyleSpans) -> [Item] {
        let scripts = range.map { script(of: scalars[$0]) }
        let firstReal = scripts.first { !$0.isCommonOrInherited } ?? HB_SCRIPT_COMMON
        var items: [Item] = []
        var currentScript = firstReal
        var previousFace: FontFace?
        var previousStyle = -1
        let emoji = EmojiSequences(scalars, range: range)
        for i in range {
            let k = i - range.lowerBound
            let scalar = scalars[i]
            let style = spans.style(at: i)
            let font = spans.styles[style].font
            if style != previousStyle { previousFace = nil }
            previousStyle = style
            if !scripts[k].isCommonOrInherited { currentScript = scripts[k] }
            let face: FontFace
            if let sequence = emoji.sequence(containing: i), let emojiFace = font.emojiFace(for: scalars[sequence]) {
                face = emojiFace
            } else if let previous = previousFace, emoji.sequence(containing: i - 1) == nil, scripts[k].isCommonOrInherited,
                scripts[k] == HB_SCRIPT_INHERITED || previous.hasGlyph(for: scalar)
            {
                face = previous
            } else {
                face = font.face(for: scalar)
            }
            previousFace = face
            if var last = items.last, last.face === face, last.script == currentScript, last.level == levels[k], last.style == style {
                last.range = last.range.lowerBound..<(i + 1)
                items[items.count - 1] = last
            } else {
                items.append(Item(range: i..<(i + 1), face: face, script: currentScript, level: levels[k], style: style))
            }
        }
        return items
    }
}

/// A glyph of a line as `ShapedParagraph.glyphs(in:)` places it.
struct PlacedGlyph {
    let face: FontFace
    let glyph: ShapedGlyph
    /// The pen position plus the glyph's offset, from the line's start.
    let x: Double
    let style: Int
    /// How far the pen moved for it.
    var advance: Double
}

extension hb_script_t {
    var isCommonOrInherited: Bool {
        self == HB_SCRIPT_COMMON || self == HB_SCRIPT_INHERITED || self == HB_SCRIPT_UNKNOWN
    }

    /// Scripts whose letters join (Arabic, Syriac, N'Ko, Mongolian, …): letter spacing
    /// would tear their joins apart, so it leaves them alone (as CSS asks; Pango spaces
    /// them).
    var isCursive: Bool {
        self == HB_SCRIPT_ARABIC || self == HB_SCRIPT_SYRIAC || self == HB_SCRIPT_NKO || self == HB_SCRIPT_MONGOLIAN
            || self == HB_SCRIPT_MANDAIC || self == HB_SCRIPT_ADLAM || self == HB_SCRIPT_HANIFI_ROHINGYA
            || self == HB_SCRIPT_PHAGS_PA || self == HB_SCRIPT_PSALTER_PAHLAVI || self == HB_SCRIPT_SOGDIAN
    }
}

extension Unicode.Scalar {
    /// Whitespace a line may break after and that hangs (is not drawn) at a line's end:
    /// not the no-break spaces.
    var isBreakingWhitespace: Bool {
        switch value {
        case 0x20, 0x09, 0x1680, 0x2000...0x2006, 0x2008...0x200A, 0x205F, 0x3000: true
        default: false
        }
    }
}
