import CLibDRM
import Glibc

/// A client's dma-buf made a framebuffer of a DRM device (PRIME import, then AddFB2 as
/// XRGB8888, linear, no modifiers), for direct scan-out. The GEM handle is closed at once
/// (the framebuffer keeps the buffer); `deinit` removes the framebuffer. One the device
/// refused has `id` 0 and is kept as such, so that the buffer is not tried again.
final class ClientFramebuffer {
    let device: DRMDevice?
    /// The framebuffer; 0 when the device refused the buffer.
    let id: UInt32
    /// What the device said, when it refused.
    let refusal: String?

    /// A buffer whose flip the device refused (`refusal` says why): not tried again.
    init(refusal: String) { (device, id, self.refusal) = (nil, 0, refusal) }

    init(device: DRMDevice, buffer: ScanoutBuffer) {
        self.device = device
        var handle: UInt32 = 0
        guard drmPrimeFDToHandle(device.fd, buffer.descriptor, &handle) == 0 else {
            (id, refusal) = (0, "PRIME import failed (errno \(errno))")
            return
        }
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (UInt32(buffer.stride), 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (UInt32(buffer.offset), 0, 0, 0)
        var fb: UInt32 = 0
        let result = withUnsafeMutableBytes(of: &handles) { h in
            withUnsafeMutableBytes(of: &pitches) { p in
                withUnsafeMutableBytes(of: &offsets) { o in
                    drmModeAddFB2(
                        device.fd, UInt32(buffer.width), UInt32(buffer.height), vitrine_drm_format_xrgb8888(),
                        h.baseAddress!.assumingMemoryBound(to: UInt32.self), p.baseAddress!.assumingMemoryBound(to: UInt32.self),
                        o.baseAddress!.assumingMemoryBound(to: UInt32.self), &fb, 0)
                }
            }
        }
        let failure = errno
        drmCloseBufferHandle(device.fd, handle)
        (id, refusal) = result == 0 ? (fb, nil) : (0, "drmModeAddFB2 failed (errno \(failure))")
    }

    deinit { if id != 0, let device { drmModeRmFB(device.fd, id) } }
}
