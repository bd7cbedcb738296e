import VitrineRaster

/// A decoded frame as a player takes it: its pixels, kept by the surface (shared memory
/// of the decoder helper, or GStreamer's buffer), and its video time.
public struct DecodedFrame {
    /// The frame's pixels; drawing them holds them.
    public let picture: VideoPicture
    /// The frame's video time in seconds; nil when the stream stamps none.
    public let time: Double?
    /// The memfd the pixels lie in, when they do (a decoder that writes frames into shared
    /// memory): what a decoder helper hands over instead of copying them.
    public let shared: SharedPixels?

    public init(picture: VideoPicture, time: Double?, shared: SharedPixels? = nil) { (self.picture, self.time, self.shared) = (picture, time, shared) }

    public init(surface: Surface, time: Double?, shared: SharedPixels? = nil) { self.init(picture: .bgra(surface), time: time, shared: shared) }

    /// The pixels as BGRA (Y′CbCr planes converted: for reading them back).
    public var surface: Surface { picture.surface }
}

/// Where a frame's pixels lie in a memfd sealed against resizing.
public struct SharedPixels: Sendable {
    /// The memfd (the frame's, open while its surface lives).
    public let descriptor: CInt
    /// Bytes from the memfd's start to the first pixel (of the first plane).
    public let offset: Int
    /// Bytes from the memfd's start to each plane's first sample: `offset` alone for BGRA.
    public let planes: [Int]
    /// The memfd's size in bytes.
    public let size: Int

    public init(descriptor: CInt, offset: Int, size: Int, planes: [Int]? = nil) {
        (self.descriptor, self.offset, self.size, self.planes) = (descriptor, offset, size, planes ?? [offset])
    }
}

/// Where a `VideoPlayer`'s frames come from: a decoder that works ahead of the player by a
/// few frames and waits when they are not taken. The daemon's is the decoder helper's
/// (`RemoteVideoDecoder`, another process); the helper's own is GStreamer's.
///
/// Nothing here blocks but `takeFrame` when asked to wait.
public protocol VideoDecoding: AnyObject {
    /// The next decoded frame since the last seek, waiting up to `wait` seconds for one
    /// (0: not at all); nil when none came, the stream ended or the decoder failed.
    func takeFrame(waiting wait: Double) -> DecodedFrame?
    /// Every frame up to the end of the stream (since the last seek) has been taken.
    var isDrained: Bool { get }
    /// The stream's duration in seconds, once known.
    var duration: Double? { get }
    /// Why the decoder failed, told once; nil while it has not.
    func takeFailure() -> VideoError?
    /// Drops what was decoded ahead and decodes from `position` seconds on.
    func seek(to position: Double)
    /// Decodes frames of `width` × `height` pixels from the next one on.
    func resize(width: Int, height: Int)
    /// Plays or pauses what GStreamer's clock paces (the sound); frames are taken by position either way.
    func setPlaying(_ on: Bool)
}
