import VitrineRaster

/// Where a decoder puts the frames it hands back: on the heap, or in memory that another
/// process will read (the decoder helper's shared memory), so that handing a picture over
/// copies no pixel.
///
/// ```swift
/// let frame = try frames.surface(width: 3000, height: 2000)   // transparent
/// ```
///
/// Only the frames of the picture come from it; a decoder's scratch surfaces (a GIF's
/// canvas, a JPEG before its EXIF turn) stay on the heap.
public struct FrameAllocator: Sendable {
    private let make: @Sendable (_ width: Int, _ height: Int) throws(ImageError) -> Surface

    /// Frames that `make` allocates: a transparent surface of `width`×`height` pixels, or
    /// why there is no room for it.
    public init(_ make: @escaping @Sendable (_ width: Int, _ height: Int) throws(ImageError) -> Surface) {
        self.make = make
    }

    /// Frames on the heap (`Surface(width:height:)`).
    public static let heap = FrameAllocator { width, height in Surface(width: width, height: height) }

    /// A transparent surface of `width`×`height` pixels for a frame.
    /// - Throws: `ImageError` (`tooLarge`) when there is no room for it.
    public func surface(width: Int, height: Int) throws(ImageError) -> Surface {
        try make(width, height)
    }
}
