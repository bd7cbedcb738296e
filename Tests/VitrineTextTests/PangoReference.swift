import CCairo
import CPangoCairo

/// Pango laying out the same text with the same fonts (fontconfig's, at the same pixel
/// size): the reference the text engine is held to. Positions are unrounded and font
/// metrics unhinted, so that they are HarfBuzz's advances as ours are.
final class PangoReference {
    /// One glyph as Pango places it: x from the layout's left, y the baseline plus offset.
    struct Glyph: Equatable {
        var glyph: UInt32
        var x: Double
        var y: Double
        /// The index of the glyph's first character among the text's Unicode scalars.
        var cluster: Int
    }

    /// One line: where it starts among the scalars, and its glyphs left to right.
    struct Line {
        var start: Int
        var glyphs: [Glyph]
        /// The baseline, down from the layout's top.
        var baseline: Double = 0
    }

    private let surface: OpaquePointer
    private let cairo: OpaquePointer
    private let context: OpaquePointer

    init(width: Int = 16, height: Int = 16) {
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        cairo = cairo_create(surface)
        context = pango_cairo_create_context(cairo)
        pango_context_set_round_glyph_positions(context, 0)
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(context))
        cairo_destroy(cairo)
        cairo_surface_destroy(surface)
    }

    /// Lays `text` out in `family` at `size` pixels per em, wrapped by words in `width`
    /// when given, with `letterSpacing` pixels between letters and `language`'s rules;
    /// `direction` forces the base direction (nil: Pango's automatic one).
    func lines(
        _ text: String, family: String, size: Double, width: Double? = nil, letterSpacing: Double = 0,
        language: String = "en", direction: Bool? = nil, weight: Int32 = 400, italic: Bool = false, markup: Bool = false
    ) -> [Line] {
        let layout = makeLayout(
            text, family: family, size: size, width: width, letterSpacing: letterSpacing, language: language,
            rightToLeft: direction, weight: weight, italic: italic, markup: markup)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let scalarAt = Self.scalarIndices(String(cString: pango_layout_get_text(layout)))
        var lines: [Line] = []
        let iter = pango_layout_get_iter(layout)
        defer { pango_layout_iter_free(iter) }
        var currentLine: UnsafeMutablePointer<PangoLayoutLine>?
        repeat {
            let line = pango_layout_iter_get_line_readonly(iter)
            if line != currentLine, let line {
                currentLine = line
                lines.append(
                    Line(
                        start: scalarAt[Int(line.pointee.start_index)], glyphs: [],
                        baseline: Double(pango_layout_iter_get_baseline(iter)) / Double(PANGO_SCALE)))
            }
            guard let run = pango_layout_iter_get_run_readonly(iter) else { continue }
            var logical = PangoRectangle()
            pango_layout_iter_get_run_extents(iter, nil, &logical)
            let baseline = Double(pango_layout_iter_get_baseline(iter) - run.pointee.y_offset) / Double(PANGO_SCALE)
            var x = Double(logical.x) / Double(PANGO_SCALE)
            let glyphs = run.pointee.glyphs!.pointee
            let offset = Int(run.pointee.item.pointee.offset)
            for i in 0..<Int(glyphs.num_glyphs) {
                let info = glyphs.glyphs[i]
                let g = info.glyph
                if g != PANGO_GLYPH_EMPTY {
                    lines[lines.count - 1].glyphs.append(
                        Glyph(
                            glyph: g & ~PANGO_GLYPH_UNKNOWN_FLAG,
                            x: x + Double(info.geometry.x_offset) / Double(PANGO_SCALE),
                            y: baseline + Double(info.geometry.y_offset) / Double(PANGO_SCALE),
                            cluster: scalarAt[offset + Int(glyphs.log_clusters[i])]))
                }
                x += Double(info.geometry.width) / Double(PANGO_SCALE)
            }
        } while pango_layout_iter_next_run(iter) != 0
        return lines
    }

    /// Lays out and draws `text` in black on white on a `width`×`height` image, as a
    /// Pango user's first frame would; returns the image's bytes (BGRA premultiplied).
    func render(
        _ text: String, family: String, size: Double, width: Int, height: Int, weight: Int32 = 400, italic: Bool = false,
        markup: Bool = false
    ) -> [UInt8] {
        let image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
        defer { cairo_surface_destroy(image) }
        let cr = cairo_create(image)!
        defer { cairo_destroy(cr) }
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        cairo_set_source_rgb(cr, 0, 0, 0)
        let layout = makeLayout(
            text, family: family, size: size, width: Double(width), letterSpacing: 0, language: "en", rightToLeft: nil,
            weight: weight, italic: italic, markup: markup)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        pango_cairo_update_context(cr, context)
        pango_layout_context_changed(layout)
        pango_cairo_show_layout(cr, layout)
        cairo_surface_flush(image)
        let stride = Int(cairo_image_surface_get_stride(image))
        let data = cairo_image_surface_get_data(image)!
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width * 4 { bytes[y * width * 4 + x] = data[y * stride + x] }
        }
        return bytes
    }

    private func makeLayout(
        _ text: String, family: String, size: Double, width: Double?, letterSpacing: Double, language: String,
        rightToLeft: Bool?, weight: Int32, italic: Bool, markup: Bool = false
    ) -> OpaquePointer {
        pango_context_set_language(context, pango_language_from_string(language))
        let layout = pango_layout_new(context)!
        let description = pango_font_description_new()
        pango_font_description_set_family(description, family)
        pango_font_description_set_absolute_size(description, size * Double(PANGO_SCALE))
        pango_font_description_set_weight(description, PangoWeight(UInt32(weight)))
        pango_font_description_set_style(description, italic ? PANGO_STYLE_ITALIC : PANGO_STYLE_NORMAL)
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        if let rightToLeft {
            pango_layout_set_auto_dir(layout, 0)
            pango_context_set_base_dir(context, rightToLeft ? PANGO_DIRECTION_RTL : PANGO_DIRECTION_LTR)
            pango_layout_context_changed(layout)
            // Without automatic direction Pango's alignments are absolute: natural is right.
            if rightToLeft { pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT) }
        } else {
            pango_context_set_base_dir(context, PANGO_DIRECTION_LTR)
        }
        if markup { pango_layout_set_markup(layout, text, -1) } else { pango_layout_set_text(layout, text, -1) }
        if letterSpacing != 0 {
            let attributes = pango_attr_list_new()
            pango_attr_list_insert(attributes, pango_attr_letter_spacing_new(Int32((letterSpacing * Double(PANGO_SCALE)).rounded())))
            pango_layout_set_attributes(layout, attributes)
            pango_attr_list_unref(attributes)
        }
        if let width {
            pango_layout_set_width(layout, Int32((width * Double(PANGO_SCALE)).rounded()))
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD)
        }
        return layout
    }

    /// For each UTF-8 byte offset of `text` (and its end), the index of the scalar it is in.
    private static func scalarIndices(_ text: String) -> [Int] {
        var map: [Int] = []
        for (i, scalar) in text.unicodeScalars.enumerated() {
            map += [Int](repeating: i, count: String(scalar).utf8.count)
        }
        map.append(text.unicodeScalars.count)
        return map
    }
}
