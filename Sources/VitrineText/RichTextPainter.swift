import VitrineCore
import VitrineRaster

/// Draws an attributed text layer's layout: run backgrounds, glyphs in their runs'
/// colours, then underlines and strike-throughs. A named run's colours come from the
/// layer's custom key paths `runs.NAME.foregroundColor` / `runs.NAME.backgroundColor`
/// when set (so they animate without a new layout), else from its attributes, else the
/// layer's `foregroundColor`.
public struct RichTextPainter {
    let layout: TextLayout
    let foreground: [PremultipliedColor]
    let background: [PremultipliedColor?]

    /// The painter of `layout` with the layer's `foregroundColor`, its custom values
    /// (for `runs.NAME.…` colours) and opacity.
    public init(layout: TextLayout, foregroundColor: Color, custom: [String: Value] = [:], opacity: Double = 1) {
        func premultiplied(_ color: Color, _ opacity: Double) -> PremultipliedColor {
            var c = color.clamped
            c.alpha *= min(1, max(0, opacity))
            return PremultipliedColor(c)
        }
        self.layout = layout
        let named = custom["runs"]?.dictionary ?? [:]
        var fg: [PremultipliedColor] = []
        var bg: [PremultipliedColor?] = []
        fg.reserveCapacity(layout.runs.count)
        for run in layout.runs {
            let a = run.attributes
            let overrides = a.name.flatMap { named[$0]?.dictionary }
            fg.append(premultiplied(overrides?["foregroundColor"]?.color ?? a.foregroundColor ?? foregroundColor, opacity))
            bg.append((overrides?["backgroundColor"]?.color ?? a.backgroundColor).map { premultiplied($0, opacity) })
        }
        foreground = fg
        background = bg
    }

    /// Draws the layout with its top-left at (`x`, `y`); colour glyphs take `opacity`.
    public func draw(on surface: Surface, x: Int, y: Int, opacity: Double = 1, clip: Clip? = nil) {
        let decorations = layout.decorations
        for d in decorations where d.kind == .background {
            if let color = background[d.run] { fill(d.rect, color, on: surface, x: x, y: y, clip: clip) }
        }
        layout.forEachGlyph { mask, gx, gy, cluster in
            if let image = mask.image {
                surface.composite(image, x: x + gx, y: y + gy, opacity: opacity, clip: clip)
                return
            }
            let color = foreground[layout.run(ofScalar: cluster)]
            guard color.alpha != 0 else { return }
            mask.bytes.withUnsafeBufferPointer { bytes in
                surface.drawCoverage(
                    bytes.baseAddress!, width: mask.width, height: mask.height, stride: mask.stride, x: x + gx, y: y + gy,
                    color: color, clip: clip)
            }
        }
        for d in decorations where d.kind == .line {
            fill(d.rect, foreground[d.run], on: surface, x: x, y: y, clip: clip)
        }
    }

    /// Fills `rect` (fractional, in the layout's space) with partial coverage at its
    /// edges, as Cairo fills an unaligned box.
    private func fill(_ rect: Rect, _ color: PremultipliedColor, on surface: Surface, x: Int, y: Int, clip: Clip?) {
        guard color.alpha != 0, rect.width > 0, rect.height > 0 else { return }
        let x0 = Int(rect.minX.rounded(.down)), y0 = Int(rect.minY.rounded(.down))
        let x1 = Int(rect.maxX.rounded(.up)), y1 = Int(rect.maxY.rounded(.up))
        let w = x1 - x0, h = y1 - y0
        guard w > 0, h > 0, w * h <= 1 << 24 else { return }
        func cover(_ i: Int, _ lo: Double, _ hi: Double) -> Double { min(hi, Double(i + 1)) - max(lo, Double(i)) }
        let columns = (0..<w).map { cover(x0 + $0, rect.minX, rect.maxX) }
        var bytes = [UInt8](repeating: 0, count: w * h)
        for row in 0..<h {
            let r = cover(y0 + row, rect.minY, rect.maxY)
            for c in 0..<w { bytes[row * w + c] = UInt8(max(0, min(255, (columns[c] * r * 255).rounded()))) }
        }
        bytes.withUnsafeBufferPointer {
            surface.drawCoverage($0.baseAddress!, width: w, height: h, stride: w, x: x + x0, y: y + y0, color: color, clip: clip)
        }
    }
}
