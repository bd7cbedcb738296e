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

    var message: String {
        var m = control.message
        return withUnsafeBytes(of: &m) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
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
        let width = Int(png.control.width), height = Int(png.control.height)
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15, width * height <= PNGLimits.maximumPixels else {
            throw PNGError(
                path: path, operation: "decode",
                reason: "\(width)×\(height) is larger than the \(PNGLimits.maximumPixels)-pixel limit; scale the image down")
        }
        png.control.format = formatRGBA
        let rowBytes = width * 4
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * height)
        defer { bytes.deallocate() }
        guard png_image_finish_read(&png.control, nil, bytes, png_int_32(rowBytes), nil) != 0 else {
            throw PNGError(path: path, operation: "decode", reason: png.message)
        }
        self.init(width: width, height: height)
        for y in 0..<height {
            let src = bytes + y * rowBytes, dst = row(y)
            for x in 0..<width {
                let p = src + 4 * x
                dst[x] = PremultipliedColor(straightRed: p[0], green: p[1], blue: p[2], alpha: p[3]).argb
            }
        }
    }

    /// Writes the surface as an 8-bit RGBA PNG with straight (un-premultiplied) alpha.
    ///
    /// - Throws: `PNGError` naming the path when libpng cannot encode or write it.
    public func writePNG(to path: String) throws {
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
        guard png_image_write_to_file(&png.control, path, 0, bytes, png_int_32(rowBytes), nil) != 0 else {
            throw PNGError(path: path, operation: "write", reason: png.message)
        }
    }
}
