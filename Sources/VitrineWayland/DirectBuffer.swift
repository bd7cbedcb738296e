import Glibc
import VitrineCore
import VitrineRender

/// A hosted window's dma-buf as a display can show it without compositing it (direct
/// scan-out): the window is one buffer, drawn 1:1 into its window rectangle.
public struct DirectBuffer {
    private let buffer: ClientBuffer
    private let image: DmabufImage

    /// Plane 0's descriptor: the daemon's, open as long as the buffer is held.
    public var descriptor: CInt { image.fd }
    public var width: Int { image.width }
    public var height: Int { image.height }
    /// Bytes from one row to the next.
    public var stride: Int { image.stride }
    /// Byte offset of the first row.
    public var offset: Int { image.offset }
    /// The DRM fourcc code (XR24 or AR24).
    public var format: UInt32 { image.format }
    /// XRGB: every pixel is opaque.
    public var isOpaque: Bool { image.isOpaque }

    /// What a display made of this buffer to show it (its framebuffer), kept with the
    /// buffer until the client destroys it; nil before the first time.
    public var attachment: AnyObject? {
        get { image.scanout }
        nonmutating set { image.scanout = newValue }
    }

    /// Keeps the client from getting the buffer back (`wl_buffer.release`) for as long as
    /// the returned object lives: while the buffer is on screen or on its way there.
    public func hold() -> AnyObject { BufferHold(buffer) }

    /// The window's single dma-buf, when `picture` is nothing but one that maps 1:1 onto the
    /// window rectangle and the client has not destroyed it.
    init?(_ picture: WindowPicture) {
        guard let window = picture.windowRect else { return nil }
        let pieces = picture.pieces
        guard pieces.count == 1, let piece = pieces.first, let image = piece.buffer.dmabuf, !piece.buffer.isDestroyed else { return nil }
        let t = piece.toWindow
        guard t.a == 1, t.b == 0, t.c == 0, t.d == 1, piece.source == piece.buffer.bounds.rect, piece.frame == window.rect else { return nil }
        (buffer, self.image) = (piece.buffer, image)
    }
}

/// A display's hold on a client's buffer (`DirectBuffer.hold()`).
private final class BufferHold {
    let buffer: ClientBuffer

    init(_ buffer: ClientBuffer) {
        self.buffer = buffer
        buffer.hold()
    }

    deinit { buffer.unhold() }
}

extension SurfaceRenderer {
    /// The dma-buf a `surface` layer's window is, when it is one buffer drawn 1:1 (nil
    /// otherwise, and for layers of other kinds).
    public func directBuffer(for node: RenderTree.Node) -> DirectBuffer? {
        guard node.kind == SurfaceLayer.kindName, let window = assignments[node.id], window.isMapped, let picture = window.picture else { return nil }
        return DirectBuffer(picture)
    }

    /// Whether any surface layer shows a window: without one no frame has a buffer to show
    /// directly.
    public var showsWindows: Bool { !assignments.isEmpty }
}
