import VitrineCore
import VitrineRaster
import VitrineRolling
import VitrineText

/// Draws rolling numbers: each column's window onto its strip of characters, placed with
/// the shaped advances of the text it comes to rest on (HarfBuzz, `tnum` asked for),
/// scaled by `characterSpacing` and by each column's presence, aligned in the bounds and
/// clipped to the line.
///
/// At rest the glyphs land exactly where a text layer with the same string, font and
/// alignment puts them, so a settled number looks like text.
public final class RollingNumberRenderer: ContentRenderer {
    public let library: FontLibrary
    private let kind: LayerKind
    private let slots: Slots
    /// Fonts by name and size, nil for names that do not parse.
    private var fonts: [FontKey: RollingNumberFont?] = [:]

    public init(library: FontLibrary, kind: LayerKind) {
        self.library = library
        self.kind = kind
        slots = Slots(kind)
    }

    private struct FontKey: Hashable {
        let name: String
        let size: Double
    }

    /// The slots of the properties drawing reads, found once.
    private struct Slots {
        let value, font, fontSize, textColor, alignment, characterSpacing: Int?

        init(_ kind: LayerKind) {
            value = kind.slot(of: "value")
            font = kind.slot(of: "font")
            fontSize = kind.slot(of: "fontSize")
            textColor = kind.slot(of: "textColor")
            alignment = kind.slot(of: "alignmentMode")
            characterSpacing = kind.slot(of: "characterSpacing")
        }
    }

    /// Where a rolling number's columns go in its bounds space at one frame. A class, so
    /// that the frames that look one up do not copy it.
    private final class Placement {
        let layout: Layout
        /// Per column, the glyphs its window shows.
        let glyphs: [ColumnGlyphs]
        let textColor: Color

        init(layout: Layout, glyphs: [ColumnGlyphs], textColor: Color) {
            (self.layout, self.glyphs, self.textColor) = (layout, glyphs, textColor)
        }

        var columns: RollColumns { layout.columns }
        var line: Line { layout.line }
    }

    /// What a placement depends on besides the columns' positions: the frames of a roll
    /// share one, and only read the positions.
    private final class Layout {
        /// The columns as read when the layout was made (their positions are that frame's).
        let columns: RollColumns
        let style: LineStyle
        let line: Line
        /// The state's arrays the layout was read from: a later frame whose state holds the
        /// same storage (only positions animate) needs no new layout.
        let strips: [Value], rests: [Value], presences: [Value]
        /// The style's property values as read.
        let inputs: StyleInputs
        /// Per column and strip index, the character's glyph at the column's pen, filled as
        /// the column's window reaches it.
        private var stripGlyphs: [[StripGlyph?]]
        private let hasLeavingColumns: Bool

        /// `previous`, a layout with the same style and line, lends the glyphs of the strips
        /// the two share.
        init(columns: RollColumns, style: LineStyle, line: Line, state: [String: Value], inputs: StyleInputs, previous: Layout?) {
            (self.columns, self.style, self.line, self.inputs) = (columns, style, line, inputs)
            strips = state["strips"]?.array ?? []
            rests = state["rest"]?.array ?? []
            presences = state["presence"]?.array ?? []
            stripGlyphs = columns.columns.indices.map { k in
                let strip = columns.columns[k].strip
                if let previous, k < previous.columns.columns.count, previous.columns.columns[k].strip == strip {
                    return previous.stripGlyphs[k]
                }
                return [StripGlyph?](repeating: nil, count: strip.count)
            }
            hasLeavingColumns = columns.columns.contains { $0.presence > 0 && $0.rest == nil }
        }

        /// Whether `state` and `inputs` describe this layout, its columns at other positions.
        /// Never while a column leaves the text: its width is that of the character it
        /// shows, which changes as it rolls.
        func matches(_ state: [String: Value], inputs: StyleInputs) -> Bool {
            guard !hasLeavingColumns, case .array(let s)? = state["strips"], s.sharesStorage(with: strips),
                (state["rest"]?.array ?? []).sharesStorage(with: rests), (state["presence"]?.array ?? []).sharesStorage(with: presences)
            else { return false }
            return inputs == self.inputs
        }

        /// The glyphs column `k` shows at `position`: the character at ⌊position⌋, its
        /// baseline moved up by the fraction of a line, and the next one below it.
        func glyphs(_ k: Int, at position: Double) -> ColumnGlyphs {
            let column = columns.columns[k]
            guard column.presence > 0, !column.strip.isEmpty else { return ColumnGlyphs() }
            let last = column.strip.count - 1
            let clamped = min(max(position, 0), Double(last))
            let index = Int(clamped.rounded(.down))
            let offset = clamped - Double(index)
            return ColumnGlyphs(
                first: glyph(k, index, y: line.baseline - offset * line.lineHeight),
                next: offset > 1e-9 && index < last ? glyph(k, index + 1, y: line.baseline + (1 - offset) * line.lineHeight) : nil)
        }

        /// Character `i` of column `k`'s strip with its baseline at `y`; nil when it has no
        /// ink in the line.
        private func glyph(_ k: Int, _ i: Int, y: Double) -> PlacedGlyph? {
            let strip = stripGlyphs[k][i] ?? makeStripGlyph(k, i)
            guard let mask = strip.mask else { return nil }
            let top = Int(y.rounded()) - mask.top
            // Glyphs wholly above or below the line never show (the column clips to it).
            guard top < Int(line.lineHeight.rounded(.up)), top + mask.height > 0 else { return nil }
            return PlacedGlyph(mask: mask, x: strip.x, y: top)
        }

        private func makeStripGlyph(_ k: Int, _ i: Int) -> StripGlyph {
            let shaped = style.font.shaped(columns.columns[k].strip[i])
            var made = StripGlyph(mask: nil, x: 0)
            if let glyph = shaped.glyph {
                let position = PositionedGlyph(face: glyph.face, glyphID: glyph.glyphID, x: line.pens[k] + glyph.x, y: 0, cluster: 0).pixelPosition
                let mask = shaped.mask(subpixel: position.subpixel, font: style.font)
                if !mask.isEmpty { made = StripGlyph(mask: mask, x: position.x + mask.left) }
            }
            stripGlyphs[k][i] = made
            return made
        }
    }

    /// The property values a layout's style is made from, as read, and the scale the
    /// glyphs are rasterized at (the layer's on screen, `AffineTransform.glyphScale`).
    private struct StyleInputs: Equatable {
        let font: Value, fontSize: Value, spacing: Value, alignment: Value
        let width: Double
        let scale: Double
    }

    /// A strip character's mask and left pixel at its column's pen; no mask when it has no
    /// ink.
    private struct StripGlyph {
        let mask: GlyphMask?
        let x: Int
    }

    /// What, besides the resting text, the columns' places depend on.
    private struct LineStyle: Equatable {
        let font: RollingNumberFont
        let spacing: Double
        let width: Double
        let alignment: String

        static func == (a: Self, b: Self) -> Bool {
            a.font === b.font && a.spacing == b.spacing && a.width == b.width && a.alignment == b.alignment
        }
    }

    /// The columns' places on the line, which depend on the text they come to rest on, not
    /// on how far they have rolled.
    private struct Line: Equatable {
        /// Per column (from the right): its width, and its pen position from the left.
        let widths: [Double]
        let pens: [Double]
        let lineHeight: Double
        let baseline: Double
    }

    /// A glyph mask placed relative to the number's top-left pixel.
    private struct PlacedGlyph: Equatable {
        let mask: GlyphMask
        let x: Int
        let y: Int

        static func == (a: Self, b: Self) -> Bool { a.mask === b.mask && a.x == b.x && a.y == b.y }
    }

    /// The glyphs in a column's window: the character at its position, and the next one
    /// while it rolls.
    private struct ColumnGlyphs: Equatable {
        var first: PlacedGlyph?
        var next: PlacedGlyph?
    }

    /// The last placements computed (`RecentContents`).
    private var recent = RecentContents<Placement>()
    /// The storage `damage` collects its rectangles and a column's glyph boxes in.
    private var rectsScratch: [Rect] = [], inkScratch: [PixelRect] = []

    /// Where `node`'s columns go, in pixels of its bounds at `scale` times their size.
    private func placement(_ node: RenderTree.Node, scale: Double = 1) -> Placement? {
        // The same content object, not merely equal values: comparing a rolling number's
        // columns costs about as much as reading them.
        if let hit = recent[node.content], hit.layout.inputs.scale == scale { return hit }
        guard let placement = computePlacement(node, scale: scale) else { return nil }
        recent.remember(placement, for: node.content)
        return placement
    }

    /// The font `name` at `size` px, made once.
    private func font(_ name: String, _ size: Double) -> RollingNumberFont? {
        let key = FontKey(name: name, size: size)
        if let hit = fonts[key] { return hit }
        let font = RollingNumberFont(font: name, fontSize: size, library: library)
        if fonts.count >= 16 { fonts.removeAll(keepingCapacity: true) }
        fonts[key] = font
        return font
    }

    private func computePlacement(_ node: RenderTree.Node, scale: Double) -> Placement? {
        let v = node.values
        func value(_ slot: Int?) -> Value { slot.map { v[slot: $0] } ?? .bool(false) }
        let textColor = value(slots.textColor).color ?? .white
        let inputs = StyleInputs(
            font: value(slots.font), fontSize: value(slots.fontSize), spacing: value(slots.characterSpacing),
            alignment: value(slots.alignment), width: v.rect(.bounds).width * scale, scale: scale)
        let state = v.custom[RollingNumber.stateKey]?.dictionary
        // The same layer's last placement: while the columns roll, only their positions
        // change from frame to frame, and its layout serves again.
        let previous = recent.newest { $0.id == node.content.id }
        if let previous, let state, previous.layout.matches(state, inputs: inputs) {
            let layout = previous.layout
            let positions = state["pos"]?.array ?? []
            var glyphs: [ColumnGlyphs] = []
            glyphs.reserveCapacity(layout.columns.columns.count)
            for k in layout.columns.columns.indices {
                glyphs.append(layout.glyphs(k, at: k < positions.count ? positions[k].number ?? 0 : 0))
            }
            return Placement(layout: layout, glyphs: glyphs, textColor: textColor)
        }
        let columns = RollColumns(v.custom, reusing: previous?.columns) ?? RollColumns(showing: RollingNumberProperties(v, kind: kind).text)
        guard let font = font(inputs.font.string ?? "DejaVu Sans", (inputs.fontSize.number ?? 96) * scale) else { return nil }
        let style = LineStyle(font: font, spacing: inputs.spacing.number ?? 1, width: inputs.width, alignment: inputs.alignment.string ?? "left")
        let reusable = previous.flatMap { $0.layout.style == style && Self.restTheSame($0.columns, columns) ? $0 : nil }
        guard let line = reusable?.line ?? self.line(columns, style) else { return nil }
        let layout = Layout(columns: columns, style: style, line: line, state: state ?? [:], inputs: inputs, previous: reusable?.layout)
        return Placement(layout: layout, glyphs: columns.columns.indices.map { layout.glyphs($0, at: columns.columns[$0].position) }, textColor: textColor)
    }

    /// Whether two states rest on the same text with the same columns present, so that
    /// their columns take the same places.
    private static func restTheSame(_ a: RollColumns, _ b: RollColumns) -> Bool {
        guard a.columns.count == b.columns.count else { return false }
        for k in a.columns.indices {
            let x = a.columns[k], y = b.columns[k]
            guard x.presence == y.presence, x.rest == y.rest else { return false }
            guard x.presence > 0 else { continue }
            guard let rest = x.rest else {
                // A column leaving the text takes the advance of the character it shows.
                guard x.visible.first == y.visible.first else { return false }
                continue
            }
            // The same strip rests on the same character, without comparing characters.
            guard x.strip.sharesStorage(with: y.strip) || x.strip[rest] == y.strip[rest] else { return false }
        }
        return true
    }

    /// The columns' places: the advances of the text the columns rest on, by column (from
    /// the right), scaled by the style's spacing and by each column's presence, aligned in
    /// its width. They stay put while the digits roll.
    private func line(_ columns: RollColumns, _ style: LineStyle) -> Line? {
        let font = style.font
        guard let rest = font.rest(columns.restingText) else { return nil }
        // Columns that are leaving take their character's own advance.
        var widths: [Double] = []
        widths.reserveCapacity(columns.columns.count)
        var resting = 0
        // The line ends at the last character's own advance, not its scaled one, so that
        // a spacing below 1 does not push the last glyph out of a right-aligned line (nor
        // one above 1 leave a gap after it). While the last column leaves, the one before
        // it takes over smoothly.
        var trailing = 0.0, unclaimed = 1.0
        for column in columns.columns {
            let advance: Double
            if column.rest != nil, resting < rest.advances.count {
                advance = rest.advances[resting]
                resting += 1
            } else {
                advance = font.shaped(column.visible.first).advance ?? 0
            }
            let presence = max(0, min(1, column.presence))
            widths.append(advance * style.spacing * presence)
            trailing += advance * (1 - style.spacing) * presence * unclaimed
            unclaimed *= 1 - presence
        }
        let total = widths.reduce(0, +) + trailing
        var pen: Double =
            switch style.alignment {
            case "center": (style.width - total) / 2
            case "right": style.width - total
            default: 0
            }
        var pens = [Double](repeating: 0, count: widths.count)
        for k in widths.indices.reversed() {
            pens[k] = pen
            pen += widths[k]
        }
        return Line(widths: widths, pens: pens, lineHeight: rest.lineHeight, baseline: rest.baseline)
    }

    /// Only the columns whose pixels change need repainting, when nothing else about the
    /// number changed: the pixels their glyphs covered and cover. Glyphs land on whole
    /// pixel rows, so a column that moved less than a row since the last frame (a spring
    /// coming to rest) often draws exactly what it drew, and is left alone; a frame in
    /// which no column's pixels change is not presented at all.
    public func damage(from old: RenderTree.Node, to new: RenderTree.Node) -> [Rect]? {
        let t = new.transform
        guard t.translatesOnly, let valueSlot = slots.value,
            new.values.differingSlots(from: old.values).allSatisfy({ $0 == valueSlot }),
            let before = placement(old), let after = placement(new),
            before.layout === after.layout || before.line == after.line
        else { return nil }
        let bounds = new.values.rect(.bounds)
        let origin = (x: Int((t.tx + bounds.minX).rounded()), y: Int((t.ty + bounds.minY).rounded()))
        let lineClip = lineRect(size: bounds.size, origin: origin, after)
        // The lists' storage is kept between frames: taken for this call, handed back at its
        // end (the caller is done with the returned list by the next frame).
        var rects = rectsScratch
        rectsScratch = []
        rects.removeAll(keepingCapacity: true)
        var ink = inkScratch
        inkScratch = []
        defer { ink.removeAll(keepingCapacity: true); inkScratch = ink }
        for k in after.columns.columns.indices
        where after.glyphs[k] != before.glyphs[k] || after.columns.columns[k].presence != before.columns.columns[k].presence {
            ink.removeAll(keepingCapacity: true)
            func addInk(of place: Placement) {
                guard place.columns.columns[k].presence > 0 else { return }
                let column = columnRect(k, lineClip: lineClip, origin: origin, place)
                forEachGlyph(of: k, origin: origin, place) { mask, x, y in
                    add(PixelRect(x: x, y: y, width: mask.width, height: mask.height).intersection(column), to: &ink)
                }
            }
            addInk(of: before)
            addInk(of: after)
            for r in ink {
                let rect = r.rect.intersection(new.visualBounds)
                if !rect.isNull, !rect.isEmpty { rects.append(rect) }
            }
        }
        rectsScratch = rects
        return rects
    }

    /// Adds `r` to `rects`, merged with those it overlaps (a glyph before and after a
    /// small move).
    private func add(_ r: PixelRect, to rects: inout [PixelRect]) {
        guard !r.isEmpty else { return }
        var r = r
        while let i = rects.firstIndex(where: { !$0.intersection(r).isEmpty }) {
            r = r.union(rects.remove(at: i))
        }
        rects.append(r)
    }

    public func draw(_ node: RenderTree.Node, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        // Under rotation or scale the number is drawn offscreen at its scale on screen
        // (as text layers are), then through the transform.
        guard let scale = transform.glyphScale, let place = placement(node, scale: scale), place.textColor.alpha > 0, opacity > 0 else { return }
        let bounds = node.values.rect(.bounds)
        let axisAligned = transform.translatesOnly
        let target: Surface
        let origin: (x: Int, y: Int)
        var offscreen: ScaledOffscreen?
        if axisAligned {
            target = surface
            origin = (Int((transform.tx + bounds.minX).rounded()), Int((transform.ty + bounds.minY).rounded()))
        } else {
            guard let scaled = ScaledOffscreen(bounds: bounds, scale: scale) else { return }
            offscreen = scaled
            target = scaled.surface
            origin = (0, 0)
        }
        let lineClip = lineRect(size: Size(width: bounds.width * scale, height: bounds.height * scale), origin: origin, place)
        let fullColor = premultiplied(place.textColor, opacity)
        for k in place.columns.columns.indices.reversed() {
            let column = place.columns.columns[k]
            guard column.presence > 0 else { continue }
            let color = column.presence >= 1 ? fullColor : premultiplied(place.textColor, opacity * min(1, column.presence))
            let columnRect = self.columnRect(k, lineClip: lineClip, origin: origin, place)
            let columnClip = axisAligned ? clip.intersecting(columnRect) : Clip(rect: columnRect)
            guard !columnClip.rect.isEmpty else { continue }
            forEachGlyph(of: k, origin: origin, place) { mask, x, y in
                // Most damage rectangles hold few of the columns.
                guard !columnClip.rect.intersection(PixelRect(x: x, y: y, width: mask.width, height: mask.height)).isEmpty else { return }
                mask.bytes.withUnsafeBufferPointer { bytes in
                    target.drawCoverage(
                        bytes.baseAddress!, width: mask.width, height: mask.height, stride: mask.stride,
                        x: x, y: y, color: color, clip: columnClip)
                }
            }
        }
        offscreen?.draw(on: surface, transform: transform, clip: clip)
    }

    /// The pixels of the number's line, its bounds (`size`, in the placement's pixels)
    /// top-left at `origin`.
    private func lineRect(size: Size, origin: (x: Int, y: Int), _ place: Placement) -> PixelRect {
        PixelRect(x: origin.x, y: origin.y, width: Int(size.width.rounded(.up)), height: Int(min(size.height, place.line.lineHeight).rounded(.up)))
    }

    /// The pixels column `k` may draw in: the line, narrowed to the column's width while
    /// it grows or shrinks.
    private func columnRect(_ k: Int, lineClip: PixelRect, origin: (x: Int, y: Int), _ place: Placement) -> PixelRect {
        guard place.columns.columns[k].presence < 1 else { return lineClip }
        let pen = place.line.pens[k], width = place.line.widths[k]
        let left = origin.x + Int(pen.rounded(.down)), right = origin.x + Int((pen + width).rounded(.up))
        return lineClip.intersection(PixelRect(x: left, y: lineClip.y, width: right - left, height: lineClip.height))
    }

    /// Calls `body` with each glyph mask column `k` shows (unclipped) and its top-left
    /// pixel, the number's bounds' top-left at `origin`.
    private func forEachGlyph(of k: Int, origin: (x: Int, y: Int), _ place: Placement, _ body: (GlyphMask, Int, Int) -> Void) {
        let glyphs = place.glyphs[k]
        if let g = glyphs.first { body(g.mask, origin.x + g.x, origin.y + g.y) }
        if let g = glyphs.next { body(g.mask, origin.x + g.x, origin.y + g.y) }
    }
}
