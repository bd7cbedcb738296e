import VitrineRaster

/// How a frame's chroma lies in memory: 4:2:0, each chroma sample shared by 2 × 2 luma ones.
public enum YUVLayout: Sendable {
    /// Three planes: Y, then U (Cb), then V (Cr), each chroma plane half the luma's size.
    case i420
    /// Two planes: Y, then U and V interleaved (U first) at half the luma's size.
    case nv12
}

/// The matrix that turns a frame's Y′CbCr into R′G′B′.
public enum YUVMatrix: String, Sendable {
    /// ITU-R BT.601 (standard-definition video).
    case bt601
    /// ITU-R BT.709 (high-definition video).
    case bt709
    /// ITU-R BT.2020 (its non-constant-luminance matrix).
    case bt2020

    /// R′G′B′ from Y′CbCr, as the factors of `R = y·(Y − o) + rv·(V − 128)`,
    /// `G = y·(Y − o) + gu·(U − 128) + gv·(V − 128)`, `B = y·(Y − o) + bu·(U − 128)` on
    /// the 0…255 scale, `o` the black level: 16 in limited range (Y 16…235, Cb and Cr
    /// 16…240), 0 in full range.
    func factors(fullRange: Bool) -> (y: Float, rv: Float, gu: Float, gv: Float, bu: Float, black: Float) {
        let (kr, kb): (Float, Float) =
            switch self {
            case .bt601: (0.299, 0.114)
            case .bt709: (0.2126, 0.0722)
            case .bt2020: (0.2627, 0.0593)
            }
        let kg = 1 - kr - kb
        let (y, c, black): (Float, Float, Float) = fullRange ? (1, 1, 0) : (255 / 219, 255 / 224, 16)
        return (y, 2 * (1 - kr) * c, -2 * kb * (1 - kb) / kg * c, -2 * kr * (1 - kr) / kg * c, 2 * (1 - kb) * c, black)
    }
}

/// A decoded 4:2:0 video frame, its planes where the decoder left them,
/// kept by whoever owns them until the frame goes: drawn into an output with
/// `Surface.draw(yuv:in:transform:opacity:clip:)`, converted to BGRA on the way.
public final class YUVFrame: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let layout: YUVLayout
    public let matrix: YUVMatrix
    /// Y and chroma span 0…255 (JPEG's range), not 16…235 and 16…240 (video's).
    public let fullRange: Bool
    /// The luma plane and its bytes from one row to the next.
    public let luma: UnsafePointer<UInt8>
    public let lumaStride: Int
    /// The U plane (I420) or the interleaved U and V plane (NV12), and its stride.
    public let u: UnsafePointer<UInt8>
    public let uStride: Int
    /// The V plane (I420; for NV12 one byte after `u`), and its stride.
    public let v: UnsafePointer<UInt8>
    public let vStride: Int
    private let release: (() -> Void)?

    /// A frame over planes another owner keeps: `release` runs when the frame goes.
    /// Chroma planes hold `(width + 1) / 2` × `(height + 1) / 2` samples.
    public init(
        width: Int, height: Int, layout: YUVLayout, matrix: YUVMatrix, fullRange: Bool = false, luma: UnsafePointer<UInt8>, lumaStride: Int,
        u: UnsafePointer<UInt8>,
        uStride: Int, v: UnsafePointer<UInt8>? = nil, vStride: Int? = nil, release: (() -> Void)? = nil
    ) {
        (self.width, self.height, self.layout, self.matrix, self.fullRange) = (max(0, width), max(0, height), layout, matrix, fullRange)
        (self.luma, self.lumaStride, self.u, self.uStride) = (luma, lumaStride, u, uStride)
        self.v = v ?? (u + 1)
        self.vStride = vStride ?? uStride
        self.release = release
    }

    deinit { release?() }

    /// Samples from one chroma sample to the next along a row (2 for NV12's interleaved plane).
    var chromaStep: Int { layout == .nv12 ? 2 : 1 }

    /// The frame converted to BGRA (opaque), for drawing it where the direct path does not
    /// go (a rotated or sheared layer, a mask).
    public func converted() -> Surface {
        let surface = Surface(width: width, height: height)
        surface.draw(yuv: self, in: surface.bounds.rect)
        return surface
    }
}
