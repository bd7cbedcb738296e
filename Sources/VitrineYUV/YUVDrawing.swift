import CYUV
import VitrineCore
import VitrineRaster

extension Surface {
    /// Draws `frame` into `rect` (layer coordinates) through `transform`, converting its
    /// Y′CbCr to BGRA as it goes (libyuv), into the clip only. Where the frame lands 1:1 on
    /// whole pixels, opaque and upright, the clip's pixels are converted straight into
    /// this surface. Where it lands scaled (upright, opaque), the rows the clip needs are
    /// converted into `scratch` and scaled from there into the clip, bilinearly. Elsewhere
    /// (rotated, translucent, masked) the part the clip shows is converted into `scratch`
    /// and drawn as an image. Video is opaque: the pixels under it are replaced, not
    /// blended. `scratch` is the layer's, kept between frames (a new one when nil).
    public func draw(
        yuv frame: YUVFrame, in rect: Rect, transform: AffineTransform = .identity, opacity: Double = 1, clip: Clip? = nil, scratch: YUVScratch? = nil
    ) {
        guard frame.width > 1, frame.height > 1, !rect.isEmpty, opacity > 0 else { return }
        let toDevice = AffineTransform(
            a: rect.width / Double(frame.width), b: 0, c: 0, d: rect.height / Double(frame.height), tx: rect.minX, ty: rect.minY
        ).concatenating(transform)
        let visible = clip?.rect.intersection(bounds) ?? bounds
        guard toDevice.b == 0, toDevice.c == 0, toDevice.a > 0, toDevice.d > 0, opacity >= 1, clip?.mask == nil else {
            let image = (scratch ?? YUVScratch()).image(frame, rows: frame.rows(under: visible, through: toDevice))
            draw(image: image, in: rect, transform: transform, opacity: opacity, clip: clip)
            return
        }
        let edges = (
            x0: (toDevice.tx).rounded(), y0: (toDevice.ty).rounded(),
            x1: (toDevice.tx + toDevice.a * Double(frame.width)).rounded(), y1: (toDevice.ty + toDevice.d * Double(frame.height)).rounded()
        )
        guard edges.x0 < edges.x1, edges.y0 < edges.y1, abs(edges.x0) < 1e9, abs(edges.y0) < 1e9, edges.x1 < 1e9, edges.y1 < 1e9 else { return }
        let placed = PixelRect(x: Int(edges.x0), y: Int(edges.y0), width: Int(edges.x1 - edges.x0), height: Int(edges.y1 - edges.y0))
        let area = placed.intersection(visible)
        guard !area.isEmpty else { return }
        if placed.width == frame.width, placed.height == frame.height {
            YUVConversion.convert(frame, area.offsetBy(dx: -placed.x, dy: -placed.y), to: pixels + area.y * stride + area.x, stride: stride)
            return
        }
        guard placed.width < 32768, placed.height < 32768 else { return }
        let image = (scratch ?? YUVScratch()).image(frame, rows: frame.rows(under: area, through: toDevice))
        let origin = pixels + placed.y * stride + placed.x
        let corner = UnsafeMutableRawPointer(origin).assumingMemoryBound(to: UInt8.self)
        let source = UnsafeRawPointer(image.pixels).assumingMemoryBound(to: UInt8.self)
        _ = ARGBScaleClip(
            source, Int32(image.stride * 4), Int32(frame.width), Int32(frame.height), corner, Int32(stride * 4), Int32(placed.width), Int32(placed.height),
            Int32(area.x - placed.x), Int32(area.y - placed.y), Int32(area.width), Int32(area.height), kFilterBilinear)
    }
}

/// What a layer keeps between frames to draw the frames that do not land 1:1 (scaled,
/// rotated, translucent): the frame shown, converted to BGRA in the rows drawn so far.
public final class YUVScratch {
    private var surface: Surface?
    private weak var frame: YUVFrame?
    /// The rows of `frame` converted into `surface`.
    private var converted = 0..<0

    public init() {}

    /// `frame` as BGRA, converted in `rows` at least (other rows may hold an older frame).
    func image(_ frame: YUVFrame, rows: Range<Int>) -> Surface {
        let surface: Surface
        if let kept = self.surface, kept.width == frame.width, kept.height == frame.height {
            surface = kept
        } else {
            surface = Surface(width: frame.width, height: frame.height)
            (self.surface, self.frame) = (surface, nil)
        }
        if self.frame !== frame { (self.frame, converted) = (frame, 0..<0) }
        guard !rows.isEmpty, !(converted.contains(rows.lowerBound) && converted.contains(rows.upperBound - 1)) else { return surface }
        let all = converted.isEmpty ? rows : min(rows.lowerBound, converted.lowerBound)..<max(rows.upperBound, converted.upperBound)
        let missing = converted.isEmpty ? [all] : [all.lowerBound..<converted.lowerBound, converted.upperBound..<all.upperBound]
        for part in missing where !part.isEmpty {
            let area = PixelRect(x: 0, y: part.lowerBound, width: frame.width, height: part.count)
            YUVConversion.convert(frame, area, to: surface.pixels + area.y * surface.stride, stride: surface.stride)
        }
        converted = all
        return surface
    }
}

extension YUVFrame {
    /// The rows of the frame that drawing `area` (device pixels) through `toDevice` (frame
    /// pixels to device) reads, with two rows more each side for the filters; all of them
    /// when `toDevice` cannot be inverted.
    func rows(under area: PixelRect, through toDevice: AffineTransform) -> Range<Int> {
        guard !area.isEmpty else { return 0..<0 }
        guard let back = toDevice.inverted else { return 0..<height }
        let box = back.boundingBox(of: area.rect)
        guard box.minY.isFinite, box.maxY.isFinite else { return 0..<height }
        let first = max(0, Int(max(-1e9, box.minY).rounded(.down)) - 2), last = min(height, Int(min(1e9, box.maxY).rounded(.up)) + 2)
        return first < last ? first..<last : 0..<0
    }
}

/// Y′CbCr to BGRA by libyuv's row functions (SSSE3/AVX2), each chroma sample shared by
/// the 2 × 2 luma samples it covers.
enum YUVConversion {
    /// Converts `area` of `frame` (frame pixels) to opaque BGRA at `out` (its top-left
    /// pixel), rows `stride` pixels apart. An area that starts on an odd row or column is
    /// split there, so that each pixel takes its own chroma sample.
    static func convert(_ frame: YUVFrame, _ area: PixelRect, to out: UnsafeMutablePointer<UInt32>, stride: Int) {
        guard !area.isEmpty else { return }
        let constants = YUVConstants.table[frame.matrix, fullRange: frame.fullRange]
        func split(_ start: Int, _ end: Int) -> [Range<Int>] { start & 1 == 1 && end > start + 1 ? [start..<start + 1, start + 1..<end] : [start..<end] }
        for rows in split(area.y, area.maxY) {
            for columns in split(area.x, area.maxX) {
                let (x, y) = (columns.lowerBound, rows.lowerBound)
                let target = UnsafeMutableRawPointer(out + (y - area.y) * stride + (x - area.x)).assumingMemoryBound(to: UInt8.self)
                let luma = frame.luma + y * frame.lumaStride + x
                let chromaRow = (y >> 1) * frame.uStride
                switch frame.layout {
                case .i420:
                    I420ToARGBMatrix(
                        luma, Int32(frame.lumaStride), frame.u + chromaRow + (x >> 1), Int32(frame.uStride), frame.v + (y >> 1) * frame.vStride + (x >> 1),
                        Int32(frame.vStride), target, Int32(stride * 4), constants, Int32(columns.count), Int32(rows.count))
                case .nv12:
                    NV12ToARGBMatrix(
                        luma, Int32(frame.lumaStride), frame.u + chromaRow + (x >> 1) * 2, Int32(frame.uStride), target, Int32(stride * 4), constants,
                        Int32(columns.count), Int32(rows.count))
                }
            }
        }
    }
}

/// libyuv's conversion constants for each matrix and range. Its x86 build keeps the blue
/// gain within 2.0 (its other matrices need less), while limited-range BT.601, BT.709 and
/// BT.2020 need 2.02, 2.11 and 2.14: the gain is an unsigned byte in 1/64ths there, so
/// the exact one is put back (else a saturated blue is up to 10/255 too dark).
struct YUVConstants: @unchecked Sendable {
    private let limited: [YUVMatrix: UnsafePointer<YuvConstants>]
    private let full: [YUVMatrix: UnsafePointer<YuvConstants>]

    static let table = YUVConstants()

    subscript(matrix: YUVMatrix, fullRange fullRange: Bool) -> UnsafePointer<YuvConstants> { (fullRange ? full : limited)[matrix]! }

    private init() {
        func copy(_ matrix: YUVMatrix, _ fullRange: Bool) -> UnsafePointer<YuvConstants> {
            let library: YuvConstants =
                switch (matrix, fullRange) {
                case (.bt601, false): kYuvI601Constants
                case (.bt601, true): kYuvJPEGConstants
                case (.bt709, false): kYuvH709Constants
                case (.bt709, true): kYuvF709Constants
                case (.bt2020, false): kYuv2020Constants
                case (.bt2020, true): kYuvV2020Constants
                }
            let memory = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<YuvConstants>.size, alignment: 64)
            let constants = memory.bindMemory(to: YuvConstants.self, capacity: 1)
            constants.initialize(to: library)
            #if arch(x86_64) || arch(i386)
                let blue = (memory + Int(KUVTOB)).assumingMemoryBound(to: UInt8.self)
                let exact = (64 * Double(matrix.factors(fullRange: fullRange).bu)).rounded()
                if blue[0] == 128, blue[1] == 0, exact > 128, exact < 256 {
                    for i in stride(from: 0, to: 32, by: 2) { blue[i] = UInt8(exact) }
                }
            #endif
            return UnsafePointer(constants)
        }
        let matrices: [YUVMatrix] = [.bt601, .bt709, .bt2020]
        limited = Dictionary(uniqueKeysWithValues: matrices.map { ($0, copy($0, false)) })
        full = Dictionary(uniqueKeysWithValues: matrices.map { ($0, copy($0, true)) })
    }
}
