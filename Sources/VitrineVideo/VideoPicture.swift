import VitrineCore
import VitrineRaster
import VitrineYUV

/// A decoded frame's pixels: BGRA, or Y′CbCr planes converted as they are drawn.
public enum VideoPicture {
    case bgra(Surface)
    case yuv(YUVFrame)

    public var width: Int {
        switch self {
        case .bgra(let surface): surface.width
        case .yuv(let frame): frame.width
        }
    }

    public var height: Int {
        switch self {
        case .bgra(let surface): surface.height
        case .yuv(let frame): frame.height
        }
    }

    /// The pixels as BGRA: the surface itself, or the planes converted into a new one
    /// (a whole frame's conversion: for reading pixels back, not for drawing).
    public var surface: Surface {
        switch self {
        case .bgra(let surface): surface
        case .yuv(let frame): frame.converted()
        }
    }

    /// Draws the picture into `rect` through `transform` on `surface` (a Y′CbCr frame
    /// converted on the way, into the clip only, through the layer's `scratch` where it
    /// does not land 1:1).
    public func draw(on surface: Surface, in rect: Rect, transform: AffineTransform, opacity: Double, clip: Clip?, scratch: YUVScratch? = nil) {
        switch self {
        case .bgra(let image): surface.draw(image: image, in: rect, transform: transform, opacity: opacity, clip: clip)
        case .yuv(let frame): surface.draw(yuv: frame, in: rect, transform: transform, opacity: opacity, clip: clip, scratch: scratch)
        }
    }
}
