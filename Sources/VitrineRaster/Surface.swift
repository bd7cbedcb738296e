import Glibc
import VitrineCore

/// A rectangle of whole device pixels. Empty when either size is `<= 0`.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    /// Top-left corner and size, in pixels.
    public var x, y, width, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    public static let empty = PixelRect(x: 0, y: 0, width: 0, height: 0)

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The common part; empty (with a non-negative size) when they do not overlap.
    public func intersection(_ other: PixelRect) -> PixelRect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// The smallest rectangle containing both (an empty operand is ignored).
    public func union(_ other: PixelRect) -> PixelRect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return PixelRect(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }

    public func offsetBy(dx: Int, dy: Int) -> PixelRect {
        PixelRect(x: x + dx, y: y + dy, width: width, height: height)
    }

    /// The smallest pixel rectangle covering `rect` (null and non-finite rects give `.empty`).
    public init(covering rect: Rect) {
        guard !rect.isNull, rect.minX.isFinite, rect.minY.isFinite, rect.maxX.isFinite,
            rect.maxY.isFinite
        else { self = .empty; return }
        let limit = Double(1 << 30)
        func c(_ v: Double) -> Int { Int(min(limit, max(-limit, v))) }
        let x0 = c(rect.minX.rounded(.down)), y0 = c(rect.minY.rounded(.down))
        self.init(x: x0, y: y0, width: c(rect.maxX.rounded(.up)) - x0, height: c(rect.maxY.rounded(.up)) - y0)
    }

    /// The largest pixel rectangle inside `rect`: the pixels it covers whole (null and
    /// non-finite rects give `.empty`).
    public init(inside rect: Rect) {
        guard !rect.isNull, rect.minX.isFinite, rect.minY.isFinite, rect.maxX.isFinite,
            rect.maxY.isFinite
        else { self = .empty; return }
        let limit = Double(1 << 30)
        func c(_ v: Double) -> Int { Int(min(limit, max(-limit, v))) }
        let x0 = c(rect.minX.rounded(.up)), y0 = c(rect.minY.rounded(.up))
        self.init(x: x0, y: y0, width: max(0, c(rect.maxX.rounded(.down)) - x0), height: max(0, c(rect.maxY.rounded(.down)) - y0))
    }

    /// Appends the parts of `self` outside `cut` to `parts`: up to four rectangles.
    public func subtracting(_ cut: PixelRect, into parts: inout [PixelRect]) {
        let i = intersection(cut)
        guard !i.isEmpty else { parts.append(self); return }
        if i.y > y { parts.append(PixelRect(x: x, y: y, width: width, height: i.y - y)) }
        if i.maxY < maxY { parts.append(PixelRect(x: x, y: i.maxY, width: width, height: maxY - i.maxY)) }
        if i.x > x { parts.append(PixelRect(x: x, y: i.y, width: i.x - x, height: i.height)) }
        if i.maxX < maxX { parts.append(PixelRect(x: i.maxX, y: i.y, width: maxX - i.maxX, height: i.height)) }
    }

    /// The same rectangle in floating point.
    public var rect: Rect { Rect(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }

    public var description: String { "[\(x), \(y), \(width), \(height)]" }
}

/// An image of premultiplied ARGB8888 pixels, each a native-endian `UInt32` `0xAARRGGBB`
/// (pixman's `a8r8g8b8`). Rows are `stride` pixels apart. The surface owns its memory, or
/// wraps another owner's (`init(wrapping:…)`), which it gives back when it goes.
///
/// Drawing operations are in extensions, one file per stage: `fill`, `draw(image:)`,
/// `drawShadow`, `composite`. Every one of them takes an optional `Clip`, which is how to
/// draw into a sub-rectangle.
///
/// A surface may be handed to another thread (it is `Sendable`), but it does no locking:
/// draw into it from one thread at a time.
public final class Surface: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// Pixels from the start of one row to the start of the next.
    public let stride: Int
    /// The first pixel of the first row. Valid while the surface lives.
    public let pixels: UnsafeMutablePointer<UInt32>
    /// Every pixel is opaque and its alpha byte is not read (X8R8G8B8, such as a Wayland
    /// client's XRGB buffer): drawing the surface treats the alpha as 255 without writing it.
    public let ignoresAlpha: Bool

    /// A transparent surface. Sizes are clamped to at least 0.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        stride = (self.width + 7) & ~7
        let count = max(1, stride * self.height)
        pixels = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
            .bindMemory(to: UInt32.self, capacity: count)
        pixels.initialize(repeating: 0, count: count)
        release = nil
        ignoresAlpha = false
    }

    /// A surface over `height` rows of `width` pixels, `stride` pixels apart, that another
    /// owner keeps (a decoded video frame): `release` runs when the surface goes. Draw
    /// from it only, unless the owner lets it be written. `ignoresAlpha`: the pixels are
    /// X8R8G8B8, drawn as opaque.
    public init(
        wrapping pixels: UnsafeMutablePointer<UInt32>, width: Int, height: Int, stride: Int, ignoresAlpha: Bool = false,
        release: @escaping () -> Void
    ) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.stride = max(stride, self.width)
        self.pixels = pixels
        self.ignoresAlpha = ignoresAlpha
        self.release = release
    }

    private let release: (() -> Void)?

    deinit {
        if let release { release() } else { pixels.deallocate() }
    }

    /// All rows, `stride × height` pixels (the padding at the end of each row included),
    /// for handing to an output backend or another library.
    public var buffer: UnsafeMutableBufferPointer<UInt32> {
        UnsafeMutableBufferPointer(start: pixels, count: stride * height)
    }

    /// The whole surface, at the origin.
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// The pixel at (x, y), which must be inside the surface.
    public func pixel(x: Int, y: Int) -> PremultipliedColor {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(bounds)")
        return PremultipliedColor(unchecked: pixels[y * stride + x])
    }

    /// Replaces the pixel at (x, y), which must be inside the surface.
    public func setPixel(x: Int, y: Int, _ color: PremultipliedColor) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(bounds)")
        pixels[y * stride + x] = color.argb
    }

    /// The start of row `y`.
    @inline(__always)
    func row(_ y: Int) -> UnsafeMutablePointer<UInt32> { pixels + y * stride }

    /// Sets every pixel (inside `clip` when given) to `color`, ignoring what was there.
    public func clear(_ color: PremultipliedColor = .transparent, clip: PixelRect? = nil) {
        fill(clip ?? bounds, color, mode: .source)
    }

    /// How a colour combines with the destination.
    public enum BlendMode: Sendable {
        /// Replace the destination (Porter-Duff SRC).
        case source
        /// Premultiplied source-over (Porter-Duff OVER).
        case over
    }

    /// Fills whole pixels of `rect` (clipped to the surface) with `color`.
    public func fill(_ rect: PixelRect, _ color: PremultipliedColor, mode: BlendMode = .over) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty else { return }
        if mode == .source || color.alpha == 255 {
            if r.x == 0, r.width == stride {
                Kernels.fill(row(r.y), count: r.width * r.height, color.argb)
                return
            }
            for y in r.y..<r.maxY { Kernels.fill(row(y) + r.x, count: r.width, color.argb) }
        } else if color.alpha != 0 {
            for y in r.y..<r.maxY { Kernels.overSolid(row(y) + r.x, count: r.width, color.argb) }
        }
    }

    /// A copy of the pixels in `rect` (clipped to the surface) as a new surface.
    public func copy(_ rect: PixelRect? = nil) -> Surface {
        let r = (rect ?? bounds).intersection(bounds)
        let out = Surface(width: r.width, height: r.height)
        for y in 0..<r.height {
            out.row(y).update(from: row(r.y + y) + r.x, count: r.width)
        }
        return out
    }

    /// Copies the pixels of `rect` in `source` to the same place here (both clipped): a
    /// shadow copy of a frame kept up to date from its damage.
    public func copyPixels(_ rect: PixelRect, from source: Surface) {
        let r = rect.intersection(bounds).intersection(source.bounds)
        guard !r.isEmpty else { return }
        for y in r.y..<r.maxY { (row(y) + r.x).update(from: source.row(y) + r.x, count: r.width) }
    }

    /// True when both surfaces have the same size and pixels.
    public func hasSamePixels(as other: Surface) -> Bool {
        guard width == other.width, height == other.height else { return false }
        for y in 0..<height where memcmp(row(y), other.row(y), width * 4) != 0 { return false }
        return true
    }
}

/// An 8-bit coverage (alpha) image: glyphs, clip masks, shadow masks. Owns its memory.
///
/// `origin` places the mask in device space: pixel (0, 0) of the mask covers device pixel
/// `origin`. Drawing and clipping with a mask honour it.
public final class A8Mask: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// Bytes from the start of one row to the start of the next.
    public let stride: Int
    /// Where the mask sits in device space.
    public let originX: Int
    public let originY: Int
    /// The first byte of the first row. Valid while the mask lives.
    public let bytes: UnsafeMutablePointer<UInt8>

    /// A zeroed mask.
    public init(width: Int, height: Int, originX: Int = 0, originY: Int = 0) {
        self.width = max(0, width)
        self.height = max(0, height)
        stride = (self.width + 15) & ~15
        (self.originX, self.originY) = (originX, originY)
        let count = max(1, stride * self.height)
        bytes = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
            .bindMemory(to: UInt8.self, capacity: count)
        bytes.initialize(repeating: 0, count: count)
        owned = true
    }

    /// A mask over `height` rows of `width` bytes, `stride` apart, in memory another owner
    /// keeps and reuses (a renderer's scratch): the bytes are taken as they are and not
    /// freed when the mask goes. The mask must not outlive that memory.
    public init(wrapping bytes: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int, originX: Int = 0, originY: Int = 0) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.stride = max(stride, self.width)
        (self.originX, self.originY) = (originX, originY)
        self.bytes = bytes
        owned = false
    }

    private let owned: Bool

    /// A zeroed mask covering `rect` in device space.
    public convenience init(covering rect: PixelRect) {
        self.init(width: rect.width, height: rect.height, originX: rect.x, originY: rect.y)
    }

    deinit { if owned { bytes.deallocate() } }

    /// The device pixels the mask covers.
    public var frame: PixelRect { PixelRect(x: originX, y: originY, width: width, height: height) }

    /// The coverage at mask-local (x, y), which must be inside the mask.
    public subscript(x: Int, y: Int) -> UInt8 {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "mask (\(x), \(y)) out of range")
            return bytes[y * stride + x]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "mask (\(x), \(y)) out of range")
            bytes[y * stride + x] = newValue
        }
    }

    @inline(__always)
    func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { bytes + y * stride }

    /// The sum of all coverage values divided by 255: the covered area in pixels.
    public var totalCoverage: Double {
        var sum = 0
        for y in 0..<height {
            let r = row(y)
            for x in 0..<width { sum += Int(r[x]) }
        }
        return Double(sum) / 255
    }
}
