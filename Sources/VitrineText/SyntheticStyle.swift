import CFreeType

/// Bold and slant made from a face that lacks them, as fontconfig asks and cairo draws:
/// fontconfig's `90-synthetic.conf` marks a regular face matched for a bold request
/// `embolden` and shears a roman face matched for an italic one (`matrix`, 0.2 of the
/// height). Glyph outlines are transformed before rendering; advances stay the face's,
/// as in Pango over HarfBuzz.
public struct SyntheticStyle: Hashable, Sendable {
    /// Outlines are thickened as `FT_GlyphSlot_Embolden` does (cairo's synthetic bold).
    public var embolden: Bool
    /// Horizontal shift per unit of height above the baseline (0.2 for fontconfig's
    /// synthetic oblique).
    public var shear: Double

    public init(embolden: Bool = false, shear: Double = 0) {
        self.embolden = embolden
        self.shear = shear
    }

    /// Nothing synthesized.
    public static let none = SyntheticStyle()

    var isNone: Bool { !embolden && shear == 0 }
}

extension FontFace {
    /// Applies the face's synthetic style to the outline just loaded into the glyph slot.
    func synthesize(_ slot: FT_GlyphSlot) {
        guard !synthetic.isNone, slot.pointee.format == vitrine_ft_glyph_format_outline else { return }
        if synthetic.shear != 0 {
            var matrix = FT_Matrix(xx: 0x10000, xy: FT_Fixed((synthetic.shear * 65536).rounded()), yx: 0, yy: 0x10000)
            FT_Outline_Transform(&slot.pointee.outline, &matrix)
        }
        if synthetic.embolden { FT_GlyphSlot_Embolden(slot) }
    }
}
