import VitrineCore
import VitrineRaster
import VitrineSystem

/// The image file formats `contents` shows, told apart by their first bytes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, webp, gif, svg

    /// The format whose signature `data` starts with (an SVG: XML text whose first
    /// kilobyte has an `<svg` element); nil for anything else.
    public init?(sniffing data: [UInt8]) {
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            data.count >= offset + bytes.count && data[offset..<offset + bytes.count].elementsEqual(bytes)
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if Self.looksLikeSVG(data) {
            self = .svg
        } else {
            return nil
        }
    }

    /// XML (a BOM and white space allowed before it) with `<svg` in its first kilobyte.
    private static func looksLikeSVG(_ data: [UInt8]) -> Bool {
        var head = data.prefix(1024)[...]
        if head.starts(with: [0xEF, 0xBB, 0xBF]) { head = head.dropFirst(3) }
        head = head.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard head.first == UInt8(ascii: "<") else { return false }
        let svg = Array("<svg".utf8)
        return head.indices.contains { head[$0...].starts(with: svg) }
    }
}

/// The pixel size an image is shown at, which decoders that can decode smaller (JPEG's
/// scaled decoding, WebP's scaler) or draw at any size (SVG) aim for: the smallest size
/// that covers it, keeping the image's aspect ratio.
public struct TargetSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        (self.width, self.height) = (max(1, width), max(1, height))
    }

    /// The scale at which an image of `size` covers this size.
    func scale(covering size: Size) -> Double {
        guard size.width > 0, size.height > 0 else { return 1 }
        return max(Double(width) / size.width, Double(height) / size.height)
    }

    public var description: String { "\(width)×\(height)" }
}

/// Why an image could not be decoded, in the decoding library's words where it gave any.
public struct ImageError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// The file cannot be read.
        case unreadable
        /// Not an image format that is read.
        case unsupported
        /// The library refused the data: corrupt, truncated, or a feature it lacks.
        case corrupt
        /// The decoded pixels would not fit the byte limit (`bytes` of them).
        case tooLarge
    }

    public let kind: Kind
    /// What went wrong, e.g. "JPEG: Premature end of JPEG file".
    public let message: String
    /// For `tooLarge`: the bytes the decoded image needs.
    public let bytes: Int

    public init(_ kind: Kind, _ message: String, bytes: Int = 0) {
        (self.kind, self.message, self.bytes) = (kind, message, bytes)
    }

    public var description: String { message }
}

/// What an image file's header says, read without decoding its pixels.
public struct ImageProbe: Sendable, Equatable {
    public let format: ImageFormat
    /// The pixel size of its frames (an SVG's intrinsic size, rounded up), before EXIF
    /// orientation.
    public let width: Int
    public let height: Int
    /// Frames it has (1 for a still; for an animated GIF or WebP, as counted in the file).
    public let frames: Int

    public init(format: ImageFormat, width: Int, height: Int, frames: Int) {
        (self.format, self.width, self.height, self.frames) = (format, width, height, frames)
    }

    /// Bytes its decoded pixels need at full size: every frame counts.
    public var fullBytes: Int { Self.bytes(width, height, frames) }

    static func bytes(_ width: Int, _ height: Int, _ frames: Int) -> Int {
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (all, o2) = area.multipliedReportingOverflow(by: 4 * max(1, frames))
        return o1 || o2 ? Int.max : all
    }
}

/// Decodes image files (PNG, JPEG, WebP, GIF, SVG) into premultiplied `Surface`s through the
/// formats' own libraries, telling the format by its first bytes, not the file's name.
/// Colour is taken as sRGB: embedded ICC profiles and gamma are not applied.
///
/// ```swift
/// let probe = try ImageDecoder.probe(bytes)           // refuse a bomb here, before decoding
/// let picture = try ImageDecoder.decode(bytes, fitting: TargetSize(width: 1920, height: 1080),
///                                       byteLimit: 256 << 20)
/// ```
public enum ImageDecoder {
    /// The largest side decoded: past it a file is refused whatever the budget.
    public static let maximumSide = 1 << 15

    /// Reads `data`'s header: format, pixel size and frame count.
    ///
    /// - Throws: `ImageError` (`unsupported` for an unknown format, `corrupt` when the
    ///   header cannot be read).
    public static func probe(_ data: [UInt8]) throws(ImageError) -> ImageProbe {
        guard let format = ImageFormat(sniffing: data) else { throw unsupported(data) }
        switch format {
        case .png:
            // The IHDR chunk, read here: libpng wants more of the file than a header.
            guard data.count >= 24, data[12..<16].elementsEqual("IHDR".utf8) else {
                throw ImageError(.corrupt, "PNG: the file has no IHDR chunk after its signature")
            }
            func u32(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
            return ImageProbe(format: .png, width: u32(16), height: u32(20), frames: 1)
        case .jpeg: return try JPEGDecoder.probe(data)
        case .webp: return try WebPDecoder.probe(data)
        case .gif: return try GIFDecoder.probe(data)
        case .svg: return try SVGRasterizer.probe(data)
        }
    }

    /// The bytes `data` needs decoded for `target`: what the budget is checked against
    /// before decoding.
    public static func decodedBytes(of probe: ImageProbe, fitting target: TargetSize?) -> Int {
        guard let target, probe.frames == 1 else { return probe.fullBytes }
        let natural = Size(width: Double(probe.width), height: Double(probe.height))
        switch probe.format {
        case .jpeg:
            let (w, h) = JPEGDecoder.scaledSize(probe.width, probe.height, eighths: JPEGDecoder.eighths(for: target, natural: natural))
            return ImageProbe.bytes(w, h, 1)
        case .webp, .svg:
            let s = probe.format == .svg ? target.scale(covering: natural) : min(1, target.scale(covering: natural))
            return ImageProbe.bytes(SVGRasterizer.pixels(natural.width * s), SVGRasterizer.pixels(natural.height * s), 1)
        case .png, .gif:
            return probe.fullBytes
        }
    }

    /// Decodes `data` into a picture: a still at `target` size where the format can decode
    /// smaller or draw at any size (full size when nil), an animation at full size.
    ///
    /// - Throws: `ImageError`: `tooLarge` when the pixels would pass `byteLimit` (checked
    ///   before they are allocated), `unsupported`, or `corrupt` with the library's reason.
    public static func decode(_ data: [UInt8], fitting target: TargetSize?, byteLimit: Int) throws(ImageError) -> Picture {
        let probe = try probe(data)
        guard probe.width > 0, probe.height > 0 else { throw ImageError(.corrupt, "\(probe.format.name): the image is empty (\(probe.width)×\(probe.height))") }
        guard probe.width <= maximumSide, probe.height <= maximumSide else {
            throw ImageError(
                .tooLarge, "\(probe.format.name): \(probe.width)×\(probe.height) is larger than \(maximumSide) pixels a side", bytes: probe.fullBytes)
        }
        let needed = decodedBytes(of: probe, fitting: target)
        guard needed <= byteLimit else { throw tooLarge(probe, needed, byteLimit) }
        switch probe.format {
        case .png:
            do { return Picture(still: try Surface(pngData: data, name: "PNG"), format: .png) } catch let error as PNGError {
                throw ImageError(.corrupt, "PNG: \(error.reason)")
            } catch {
                throw ImageError(.corrupt, "PNG: \(error)")
            }
        case .jpeg: return try JPEGDecoder.decode(data, fitting: target)
        case .webp: return try WebPDecoder.decode(data, fitting: target, byteLimit: byteLimit)
        case .gif: return try GIFDecoder.decode(data, byteLimit: byteLimit)
        case .svg: return try SVGRasterizer.rasterize(data, fitting: target)
        }
    }

    /// The largest file read by `decodeFile`.
    public static let fileLimit = 64 << 20

    /// Reads the file at `path` (a regular file of at most `fileLimit` bytes) and decodes
    /// it (`decode(_:fitting:byteLimit:)`).
    public static func decodeFile(_ path: String, fitting target: TargetSize?, byteLimit: Int) throws(ImageError) -> Picture {
        let bytes: [UInt8]
        do { bytes = try SafeFile.read(path, limit: fileLimit).bytes } catch { throw ImageError(.unreadable, error.message) }
        do { return try decode(bytes, fitting: target, byteLimit: byteLimit) } catch {
            throw ImageError(error.kind, "\(path): \(error.message)", bytes: error.bytes)
        }
    }

    static func tooLarge(_ probe: ImageProbe, _ bytes: Int, _ limit: Int) -> ImageError {
        let frames = probe.frames > 1 ? " in \(probe.frames) frames" : ""
        return ImageError(
            .tooLarge, "\(probe.format.name) of \(probe.width)×\(probe.height)\(frames) needs \(bytes >> 20) MB decoded, over the \(limit >> 20) MB allowed",
            bytes: bytes)
    }

    private static func unsupported(_ data: [UInt8]) -> ImageError {
        guard !data.isEmpty else { return ImageError(.unsupported, "the file is empty") }
        let head = data.prefix(4).map { "0x" + String($0, radix: 16, uppercase: true).leftPadded(2) }.joined(separator: " ")
        return ImageError(.unsupported, "not an image format that is read (PNG, JPEG, WebP, GIF, SVG): starts with \(head)")
    }
}

extension ImageFormat {
    /// The format's usual name, for messages.
    public var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .webp: "WebP"
        case .gif: "GIF"
        case .svg: "SVG"
        }
    }
}

extension String {
    func leftPadded(_ count: Int) -> String { String(repeating: "0", count: max(0, count - self.count)) + self }
}
