import VitrineRaster

/// How a scan-out buffer stores a pixel. Every format is little-endian, as the kernel's
/// framebuffers and DRM formats are.
public enum ScanoutFormat: Sendable, Equatable, CustomStringConvertible {
    /// 32 bits: blue, green, red, unused (DRM's XRGB8888).
    case xrgb8888
    /// 24 bits: blue, green, red (RGB888: red at bit 16).
    case rgb888
    /// 16 bits: red in the top 5 bits, green in the middle 6, blue in the low 5 (RGB565).
    case rgb565

    /// Bytes one pixel takes.
    public var bytesPerPixel: Int {
        switch self {
        case .xrgb8888: 4
        case .rgb888: 3
        case .rgb565: 2
        }
    }

    public var description: String {
        switch self {
        case .xrgb8888: "XRGB8888"
        case .rgb888: "RGB888"
        case .rgb565: "RGB565"
        }
    }
}

/// Copies damaged parts of the rendered picture into a scan-out buffer, turning them on
/// the way and packing them into the buffer's format.
///
/// The destination is write-combined device memory on most hardware: it is only ever
/// written, row after row, never read. Reads from the source (system memory) may jump
/// around instead, which is why the rotated copies walk the destination's rows. Formats
/// narrower than 32 bits are packed from one row of 32-bit pixels gathered first, so the
/// work is proportional to the damage in every format.
public final class ScanoutCopy {
    public let rotation: ScreenRotation
    public let format: ScanoutFormat
    /// One physical row of 32-bit pixels, for the narrower formats.
    private let scratch: UnsafeMutableBufferPointer<UInt32>?

    /// - Parameter maximumWidth: the widest physical row copied (the buffer's width).
    public init(rotation: ScreenRotation, format: ScanoutFormat = .xrgb8888, maximumWidth: Int = 16384) {
        self.rotation = rotation
        self.format = format
        scratch = format == .xrgb8888 ? nil : .allocate(capacity: max(1, maximumWidth))
    }

    deinit { scratch?.deallocate() }

    /// Copies logical `rect` of `source` into `destination`, a physical buffer in
    /// `format` whose rows are `pitch` bytes apart. `rect` is clipped to the source.
    public func copy(_ rect: PixelRect, from source: Surface, to destination: UnsafeMutableRawPointer, pitch: Int) {
        let r = rect.intersection(source.bounds)
        guard !r.isEmpty else { return }
        let target = rotation.physicalRect(of: r, logicalWidth: source.width, logicalHeight: source.height)
        for py in target.y..<target.maxY {
            let line = destination + py * pitch
            guard let scratch else {
                gather(row: py, target, from: source, into: line.assumingMemoryBound(to: UInt32.self) + target.x)
                continue
            }
            gather(row: py, target, from: source, into: scratch.baseAddress!)
            pack(scratch.baseAddress!, count: target.width, into: line + target.x * format.bytesPerPixel)
        }
    }

    /// The 32-bit pixels of physical row `py` from column `target.x` to `target.maxX`.
    private func gather(row py: Int, _ target: PixelRect, from source: Surface, into out: UnsafeMutablePointer<UInt32>) {
        let w = source.width, h = source.height
        let src = source.pixels, stride = source.stride
        switch rotation {
        case .none:
            out.update(from: src + py * stride + target.x, count: target.width)
        case .quarter:
            // physical (px, py) shows logical (py, h - 1 - px)
            for (i, px) in (target.x..<target.maxX).enumerated() { out[i] = src[(h - 1 - px) * stride + py] }
        case .half:
            let line = src + (h - 1 - py) * stride
            for (i, px) in (target.x..<target.maxX).enumerated() { out[i] = line[w - 1 - px] }
        case .threeQuarters:
            // physical (px, py) shows logical (w - 1 - py, px)
            for (i, px) in (target.x..<target.maxX).enumerated() { out[i] = src[px * stride + (w - 1 - py)] }
        }
    }

    /// Packs `count` XRGB pixels into the narrower format. The picture on a screen is
    /// opaque, so its premultiplied channels are the colour.
    private func pack(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, into out: UnsafeMutableRawPointer) {
        switch format {
        case .xrgb8888:
            out.copyMemory(from: pixels, byteCount: count * 4)
        case .rgb888:
            let bytes = out.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count {
                let p = pixels[i]
                bytes[3 * i] = UInt8(truncatingIfNeeded: p)
                bytes[3 * i + 1] = UInt8(truncatingIfNeeded: p >> 8)
                bytes[3 * i + 2] = UInt8(truncatingIfNeeded: p >> 16)
            }
        case .rgb565:
            // Unaligned stores: a 16-bit framebuffer's damage may start at any pixel.
            for i in 0..<count {
                let p = pixels[i]
                let value = UInt16(truncatingIfNeeded: ((p >> 8) & 0xF800) | ((p >> 5) & 0x07E0) | ((p >> 3) & 0x001F))
                out.storeBytes(of: value, toByteOffset: 2 * i, as: UInt16.self)
            }
        }
    }
}
