import CJPEG
import Glibc
import VitrineRaster

/// A screen's picture made small enough for a fleet dashboard: scaled to fit a box keeping
/// its aspect (an area-averaging box filter, never enlarged), encoded as PNG or JPEG, and
/// kept under a number of bytes — a JPEG by lowering its quality and then its size, a PNG by
/// lowering its size — or refused when even the smallest does not fit.
///
/// ```swift
/// let spec = Thumbnail.Spec(format: .jpeg, width: 320, height: 180, maxBytes: 65536)
/// let image = try Thumbnail.make(from: screen, spec)   // on a worker: it converts pixels
/// image.data                                           // the JPEG's bytes
/// ```
public enum Thumbnail {
    /// The image formats a thumbnail can have.
    public enum Format: String, Sendable, CaseIterable {
        case png, jpeg
    }

    /// What a thumbnail must be.
    public struct Spec: Sendable, Equatable {
        public var format: Format
        /// The box the picture is fitted into, in pixels.
        public var width: Int
        public var height: Int
        /// The most bytes the encoded image may have.
        public var maxBytes: Int
        /// The JPEG quality to start at, 1…100 (lowered to fit `maxBytes`).
        public var quality: Int

        public init(format: Format, width: Int, height: Int, maxBytes: Int, quality: Int = 80) {
            self.format = format
            self.width = width
            self.height = height
            self.maxBytes = maxBytes
            self.quality = quality
        }
    }

    /// An encoded thumbnail.
    public struct Image: Sendable {
        public let data: [UInt8]
        public let width: Int
        public let height: Int
        /// The JPEG quality it was encoded at; nil for a PNG.
        public let quality: Int?
    }

    /// Why a thumbnail could not be made.
    public struct Failure: Error, Sendable, Equatable {
        public let message: String
    }

    /// The smallest side a thumbnail is shrunk to while trying to fit `maxBytes`.
    public static let smallestSide = 16
    /// The JPEG qualities tried, in turn, below the spec's.
    static let fallbackQualities = [60, 40, 25]

    /// The size of `width`×`height` fitted into `box` keeping its aspect; never larger
    /// than the original, never a side under 1.
    public static func fitted(_ width: Int, _ height: Int, into box: (width: Int, height: Int)) -> (width: Int, height: Int) {
        let scale = min(1, min(Double(box.width) / Double(width), Double(box.height) / Double(height)))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// `screen` fitted into the spec's box and encoded within `maxBytes`.
    public static func make(from screen: Surface, _ spec: Spec) throws(Failure) -> Image {
        var size = fitted(screen.width, screen.height, into: (spec.width, spec.height))
        while true {
            let small = scaled(screen, to: size.width, size.height)
            let qualities = spec.format == .jpeg ? [spec.quality] + fallbackQualities.filter { $0 < spec.quality } : [0]
            for quality in qualities {
                let data = try encode(small, format: spec.format, quality: quality)
                if data.count <= spec.maxBytes {
                    return Image(data: data, width: size.width, height: size.height, quality: spec.format == .jpeg ? quality : nil)
                }
            }
            guard min(size.width, size.height) > smallestSide else {
                throw Failure(
                    message:
                        "the picture does not fit in \(spec.maxBytes) bytes even at \(size.width)×\(size.height)\(spec.format == .jpeg ? " and quality \(qualities.last!)" : ""); ask for more maxBytes\(spec.format == .png ? " or format \"jpeg\"" : "")"
                )
            }
            size = (max(1, size.width * 3 / 4), max(1, size.height * 3 / 4))
        }
    }

    /// `surface` encoded as `format` (`quality` for JPEG).
    public static func encode(_ surface: Surface, format: Format, quality: Int) throws(Failure) -> [UInt8] {
        switch format {
        case .png:
            do { return try surface.pngData() } catch { throw Failure(message: "the picture could not be encoded as PNG: \(error)") }
        case .jpeg:
            return try jpeg(surface, quality: quality)
        }
    }

    /// A baseline JPEG of `surface` over black (JPEG has no alpha), through libjpeg-turbo.
    static func jpeg(_ surface: Surface, quality: Int) throws(Failure) -> [UInt8] {
        let (width, height) = (surface.width, surface.height)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let row = surface.pixels + y * surface.stride
            for x in 0..<width {
                let pixel = row[x]
                let i = (y * width + x) * 3
                rgb[i] = UInt8(truncatingIfNeeded: pixel >> 16)
                rgb[i + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                rgb[i + 2] = UInt8(truncatingIfNeeded: pixel)
            }
        }
        var error = vitrine_jpeg_error()
        var size: UInt = 0
        let data = rgb.withUnsafeBufferPointer {
            vitrine_jpeg_encode_rgb($0.baseAddress, Int32(width), Int32(height), width * 3, Int32(quality), nil, 0, &error, &size)
        }
        guard let data else {
            let message = withUnsafeBytes(of: &error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw Failure(message: "the picture could not be encoded as JPEG: \(message)")
        }
        defer { free(data) }
        return Array(UnsafeBufferPointer(start: data, count: Int(size)))
    }

    /// `source` scaled to `width`×`height` with an area-averaging box filter: each pixel is
    /// the mean of the source pixels its area covers, in parts at its edges (premultiplied
    /// channels averaged, as compositing does). Separable: rows first, then columns.
    public static func scaled(_ source: Surface, to width: Int, _ height: Int) -> Surface {
        let result = Surface(width: width, height: height)
        if width == source.width, height == source.height {
            for y in 0..<height { (result.pixels + y * result.stride).update(from: source.pixels + y * source.stride, count: width) }
            return result
        }
        let across = weights(from: source.width, to: width)
        let down = weights(from: source.height, to: height)
        // Rows scaled across: 4 channels a pixel, in floats.
        var rows = [Float](repeating: 0, count: source.height * width * 4)
        for y in 0..<source.height {
            let row = source.pixels + y * source.stride
            for x in 0..<width {
                var sum: (Float, Float, Float, Float) = (0, 0, 0, 0)
                for (index, weight) in across[x] {
                    let p = row[index]
                    sum.0 += weight * Float(p >> 24)
                    sum.1 += weight * Float((p >> 16) & 0xFF)
                    sum.2 += weight * Float((p >> 8) & 0xFF)
                    sum.3 += weight * Float(p & 0xFF)
                }
                let i = (y * width + x) * 4
                (rows[i], rows[i + 1], rows[i + 2], rows[i + 3]) = sum
            }
        }
        for y in 0..<height {
            let out = result.pixels + y * result.stride
            for x in 0..<width {
                var sum: (Float, Float, Float, Float) = (0, 0, 0, 0)
                for (index, weight) in down[y] {
                    let i = (index * width + x) * 4
                    sum.0 += weight * rows[i]
                    sum.1 += weight * rows[i + 1]
                    sum.2 += weight * rows[i + 2]
                    sum.3 += weight * rows[i + 3]
                }
                out[x] = channel(sum.0) << 24 | channel(sum.1) << 16 | channel(sum.2) << 8 | channel(sum.3)
            }
        }
        return result
    }

    private static func channel(_ value: Float) -> UInt32 { UInt32(min(255, max(0, value.rounded()))) }

    /// For each of `count` target pixels, the source pixels of `sourceCount` it covers and
    /// the share of each (summing to 1). Enlarging, the nearest two, linearly.
    static func weights(from sourceCount: Int, to count: Int) -> [[(Int, Float)]] {
        let ratio = Double(sourceCount) / Double(count)
        return (0..<count).map { i in
            guard ratio > 1 else {
                let center = (Double(i) + 0.5) * ratio - 0.5
                let left = max(0, min(sourceCount - 1, Int(center.rounded(.down))))
                let right = min(sourceCount - 1, left + 1)
                let t = Float(max(0, min(1, center - Double(left))))
                return left == right ? [(left, Float(1))] : [(left, 1 - t), (right, t)]
            }
            let start = Double(i) * ratio
            let end = start + ratio
            var parts: [(Int, Float)] = []
            var x = Int(start)
            while Double(x) < end, x < sourceCount {
                let covered = min(end, Double(x + 1)) - max(start, Double(x))
                if covered > 0 { parts.append((x, Float(covered / ratio))) }
                x += 1
            }
            return parts
        }
    }
}
