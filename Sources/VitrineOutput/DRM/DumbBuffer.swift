import CLibDRM
import FoundationEssentials
import Glibc
import SystemPackage
import VitrineSystem

/// A CPU-drawable scan-out buffer: a dumb buffer, its mapping, and its framebuffer id.
/// `deinit` removes the framebuffer, unmaps and destroys the buffer.
///
/// The mapping is usually write-combined: write it, never read it.
final class DumbBuffer {
    let device: DRMDevice
    let width: Int
    let height: Int
    /// Bytes from one row to the next.
    let pitch: Int
    let size: Int
    let handle: UInt32
    let framebuffer: UInt32
    let pixels: UnsafeMutableRawPointer

    /// An XRGB8888 buffer of `width`×`height`.
    init(device: DRMDevice, width: Int, height: Int) throws(DisplayError) {
        let fd = device.fd, path = device.path
        var create = drm_mode_create_dumb()
        create.width = UInt32(width)
        create.height = UInt32(height)
        create.bpp = 32
        try systemCall("creating a \(width)x\(height) dumb buffer", path) { vitrine_drm_create_dumb(fd, &create) }
        var made = (map: false, fb: false)
        var mapping: UnsafeMutableRawPointer?
        var fb: UInt32 = 0
        defer {
            if !made.fb {
                if made.map, let mapping { munmap(mapping, Int(create.size)) }
                _ = vitrine_drm_destroy_dumb(fd, create.handle)
            }
        }
        var map = drm_mode_map_dumb()
        map.handle = create.handle
        try systemCall("mapping a dumb buffer (DRM_IOCTL_MODE_MAP_DUMB)", path) { vitrine_drm_map_dumb(fd, &map) }
        let address = mmap(nil, Int(create.size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(map.offset))
        guard let address, address != MAP_FAILED else { throw .system(what: "mmap of a dumb buffer", path: path, errno: .last) }
        mapping = address
        made.map = true
        var handles: (UInt32, UInt32, UInt32, UInt32) = (create.handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (create.pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        let added = withUnsafeMutableBytes(of: &handles) { h in
            withUnsafeMutableBytes(of: &pitches) { p in
                withUnsafeMutableBytes(of: &offsets) { o in
                    drmModeAddFB2(
                        fd, UInt32(width), UInt32(height), vitrine_drm_format_xrgb8888(),
                        h.baseAddress!.assumingMemoryBound(to: UInt32.self), p.baseAddress!.assumingMemoryBound(to: UInt32.self),
                        o.baseAddress!.assumingMemoryBound(to: UInt32.self), &fb, 0)
                }
            }
        }
        if added != 0 {
            // Drivers without AddFB2 (old kernels) still take the legacy depth/bpp call.
            try systemCall("adding an XRGB8888 framebuffer (drmModeAddFB2 / drmModeAddFB)", path) {
                drmModeAddFB(fd, UInt32(width), UInt32(height), 24, 32, create.pitch, create.handle, &fb)
            }
        }
        made.fb = true
        self.device = device
        self.width = width
        self.height = height
        pitch = Int(create.pitch)
        size = Int(create.size)
        handle = create.handle
        framebuffer = fb
        pixels = address
        memset(pixels, 0, size)
    }

    deinit {
        drmModeRmFB(device.fd, framebuffer)
        munmap(pixels, size)
        _ = vitrine_drm_destroy_dumb(device.fd, handle)
    }
}
