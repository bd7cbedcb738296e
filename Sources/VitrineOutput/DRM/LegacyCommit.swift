import CLibDRM
import FoundationEssentials
import Glibc
import VitrineRaster

/// drmModeSetCrtc for the mode, drmModePageFlip for frames. Every KMS driver has these.
final class LegacyCommitter: KMSCommitter {
    let kind = "legacy"
    let rotatesInHardware = false
    private let target: KMSTarget
    var bufferSize: (width: Int, height: Int) { (target.selection.mode.width, target.selection.mode.height) }

    init(target: KMSTarget) { self.target = target }

    func modeset(framebuffer: UInt32, userData: UnsafeMutableRawPointer?) throws(DisplayError) -> Bool {
        var connector = target.selection.connector.id
        var mode = target.selection.mode.info
        let fd = target.fd, crtc = target.selection.crtcID
        try systemCall("drmModeSetCrtc (mode \(target.selection.mode.outputMode) on \(target.selection.connector.name))", target.path) {
            drmModeSetCrtc(fd, crtc, framebuffer, 0, 0, &connector, 1, &mode)
        }
        return false
    }

    func flip(framebuffer: UInt32, damage: [PixelRect], userData: UnsafeMutableRawPointer?) throws(DisplayError) {
        let fd = target.fd, crtc = target.selection.crtcID
        try systemCall("drmModePageFlip", target.path) {
            drmModePageFlip(fd, crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData)
        }
    }

    func restore() { target.restoreLegacy() }
}
