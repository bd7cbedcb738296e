import VitrineRaster

/// An 8-bit coverage mask of one glyph: 0 is empty, 255 fully covered; for a colour glyph
/// (an emoji bitmap, COLR layers or paints) also its premultiplied BGRA pixels in `image`,
/// drawn as they are whatever the text colour (the coverage is then their alpha).
///
/// The mask is placed relative to the glyph's pen position on the baseline: its top-left
/// pixel is at (pen x + `left`, baseline y − `top`) in a y-down space.
public final class GlyphMask: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Pen position to the mask's left edge, in pixels (may be negative).
    public let left: Int
    /// Baseline up to the mask's top edge, in pixels.
    public let top: Int
    /// Bytes from one row to the next.
    public let stride: Int
    /// `height` rows of `stride` bytes, top row first.
    public let bytes: [UInt8]
    /// The colour glyph's pixels (`width` × `height`), nil for a glyph drawn in the text
    /// colour.
    public let image: Surface?

    /// A mask from rows of coverage; `bytes.count` must be at least `stride * height`.
    public init(width: Int, height: Int, left: Int, top: Int, stride: Int, bytes: [UInt8]) {
        precondition(width >= 0 && height >= 0 && stride >= width && bytes.count >= stride * height)
        self.width = width
        self.height = height
        self.left = left
        self.top = top
        self.stride = stride
        self.bytes = bytes
        image = nil
    }

    /// A colour glyph from its premultiplied pixels; the coverage is their alpha.
    public init(image: Surface, left: Int, top: Int) {
        width = image.width
        height = image.height
        self.left = left
        self.top = top
        stride = image.width
        var alpha = [UInt8](repeating: 0, count: image.width * image.height)
        for y in 0..<image.height {
            let row = image.pixels + y * image.stride
            for x in 0..<image.width { alpha[y * image.width + x] = UInt8(truncatingIfNeeded: row[x] >> 24) }
        }
        bytes = alpha
        self.image = image
    }

    /// True for a colour glyph: `image` holds its pixels.
    public var isColor: Bool { image != nil }

    /// A mask that covers nothing (a space, or a glyph that could not be rendered).
    public static let empty = GlyphMask(width: 0, height: 0, left: 0, top: 0, stride: 0, bytes: [])

    /// True when there is nothing to draw.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// The coverage at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> UInt8 { bytes[y * stride + x] }

    /// The memory the mask holds, for cache accounting.
    public var byteCount: Int { bytes.count + (image.map { $0.stride * $0.height * 4 } ?? 0) }
}
