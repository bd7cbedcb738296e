import CPNG
import VitrineCore

/// Why a PNG could not be read or written.
public struct PNGError: Error, CustomStringConvertible, Sendable {
    /// The file involved.
    public var path: String
    /// What was being attempted ("open", "decode", "encode", ...).
    public var operation: String
    /// libpng's message, or ours.
    public var reason: String

    public var description: String { "\(path): cannot \(operation) PNG — \(reason)" }
}

/// A libpng simplified-API image control block, freed when dropped. The simplified API
/// keeps libpng's `longjmp` error handling inside libpng, which is the only safe way to
/// use it from Swift.
private struct PNGImage: ~Copyable {
    var control = png_image()

    init() {
        control.version = png_uint_32(PNG_IMAGE_VERSION)
    }

    deinit {
        var c = control
        png_image_free(&c)
    }

    /// Begins reading `data` (which libpng reads from until the image is finished: the
    /// caller keeps it alive through `read`). libpng keeps the control block's address:
    /// it is not moved from here on.
    mutating func begin(_ data: [UInt8], name: String) throws {
        let begun = data.withUnsafeBytes { png_image_begin_read_from_memory(&control, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw PNGError(path: name, operation: "decode", reason: message) }
    }

    var message: String {
        var m = control.message
        return withUnsafeBytes(of: &m) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The header's size, refused past `PNGLimits` before anything is allocated.
    func checkedSize(name path: String) throws -> (Int, Int) {
        let width = Int(control.width), height = Int(control.height)
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15, width * height <= PNGLimits.maximumPixels else {
            throw PNGError(
                path: path, operation: "decode",
                reason: "\(width)×\(height) is larger than the \(PNGLimits.maximumPixels)-pixel limit; scale the image down")
        }
        return (width, height)
    }

    /// Decodes the pixels and writes them premultiplied into `surface`'s top left.
    mutating func read(into surface: Surface, name path: String) throws {
        let width = Int(control.width), height = Int(control.height)
        control.format = formatRGBA
        let rowBytes = width * 4
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * height)
        defer { bytes.deallocate() }
        guard png_image_finish_read(&control, nil, bytes, png_int_32(rowBytes), nil) != 0 else {
            throw PNGError(path: path, operation: "decode", reason: message)
        }
        for y in 0..<height {
            let src = bytes + y * rowBytes, dst = surface.row(y)
            for x in 0..<width {
                let p = src + 4 * x
                dst[x] = PremultipliedColor(straightRed: p[0], green: p[1], blue: p[2], alpha: p[3]).argb
            }
        }
    }
}

/// Bounds on decoded images, so a hostile file cannot ask for gigabytes.
public enum PNGLimits {
    /// 64 Mpixels (256 MiB decoded), more than an 8K frame.
    public static let maximumPixels = 1 << 26
}

/// 8-bit RGBA with straight alpha, libpng's `PNG_FORMAT_RGBA`.
private let formatRGBA = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)

extension Surface {
    /// Reads a PNG file (any colour type and bit depth libpng understands) and
    /// premultiplies it.
    ///
    /// - Throws: `PNGError` naming the path and the step that failed.
    public convenience init(contentsOfPNG path: String) throws {
        var png = PNGImage()
        guard png_image_begin_read_from_file(&png.control, path) != 0 else {
            throw PNGError(path: path, operation: "open", reason: png.message)
        }
        try self.init(reading: &png, name: path)
    }

    /// Decodes PNG data (a file's bytes) and premultiplies it; `name` is what errors call it.
    ///
    /// - Throws: `PNGError` when the data is not a PNG libpng can read, or is too large.
    public convenience init(pngData data: [UInt8], name: String) throws {
        var png = PNGImage()
        try png.begin(data, name: name)
        try self.init(reading: &png, name: name)
        withExtendedLifetime(data) {}
    }

    /// Decodes PNG data (a file's bytes) into the surface `make` gives for its size (a
    /// transparent one, at least that large) and premultiplies it; `name` is what errors
    /// call it.
    ///
    /// - Throws: `PNGError` when the data is not a PNG libpng can read, or is too large;
    ///   what `make` throws.
    public static func decodingPNG(_ data: [UInt8], name: String, into make: (_ width: Int, _ height: Int) throws -> Surface) throws -> Surface {
        var png = PNGImage()
        try png.begin(data, name: name)
        let (width, height) = try png.checkedSize(name: name)
        let surface = try make(width, height)
        try png.read(into: surface, name: name)
        withExtendedLifetime(data) {}
        return surface
    }

    /// The pixel size a PNG's header declares, without decoding it; nil when the data is no PNG.
    public static func pngSize(of data: [UInt8]) -> (width: Int, height: Int)? {
        var png = PNGImage()
        let begun = data.withUnsafeBytes { png_image_begin_read_from_memory(&png.control, $0.baseAddress, $0.count) }
        return begun != 0 ? (Int(png.control.width), Int(png.control.height)) : nil
    }

    private convenience init(reading png: inout PNGImage, name path: String) throws {
        let (width, height) = try png.checkedSize(name: path)
        self.init(width: width, height: height)
        try png.read(into: self, name: path)
    }

    /// Writes the surface as an 8-bit RGBA PNG with straight (un-premultiplied) alpha.
    ///
    /// - Throws: `PNGError` naming the path when libpng cannot encode or write it.
    public func writePNG(to path: String) throws {
        try withStraightRGBA(name: path) { png, bytes, rowBytes in
            guard png_image_write_to_file(&png.control, path, 0, bytes, png_int_32(rowBytes), nil) != 0 else {
                throw PNGError(path: path, operation: "write", reason: png.message)
            }
        }
    }

    /// The surface encoded as an 8-bit RGBA PNG with straight alpha, for a file written
    /// elsewhere (atomically) or sent over the wire.
    public func pngData() throws -> [UInt8] {
        try withStraightRGBA(name: "the image") { png, bytes, rowBytes in
            var size = 0
            guard png_image_write_to_memory(&png.control, nil, &size, 0, bytes, png_int_32(rowBytes), nil) != 0 else {
                throw PNGError(path: "the image", operation: "encode", reason: png.message)
            }
            var data = [UInt8](repeating: 0, count: size)
            let written = data.withUnsafeMutableBytes { png_image_write_to_memory(&png.control, $0.baseAddress, &size, 0, bytes, png_int_32(rowBytes), nil) }
            guard written != 0 else { throw PNGError(path: "the image", operation: "encode", reason: png.message) }
            return Array(data.prefix(size))
        }
    }

    /// Runs `body` with a libpng control block set up for this surface and its pixels as
    /// straight RGBA rows.
    private func withStraightRGBA<T>(name path: String, _ body: (inout PNGImage, UnsafeMutablePointer<UInt8>, Int) throws -> T) throws -> T {
        guard width > 0, height > 0 else {
            throw PNGError(path: path, operation: "encode", reason: "the surface is empty")
        }
        let rowBytes = width * 4
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * height)
        defer { bytes.deallocate() }
        for y in 0..<height {
            let src = row(y), dst = bytes + y * rowBytes
            for x in 0..<width {
                let s = PremultipliedColor(unchecked: src[x]).straightBytes
                (dst[4 * x], dst[4 * x + 1], dst[4 * x + 2], dst[4 * x + 3]) = (s.red, s.green, s.blue, s.alpha)
            }
        }
        var png = PNGImage()
        png.control.width = png_uint_32(width)
        png.control.height = png_uint_32(height)
        png.control.format = formatRGBA
        return try body(&png, bytes, rowBytes)
    }
}
