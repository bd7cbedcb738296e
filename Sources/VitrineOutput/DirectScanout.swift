import Glibc

/// A client's buffer an output may show as it is in place of a composited frame (direct
/// scan-out): one plane of 32-bit pixels in rows.
public struct ScanoutBuffer {
    /// The dma-buf; open for the duration of the call that is given it.
    public let descriptor: CInt
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next.
    public let stride: Int
    /// Byte offset of the first row.
    public let offset: Int
    /// Kept while the buffer is on screen or on its way there: the client gets its buffer
    /// back when the output lets go of it.
    public let hold: AnyObject

    public init(descriptor: CInt, width: Int, height: Int, stride: Int, offset: Int, hold: AnyObject) {
        (self.descriptor, self.width, self.height, self.stride, self.offset, self.hold) = (descriptor, width, height, stride, offset, hold)
    }
}

/// An output that can put a client's buffer on the screen as it is.
public protocol DirectScanoutOutput: OutputBackend {
    /// Shows `buffer` as the next frame, as `present` shows a composited one, its pixels
    /// read as XRGB8888 (alpha ignored). `cache` is what this output made of the same
    /// buffer before (nil the first time), and is replaced by what it makes now; the caller
    /// keeps it with the buffer. False when the output cannot show it now (a flip in
    /// flight, another size, a buffer the device refused): the frame is to be composited.
    func scanOut(_ buffer: ScanoutBuffer, cache: inout AnyObject?) -> Bool
}
