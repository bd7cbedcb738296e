import CNeatVNC
import VitrineRaster

/// The frames a VNC display is fed: a few Neat VNC framebuffers that take turns, since
/// Neat VNC's encoders read a buffer on their threads after it is fed. A buffer is
/// written only while Neat VNC holds none of it (its release callback says so); each
/// remembers what changed since it was last written, so that a frame copies only the
/// damage, not the whole picture.
final class VNCFramebuffers {
    /// One framebuffer and the region it is behind by.
    final class Slot {
        let fb: OpaquePointer
        let surface: Surface
        var stale: [PixelRect]
        var held = false

        init?(width: Int, height: Int) {
            guard let fb = nvnc_fb_new(UInt16(width), UInt16(height), VNCFramebuffers.xrgb8888, UInt16(width)) else { return nil }
            self.fb = fb
            let pixels = nvnc_fb_get_addr(fb)!.assumingMemoryBound(to: UInt32.self)
            surface = Surface(wrapping: pixels, width: width, height: height, stride: Int(nvnc_fb_get_stride(fb)), ignoresAlpha: true) {}
            stale = [surface.bounds]
        }

        deinit {
            nvnc_fb_set_release_fn(fb, nil, nil)
            nvnc_fb_unref(fb)
        }
    }

    /// DRM_FORMAT_XRGB8888: our native-endian 0xAARRGGBB, its alpha ignored.
    static let xrgb8888: UInt32 = 0x3432_5258
    /// At most this many buffers: more would mean the viewers are that far behind, and the
    /// frame is skipped instead (a slow viewer gets fewer updates).
    static let most = 4
    private(set) var slots: [Slot] = []
    /// Damage of frames that found no free buffer, sent with the next one fed.
    private var unsent: [PixelRect] = []
    private(set) var width = 0, height = 0
    /// Frames skipped because every buffer was held.
    private(set) var skipped = 0

    /// The buffer to feed for the frame `surface` with `damage`, brought up to date; nil
    /// when every buffer is still held (the damage waits for the next frame).
    func next(_ surface: Surface, damage: [PixelRect]) -> (slot: Slot, damage: [PixelRect])? {
        if surface.width != width || surface.height != height {
            slots = []
            unsent = []
            (width, height) = (surface.width, surface.height)
        }
        for slot in slots { Self.add(damage, to: &slot.stale) }
        Self.add(damage, to: &unsent)
        let free = slots.first { !$0.held } ?? (slots.count < Self.most ? Slot(width: width, height: height) : nil)
        guard let slot = free else {
            skipped += 1
            return nil
        }
        if !slots.contains(where: { $0 === slot }) {
            slots.append(slot)
            unsent = [surface.bounds]
        }
        for rect in slot.stale { slot.surface.copyPixels(rect, from: surface) }
        slot.stale = []
        slot.held = true
        let fed = unsent
        unsent = []
        return (slot, fed)
    }

    /// Neat VNC let go of `fb`.
    func released(_ fb: OpaquePointer) {
        slots.first { $0.fb == fb }?.held = false
    }

    /// Adds `rects` to `region`, which stays a short list: past 32 rectangles it is one,
    /// their bounds.
    private static func add(_ rects: [PixelRect], to region: inout [PixelRect]) {
        region += rects
        guard region.count > 32 else { return }
        let x = region.map(\.x).min()!, y = region.map(\.y).min()!
        let maxX = region.map(\.maxX).max()!, maxY = region.map(\.maxY).max()!
        region = [PixelRect(x: x, y: y, width: maxX - x, height: maxY - y)]
    }
}
