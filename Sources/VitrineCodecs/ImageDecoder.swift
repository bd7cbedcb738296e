import VitrineCore
import VitrineImage
import VitrineRaster
import VitrineSystem

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
    public static let maximumSide = ImageLimits.maximumSide

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
    /// smaller or draw at any size (full size when nil), an animation at full size. Its
    /// frames come from `frames`.
    ///
    /// - Throws: `ImageError`: `tooLarge` when the pixels would pass `byteLimit` (checked
    ///   before they are allocated) or `frames` has no room for them, `unsupported`, or
    ///   `corrupt` with the library's reason.
    public static func decode(_ data: [UInt8], fitting target: TargetSize?, byteLimit: Int, frames: FrameAllocator = .heap) throws(ImageError) -> Picture {
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
            do { return Picture(still: try Surface.decodingPNG(data, name: "PNG", into: frames.surface), format: .png) } catch let error as PNGError {
                throw ImageError(.corrupt, "PNG: \(error.reason)")
            } catch let error as ImageError {
                throw error
            } catch {
                throw ImageError(.corrupt, "PNG: \(error)")
            }
        case .jpeg: return try JPEGDecoder.decode(data, fitting: target, into: frames)
        case .webp: return try WebPDecoder.decode(data, fitting: target, byteLimit: byteLimit, into: frames)
        case .gif: return try GIFDecoder.decode(data, byteLimit: byteLimit, into: frames)
        case .svg: return try SVGRasterizer.rasterize(data, fitting: target, into: frames)
        }
    }

    /// The largest file read by `decodeFile`.
    public static let fileLimit = ImageLimits.fileLimit

    /// Reads the file at `path` (a regular file of at most `fileLimit` bytes) and decodes
    /// it (`decode(_:fitting:byteLimit:)`).
    public static func decodeFile(_ path: String, fitting target: TargetSize?, byteLimit: Int) throws(ImageError) -> Picture {
        let bytes: [UInt8]
        do { bytes = try SafeFile.read(path, limit: fileLimit).bytes } catch { throw ImageError(.unreadable, error.message) }
        do { return try decode(bytes, fitting: target, byteLimit: byteLimit) } catch {
            throw ImageError(error.kind, "\(path): \(error.message)", bytes: error.bytes)
        }
    }

    /// Reads and decodes an image file in place, for programs without a decoder helper
    /// (`ImageStore`'s loader in tests, benchmarks and fuzzing).
    public static func readImage(_ path: String, target: TargetSize?) throws -> Picture {
        try decodeFile(path, fitting: target, byteLimit: 1 << 30)
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

extension String {
    func leftPadded(_ count: Int) -> String { String(repeating: "0", count: max(0, count - self.count)) + self }
}
