import CWaylandServer
import Glibc
import VitrineRaster
import VitrineSystem

/// A client's single-plane linear dma-buf of 32-bit pixels (XRGB8888 or ARGB8888), mapped
/// for reading: frames are drawn straight from the mapping, in place, as from a `wl_shm`
/// buffer, with no copy.
///
/// The image owns the client's descriptor and the mapping; both go with it. Reads are
/// bracketed by `DMA_BUF_IOCTL_SYNC` (start and end of a read), which the kernel needs to
/// make the CPU's view coherent with a device's writes. The start of a sync waits for the
/// buffer's writers (a GPU's implicit fence): the daemon's loop does not. A commit showing
/// a buffer whose writers are not done is held until they are (`HeldCommits`), so the
/// frames read it written; a buffer the client writes again while it is shown (its own
/// mistake) is read without the sync, as it is then, rather than waiting for the GPU.
final class DmabufImage {
    /// Why a dma-buf cannot be shown: a protocol error of the params (`code`) or, with
    /// `code` nil, an import failure the client is told of with `failed`.
    struct Failure: Error {
        let code: ZwpLinuxBufferParamsV1Error?
        let message: String
    }

    /// DRM fourcc codes of the formats read: one 32-bit pixel, B G R A/X in memory.
    static let xrgb8888: UInt32 = 0x3432_5258
    static let argb8888: UInt32 = 0x3432_5241
    /// `DRM_FORMAT_MOD_LINEAR`: rows one after another, as the CPU reads them.
    static let linear: UInt64 = 0

    let width: Int
    let height: Int
    /// Bytes from one row to the next.
    let stride: Int
    /// XRGB: every pixel opaque (its alpha bytes are not read).
    let isOpaque: Bool
    /// The pixels, in the mapping.
    let picture: Surface
    /// Byte offset of the first row in the dma-buf.
    let offset: Int
    /// The DRM fourcc code.
    let format: UInt32
    /// What a display made of the buffer to show it directly (its framebuffer): kept as
    /// long as the image, freed with it.
    var scanout: AnyObject?
    let fd: CInt
    private let mapping: UnsafeMutableRawPointer
    private let mappedBytes: Int

    /// Maps plane 0 (`fd`, taken over: closed by the image, or at once when it throws) of a
    /// `width` × `height` buffer of `format` at `offset` with rows `stride` bytes apart.
    init(fd: CInt, offset: Int, stride: Int, width: Int, height: Int, format: UInt32) throws(Failure) {
        do throws(Failure) {
            guard width <= 8192, height <= 8192 else {
                throw Failure(code: nil, message: "a \(width)×\(height) buffer is larger than the 8192×8192 shown")
            }
            let size = Int(vitrine_fd_size(fd))
            guard size > 0 else { throw Failure(code: nil, message: "plane 0's descriptor has no size (not a dma-buf)") }
            let end = offset + stride * height
            guard offset < size, offset + stride <= size, end <= size else {
                throw Failure(
                    code: .out_of_bounds,
                    message: "plane 0 at offset \(offset), \(height) rows \(stride) bytes apart, ends at byte \(end) of a \(size)-byte dma-buf")
            }
            guard stride >= width * 4, stride % 4 == 0, offset % 4 == 0 else {
                throw Failure(
                    code: .out_of_bounds,
                    message: "plane 0's rows of \(width) 4-byte pixels \(stride) bytes apart from offset \(offset) are not whole aligned pixels")
            }
            guard vitrine_is_dmabuf(fd) != 0 else { throw Failure(code: nil, message: "plane 0's descriptor is not a dma-buf") }
            guard let mapped = mmap(nil, end, PROT_READ, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
                throw Failure(code: nil, message: "the dma-buf cannot be mapped for reading (errno \(errno))")
            }
            (self.fd, mapping, mappedBytes) = (fd, mapped, end)
        } catch {
            close(fd)
            throw error
        }
        (self.width, self.height, self.stride, self.offset, self.format) = (width, height, stride, offset, format)
        isOpaque = format == Self.xrgb8888
        picture = Surface(
            wrapping: (mapping + offset).assumingMemoryBound(to: UInt32.self), width: width, height: height, stride: stride / 4,
            ignoresAlpha: isOpaque, release: {})
    }

    deinit {
        munmap(mapping, mappedBytes)
        close(fd)
    }

    /// Whether its writers are done: `poll` finds it readable (its implicit write fences
    /// signalled), without waiting.
    var isWritten: Bool { vitrine_dmabuf_readable(fd) != 0 }

    /// A descriptor of the same dma-buf, to wait on for reading (nil when none is left).
    func duplicateDescriptor() -> OwnedDescriptor? {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? OwnedDescriptor(copy) : nil
    }

    /// Runs `body`, which reads the pixels, inside a read sync of the dma-buf (when its
    /// writers are done).
    func read<T>(_ body: () throws -> T) rethrows -> T {
        let synced = vitrine_dmabuf_readable(fd) != 0 && vitrine_dmabuf_sync(fd, vitrine_dmabuf_read_start()) == 0
        defer { if synced { _ = vitrine_dmabuf_sync(fd, vitrine_dmabuf_read_end()) } }
        return try body()
    }
}
