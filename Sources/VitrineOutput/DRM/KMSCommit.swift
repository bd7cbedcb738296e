import CLibDRM
import FoundationEssentials
import Glibc
import VitrineRaster

/// How frames reach a CRTC: atomic commits or the legacy SetCrtc / PageFlip calls. The
/// output does not care which (wlroots' `atomic.c` / `legacy.c` split).
protocol KMSCommitter: AnyObject {
    /// "atomic" or "legacy", for logs.
    var kind: String { get }
    /// Whether the plane turns the picture itself (buffers then have the logical size).
    var rotatesInHardware: Bool { get }
    /// The size of the buffers to show: the mode's, or the logical (rotated) size when
    /// the plane rotates.
    var bufferSize: (width: Int, height: Int) { get }
    /// Sets the mode and shows `framebuffer` (first frame, and after a VT switch back).
    /// Returns true when a page-flip event with `userData` will follow; false when the
    /// picture is up on return.
    func modeset(framebuffer: UInt32, userData: UnsafeMutableRawPointer?) throws(DisplayError) -> Bool
    /// Shows `framebuffer` at the next vblank; a page-flip event with `userData` follows.
    /// `damage` (buffer pixels) is what was written into it since it was last shown —
    /// a superset of what changed since the last frame — for drivers that copy only the
    /// damage (virtio-gpu, USB and SPI displays).
    func flip(framebuffer: UInt32, damage: [PixelRect], userData: UnsafeMutableRawPointer?) throws(DisplayError)
    /// Puts back the CRTC (and plane state) found at start.
    func restore()
}

/// What both commit paths drive.
struct KMSTarget {
    let device: DRMDevice
    let selection: KMSSelection
    /// The CRTC as found at start, for `restore`.
    let saved: drmModeCrtc?
    var fd: Int32 { device.fd }
    var path: String { device.path }

    /// drmModeSetCrtc with the saved framebuffer and mode, or the CRTC off when it was off.
    func restoreLegacy() {
        var connector = selection.connector.id
        if var saved, saved.mode_valid != 0, saved.buffer_id != 0 {
            drmModeSetCrtc(fd, saved.crtc_id, saved.buffer_id, saved.x, saved.y, &connector, 1, &saved.mode)
        } else {
            drmModeSetCrtc(fd, selection.crtcID, 0, 0, 0, nil, 0, nil)
        }
    }
}
