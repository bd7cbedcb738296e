import CRSVG
import VitrineCore
import VitrineImage
import VitrineRaster

/// A librsvg document, released when dropped. It is made from bytes only, so it has no
/// base file: references to other files (`<image href>`, external CSS) are not loaded.
private final class SVGDocument {
    let handle: OpaquePointer
    /// The size in points: `width` and `height` in pixels, or else the `viewBox`'s.
    let size: Size

    init(_ data: [UInt8]) throws(ImageError) {
        var error: UnsafeMutablePointer<GError>?
        let handle = data.withUnsafeBufferPointer { rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }
        guard let handle else { throw SVGRasterizer.failure("cannot read the document", error) }
        self.handle = OpaquePointer(handle)
        var width = 0.0, height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) == 0 {
            var hasBox: gboolean = 0
            var box = RsvgRectangle()
            rsvg_handle_get_intrinsic_dimensions(handle, nil, nil, nil, nil, &hasBox, &box)
            (width, height) = hasBox != 0 ? (box.width, box.height) : (0, 0)
        }
        guard width > 0, height > 0, width.isFinite, height.isFinite else {
            g_object_unref(UnsafeMutableRawPointer(handle))
            throw ImageError(.corrupt, "SVG: the document has no size; give its <svg> element width and height, or a viewBox")
        }
        size = Size(width: width, height: height)
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }

    /// The document drawn over `surface`'s whole area.
    func render(into surface: Surface) throws(ImageError) {
        let target = cairo_image_surface_create_for_data(
            UnsafeMutableRawPointer(surface.pixels).assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
            Int32(surface.width), Int32(surface.height), Int32(surface.stride * 4))
        defer { cairo_surface_destroy(target) }
        let cairo = cairo_create(target)
        defer { cairo_destroy(cairo) }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(surface.width), height: Double(surface.height))
        var error: UnsafeMutablePointer<GError>?
        let drawn = rsvg_handle_render_document(UnsafeMutablePointer(handle), cairo, &viewport, &error)
        cairo_surface_flush(target)
        guard drawn != 0 else { throw SVGRasterizer.failure("cannot draw the document", error) }
        let status = cairo_status(cairo)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw ImageError(.corrupt, "SVG: cairo says \(String(cString: cairo_status_to_string(status)))")
        }
    }
}

/// SVG through librsvg and cairo, drawn at the pixel size it is shown at (cairo's
/// premultiplied ARGB32 is `Surface`'s own format: it draws straight into the surface).
enum SVGRasterizer {
    static func probe(_ data: [UInt8]) throws(ImageError) -> ImageProbe {
        let document = try SVGDocument(data)
        return ImageProbe(format: .svg, width: pixels(document.size.width), height: pixels(document.size.height), frames: 1)
    }

    /// A document side in whole pixels: a size no integer holds (a height of 7e36, say)
    /// is as large as a probe reports, so the budget refuses it instead of a crash.
    static func pixels(_ side: Double) -> Int {
        guard side.isFinite else { return side > 0 ? Int(Int32.max) : 0 }
        return Int(min(max(side.rounded(.up), 0), Double(Int32.max)))
    }

    /// The document drawn at the smallest size that covers `target` (its intrinsic size
    /// when nil), at most `ImageDecoder.maximumSide` a side.
    static func rasterize(_ data: [UInt8], fitting target: TargetSize?, into frames: FrameAllocator) throws(ImageError) -> Picture {
        let document = try SVGDocument(data)
        let natural = document.size
        var scale = target?.scale(covering: natural) ?? 1
        scale = min(scale, Double(ImageDecoder.maximumSide) / max(natural.width, natural.height))
        let width = max(1, pixels(natural.width * scale)), height = max(1, pixels(natural.height * scale))
        let surface = try frames.surface(width: width, height: height)
        try document.render(into: surface)
        return Picture(still: surface, naturalSize: natural, format: .svg, scaling: .vector)
    }

    /// librsvg's message from `error` (freed), after what was being done.
    static func failure(_ doing: String, _ error: UnsafeMutablePointer<GError>?) -> ImageError {
        defer { if let error { g_error_free(error) } }
        let reason = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "no reason given"
        return ImageError(.corrupt, "SVG: librsvg \(doing): \(reason)")
    }
}
