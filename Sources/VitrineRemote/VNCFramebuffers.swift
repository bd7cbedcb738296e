import CNeatVNC
import VitrineRaster

/// The pictures a VNC display is fed: a few Neat VNC framebuffers that take turns, since
/// Neat VNC's encoders read a buffer on their threads after it is fed and keep the last
/// one fed as the display's picture.
///
/// One buffer, the draft, is Neat VNC's to read only once it is sent: each presented
/// frame's damage is copied into it at once (the frame's pixels are readable only during
/// the frame), so that it always holds the latest picture and can be sent later, when the
/// rate limit allows. Sending it makes another free buffer the draft, brought up to date
/// from the one just sent by copying only what changed since it was last sent. A draft is
/// sent only when another buffer can follow it, so that there always is a draft: when
/// every buffer is held, sending waits until Neat VNC releases one.
final class VNCFramebuffers {
    /// One framebuffer and the region it is behind the picture by.
    final class Slot {
        let fb: OpaquePointer
        let surface: Surface
        var stale: [PixelRect] = []
        var held = false

        init?(width: Int, height: Int) {
            guard let fb = nvnc_fb_new(UInt16(width), UInt16(height), VNCFramebuffers.xrgb8888, UInt16(width)) else { return nil }
            self.fb = fb
            let pixels = nvnc_fb_get_addr(fb)!.assumingMemoryBound(to: UInt32.self)
            surface = Surface(wrapping: pixels, width: width, height: height, stride: Int(nvnc_fb_get_stride(fb)), ignoresAlpha: true) {}
        }

        deinit {
            nvnc_fb_set_release_fn(fb, nil, nil)
            nvnc_fb_unref(fb)
        }
    }

    /// DRM_FORMAT_XRGB8888: our native-endian 0xAARRGGBB, its alpha ignored.
    static let xrgb8888: UInt32 = 0x3432_5258
    /// At most this many buffers: more would mean the viewers are that far behind; sending
    /// waits for one to be released instead.
    static let most = 4
    let width: Int, height: Int
    private var slots: [Slot] = []
    /// The buffer frames are copied into, not Neat VNC's until sent.
    private var draft: Slot?
    /// The buffer sent last.
    private var last: Slot?
    /// What changed since the last buffer was sent.
    private(set) var unsent: [PixelRect] = []

    init(width: Int, height: Int) {
        (self.width, self.height) = (width, height)
    }

    /// Copies `damage` of `surface` (a frame of the output whose pixels start at
    /// (`x`, `y`) of the picture) into the draft. Frames that find no draft (every buffer
    /// held, or none could be made) are skipped: returns false.
    func write(_ surface: Surface, damage: [PixelRect], at x: Int, y: Int) -> Bool {
        let bounds = PixelRect(x: 0, y: 0, width: width, height: height)
        let placed = damage.compactMap { rect -> PixelRect? in
            let moved = rect.offsetBy(dx: x, dy: y).intersection(bounds)
            return moved.isEmpty ? nil : moved
        }
        guard !placed.isEmpty else { return true }
        for slot in slots where slot !== draft { Self.add(placed, to: &slot.stale) }
        Self.add(placed, to: &unsent)
        guard let draft = draft ?? makeDraft() else { return false }
        for rect in placed { draft.surface.copyPixels(from: surface, sourceRect: rect.offsetBy(dx: -x, dy: -y), x: rect.x, y: rect.y) }
        return true
    }

    /// Marks the whole picture changed (a draft made if there is none): what is sent first.
    func changeAll() {
        unsent = [PixelRect(x: 0, y: 0, width: width, height: height)]
        if draft == nil { _ = makeDraft() }
    }

    /// Whether the draft can be sent now: it has changes, and another buffer can follow it.
    var canSend: Bool {
        guard !unsent.isEmpty, draft != nil else { return false }
        return slots.count < Self.most || slots.contains { !$0.held && $0 !== draft }
    }

    /// The draft and what changed in it since the last buffer sent, marked held; the next
    /// draft is made. nil unless `canSend`.
    func send() -> (slot: Slot, damage: [PixelRect])? {
        guard canSend, let sent = draft else { return nil }
        sent.held = true
        sent.stale = []
        last = sent
        draft = nil
        let damage = unsent
        unsent = []
        _ = makeDraft()
        return (sent, damage)
    }

    /// Neat VNC let go of `fb`.
    func released(_ fb: OpaquePointer) {
        slots.first { $0.fb == fb }?.held = false
    }

    /// A free buffer (made when fewer than `most` exist) as the draft, brought up to date
    /// from the last buffer sent (black where nothing was ever drawn).
    private func makeDraft() -> Slot? {
        let slot: Slot
        if let free = slots.first(where: { !$0.held }) {
            slot = free
        } else if slots.count < Self.most, let made = Slot(width: width, height: height) {
            slots.append(made)
            slot = made
            made.stale = [PixelRect(x: 0, y: 0, width: width, height: height)]
            if last == nil { made.surface.clear(.black) }
        } else {
            return nil
        }
        if let last {
            for rect in slot.stale { slot.surface.copyPixels(rect, from: last.surface) }
        }
        slot.stale = []
        draft = slot
        return slot
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
