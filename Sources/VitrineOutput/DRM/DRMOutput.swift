import CLibDRM
import FoundationEssentials
import Glibc
import SystemPackage
import VitrineRaster
import VitrineSystem

/// A screen driven through DRM/KMS: the picture is rendered into one system-memory
/// surface and its damaged rows are copied (rotated if need be) into the dumb buffer
/// shown next, which is then page-flipped.
///
/// The first frame sets the mode; later ones flip, at most one at a time. `frameDone`
/// fires on the flip event, read from the device on the daemon's event loop (see
/// `attach`). A frame presented while a flip is pending is not
/// lost: it is copied out and flipped when the pending flip completes.
public final class DRMOutput: OutputBackend {
    public let name: String
    public var connector: String { selection.connector.name }
    /// The logical mode: the scene's size (sides swapped for 90° and 270°).
    public let mode: OutputMode
    /// The connector's modes, as the screen lists them, unrotated.
    public let modes: [OutputMode]
    public var frameDone: (() -> Void)?

    let device: DRMDevice
    let selection: KMSSelection
    private let committer: KMSCommitter
    /// Owned here, written through `chain`; freed after the CRTC is restored.
    private var buffers: [DumbBuffer]
    private let chain: ScanoutChain
    private let vt: VirtualTerminal?
    private let log: @Sendable (String) -> Void
    private let flips = FlipCounter()

    /// The loop the device's events are read on, once attached.
    private var loop: EventLoop?
    private var rendered = false
    private var acquired = false
    private var closed = false
    /// Cleared once DirtyFB says the driver has no use for it.
    private var dirtyFBUseful = true

    /// Opens the card, chooses connector, mode and CRTC, becomes DRM master, creates the
    /// buffers. Nothing is shown until the first `present`.
    public init(options: DRMOptions, log: @escaping @Sendable (String) -> Void) throws(DisplayError) {
        self.log = log
        let paths = options.device.map { [$0] } ?? DRMDevice.candidates()
        let (device, card, selection) = try DeviceProbe.first(of: paths) { path throws(DisplayError) in
            let device = try DRMDevice(path: path)
            let card = try device.readCard()
            let selection = try KMSSelection.choose(on: card, connectorName: options.connector, mode: options.mode)
            try device.becomeMaster()
            return (device, card, selection)
        }
        self.device = device
        self.selection = selection
        log(
            "drm: \(device.path) (driver \(device.driverName)); connectors: "
                + card.connectors.map { "\($0.name) \($0.status.rawValue)" }.joined(separator: ", "))
        let target = KMSTarget(device: device, selection: selection, saved: device.savedCRTC(selection.crtcID))
        committer = try Self.makeCommitter(target: target, options: options, log: log)
        var size = committer.bufferSize
        buffers = try (0..<max(2, min(3, options.buffers))).map { _ throws(DisplayError) in
            try DumbBuffer(device: device, width: size.width, height: size.height)
        }
        if let atomic = committer as? AtomicCommitter, atomic.rotatesInHardware, !atomic.test(framebuffer: buffers[0].framebuffer) {
            log("drm: the plane refused rotation \(options.rotation); rotating in the copy instead")
            atomic.rotateInSoftware()
            size = committer.bufferSize
            buffers = []
            buffers = try (0..<max(2, min(3, options.buffers))).map { _ throws(DisplayError) in
                try DumbBuffer(device: device, width: size.width, height: size.height)
            }
        }
        let logical = options.rotation.logicalSize(physicalWidth: selection.mode.width, height: selection.mode.height)
        mode = OutputMode(width: logical.width, height: logical.height, refreshRate: selection.mode.refreshRate)
        var seen = Set<OutputMode>()
        let listed = selection.connector.modes.sorted { $0.isPreferred && !$1.isPreferred }.map(\.outputMode)
        modes = listed.filter { seen.insert($0).inserted }
        let copier = ScanoutCopy(rotation: committer.rotatesInHardware ? .none : options.rotation)
        chain = ScanoutChain(
            surface: Surface(width: logical.width, height: logical.height),
            targets: buffers.map { ScanoutTarget(pixels: $0.pixels, pitch: $0.pitch, framebuffer: $0.framebuffer) },
            copier: copier, committer: committer)
        name = "drm:\(selection.connector.name)"
        vt = options.useVT ? VirtualTerminal.current() : nil
        if let vt {
            do { try vt.enterGraphicsMode() } catch { log("drm: \(vt.path) stays in text mode: \(error)") }
        }
        log(
            "drm: connector \(selection.connector.name), mode \(selection.mode.outputMode)\(selection.mode.isPreferred ? " (preferred)" : ""), CRTC \(selection.crtcID), "
                + "\(committer.kind) commits, \(buffers.count) dumb buffers \(size.width)x\(size.height) XRGB8888, rotation \(options.rotation)"
                + (options.rotation == .none ? "" : committer.rotatesInHardware ? " by the plane" : " in the copy")
                + ", scene \(mode.width)x\(mode.height), VT \(vt?.path ?? "none")")
        chain.userData = Unmanaged.passUnretained(flips).toOpaque()
        let weak = WeakOutput(self)
        chain.wrote = { target, rects in weak.output?.markDirty(target, rects, rotation: copier.rotation) }
        chain.shown = { weak.output?.frameDone?() }
        chain.failed = { error in log("drm: the frame waiting for the flip could not be committed: \(error)") }
        chain.later = { body in
            if let loop = weak.output?.loop { loop.schedule(after: 0, body) } else { body() }
        }
    }

    private static func makeCommitter(target: KMSTarget, options: DRMOptions, log: (String) -> Void) throws(DisplayError) -> KMSCommitter {
        switch options.atomic {
        case .off:
            return LegacyCommitter(target: target)
        case .on:
            guard target.device.enableAtomic() else {
                throw .system(
                    what: "enabling atomic modesetting (DRM_CLIENT_CAP_ATOMIC, asked for by VITRINE_DRM_ATOMIC=on)", path: target.path, errno: .notSupported)
            }
            return try AtomicCommitter(target: target, rotation: options.rotation)
        case .auto:
            guard target.device.enableAtomic() else { return LegacyCommitter(target: target) }
            do { return try AtomicCommitter(target: target, rotation: options.rotation) } catch {
                log("drm: atomic modesetting unusable (\(error)); using legacy calls")
                return LegacyCommitter(target: target)
            }
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

    public var virtualTerminal: VirtualTerminal? { vt }

    /// DPMS through the connector's `DPMS` property, which the kernel turns into the CRTC's
    /// ACTIVE on atomic drivers; blanking waits for the flip in flight first. Waking shows
    /// the last frame until the next one is presented.
    public func setPower(_ on: Bool) throws {
        guard !closed else { throw OutputError("\(name): the output is closed") }
        if !on { waitForPendingFlip(timeout: 0.2) }
        let connector = selection.connector.id
        guard let dpms = device.properties(of: connector, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))["DPMS"] else {
            throw OutputError("\(name): the connector has no DPMS property, so it cannot be blanked")
        }
        let state = UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
        guard drmModeConnectorSetProperty(device.fd, connector, dpms.id, state) == 0 else {
            throw DisplayError.system(what: "setting the connector's DPMS property \(on ? "on" : "off")", path: device.path, errno: .last)
        }
        log("drm: \(selection.connector.name) DPMS \(on ? "on" : "off")")
    }

    public func attach(to loop: EventLoop) {
        let fd = device.fd, counter = flips, weak = WeakOutput(self)
        do {
            try loop.watch(fd, for: .readable) { _ in
                counter.read(from: fd)
                weak.output?.deliverFlips()
            }
            self.loop = loop
        } catch {
            log("drm: page-flip events cannot be read on the event loop (\(error)); frames wait for their timeout")
        }
        do {
            try vt?.handleSwitches(on: loop, release: { weak.output?.releaseVT() }, acquire: { weak.output?.acquireVT() })
        } catch {
            log("drm: VT switches are not handled (\(error)); switching away may leave the screen to the last frame")
        }
    }

    /// Waits for a pending flip (up to a second), restores the CRTC found at start,
    /// frees the buffers, and gives the VT back its text mode.
    public func close() {
        guard !closed else { return }
        closed = true
        loop?.unwatch(device.fd)
        loop = nil
        waitForPendingFlip(timeout: 1)
        if chain.active { committer.restore() }
        buffers.removeAll()
        vt?.restore()
        log("drm: \(device.path) \(selection.connector.name) given back")
    }

    // MARK: Frames

    /// Tells drivers that only show CPU writes on request (DIRTYFB) which rows changed;
    /// stops asking once the driver says it has no such hook.
    private func markDirty(_ buffer: ScanoutTarget, _ rects: [PixelRect], rotation: ScreenRotation) {
        guard dirtyFBUseful, !rects.isEmpty else { return }
        let surface = chain.surface
        var clips = rects.map { r -> drmModeClip in
            let p = rotation.physicalRect(of: r, logicalWidth: surface.width, logicalHeight: surface.height)
            return drmModeClip(x1: UInt16(p.x), y1: UInt16(p.y), x2: UInt16(p.maxX), y2: UInt16(p.maxY))
        }
        let result = drmModeDirtyFB(device.fd, buffer.framebuffer, &clips, UInt32(clips.count))
        if result == -ENOSYS || result == -EINVAL || result == -EOPNOTSUPP { dirtyFBUseful = false }
    }

    /// On the loop: the flip events read so far.
    private func deliverFlips() {
        for time in flips.take() {
            if closed { chain.abandonPending() } else { chain.flipCompleted(at: time) }
        }
    }

    private func waitForPendingFlip(timeout: Double) {
        let deadline = EventLoop.monotonicNanoseconds() + UInt64(timeout * 1e9)
        deliverFlips()
        while chain.pending != nil, EventLoop.monotonicNanoseconds() < deadline {
            var poller = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 50) > 0 { flips.read(from: device.fd) }
            deliverFlips()
        }
        // Timed out: the flip is as good as done (a wedged driver must not hang the exit).
        chain.abandonPending()
    }

    // MARK: VT switches

    /// The VT is being left: finish the flip in flight and give up master.
    func releaseVT() {
        guard chain.active, !closed else { return }
        waitForPendingFlip(timeout: 0.2)
        chain.suspend()
        device.dropMaster()
        log("drm: VT released; DRM master dropped")
    }

    /// The VT is back: take master again and set the mode with the whole picture.
    func acquireVT() {
        guard !chain.active, !closed else { return }
        do { try device.becomeMaster() } catch {
            log("drm: VT acquired but \(error)")
            return
        }
        log("drm: VT acquired; DRM master regained, restoring the picture")
        do { try chain.resume() } catch { log("drm: modeset after the VT switch failed: \(error)") }
    }
}

/// Page-flip events read from the device, on the event loop.
final class FlipCounter {
    /// The timestamps of the flips read and not taken yet, oldest first: CLOCK_MONOTONIC
    /// seconds (DRM_CAP_TIMESTAMP_MONOTONIC, always so since Linux 4.15), nil where it gave none.
    private var times: [Double?] = []

    /// drmHandleEvent on a readable (non-blocking) device: keeps the flip events read.
    func read(from fd: Int32) {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, seconds, microseconds, data in
            guard let data else { return }
            let counter = Unmanaged<FlipCounter>.fromOpaque(data).takeUnretainedValue()
            counter.times.append(seconds == 0 && microseconds == 0 ? nil : Double(seconds) + Double(microseconds) / 1e6)
        }
        _ = drmHandleEvent(fd, &context)
    }

    /// The flips read since the last call, with their times.
    func take() -> [Double?] {
        defer { times.removeAll(keepingCapacity: true) }
        return times
    }
}

/// The output, weakly, for the loop's handlers that may outlive it.
private struct WeakOutput {
    weak var output: DRMOutput?
    init(_ output: DRMOutput) { self.output = output }
}
