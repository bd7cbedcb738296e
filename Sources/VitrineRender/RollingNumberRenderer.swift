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
    private var layouts: [LayoutKey: TextLayout] = [:]

    public init(library: FontLibrary, kind: LayerKind) {
        self.library = library
        self.kind = kind
    }

    private struct LayoutKey: Hashable {
        let text: String
        let style: TextStyle
    }

    /// Where a rolling number's columns go in its bounds space.
    private struct Placement {
        let properties: RollingNumberProperties
        let columns: RollColumns
        let style: TextStyle
        /// Per column (from the right): its width, and its pen position from the left.
        let widths: [Double]
        let pens: [Double]
        let lineHeight: Double
        let baseline: Double
    }

    /// The last placements computed, newest last: a frame asks for the same node's
    /// placement for its damage and for every damage rectangle it draws.
    private var recent: [(values: PropertyValues, placement: Placement)] = []

    private func placement(_ node: RenderTree.Node) -> Placement? {
        if let hit = recent.last(where: { $0.values == node.values }) { return hit.placement }
        guard let placement = computePlacement(node) else { return nil }
        if recent.count >= 4 { recent.removeFirst() }
        recent.append((node.values, placement))
        return placement
    }

    private func computePlacement(_ node: RenderTree.Node) -> Placement? {
        let p = RollingNumberProperties(node.values, kind: kind)
        let columns = RollColumns(node.values.custom) ?? RollColumns(showing: p.text)
        guard let font = try? FontDescriptor(parsing: p.font) else { return nil }
        var style = TextStyle(font: font, fontSize: min(4096, max(0, p.fontSize)), alignment: .left)
        style.features = [FontFeature("tnum", 1)]
        guard let rest = layout(columns.target, style) else { return nil }
        let bounds = node.values.rect(.bounds)
        // Advances of the resting text's characters, by column (from the right).
        let restGlyphs = rest.lines.first?.glyphs ?? []
        var advances: [Double] = []
        for (i, g) in restGlyphs.enumerated() {
            advances.append((i + 1 < restGlyphs.count ? restGlyphs[i + 1].x : rest.lines[0].width + rest.lines[0].x) - g.x)
        }
        advances.reverse()
        var widths: [Double] = []
        var present = 0
        for column in columns.columns {
            let advance: Double
            if column.presence > 0, present < advances.count {
                advance = advances[present]
                present += 1
            } else {
                advance = self.advance(of: column.visible.first, style) ?? 0
            }
            widths.append(advance * p.characterSpacing * max(0, min(1, column.presence)))
        }
        let total = widths.reduce(0, +)
        var pen: Double = switch p.alignment {
        case "center": (bounds.width - total) / 2
        case "right": bounds.width - total
        default: 0
        }
        var pens = [Double](repeating: 0, count: widths.count)
        for k in widths.indices.reversed() {
            pens[k] = pen
            pen += widths[k]
        }
        return Placement(
            properties: p, columns: columns, style: style, widths: widths, pens: pens,
            lineHeight: rest.lineHeight, baseline: rest.lines.first?.baseline ?? rest.lineHeight * 0.8)
    }

    /// Only the columns whose window moved (or that grew or shrank) need repainting, when
    /// nothing else about the number changed.
    public func damage(from old: RenderTree.Node, to new: RenderTree.Node) -> [Rect]? {
        let t = new.transform
        guard t.a == 1, t.b == 0, t.c == 0, t.d == 1, let valueSlot = kind.slot(of: "value"),
              new.values.differingSlots(from: old.values).allSatisfy({ $0 == valueSlot }),
              let before = placement(old), let after = placement(new),
              before.widths == after.widths, before.pens == after.pens, before.lineHeight == after.lineHeight
        else { return nil }
        let bounds = new.values.rect(.bounds)
        let ox = (t.tx + bounds.minX).rounded(), oy = (t.ty + bounds.minY).rounded()
        let margin = (after.style.fontSize * 0.1).rounded(.up) + 1
        var rects: [Rect] = []
        for k in after.columns.columns.indices where after.columns.columns[k] != before.columns.columns[k] {
            rects.append(Rect(x: ox + after.pens[k] - margin, y: oy, width: after.widths[k] + 2 * margin, height: after.lineHeight + 1))
        }
        return rects.map { $0.intersection(new.visualBounds) }.filter { !$0.isNull && !$0.isEmpty }
    }

    public func draw(_ node: RenderTree.Node, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        guard let place = placement(node) else { return }
        let p = place.properties, columns = place.columns, style = place.style, widths = place.widths
        guard p.textColor.alpha > 0, opacity > 0 else { return }
        let bounds = node.values.rect(.bounds)
        let lineHeight = place.lineHeight, baseline = place.baseline
        let axisAligned = transform.a == 1 && transform.b == 0 && transform.c == 0 && transform.d == 1
        // Under rotation or scale the number is drawn at layer size offscreen, then
        // through the transform.
        let target: Surface
        let origin: (x: Int, y: Int)
        if axisAligned {
            target = surface
            origin = (Int((transform.tx + bounds.minX).rounded()), Int((transform.ty + bounds.minY).rounded()))
        } else {
            let w = Int(bounds.width.rounded(.up)), h = Int(bounds.height.rounded(.up))
            guard w > 0, h > 0, w <= 16384, h <= 16384 else { return }
            target = Surface(width: w, height: h)
            origin = (0, 0)
        }
        let lineClip = PixelRect(x: origin.x, y: origin.y, width: Int(bounds.width.rounded(.up)), height: Int(min(bounds.height, lineHeight).rounded(.up)))
        for (k, column) in columns.columns.enumerated().reversed() {
            let width = widths[k], pen = place.pens[k]
            guard column.presence > 0 else { continue }
            let alpha = opacity * min(1, column.presence)
            let color = premultiplied(p.textColor, alpha)
            var columnClip = axisAligned ? clip.intersecting(lineClip) : Clip(rect: lineClip)
            if column.presence < 1 {
                let left = origin.x + Int((pen).rounded(.down)), right = origin.x + Int((pen + width).rounded(.up))
                columnClip = columnClip.intersecting(PixelRect(x: left, y: lineClip.y, width: right - left, height: lineClip.height))
            }
            let (first, offset, next) = column.visible
            draw(first, at: pen, y: baseline - offset * lineHeight, style: style, on: target, origin: origin, color: color, clip: columnClip)
            if let next {
                draw(next, at: pen, y: baseline + (1 - offset) * lineHeight, style: style, on: target, origin: origin, color: color, clip: columnClip)
            }
        }
        if !axisAligned {
            surface.draw(image: target, in: Rect(origin: bounds.origin, size: Size(width: Double(target.width), height: Double(target.height))), transform: transform, clip: clip)
        }
    }

    /// Draws one character with its pen at (`x`, baseline `y`) in the layer's space.
    private func draw(_ c: Character, at x: Double, y: Double, style: TextStyle, on surface: Surface, origin: (x: Int, y: Int), color: PremultipliedColor, clip: Clip) {
        guard let glyph = layout(String(c), style)?.lines.first?.glyphs.first else { return }
        let placed = PositionedGlyph(face: glyph.face, glyphID: glyph.glyphID, x: x + glyph.x, y: y, cluster: 0)
        let position = placed.pixelPosition
        let mask = library.glyphCache.mask(face: glyph.face, size64: Int((style.fontSize * 64).rounded()), glyph: glyph.glyphID, subpixel: position.subpixel)
        guard !mask.isEmpty else { return }
        mask.bytes.withUnsafeBufferPointer { bytes in
            surface.drawCoverage(bytes.baseAddress!, width: mask.width, height: mask.height, stride: mask.stride,
                                 x: origin.x + position.x + mask.left, y: origin.y + position.y - mask.top, color: color, clip: clip)
        }
    }

    private func advance(of c: Character, _ style: TextStyle) -> Double? {
        layout(String(c), style)?.lines.first?.width
    }

    private func layout(_ text: String, _ style: TextStyle) -> TextLayout? {
        let key = LayoutKey(text: text, style: style)
        if let cached = layouts[key] { return cached }
        guard let layout = try? TextLayout(text, style: style, width: nil, height: nil, library: library) else { return nil }
        if layouts.count >= 512 { layouts.removeAll(keepingCapacity: true) }
        layouts[key] = layout
        return layout
    }
}
