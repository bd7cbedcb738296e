import CCairo
import CPangoCairo
import Foundation
import VitrineCore
import VitrineRaster
import VitrineText

/// Text layout benchmarks beside Pango (PangoCairo over HarfBuzz, FriBidi and libthai)
/// doing the same work in the same run. Prints one JSON object per line; `ratio` is
/// vitrine / pango (medians; below 1 means faster).
///
///     swift run -c release vitrine-bench text [--quick]
///
/// `text.paragraph`: a 2 000-character paragraph mixing Latin, Arabic, Hebrew, Devanagari,
/// Thai and Chinese, at 24 px in 1 800 px wrapped lines: layout and drawing it in black
/// on a 1920×1080 image. Warm: fonts open, glyph masks cached, as on every frame after
/// the first. Cold (`_cold_ms`): the glyph masks rendered afresh — Vitrine's glyph cache
/// emptied, Pango given a new font map (its fonts' glyph caches are new).
///
/// `text.rich`: the same paragraph as Pango markup in 40 style runs (bold, italic,
/// colours, a larger size, a serif family, underline, background, letter spacing):
/// parsing, layout and drawing, warm and cold as above, beside Pango given the same
/// markup.
///
/// Then `text.social_wall` (SocialWallBench.swift).
func runTextBenchmarks(_ options: [String]) {
    let quick = options.contains("--quick")
    do {
        try TextBench(repetitions: quick ? 5 : 21).run()
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench text: \(error)\n".utf8))
        exit(1)
    }
    runSocialWallBenchmarks(options)
}

private final class TextBench {
    let repetitions: Int
    let width = 1920, height = 1080
    let size = 24.0
    let lineWidth = 1800.0
    let family = "DejaVu Sans"
    let paragraph: String

    init(repetitions: Int) {
        self.repetitions = repetitions
        let pieces = [
            "The 14:35 train to Cairo leaves from platform 7. ", "القطار إلى القاهرة يغادر من الرصيف ٧ الساعة 14:35. ",
            "הרכבת לתל אביב יוצאת מרציף 3 בשעה 09:10. ", "दिल्ली जाने वाली गाड़ी प्लेटफ़ॉर्म 5 से रवाना होगी। ",
            "รถไฟขบวนนี้จะออกจากชานชาลาที่สองเวลาสิบโมง ", "开往北京的列车将于十点从二号站台出发。",
        ]
        var text = ""
        var i = 0
        while text.count < 2000 {
            text += pieces[i % pieces.count]
            i += 1
        }
        paragraph = String(text.prefix(2000))
    }

    /// `paragraph` as markup: 40 runs of 50 characters, each styled differently.
    var markup: String {
        let styles = [
            ("<b>", "</b>"), ("<i>", "</i>"), ("<span foreground=\"#c00000\">", "</span>"), ("", ""),
            ("<span size=\"20pt\">", "</span>"), ("<span font_family=\"DejaVu Serif\">", "</span>"), ("<u>", "</u>"),
            ("<span background=\"#ffe000\" foreground=\"#0000c0\">", "</span>"), ("<span letter_spacing=\"1024\">", "</span>"),
            ("<span weight=\"bold\" foreground=\"#008000\" font_features=\"tnum\">", "</span>"),
        ]
        let characters = Array(paragraph)
        return stride(from: 0, to: characters.count, by: 50).enumerated().map { k, start in
            let (open, close) = styles[k % styles.count]
            return open + String(characters[start..<min(characters.count, start + 50)]) + close
        }.joined()
    }

    func run() throws {
        let library = try FontLibrary()
        let surface = Surface(width: width, height: height)
        let black = PremultipliedColor(unchecked: 0xFF00_0000)
        let style = TextStyle(font: FontDescriptor(family: family), fontSize: size, isWrapped: true)
        func vitrine(cold: Bool) {
            if cold { library.glyphCache.removeAll() }
            guard let layout = try? TextLayout(paragraph, style: style, width: lineWidth, library: library) else { return }
            layout.forEachGlyph { mask, x, y in
                mask.bytes.withUnsafeBufferPointer {
                    surface.drawCoverage(
                        $0.baseAddress!, width: mask.width, height: mask.height, stride: mask.stride, x: 40 + x, y: 40 + y,
                        color: black, clip: nil)
                }
            }
        }
        let pango = PangoDrawer(width: width, height: height, family: family, size: size, lineWidth: lineWidth)
        var lines = 0
        if let layout = try? TextLayout(paragraph, style: style, width: lineWidth, library: library) { lines = layout.lines.count }
        vitrine(cold: true)
        pango.draw(paragraph, freshFonts: true)
        var ours: [Double] = [], theirs: [Double] = [], oursCold: [Double] = [], theirsCold: [Double] = []
        for _ in 0..<repetitions {
            theirs.append(time { pango.draw(paragraph, freshFonts: false) })
            ours.append(time { vitrine(cold: false) })
            theirsCold.append(time { pango.draw(paragraph, freshFonts: true) })
            oursCold.append(time { vitrine(cold: true) })
        }
        let (v, p, vc, pc) = (median(ours), median(theirs), median(oursCold), median(theirsCold))
        print(
            String(
                format:
                    "{\"bench\":\"text.paragraph\",\"characters\":%d,\"lines\":%d,\"pango_lines\":%d,\"vitrine_ms\":%.3f,\"pango_ms\":%.3f,\"ratio\":%.3f,\"vitrine_cold_ms\":%.3f,\"pango_cold_ms\":%.3f,\"cold_ratio\":%.3f}",
                paragraph.count, lines, pango.lineCount(paragraph), v, p, v / p, vc, pc, vc / pc))
        fflush(nil)
        try runRich(library: library, surface: surface, pango: pango)
    }

    func runRich(library: FontLibrary, surface: Surface, pango: PangoDrawer) throws {
        let markup = self.markup
        let style = TextStyle(font: FontDescriptor(family: family), fontSize: size, isWrapped: true)
        func vitrine(cold: Bool) {
            if cold { library.glyphCache.removeAll() }
            guard let text = try? AttributedText(parsing: markup),
                let layout = try? TextLayout(text, style: style, width: lineWidth, library: library)
            else { return }
            RichTextPainter(layout: layout, foregroundColor: .black).draw(on: surface, x: 40, y: 40)
        }
        let runs = (try? AttributedText(parsing: markup))?.runs.count ?? 0
        let lines = (try? TextLayout(AttributedText(parsing: markup), style: style, width: lineWidth, library: library))?.lines.count ?? 0
        vitrine(cold: true)
        pango.draw(markup, freshFonts: true, markup: true)
        var ours: [Double] = [], theirs: [Double] = [], oursCold: [Double] = [], theirsCold: [Double] = []
        for _ in 0..<repetitions {
            theirs.append(time { pango.draw(markup, freshFonts: false, markup: true) })
            ours.append(time { vitrine(cold: false) })
            theirsCold.append(time { pango.draw(markup, freshFonts: true, markup: true) })
            oursCold.append(time { vitrine(cold: true) })
        }
        let (v, p, vc, pc) = (median(ours), median(theirs), median(oursCold), median(theirsCold))
        print(
            String(
                format:
                    "{\"bench\":\"text.rich\",\"characters\":%d,\"runs\":%d,\"lines\":%d,\"pango_lines\":%d,\"vitrine_ms\":%.3f,\"pango_ms\":%.3f,\"ratio\":%.3f,\"vitrine_cold_ms\":%.3f,\"pango_cold_ms\":%.3f,\"cold_ratio\":%.3f}",
                paragraph.count, runs, lines, pango.lineCount(markup, markup: true), v, p, v / p, vc, pc, vc / pc))
        fflush(nil)
    }

    func time(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
}

/// A PangoCairo user drawing text on an image surface.
private final class PangoDrawer {
    let surface: OpaquePointer
    let cairo: OpaquePointer
    let family: String
    let size: Double
    let lineWidth: Double
    var fontMap: OpaquePointer

    init(width: Int, height: Int, family: String, size: Double, lineWidth: Double) {
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        cairo = cairo_create(surface)
        self.family = family
        self.size = size
        self.lineWidth = lineWidth
        fontMap = OpaquePointer(pango_cairo_font_map_new())
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(fontMap))
        cairo_destroy(cairo)
        cairo_surface_destroy(surface)
    }

    /// Lays `text` out and draws it; `freshFonts` starts from a new font map.
    func draw(_ text: String, freshFonts: Bool, markup: Bool = false) {
        if freshFonts {
            g_object_unref(UnsafeMutableRawPointer(fontMap))
            fontMap = OpaquePointer(pango_cairo_font_map_new())
        }
        let layout = makeLayout(text, markup: markup)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        cairo_set_source_rgb(cairo, 0, 0, 0)
        cairo_move_to(cairo, 40, 40)
        pango_cairo_show_layout(cairo, layout)
        cairo_surface_flush(surface)
    }

    func lineCount(_ text: String, markup: Bool = false) -> Int {
        let layout = makeLayout(text, markup: markup)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        return Int(pango_layout_get_line_count(layout))
    }

    private func makeLayout(_ text: String, markup: Bool = false) -> OpaquePointer {
        let context = pango_font_map_create_context(UnsafeMutablePointer(fontMap))!
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        pango_cairo_update_context(cairo, context)
        let layout = pango_layout_new(context)!
        let description = pango_font_description_new()
        pango_font_description_set_family(description, family)
        pango_font_description_set_absolute_size(description, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        pango_layout_set_width(layout, Int32(lineWidth * Double(PANGO_SCALE)))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD)
        if markup { pango_layout_set_markup(layout, text, -1) } else { pango_layout_set_text(layout, text, -1) }
        return layout
    }
}
