import VitrineCore
import VitrineRaster
import VitrineText

/// Draws text layers: their string laid out in their bounds (first line at the top, as
/// CATextLayer), in `foregroundColor`; colour glyphs (emoji) keep their own colours and
/// take only the opacity, as in Core Text.
///
/// Layouts are cached by string, style and box, so a colour animation or a moving layer
/// costs no shaping. Under a plain translation glyphs are blitted directly, snapped to
/// whole pixels; under rotation or scale the text is drawn at the layer's scale into an
/// offscreen surface that is then drawn through the transform.
public final class TextRenderer: ContentRenderer {
    public let library: FontLibrary
    private let kind: LayerKind
    private let slots: TextLayerContent.Slots
    private var layouts: [LayoutKey: TextLayout] = [:]
    private let capacity = 256
    /// Why layers were not drawn (a bad font name), by layer id, for the daemon to log.
    public private(set) var failures: [String: String] = [:]
    /// The text of the last nodes read (`RecentContents`): a bound template is filled once
    /// a frame instead of three times or more.
    private var recent = RecentContents<TextLayerContent>()
    /// Attributed strings read, by their text: a run's colour animation reads the layer
    /// every frame without parsing or laying out again.
    private var parsed: [String: AttributedText] = [:]

    public init(library: FontLibrary, kind: LayerKind = TextLayer.textLayerKind) {
        self.library = library
        self.kind = kind
        slots = TextLayerContent.Slots(kind: kind)
    }

    private struct LayoutKey: Hashable {
        let string: String
        let attributed: String
        let style: TextStyle
        let box: Size
    }

    public func draw(_ node: RenderTree.Node, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        let content: TextLayerContent
        do {
            content = try text(node)
        } catch {
            failures[node.id] = "\(error)"
            return
        }
        // A transparent text colour still leaves colour glyphs (emoji) to draw.
        guard !content.string.isEmpty || !content.attributedString.isEmpty, opacity > 0 else { return }
        let color = premultiplied(content.foregroundColor, opacity)
        let bounds = node.values.rect(.bounds)
        func paint(_ layout: TextLayout, on surface: Surface, x: Int, y: Int, clip: Clip?) {
            if content.attributedString.isEmpty {
                blit(layout, on: surface, x: x, y: y, color: color, opacity: opacity, clip: clip)
            } else {
                RichTextPainter(layout: layout, foregroundColor: content.foregroundColor, custom: node.values.custom, opacity: opacity)
                    .draw(on: surface, x: x, y: y, opacity: opacity, clip: clip)
            }
        }
        if transform.translatesOnly {
            guard let layout = layout(content, scale: 1) else { return }
            let ox = Int((transform.tx + bounds.minX).rounded()), oy = Int((transform.ty + bounds.minY).rounded())
            paint(layout, on: surface, x: ox, y: oy, clip: clip)
            return
        }
        guard let scale = transform.glyphScale, let layout = layout(content, scale: scale),
            let offscreen = ScaledOffscreen(bounds: bounds, scale: scale)
        else { return }
        paint(layout, on: offscreen.surface, x: 0, y: 0, clip: nil)
        offscreen.draw(on: surface, transform: transform, clip: clip)
    }

    /// When only the string changed and the layer's glyphs are blitted (a translation),
    /// the ink of the glyphs that are not drawn identically, at the same place, in both.
    public func damage(from old: RenderTree.Node, to new: RenderTree.Node) -> [Rect]? {
        let t = new.transform
        guard t.translatesOnly, let slot = slots.string,
            new.values.differingSlots(from: old.values) == [slot],
            let before = try? text(old), let after = try? text(new),
            let oldLayout = before.string.isEmpty ? nil : layout(before, scale: 1),
            let newLayout = after.string.isEmpty ? nil : layout(after, scale: 1)
        else { return nil }
        let bounds = new.values.rect(.bounds)
        let ox = Int((t.tx + bounds.minX).rounded()), oy = Int((t.ty + bounds.minY).rounded())
        // The same mask object (the glyph cache hands out one per glyph, size and
        // sub-pixel offset) at the same place draws the same pixels. The masks are held,
        // so that an identity cannot be reused by a mask rendered meanwhile.
        struct Placed: Hashable {
            let mask: GlyphMask
            let x, y: Int
            static func == (a: Placed, b: Placed) -> Bool { a.mask === b.mask && a.x == b.x && a.y == b.y }
            func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(mask)); h.combine(x); h.combine(y) }
        }
        var unmatched: [Placed: [Rect]] = [:]
        oldLayout.forEachGlyph { mask, x, y in
            unmatched[Placed(mask: mask, x: x, y: y), default: []].append(
                Rect(x: Double(ox + x), y: Double(oy + y), width: Double(mask.width), height: Double(mask.height)))
        }
        var rects: [Rect] = []
        newLayout.forEachGlyph { mask, x, y in
            let key = Placed(mask: mask, x: x, y: y)
            if unmatched[key]?.popLast() == nil {
                rects.append(Rect(x: Double(ox + x), y: Double(oy + y), width: Double(mask.width), height: Double(mask.height)))
            }
        }
        for leftovers in unmatched.values { rects += leftovers }
        return rects.map { $0.intersection(new.visualBounds) }.filter { !$0.isNull && !$0.isEmpty }
    }

    /// The text properties of `node`'s layer, from the recent ones when it was read before.
    private func text(_ node: RenderTree.Node) throws(TextError) -> TextLayerContent {
        if let hit = recent[node.content] { return hit }
        let text = try TextLayerContent(node.values, slots: slots)
        recent.remember(text, for: node.content)
        return text
    }

    /// `text` read as an attributed string, from the memo when read before.
    private func attributed(_ text: String) -> AttributedText? {
        if let hit = parsed[text] { return hit }
        guard let value = try? AttributedText(parsing: text) else { return nil }
        if parsed.count >= capacity { parsed.removeAll(keepingCapacity: true) }
        parsed[text] = value
        return value
    }

    /// Draws the glyphs in `color`, colour glyphs in their own colours with `opacity`.
    private func blit(_ layout: TextLayout, on surface: Surface, x: Int, y: Int, color: PremultipliedColor, opacity: Double, clip: Clip?) {
        layout.forEachGlyph { mask, gx, gy in
            if let image = mask.image {
                surface.composite(image, x: x + gx, y: y + gy, opacity: opacity, clip: clip)
                return
            }
            guard color.alpha != 0 else { return }
            mask.bytes.withUnsafeBufferPointer { bytes in
                surface.drawCoverage(
                    bytes.baseAddress!, width: mask.width, height: mask.height, stride: mask.stride,
                    x: x + gx, y: y + gy, color: color, clip: clip)
            }
        }
    }

    /// The layout of `content` at `scale` times its size, from the cache when possible.
    private func layout(_ content: TextLayerContent, scale: Double) -> TextLayout? {
        var style = content.style
        style.fontSize *= scale
        style.letterSpacing *= scale
        let box = Size(width: abs(content.boxSize.width) * scale, height: abs(content.boxSize.height) * scale)
        let key = LayoutKey(string: content.string, attributed: content.attributedString, style: style, box: box)
        if let cached = layouts[key] { return cached }
        let made: TextLayout?
        if content.attributedString.isEmpty {
            made = try? TextLayout(content.string, style: style, width: box.width, height: box.height, library: library)
        } else {
            guard let text = attributed(content.attributedString) else { return nil }
            made = try? TextLayout(text.scaled(by: scale), style: style, width: box.width, height: box.height, library: library)
        }
        guard let layout = made else { return nil }
        if layouts.count >= capacity { layouts.removeAll(keepingCapacity: true) }
        layouts[key] = layout
        return layout
    }
}
