import CFreeType
import VitrineCore
import VitrineRaster

/// The colour glyph data a face carries: COLR layers or paint graphs (with the CPAL
/// palette they index) and colour bitmap strikes (CBDT/CBLC or sbix).
struct ColorGlyphSource {
    /// The face has a COLR table (v0 layers, v1 paints or both).
    let hasPaints: Bool
    /// The face has colour bitmap strikes.
    let hasStrikes: Bool
    /// The first palette, straight colours.
    let palette: [Color]
    /// The COLR v1 paints, nil when the face has none.
    let paints: ColrTable?

    init(face: FT_Face) {
        let flags = face.pointee.face_flags
        let isColor = flags & FT_Long(FT_FACE_FLAG_COLOR) != 0
        hasPaints = isColor && Self.hasTable(face, "COLR")
        paints = hasPaints ? ColrTable(face: face) : nil
        hasStrikes = isColor && face.pointee.num_fixed_sizes > 0 && (Self.hasTable(face, "CBDT") || Self.hasTable(face, "sbix"))
        var data = FT_Palette_Data()
        var entries: UnsafeMutablePointer<FT_Color>?
        if hasPaints, FT_Palette_Data_Get(face, &data) == 0, data.num_palettes > 0, FT_Palette_Select(face, 0, &entries) == 0,
            let entries
        {
            palette = (0..<Int(data.num_palette_entries)).map {
                let c = entries[$0]
                return Color(
                    red: Double(c.red) / 255, green: Double(c.green) / 255, blue: Double(c.blue) / 255, alpha: Double(c.alpha) / 255)
            }
        } else {
            palette = []
        }
    }

    /// True when the face has colour glyph data of any kind.
    var hasGlyphs: Bool { hasPaints || hasStrikes }

    private static func hasTable(_ face: FT_Face, _ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        let code = bytes.reduce(FT_ULong(0)) { ($0 << 8) | FT_ULong($1) }
        var length: FT_ULong = 0
        return FT_Load_Sfnt_Table(face, code, 0, nil, &length) == 0 && length > 0
    }
}

extension FontFace {
    /// True when the face has colour glyphs (emoji bitmaps, COLR layers or paints).
    public var hasColorGlyphs: Bool { color.hasGlyphs }

    /// True when `glyph` is drawn in colour rather than in the text colour.
    public func isColorGlyph(_ glyph: UInt32) -> Bool {
        guard color.hasGlyphs else { return false }
        if color.hasPaints, ColorPainter.hasPaint(face: self, glyph: glyph) { return true }
        return color.hasStrikes && glyph < UInt32(face.pointee.num_glyphs)
    }

    /// `glyph` in colour at `size64`/64 px per em, shifted right by `subpixel` quarter
    /// pixels, at most `maximumBytes` big (a larger glyph is drawn smaller); nil when the
    /// face has no colour data for it.
    func renderColorGlyph(_ glyph: UInt32, size64: Int, subpixel: Int, maximumBytes: Int) -> GlyphMask? {
        let size = Double(size64) / 64
        let shift = Double(subpixel) / Double(GlyphCache.subpixelSteps)
        if color.hasPaints {
            if currentSize64 != size64 {
                guard FT_Set_Char_Size(face, 0, FT_F26Dot6(size64), 72, 72) == 0 else { return nil }
                currentSize64 = size64
            }
            var painter = ColorPainter(face: self, size: size, shift: shift, maximumPixels: maximumBytes / 5)
            if let mask = painter.render(glyph) { return mask }
        }
        if color.hasStrikes { return renderStrike(glyph, size: size, shift: shift, maximumPixels: maximumBytes / 5) }
        return nil
    }

    /// The glyph's bitmap from the strike closest above `size` (else the largest), scaled
    /// to `size` with an area filter (down) or bilinear filter (up).
    private func renderStrike(_ glyph: UInt32, size: Double, shift: Double, maximumPixels: Int) -> GlyphMask? {
        let count = Int(face.pointee.num_fixed_sizes)
        guard count > 0, let sizes = face.pointee.available_sizes else { return nil }
        let ppems = (0..<count).map { Double(sizes[$0].y_ppem) / 64 }
        let strike =
            ppems.indices.filter { ppems[$0] >= size }.min { ppems[$0] < ppems[$1] }
            ?? ppems.indices.max { ppems[$0] < ppems[$1] }!
        currentSize64 = 0
        guard FT_Select_Size(face, FT_Int(strike)) == 0, FT_Load_Glyph(face, glyph, vitrine_ft_load_color) == 0,
            let slot = face.pointee.glyph, slot.pointee.format == vitrine_ft_glyph_format_bitmap
        else { return nil }
        let bitmap = slot.pointee.bitmap
        guard bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_BGRA.rawValue), bitmap.width > 0, bitmap.rows > 0,
            let buffer = bitmap.buffer, ppems[strike] > 0
        else { return nil }
        var scale = size / ppems[strike]
        let (w, h) = (Int(bitmap.width), Int(bitmap.rows))
        let area = Double(w * h) * scale * scale
        if area > Double(maximumPixels) { scale *= (Double(maximumPixels) / area).squareRoot() }
        let source = BitmapView(
            pixels: UnsafeRawPointer(buffer), width: w, height: h, pitch: Int(bitmap.pitch))
        let x0 = Double(slot.pointee.bitmap_left) * scale + shift
        let y0 = -Double(slot.pointee.bitmap_top) * scale
        let image = source.resampled(scale: scale, originX: x0, originY: y0)
        return GlyphMask(image: image.surface, left: image.left, top: -image.top)
    }
}

/// Premultiplied BGRA rows that FreeType owns.
struct BitmapView {
    let pixels: UnsafeRawPointer
    let width: Int
    let height: Int
    /// Bytes from one row to the next; negative when rows are stored bottom-up.
    let pitch: Int

    func row(_ y: Int) -> UnsafePointer<UInt8> {
        let start = pitch >= 0 ? y * pitch : (height - 1 - y) * -pitch
        return (pixels + start).assumingMemoryBound(to: UInt8.self)
    }

    /// The bitmap scaled by `scale` with its top-left corner at (`originX`, `originY`)
    /// (fractional, y-down): a surface covering it in whole pixels and where its top-left
    /// pixel lands.
    func resampled(scale: Double, originX: Double, originY: Double) -> (surface: Surface, left: Int, top: Int) {
        let left = Int((originX).rounded(.down)), top = Int(originY.rounded(.down))
        let right = Int((originX + Double(width) * scale).rounded(.up))
        let bottom = Int((originY + Double(height) * scale).rounded(.up))
        let columns = FilterTaps(output: right - left, input: width, scale: scale, offset: originX - Double(left))
        let rows = FilterTaps(output: bottom - top, input: height, scale: scale, offset: originY - Double(top))
        let out = Surface(width: right - left, height: bottom - top)
        // Rows first into floats, then columns: one pass each way.
        var horizontal = [SIMD4<Float>](repeating: .zero, count: height * out.width)
        for y in 0..<height {
            let src = row(y)
            for x in 0..<out.width {
                var sum = SIMD4<Float>.zero
                for (i, weight) in columns.taps(x) {
                    let p = src + i * 4
                    sum += SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3])) * weight
                }
                horizontal[y * out.width + x] = sum
            }
        }
        for y in 0..<out.height {
            let dst = out.pixels + y * out.stride
            let taps = rows.taps(y)
            for x in 0..<out.width {
                var sum = SIMD4<Float>.zero
                for (i, weight) in taps { sum += horizontal[i * out.width + x] * weight }
                let a = min(255, max(0, sum[3].rounded()))
                let c = sum.rounded(.toNearestOrAwayFromZero)
                let b = UInt32(min(a, max(0, c[0]))), g = UInt32(min(a, max(0, c[1]))), r = UInt32(min(a, max(0, c[2])))
                dst[x] = UInt32(a) << 24 | r << 16 | g << 8 | b
            }
        }
        return (out, left, top)
    }
}

/// The source pixels and weights behind each output pixel of a one-dimensional resampling:
/// the exact area each source pixel covers when shrinking, a tent when enlarging.
struct FilterTaps {
    private var starts: [Int] = []
    private var indices: [Int] = []
    private var weights: [Float] = []

    /// Taps for `output` pixels from `input` pixels scaled by `scale`, the input's start
    /// landing at `offset` output pixels.
    init(output: Int, input: Int, scale: Double, offset: Double) {
        for o in 0..<max(0, output) {
            starts.append(indices.count)
            if scale < 1 {
                let from = (Double(o) - offset) / scale, to = (Double(o + 1) - offset) / scale
                var i = max(0, Int(from.rounded(.down)))
                while i < input, Double(i) < to {
                    let covered = min(to, Double(i + 1)) - max(from, Double(i))
                    if covered > 0 {
                        indices.append(i)
                        weights.append(Float(covered * scale))
                    }
                    i += 1
                }
            } else {
                let centre = (Double(o) + 0.5 - offset) / scale - 0.5
                let i0 = Int(centre.rounded(.down))
                let f = centre - Double(i0)
                // Beyond the edges the source is transparent: those weights are dropped.
                for (i, w) in [(i0, 1 - f), (i0 + 1, f)] where w > 0 && i >= 0 && i < input {
                    indices.append(i)
                    weights.append(Float(w))
                }
            }
        }
        starts.append(indices.count)
    }

    /// The (source index, weight) pairs of output pixel `o`.
    func taps(_ o: Int) -> Zip2Sequence<ArraySlice<Int>, ArraySlice<Float>> {
        zip(indices[starts[o]..<starts[o + 1]], weights[starts[o]..<starts[o + 1]])
    }
}
