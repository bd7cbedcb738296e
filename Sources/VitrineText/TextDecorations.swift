import CHarfBuzz
import VitrineCore

/// A rectangle an attributed text's run draws besides its glyphs.
public struct TextDecoration: Sendable {
    public enum Kind: Sendable {
        /// Behind the glyphs, the run's background colour.
        case background
        /// Over the glyphs, in the run's foreground colour.
        case line
    }

    public let kind: Kind
    /// In the layout's space, with fractional edges (drawn with partial coverage).
    public let rect: Rect
    /// The run's index in `TextLayout.runs`.
    public let run: Int
}

extension FontFace {
    /// Where underlines and strike-throughs go at `size` pixels per em: their top edges
    /// above the baseline and their thicknesses, unhinted (as Pango without hinted metrics).
    func lineGeometry(size: Double) -> (underline: Double, underlineThickness: Double, strikeout: Double, strikeoutThickness: Double) {
        let scale = size / Double(unitsPerEm)
        func metric(_ tag: hb_ot_metrics_tag_t) -> Double {
            var value: hb_position_t = 0
            hb_ot_metrics_get_position_with_fallback(shaping.font, tag, &value)
            return Double(value) * scale
        }
        return (
            metric(HB_OT_METRICS_TAG_UNDERLINE_OFFSET), metric(HB_OT_METRICS_TAG_UNDERLINE_SIZE),
            metric(HB_OT_METRICS_TAG_STRIKEOUT_OFFSET), metric(HB_OT_METRICS_TAG_STRIKEOUT_SIZE)
        )
    }
}

extension TextLayout {
    /// How far below the baseline the glyphs' outlines reach (Pango puts a low underline
    /// one thickness under the ink).
    private func inkBottom(_ glyphs: ArraySlice<PositionedGlyph>, size: Double) -> Double {
        var bottom = -Double.infinity
        for g in glyphs {
            var extents = hb_glyph_extents_t()
            guard hb_font_get_glyph_extents(g.face.shaping.font, g.glyphID, &extents) != 0 else { continue }
            bottom = max(bottom, g.y - Double(extents.y_bearing + extents.height) * size / Double(g.face.unitsPerEm))
        }
        return bottom.isFinite ? bottom : glyphs.first?.y ?? 0
    }

    /// For each scalar of the text, the index of its run in `runs`; empty for plain text.
    static func runIndex(_ runs: [AttributedRun]) -> [Int] {
        var map = [Int](repeating: 0, count: runs.last?.range.upperBound ?? 0)
        for (k, run) in runs.enumerated() { for i in run.range { map[i] = k } }
        return map
    }

    /// The index in `runs` of the run the scalar `cluster` belongs to (an ellipsis takes
    /// the run where the text was cut).
    public func run(ofScalar cluster: Int) -> Int { cluster < runOfScalar.count ? runOfScalar[cluster] : max(0, runs.count - 1) }

    /// The backgrounds, underlines and strike-throughs of the runs that ask for them, as
    /// Pango draws them: a background spans its line's height, lines take the run's
    /// primary face's metrics, raised with the run.
    public var decorations: [TextDecoration] {
        guard runs.contains(where: { $0.attributes.backgroundColor != nil || $0.attributes.underline != nil || $0.attributes.strikethrough != nil })
        else { return [] }
        var out: [TextDecoration] = []
        for line in lines {
            var start = 0
            while start < line.glyphs.count {
                let first = line.glyphs[start]
                let run = self.run(ofScalar: first.cluster)
                var end = start + 1
                while end < line.glyphs.count, self.run(ofScalar: line.glyphs[end].cluster) == run, line.glyphs[end].style == first.style {
                    end += 1
                }
                let last = line.glyphs[end - 1]
                let x0 = first.x, x1 = last.x + last.advance
                out += decorations(of: run, line: line, glyphs: line.glyphs[start..<end], x: x0, width: x1 - x0, style: first.style)
                start = end
            }
        }
        return out.sorted { $0.kind == .background && $1.kind != .background }
    }

    private func decorations(
        of run: Int, line: TextLine, glyphs: ArraySlice<PositionedGlyph>, x: Double, width: Double, style: Int
    ) -> [TextDecoration] {
        let a = runs[run].attributes
        var out: [TextDecoration] = []
        if a.backgroundColor != nil {
            out.append(
                TextDecoration(
                    kind: .background, rect: Rect(x: x, y: line.baseline - line.ascent, width: width, height: line.ascent + line.descent),
                    run: run))
        }
        let span = spans.styles[style]
        let baseline = line.baseline - span.rise
        let geometry = span.font.primary.lineGeometry(size: span.size)
        func bar(_ top: Double, _ height: Double) {
            out.append(TextDecoration(kind: .line, rect: Rect(x: x, y: top, width: width, height: height), run: run))
        }
        switch a.underline ?? UnderlineStyle.none {
        case .none: break
        case .single: bar(baseline - geometry.underline, geometry.underlineThickness)
        case .double:
            bar(baseline - geometry.underline, geometry.underlineThickness)
            bar(baseline - geometry.underline + 2 * geometry.underlineThickness, geometry.underlineThickness)
        case .low: bar(inkBottom(glyphs, size: span.size) + geometry.underlineThickness, geometry.underlineThickness)
        }
        if a.strikethrough == true { bar(baseline - geometry.strikeout, geometry.strikeoutThickness) }
        return out
    }
}
