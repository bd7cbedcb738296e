import CFreeType

/// How glyph outlines are fitted to the pixel grid before rendering.
public enum GlyphHinting: Sendable, Hashable {
    /// The outline as designed: softer stems, exact shapes.
    case none
    /// Vertical-only fitting (FreeType's light auto-hinter): crisper horizontal stems and
    /// baselines while horizontal positions stay exact, so subpixel placement is honest.
    case light
}

extension FontFace {
    /// Renders `glyph` at `size64`/64 pixels per em, shifted right by
    /// `subpixel`/`GlyphCache.subpixelSteps` of a pixel, into an antialiased coverage mask.
    /// Returns `GlyphMask.empty` for glyphs without ink or that FreeType cannot load. A
    /// colour glyph comes back in colour, at most `maximumColorBytes` big.
    func renderMask(glyph: UInt32, size64: Int, subpixel: Int, hinting: GlyphHinting, maximumColorBytes: Int = 8 << 20) -> GlyphMask {
        if color.hasGlyphs,
            let mask = renderColorGlyph(glyph, size64: size64, subpixel: subpixel, maximumBytes: maximumColorBytes)
        {
            return mask
        }
        if currentSize64 != size64 {
            guard FT_Set_Char_Size(face, 0, FT_F26Dot6(size64), 72, 72) == 0 else { return .empty }
            currentSize64 = size64
        }
        var flags = vitrine_ft_load_no_bitmap
        flags |= hinting == .light ? vitrine_ft_load_target_light : vitrine_ft_load_no_hinting
        guard FT_Load_Glyph(face, glyph, flags) == 0, let slot = face.pointee.glyph else { return .empty }
        synthesize(slot)
        if slot.pointee.format == vitrine_ft_glyph_format_outline {
            let shift = FT_Pos(subpixel * 64 / GlyphCache.subpixelSteps)
            if shift != 0 { FT_Outline_Translate(&slot.pointee.outline, shift, 0) }
        }
        guard FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) == 0 else { return .empty }
        let bitmap = slot.pointee.bitmap
        let width = Int(bitmap.width), height = Int(bitmap.rows)
        guard width > 0, height > 0, let source = bitmap.buffer,
            bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue)
        else { return .empty }
        let pitch = Int(bitmap.pitch)
        var bytes = [UInt8](repeating: 0, count: width * height)
        bytes.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                // A negative pitch means the rows are stored bottom-up.
                let start = pitch >= 0 ? row * pitch : (height - 1 - row) * -pitch
                for x in 0..<width { out[row * width + x] = source[start + x] }
            }
        }
        return GlyphMask(
            width: width, height: height, left: Int(slot.pointee.bitmap_left),
            top: Int(slot.pointee.bitmap_top), stride: width, bytes: bytes)
    }
}
