import CWaylandClient
import Glibc
import VitrineRaster
import VitrineSystem

/// One `wl_shm` buffer: XRGB8888 pixels in an anonymous file shared with the compositor,
/// laid out as the frames' surface (its `stride`), so that damaged rows are copied over as
/// they are. `busy` from its attach until the compositor releases it; `missing` is what it
/// lacks of the frame drawn last.
final class WaylandBuffer {
    let buffer: OpaquePointer
    let width: Int, height: Int, stride: Int
    private let memory: UnsafeMutableRawPointer
    private let bytes: Int
    /// Attached and not yet released by the compositor: not to be written.
    var busy = false
    /// The rectangles it lacks of the frame drawn last (everything when new).
    var missing: [PixelRect]

    /// A buffer for `surface`'s size from `shm`.
    init(shm: OpaquePointer, for surface: Surface) throws(OutputError) {
        (width, height, stride) = (surface.width, surface.height, surface.stride)
        bytes = stride * height * 4
        let created = memfd_create("vitrine-wayland", 1 /* MFD_CLOEXEC */)
        guard created >= 0 else { throw OutputError("cannot make a shared-memory file for the Wayland window: \(SystemError.reason())") }
        // The pool and the mapping keep the memory; the descriptor goes at the end of this init.
        let file = OwnedDescriptor(created)
        guard ftruncate(file.rawValue, off_t(bytes)) == 0, let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file.rawValue, 0),
            mapped != MAP_FAILED
        else {
            throw OutputError("cannot map \(bytes) bytes of shared memory for the Wayland window: \(SystemError.reason())")
        }
        memory = mapped
        let pool = wlShmCreatePool(shm, file.rawValue, Int32(bytes))
        buffer = wlShmPoolCreateBuffer(pool, 0, Int32(width), Int32(height), Int32(stride * 4), WL_SHM_FORMAT_XRGB8888.rawValue)
        wlShmPoolDestroy(pool)
        missing = [surface.bounds]
    }

    deinit {
        wlBufferDestroy(buffer)
        munmap(memory, bytes)
    }

    /// Copies what it lacks of `surface` (the frame drawn last) into it.
    func update(from surface: Surface) {
        let target = memory.assumingMemoryBound(to: UInt32.self)
        for rect in missing {
            let r = rect.intersection(surface.bounds)
            guard !r.isEmpty else { continue }
            for y in r.y..<r.maxY {
                (target + y * stride + r.x).update(from: surface.pixels + y * surface.stride + r.x, count: r.width)
            }
        }
        missing = []
    }
}
