import CLibDRM
import FoundationEssentials
import Glibc
import SystemPackage
import VitrineRaster
import VitrineSystem

/// One screen of a DRM card: a connector with the CRTC and primary plane that drive it,
/// its own mode and rotation, its scan-out buffers and its page-flip pacing. The picture
/// is rendered into one system-memory surface and its damaged rows are copied (rotated if
/// need be) into the dumb buffer shown next, which is then page-flipped.
///
/// The first frame sets the mode (atomically after a TEST_ONLY commit, or with
/// drmModeSetCrtc); later ones flip, at most one at a time. `frameDone` fires on this
/// head's flip event, which the card reads on the daemon's event loop. A frame presented
/// while a flip is pending is not lost: it is copied out and flipped when the pending flip
/// completes. A client's buffer of the mode's size can be flipped to in place of a frame
/// (`scanOut`, direct scan-out).
///
/// A head can be made and closed while the daemon runs (a screen plugged in or out):
/// `init(card:connector:…)` claims a free CRTC the connector can use; `close()` (or
/// `deinit`) puts back what the CRTC showed before, frees the buffers and their
/// framebuffers and gives the CRTC back to the card.
public final class DRMHead: OutputBackend {
    public let name: String
    public var connector: String { selection.connector.name }
    /// The logical mode: the scene's size (sides swapped for 90° and 270°).
    public let mode: OutputMode
    /// The connector's modes, as the screen lists them, unrotated.
    public let modes: [OutputMode]
    public var frameDone: (() -> Void)?
    /// The card this head is on (shared with the other heads).
    public let card: DRMCard
    /// The connector, mode and CRTC in use.
    public let selection: KMSSelection

    private let committer: KMSCommitter
    /// Owned here, written through `chain`; freed after the CRTC is restored.
    private var buffers: [DumbBuffer]
    private let chain: ScanoutChain
    private var rendered = false
    private var acquired = false
    private var closed = false
    /// Cleared once DirtyFB says the driver has no use for it.
    private var dirtyFBUseful = true
    /// The buffers are shown unrotated: a client's buffer of the mode's size can be too.
    private let unrotated: Bool

    /// A head for the connector named `connector` (any case) on `card`, at `settings`'
    /// mode and rotation, on a CRTC no other head of the card uses. Nothing is shown until
    /// the first `present`.
    public convenience init(card: DRMCard, connector: String, settings: DRMHeadSettings = DRMHeadSettings()) throws(DisplayError) {
        let selection = try KMSSelection.choose(on: card.card, connectorName: connector, mode: settings.mode, taken: card.claimedCRTCs)
        try self.init(card: card, selection: selection, settings: settings)
    }

    init(card: DRMCard, selection: KMSSelection, settings: DRMHeadSettings) throws(DisplayError) {
        self.card = card
        self.selection = selection
        let device = card.device, log = card.log
        let target = KMSTarget(device: device, selection: selection, saved: device.savedCRTC(selection.crtcID))
        committer = try Self.makeCommitter(target: target, card: card, rotation: settings.rotation)
        let count = max(2, min(3, settings.buffers))
        var size = committer.bufferSize
        buffers = try (0..<count).map { _ throws(DisplayError) in try DumbBuffer(device: device, width: size.width, height: size.height) }
        if let atomic = committer as? AtomicCommitter, atomic.rotatesInHardware, atomic.test(framebuffer: buffers[0].framebuffer) != nil {
            log("drm: \(selection.connector.name): the plane refused rotation \(settings.rotation); rotating in the copy instead")
            atomic.rotateInSoftware()
            size = committer.bufferSize
            buffers = []
            buffers = try (0..<count).map { _ throws(DisplayError) in try DumbBuffer(device: device, width: size.width, height: size.height) }
        }
        let logical = settings.rotation.logicalSize(physicalWidth: selection.mode.width, height: selection.mode.height)
        mode = OutputMode(width: logical.width, height: logical.height, refreshRate: selection.mode.refreshRate)
        var seen = Set<OutputMode>()
        let listed = selection.connector.modes.sorted { $0.isPreferred && !$1.isPreferred }.map(\.outputMode)
        modes = listed.filter { seen.insert($0).inserted }
        let copier = ScanoutCopy(rotation: committer.rotatesInHardware ? .none : settings.rotation)
        unrotated = settings.rotation == .none
        chain = ScanoutChain(
            surface: Surface(width: logical.width, height: logical.height),
            targets: buffers.map { ScanoutTarget(pixels: $0.pixels, pitch: $0.pitch, framebuffer: $0.framebuffer) },
            copier: copier, committer: committer)
        name = "drm:\(selection.connector.name)"
        let connector = selection.connector.name
        log(
            "drm: \(connector): mode \(selection.mode.outputMode)\(selection.mode.isPreferred ? " (preferred)" : ""), CRTC \(selection.crtcID), "
                + "\(committer.kind) commits, \(buffers.count) dumb buffers \(size.width)x\(size.height) XRGB8888, rotation \(settings.rotation)"
                + (settings.rotation == .none ? "" : committer.rotatesInHardware ? " by the plane" : " in the copy")
                + ", scene \(mode.width)x\(mode.height), VT \(card.vt?.path ?? "none")")
        chain.userData = card.flipUserData
        let weak = WeakDRMHead(head: self)
        chain.wrote = { target, rects in weak.head?.markDirty(target, rects, rotation: copier.rotation) }
        chain.shown = { weak.head?.frameDone?() }
        chain.failed = { error in log("drm: \(connector): the frame waiting for the flip could not be committed: \(error)") }
        chain.later = { [unowned card] body in card.later(body) }
        card.register(self)
    }

    private static func makeCommitter(target: KMSTarget, card: DRMCard, rotation: ScreenRotation) throws(DisplayError) -> KMSCommitter {
        guard card.atomic else { return LegacyCommitter(target: target) }
        do {
            let atomic = try AtomicCommitter(target: target, rotation: rotation)
            atomic.report = card.log
            return atomic
        } catch {
            guard card.policy == .auto else { throw error }
            card.log("drm: \(target.selection.connector.name): atomic modesetting unusable (\(error)); using legacy calls")
            return LegacyCommitter(target: target)
        }
    }

    deinit { close() }

    // MARK: OutputBackend

    public func acquireBuffer() throws -> OutputBuffer {
        guard !closed else { throw OutputError("\(name): the output is closed") }
        acquired = true
        return OutputBuffer(surface: chain.surface, age: rendered ? 1 : 0)
    }

    public var presentedFrames: Int { chain.renderedFrames }
    public var shownFrame: ShownFrame? { chain.shownFrame }

    public func present(damage: [PixelRect]) throws {
        guard acquired else { throw OutputError("present without an acquired buffer") }
        acquired = false
        rendered = true
        try chain.frameRendered(damage: damage)
    }

    /// The card's VT (the same for every head of the card).
    public var virtualTerminal: VirtualTerminal? { card.vt }

    /// DPMS through the connector's `DPMS` property, which the kernel turns into the CRTC's
    /// ACTIVE on atomic drivers; blanking waits for the flip in flight first. Waking shows
    /// the last frame until the next one is presented.
    public func setPower(_ on: Bool) throws {
        guard !closed else { throw OutputError("\(name): the output is closed") }
        if !on { waitForPendingFlip(timeout: 0.2) }
        let device = card.device, connector = selection.connector.id
        guard let dpms = device.properties(of: connector, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))["DPMS"] else {
            throw OutputError("\(name): the connector has no DPMS property, so it cannot be blanked")
        }
        let state = UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
        guard drmModeConnectorSetProperty(device.fd, connector, dpms.id, state) == 0 else {
            throw DisplayError.system(what: "setting \(selection.connector.name)'s DPMS property \(on ? "on" : "off")", path: device.path, errno: .last)
        }
        card.log("drm: \(selection.connector.name) DPMS \(on ? "on" : "off")")
    }

    public func attach(to loop: EventLoop) { card.attach(to: loop) }

    /// Waits for a pending flip (up to a second), puts back what the CRTC showed before,
    /// frees the buffers and gives the CRTC back to the card; the last head of a card also
    /// gives the VT back its text mode.
    public func close() { finish(restoringVT: true) }

    /// As `close()`, but the VT stays in graphics mode and keeps its switch handling even
    /// when this was the card's last head: for a screen unplugged while the daemon runs.
    public func release() { finish(restoringVT: false) }

    private func finish(restoringVT: Bool) {
        guard !closed else { return }
        waitForPendingFlip(timeout: 1)
        closed = true
        if !card.masterDropped { committer.restore() }
        buffers.removeAll()
        card.unregister(self, restoringVT: restoringVT)
        card.log("drm: \(card.device.path) \(selection.connector.name) given back (CRTC \(selection.crtcID) free)")
    }

    // MARK: Frames (the card calls these on the loop)

    /// Whether a commit of this head waits for its flip event.
    var flipPending: Bool { chain.isPending }

    func flipCompleted(at time: Double?, sequence: UInt32) {
        if closed { chain.abandonPending() } else { chain.flipCompleted(at: time, sequence: sequence) }
    }

    func suspend() { chain.suspend() }

    func resume() {
        guard !closed else { return }
        do { try chain.resume() } catch { card.log("drm: \(selection.connector.name): modeset after the VT switch failed: \(error)") }
    }

    /// Tells drivers that only show CPU writes on request (DIRTYFB) which rows changed;
    /// stops asking once the driver says it has no such hook.
    private func markDirty(_ buffer: ScanoutTarget, _ rects: [PixelRect], rotation: ScreenRotation) {
        guard dirtyFBUseful, !rects.isEmpty else { return }
        let surface = chain.surface
        var clips = rects.map { r -> drmModeClip in
            let p = rotation.physicalRect(of: r, logicalWidth: surface.width, logicalHeight: surface.height)
            return drmModeClip(x1: UInt16(p.x), y1: UInt16(p.y), x2: UInt16(p.maxX), y2: UInt16(p.maxY))
        }
        let result = drmModeDirtyFB(card.device.fd, buffer.framebuffer, &clips, UInt32(clips.count))
        if result == -ENOSYS || result == -EINVAL || result == -EOPNOTSUPP { dirtyFBUseful = false }
    }

    private func waitForPendingFlip(timeout: Double) {
        let chain = self.chain
        guard chain.isPending else { return }
        card.waitForFlips(timeout: timeout, until: { !chain.isPending }, route: [selection.crtcID: { _ in chain.abandonPending() }])
        // Timed out: the flip is as good as done (a wedged driver must not hang the exit).
        chain.abandonPending()
    }
}

/// A head, weakly, for the closures that may outlive it.
struct WeakDRMHead {
    weak var head: DRMHead?
}

extension DRMHead: DirectScanoutOutput {
    /// Flips to a client's buffer of the mode's size on an unrotated head, made a
    /// framebuffer once (`ClientFramebuffer`, in `cache`); the framebuffer and the buffer's
    /// hold live until the flip after it completes.
    public func scanOut(_ buffer: ScanoutBuffer, cache: inout AnyObject?) -> Bool {
        guard !closed, unrotated, !chain.isPending, buffer.width == selection.mode.width, buffer.height == selection.mode.height else { return false }
        let framebuffer: ClientFramebuffer
        if let cached = cache as? ClientFramebuffer, cached.device == nil || cached.device === card.device {
            framebuffer = cached
        } else {
            framebuffer = ClientFramebuffer(device: card.device, buffer: buffer)
            cache = framebuffer
            if let refusal = framebuffer.refusal { card.log("drm: \(selection.connector.name): a client's buffer cannot be scanned out: \(refusal)") }
        }
        guard framebuffer.id != 0 else { return false }
        do {
            guard try chain.scanOut(ExternalFrame(framebuffer: framebuffer.id, keep: [framebuffer, buffer.hold])) else { return false }
        } catch {
            card.log("drm: \(selection.connector.name): the flip to a client's buffer failed (\(error)); it is composited")
            cache = ClientFramebuffer(refusal: "\(error)")
            return false
        }
        return true
    }
}
