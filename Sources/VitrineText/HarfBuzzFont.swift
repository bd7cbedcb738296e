import CHarfBuzz

/// Owns a HarfBuzz face and font for one font file, at the font's design units
/// (scale = units per em), so that shaping results are exact and scale to any size.
///
/// HarfBuzz reads the OpenType tables itself (not through FreeType), so shaping never
/// touches the FreeType face or its hinting.
final class HarfBuzzFont {
    let font: OpaquePointer
    let unitsPerEm: Int

    init(path: String, index: Int) throws(TextError) {
        guard let blob = hb_blob_create_from_file_or_fail(path) else {
            throw .cannotShapeFont(path: path, index: index)
        }
        defer { hb_blob_destroy(blob) }
        guard let face = hb_face_create(blob, UInt32(index)) else { throw .cannotShapeFont(path: path, index: index) }
        defer { hb_face_destroy(face) }
        guard hb_face_get_glyph_count(face) > 0, let font = hb_font_create(face) else {
            throw .cannotShapeFont(path: path, index: index)
        }
        let upem = Int32(hb_face_get_upem(face))
        hb_font_set_scale(font, upem, upem)
        hb_font_make_immutable(font)
        self.font = font
        unitsPerEm = Int(upem)
    }

    deinit { hb_font_destroy(font) }

    /// True when the font has an OpenType layout feature `tag` in GSUB or GPOS.
    func hasFeature(_ tag: String) -> Bool {
        let face = hb_font_get_face(font)
        let wanted = hbTag(tag)
        var page = [hb_tag_t](repeating: 0, count: 64)
        for table in [hbTag("GSUB"), hbTag("GPOS")] {
            var start: UInt32 = 0
            while true {
                var count = UInt32(page.count)
                let total = hb_ot_layout_table_get_feature_tags(face, table, start, &count, &page)
                if page.prefix(Int(count)).contains(wanted) { return true }
                start += count
                if count == 0 || start >= total { break }
            }
        }
        return false
    }
}

/// Owns a HarfBuzz buffer for the duration of one shaping call.
struct HarfBuzzBuffer: ~Copyable {
    let handle: OpaquePointer

    init() {
        handle = hb_buffer_create()
    }

    deinit { hb_buffer_destroy(handle) }
}

/// The HarfBuzz tag of a four-character string.
func hbTag(_ text: String) -> hb_tag_t {
    var bytes = Array(text.utf8.prefix(4))
    while bytes.count < 4 { bytes.append(0x20) }
    return bytes.reduce(0) { ($0 << 8) | hb_tag_t($1) }
}

/// The four-character string of a HarfBuzz tag.
func hbTagString(_ tag: hb_tag_t) -> String {
    String(decoding: (0..<4).map { UInt8((tag >> (24 - 8 * $0)) & 0xff) }, as: UTF8.self)
}
