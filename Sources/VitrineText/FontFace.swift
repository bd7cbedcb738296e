import CFreeType

/// One face of a font file, ready for shaping (HarfBuzz) and rasterizing (FreeType).
///
/// Faces are owned and cached by a `FontLibrary`; compare them by identity. Like the
/// library, a face belongs to one thread or actor at a time.
public final class FontFace: CustomStringConvertible {
    /// The font file.
    public let path: String
    /// The face's index within the file (collections hold several).
    public let index: Int
    /// The family name the file gives.
    public let familyName: String
    /// The style name the file gives ("Book", "Bold Oblique", …).
    public let styleName: String
    /// Design units per em: shaping results are in these units before scaling.
    public let unitsPerEm: Int
    /// Distance from the baseline up to the top of the line, in design units (positive).
    public let ascender: Int
    /// Distance from the baseline down to the bottom of the line, in design units (negative).
    public let descender: Int
    /// Extra space between lines, in design units.
    public let lineGap: Int
    /// A number unique in the process, used in glyph cache keys.
    public let id: Int
    /// Bold or slant drawn onto the outlines because the family lacks a face for them.
    public let synthetic: SyntheticStyle

    let face: FT_Face
    let shaping: HarfBuzzFont
    private let library: FreeTypeLibrary
    /// The size FreeType is currently set to, in 1/64 px (0 when unknown).
    var currentSize64 = 0
    /// What colour glyph data the face has.
    let color: ColorGlyphSource

    init(library: FreeTypeLibrary, path: String, index: Int, id: Int, synthetic: SyntheticStyle = .none) throws(TextError) {
        var face: FT_Face?
        let error = FT_New_Face(library.handle, path, index, &face)
        guard error == 0, let face else {
            throw .cannotOpenFont(path: path, index: index, reason: freeTypeErrorPhrase(error))
        }
        let flags = face.pointee.face_flags
        let isScalable = flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0
        let hasColorStrikes = flags & FT_Long(FT_FACE_FLAG_COLOR) != 0 && face.pointee.num_fixed_sizes > 0
        guard isScalable || hasColorStrikes else {
            FT_Done_Face(face)
            throw .cannotOpenFont(path: path, index: index, reason: "bitmap-only fonts are supported only with colour bitmaps (emoji)")
        }
        do {
            shaping = try HarfBuzzFont(path: path, index: index)
        } catch {
            FT_Done_Face(face)
            throw error
        }
        self.face = face
        self.library = library
        self.path = path
        self.index = index
        self.id = id
        self.synthetic = synthetic
        familyName = face.pointee.family_name.map { String(cString: $0) } ?? ""
        styleName = face.pointee.style_name.map { String(cString: $0) } ?? ""
        color = ColorGlyphSource(face: face)
        guard !isScalable else {
            unitsPerEm = Int(face.pointee.units_per_EM)
            ascender = Int(face.pointee.ascender)
            descender = Int(face.pointee.descender)
            lineGap = max(0, Int(face.pointee.height) - ascender + descender)
            return
        }
        // FreeType leaves a bitmap-only face's design metrics at 0: read the tables.
        unitsPerEm = shaping.unitsPerEm
        let hhea = FT_Get_Sfnt_Table(face, FT_SFNT_HHEA)?.assumingMemoryBound(to: TT_HoriHeader.self).pointee
        ascender = Int(hhea?.Ascender ?? 0)
        descender = Int(hhea?.Descender ?? 0)
        lineGap = max(0, Int(hhea?.Line_Gap ?? 0))
    }

    deinit { FT_Done_Face(face) }

    /// The glyph for `scalar` in this face; 0 (.notdef) when the face lacks it.
    public func glyphIndex(for scalar: Unicode.Scalar) -> UInt32 {
        UInt32(FT_Get_Char_Index(face, FT_ULong(scalar.value)))
    }

    /// True when the face has a glyph for `scalar`.
    public func hasGlyph(for scalar: Unicode.Scalar) -> Bool { glyphIndex(for: scalar) != 0 }

    /// True when the face has the OpenType layout feature `tag` (e.g. "liga", "tnum").
    public func hasFeature(_ tag: String) -> Bool { shaping.hasFeature(tag) }

    /// The vertical metrics at `size` pixels per em.
    public func metrics(size: Double) -> FontMetrics {
        let scale = size / Double(unitsPerEm)
        return FontMetrics(
            ascent: Double(ascender) * scale, descent: Double(-descender) * scale,
            lineGap: Double(lineGap) * scale)
    }

    public var description: String {
        let extra = (synthetic.embolden ? " synthetic bold" : "") + (synthetic.shear != 0 ? " synthetic oblique" : "")
        return "\(familyName) \(styleName)\(extra) (\(path)#\(index))"
    }
}

/// A face's vertical metrics at one size, in pixels.
public struct FontMetrics: Hashable, Sendable {
    /// Baseline to the top of the line box.
    public var ascent: Double
    /// Baseline to the bottom of the line box (positive).
    public var descent: Double
    /// Space added below the line box.
    public var lineGap: Double

    /// The distance between consecutive baselines.
    public var lineHeight: Double { ascent + descent + lineGap }
}
