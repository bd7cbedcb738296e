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
    public func scale(covering size: Size) -> Double {
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

    /// Bytes `frames` frames of `width`×`height` pixels take decoded (Int.max on overflow).
    public static func bytes(_ width: Int, _ height: Int, _ frames: Int) -> Int {
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (all, o2) = area.multipliedReportingOverflow(by: 4 * max(1, frames))
        return o1 || o2 ? Int.max : all
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

/// The limits every image decoder keeps, wherever it runs.
public enum ImageLimits {
    /// The largest side decoded: past it a file is refused whatever the budget.
    public static let maximumSide = 1 << 15
    /// The largest image file read.
    public static let fileLimit = 64 << 20
}
