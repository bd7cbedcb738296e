import CWaylandServer
import Glibc
import VitrineRaster

/// A `wl_shm` buffer or a dma-buf (`DmabufImage`) a surface committed, held while the
/// surface shows it: frames are drawn straight from the client's memory, which is never
/// copied on a commit and never written.
///
/// The buffer is released (`wl_buffer.release`) by `drop()`, when a newer buffer (or none)
/// is committed or the surface goes. Frames are drawn and presented on the daemon's loop,
/// between dispatches, and every read of the client's memory happens inside a draw, so no
/// frame still reads a buffer once a later commit was handled.
///
/// The pool stays referenced (`wl_shm_buffer_ref_pool`), so its mapping stays in place
/// while it is held even when the client resizes the pool. A held buffer counts its bytes
/// in `limits.memory_mb` (`count(replacing:)`): the daemon keeps it mapped and reads it
/// every frame. When the client destroys the `wl_buffer` while it is shown, the picture is
/// copied into the daemon's memory (counted in its place; dropped when it does not fit)
/// before libwayland frees the buffer. A dma-buf's image is the daemon's own mapping: it
/// stays shown as it is when the client destroys its `wl_buffer`.
final class ClientBuffer {
    /// The `wl_buffer`; not to be used once `isDestroyed`.
    let resource: OpaquePointer
    let width: Int
    let height: Int
    /// An XRGB buffer: every pixel is opaque (its alpha bytes are not read).
    let isOpaque: Bool
    /// The pixels: the client's memory (read only inside `read`), or the daemon's copy.
    private var picture: Surface?
    private var shm: OpaquePointer?
    private var pool: OpaquePointer?
    private(set) var dmabuf: DmabufImage?
    /// Displays showing the buffer directly (`BufferHold`): its release waits for them.
    private var holds = 0
    /// `drop()` came while held: it is finished when the last hold goes.
    private var dropWaits = false
    /// The client may still be told `release` (it has not destroyed the `wl_buffer`).
    private var resourceAlive = true
    private var watch: UnsafeMutablePointer<vitrine_watch>?
    /// Bytes of the client's memory the buffer spans.
    let bytes: Int
    /// Bytes counted in the memory budget for it.
    private var counted = 0
    private unowned let server: WaylandServer

    /// Why a committed buffer cannot be shown: the surface's protocol error.
    struct Refusal: Error {
        let code: UInt32
        let message: String
    }

    /// Holds `buffer`, checked as the daemon shows buffers: `wl_shm`, ARGB8888 (premultiplied)
    /// or XRGB8888, at most 8192 × 8192, rows of whole pixels.
    init(_ buffer: OpaquePointer, server: WaylandServer) throws(Refusal) {
        let invalid = UInt32(WL_DISPLAY_ERROR_INVALID_OBJECT.rawValue)
        if let image = server.dmabufImages[buffer] {
            (resource, width, height, isOpaque, bytes) = (buffer, image.width, image.height, image.isOpaque, image.stride * image.height)
            self.server = server
            dmabuf = image
            picture = image.picture
            watch = vitrine_watch_resource(buffer, Unmanaged.passUnretained(self).toOpaque(), bufferGone)
            return
        }
        guard let shm = wl_shm_buffer_get(buffer) else { throw Refusal(code: invalid, message: "only wl_shm and dma-buf buffers are shown") }
        let width = Int(wl_shm_buffer_get_width(shm)), height = Int(wl_shm_buffer_get_height(shm))
        let stride = Int(wl_shm_buffer_get_stride(shm))
        let format = wl_shm_buffer_get_format(shm)
        guard format == WL_SHM_FORMAT_ARGB8888.rawValue || format == WL_SHM_FORMAT_XRGB8888.rawValue else {
            throw Refusal(code: invalid, message: "buffer format \(format) is not ARGB8888 or XRGB8888")
        }
        guard width <= 8192, height <= 8192 else { throw Refusal(code: 2, message: "a \(width)×\(height) buffer is larger than the 8192×8192 shown") }
        guard let data = wl_shm_buffer_get_data(shm), stride % 4 == 0, stride >= width * 4, Int(bitPattern: data) % 4 == 0 else {
            throw Refusal(code: invalid, message: "a \(width)×\(height) buffer with rows \(stride) bytes apart does not hold rows of 4-byte pixels")
        }
        wl_shm_buffer_begin_access(shm)
        let last = data.assumingMemoryBound(to: UInt32.self) + (stride / 4 * (height - 1) + width - 1)
        _ = vitrine_touch(data.assumingMemoryBound(to: UInt32.self))
        _ = vitrine_touch(last)
        wl_shm_buffer_end_access(shm)
        resource = buffer
        bytes = stride * height
        self.width = width
        self.height = height
        isOpaque = format == WL_SHM_FORMAT_XRGB8888.rawValue
        self.server = server
        self.shm = shm
        pool = wl_shm_buffer_ref_pool(shm)
        picture = Surface(
            wrapping: data.assumingMemoryBound(to: UInt32.self), width: width, height: height, stride: stride / 4, ignoresAlpha: isOpaque, release: {})
        watch = vitrine_watch_resource(buffer, Unmanaged.passUnretained(self).toOpaque(), bufferGone)
    }

    deinit { drop() }

    /// The buffer's whole area, in buffer pixels.
    var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// Whether the client destroyed the `wl_buffer` (the picture is the daemon's copy or
    /// mapping then).
    var isDestroyed: Bool { !resourceAlive }

    /// Runs `body` on the picture; nil when there is none (dropped). The client's memory is
    /// read inside `wl_shm_buffer_begin_access`/`end_access`, on the calling thread (the
    /// loop's): a client that truncated its pool reads as zeros and gets a protocol error
    /// instead of the daemon its SIGBUS. Accesses do not nest: `body` reads this buffer only.
    func read<T>(_ body: (Surface) throws -> T) rethrows -> T? {
        guard let picture else { return nil }
        if let dmabuf { return try dmabuf.read { try body(picture) } }
        guard let shm else { return try body(picture) }
        wl_shm_buffer_begin_access(shm)
        defer { wl_shm_buffer_end_access(shm) }
        return try body(picture)
    }

    /// Counts the buffer in the memory budget in place of `previous`, which is counted no
    /// more; false (nothing changed) when it does not fit.
    func count(replacing previous: ClientBuffer?) -> Bool {
        guard server.reserve(bytes - (previous?.counted ?? 0)) else { return false }
        previous?.counted = 0
        counted = bytes
        return true
    }

    /// Lets the buffer go: the client is told it may reuse it (unless it destroyed it) —
    /// once no display shows it directly any more.
    func drop() {
        guard holds == 0 else {
            dropWaits = true
            if counted != 0 { _ = server.reserve(-counted) }
            counted = 0
            return
        }
        if resourceAlive { postEvent(resource, WlBufferEvent.release.rawValue) }
        forgetClientMemory()
        if counted != 0 { _ = server.reserve(-counted) }
        counted = 0
        picture = nil
        dmabuf = nil
    }

    /// A display shows the buffer directly from now on, until `unhold`.
    func hold() { holds += 1 }

    /// A display no longer shows the buffer: a `drop()` that waited for it is finished.
    func unhold() {
        holds -= 1
        guard holds == 0, dropWaits else { return }
        dropWaits = false
        let told = resourceAlive
        drop()
        if told { server.flush() }
    }

    private func forgetClientMemory() {
        if let watch { vitrine_unwatch(watch) }
        watch = nil
        if let pool { wl_shm_pool_unref(pool) }
        pool = nil
        shm = nil
        resourceAlive = false
    }

    /// The client destroyed the `wl_buffer` we show: the picture is kept as a copy.
    fileprivate func destroyedByClient() {
        guard dmabuf == nil else { return forgetClientMemory() }
        guard let shm, let shown = picture else { return }
        let copy = Surface(width: width, height: height)
        if server.reserve(copy.stride * height * 4 - counted) {
            counted = copy.stride * height * 4
            wl_shm_buffer_begin_access(shm)
            for y in 0..<height {
                let from = shown.pixels + y * shown.stride, to = copy.pixels + y * copy.stride
                if isOpaque {
                    for x in 0..<width { to[x] = from[x] | 0xFF00_0000 }
                } else {
                    to.update(from: from, count: width)
                }
            }
            wl_shm_buffer_end_access(shm)
            picture = copy
        } else {
            server.logger.warning("a destroyed \(width)×\(height) Wayland buffer does not fit in limits.memory_mb: its picture is dropped")
            _ = server.reserve(-counted)
            counted = 0
            picture = nil
        }
        forgetClientMemory()
    }
}

private let bufferGone: @convention(c) (UnsafeMutableRawPointer?) -> Void = { owner in
    guard let owner else { return }
    Unmanaged<ClientBuffer>.fromOpaque(owner).takeUnretainedValue().destroyedByClient()
}
