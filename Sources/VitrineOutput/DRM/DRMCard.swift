import CLibDRM
import FoundationEssentials
import Glibc
import VitrineSystem

/// One DRM card driven by the daemon: the device (DRM master), whether atomic commits are
/// on, the VT it shows on, and the heads — one `DRMHead` per connector — that share it.
///
/// Every head's page-flip events come on the card's one descriptor; the card reads them on
/// the event loop and hands each to the head whose CRTC flipped, so each head's frames are
/// paced by its own flips. A VT switch drops master for every head and gives it back.
public final class DRMCard {
    public let device: DRMDevice
    /// The card as last read (`rescan`).
    public private(set) var card: KMSCard
    /// Whether DRM_CLIENT_CAP_ATOMIC is on; heads then commit atomically (legacy calls
    /// otherwise, or where a head's atomic setup fails under `AtomicPolicy.auto`).
    public let atomic: Bool
    let policy: AtomicPolicy
    let vt: VirtualTerminal?
    let log: @Sendable (String) -> Void
    private var heads: [WeakDRMHead] = []
    private var loop: EventLoop?
    private var watching = false
    private var graphicsMode = false
    private let flips = FlipCounter()
    private(set) var masterDropped = false

    /// Opens the card `options.device` (else the first `/dev/dri/card*` with a connected
    /// screen, or with `options.connector` connected), becomes DRM master and turns atomic
    /// modesetting on as `options.atomic` says. No head is made yet.
    public init(options: DRMOptions, log: @escaping @Sendable (String) -> Void) throws(DisplayError) {
        let paths = options.device.map { [$0] } ?? DRMDevice.candidates()
        let (device, card) = try DeviceProbe.first(of: paths) { path throws(DisplayError) in
            let device = try DRMDevice(path: path)
            let card = try device.readCard()
            _ = try KMSSelection.choose(on: card, connectorName: options.connector, mode: .preferred)
            try device.becomeMaster()
            return (device, card)
        }
        self.device = device
        self.card = card
        self.log = log
        policy = options.atomic
        switch options.atomic {
        case .off: atomic = false
        case .auto: atomic = device.enableAtomic()
        case .on:
            guard device.enableAtomic() else {
                throw .system(
                    what: "enabling atomic modesetting (DRM_CLIENT_CAP_ATOMIC, asked for by VITRINE_DRM_ATOMIC=on)", path: device.path, errno: .notSupported)
            }
            atomic = true
        }
        vt = options.useVT ? VirtualTerminal.current() : nil
        log(
            "drm: \(device.path) (driver \(device.driverName), \(atomic ? "atomic" : "legacy") modesetting); connectors: "
                + card.connectors.map { "\($0.name) \($0.status.rawValue)" }.joined(separator: ", "))
    }

    /// Opens the card and makes a head for every connected connector: `options.connector`
    /// first (when given), then those in `order`, then the others in the card's order.
    /// Each head's mode and rotation come from `heads[connector]`, else `options`. CRTCs
    /// are assigned all at once (each connector's current CRTC kept where it can be). The
    /// first head, and a connector in `heads` or named by `options.connector`, that cannot
    /// be driven is an error; any other is left dark, with the reason logged.
    public static func openAll(
        options: DRMOptions, heads settings: [String: DRMHeadSettings] = [:], order: [String] = [], log: @escaping @Sendable (String) -> Void
    ) throws(DisplayError) -> [DRMHead] {
        let card = try DRMCard(options: options, log: log)
        let defaults = DRMHeadSettings(mode: options.mode, rotation: options.rotation, buffers: options.buffers)
        let connected = KMSSelection.connectedInOrder(on: card.card, first: options.connector, then: order)
        let assigned = KMSSelection.assignCRTCs(connected, on: card.card, taken: [])
        var heads: [DRMHead] = []
        for connector in connected {
            let wanted = settings[connector.name] ?? defaults
            let required = settings[connector.name] != nil || connector.name.lowercased() == options.connector?.lowercased() || heads.isEmpty
            do throws(DisplayError) {
                guard let crtc = assigned[connector.id] else { throw .noCRTC(path: card.device.path, connector: connector.name) }
                let mode = try KMSSelection.chooseMode(wanted.mode, among: connector.modes, connector: connector.name)
                let selection = KMSSelection(connector: connector, mode: mode, crtcID: card.card.crtcIDs[crtc], crtcIndex: crtc)
                heads.append(try DRMHead(card: card, selection: selection, settings: wanted))
            } catch {
                if required {
                    for head in heads { head.close() }
                    throw error
                }
                log("drm: \(connector.name) left dark: \(error)")
            }
        }
        return heads
    }

    deinit {
        if watching { loop?.unwatch(device.fd) }
        vt?.restore()
    }

    /// Reads the connectors again (after a hotplug event) and returns the card as it is now.
    public func rescan() throws(DisplayError) -> KMSCard {
        card = try device.readCard()
        return card
    }

    /// The CRTCs the open heads use.
    public var claimedCRTCs: Set<UInt32> { Set(openHeads.map(\.selection.crtcID)) }

    /// The heads not closed yet, in the order they were made.
    public var openHeads: [DRMHead] { heads.compactMap(\.head) }

    // MARK: Heads

    func register(_ head: DRMHead) {
        heads.removeAll { $0.head == nil }
        if openHeads.isEmpty { enterGraphics() }
        heads.append(WeakDRMHead(head: head))
        if let loop { attach(to: loop) }
    }

    /// `restoringVT`: when it was the last head, the VT gets its text mode, keyboard and
    /// switching back (the daemon stops); otherwise it stays ours (a screen unplugged).
    func unregister(_ head: DRMHead, restoringVT: Bool) {
        heads.removeAll { $0.head == nil || $0.head === head }
        guard openHeads.isEmpty else { return }
        if watching { loop?.unwatch(device.fd) }
        watching = false
        if restoringVT {
            vt?.restore()
            graphicsMode = false
        }
    }

    private func enterGraphics() {
        guard let vt, !graphicsMode else { return }
        graphicsMode = true
        do { try vt.enterGraphicsMode() } catch { log("drm: \(vt.path) stays in text mode: \(error)") }
    }

    /// Reads the card's events on `loop` (once for all heads) and handles VT switches.
    func attach(to loop: EventLoop) {
        let first = self.loop == nil
        self.loop = loop
        if !watching {
            let fd = device.fd, counter = flips
            do {
                try loop.watch(fd, for: .readable) { [weak self] _ in
                    counter.read(from: fd)
                    self?.deliverFlips()
                }
                watching = true
            } catch {
                log("drm: page-flip events cannot be read on the event loop (\(error)); frames wait for their timeout")
            }
        }
        guard first, let vt else { return }
        do {
            try vt.handleSwitches(on: loop, release: { [weak self] in self?.releaseVT() }, acquire: { [weak self] in self?.acquireVT() })
        } catch {
            log("drm: VT switches are not handled (\(error)); switching away may leave the screen to the last frame")
        }
    }

    /// Runs `body` on the loop soon (or now, before there is a loop).
    func later(_ body: @escaping () -> Void) {
        if let loop { loop.schedule(after: 0, body) } else { body() }
    }

    /// The flip counter's address, passed with every commit and given back with its event.
    var flipUserData: UnsafeMutableRawPointer { Unmanaged.passUnretained(flips).toOpaque() }

    /// On the loop: the flip events read so far, each to the head of its CRTC (or to
    /// `route`'s handler for that CRTC).
    func deliverFlips(route: [UInt32: (Double?) -> Void] = [:]) {
        let events = flips.take()
        guard !events.isEmpty else { return }
        let open = openHeads
        for event in events {
            if let handler = route[event.crtc] {
                handler(event.time)
            } else {
                open.first { $0.selection.crtcID == event.crtc }?.flipCompleted(at: event.time, sequence: event.sequence)
            }
        }
    }

    /// Reads flip events for up to `timeout` seconds until `done` holds; events of the
    /// CRTCs in `route` go to its handlers.
    func waitForFlips(timeout: Double, until done: () -> Bool, route: [UInt32: (Double?) -> Void] = [:]) {
        let deadline = EventLoop.monotonicNanoseconds() + UInt64(timeout * 1e9)
        deliverFlips(route: route)
        while !done(), EventLoop.monotonicNanoseconds() < deadline {
            var poller = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 50) > 0 { flips.read(from: device.fd) }
            deliverFlips(route: route)
        }
    }

    // MARK: VT switches

    /// The VT is being left: finish every head's flip in flight and give up master.
    func releaseVT() {
        guard !masterDropped else { return }
        let open = openHeads
        waitForFlips(timeout: 0.2) { open.allSatisfy { !$0.flipPending } }
        for head in open { head.suspend() }
        masterDropped = true
        device.dropMaster()
        log("drm: VT released; DRM master dropped")
    }

    /// The VT is back: take master again and set every head's mode with its whole picture.
    func acquireVT() {
        guard masterDropped else { return }
        do { try device.becomeMaster() } catch {
            log("drm: VT acquired but \(error)")
            return
        }
        masterDropped = false
        log("drm: VT acquired; DRM master regained, restoring the picture")
        for head in openHeads { head.resume() }
    }
}

/// What one head is asked for: its mode, rotation and number of scan-out buffers.
public struct DRMHeadSettings: Sendable {
    public var mode: ModeRequest
    public var rotation: ScreenRotation
    /// Scan-out buffers, 2 or 3.
    public var buffers: Int

    public init(mode: ModeRequest = .preferred, rotation: ScreenRotation = .none, buffers: Int = 2) {
        self.mode = mode
        self.rotation = rotation
        self.buffers = buffers
    }
}

/// Page-flip events read from the card, on the event loop.
final class FlipCounter {
    /// A flip: the CRTC it happened on and its CLOCK_MONOTONIC time in seconds
    /// (DRM_CAP_TIMESTAMP_MONOTONIC, always so since Linux 4.15), nil where it gave none.
    struct Flip {
        let crtc: UInt32
        let time: Double?
        /// The CRTC's vblank counter at the flip.
        let sequence: UInt32
    }

    private var flips: [Flip] = []

    /// drmHandleEvent on a readable (non-blocking) device: keeps the flip events read.
    func read(from fd: Int32) {
        var context = drmEventContext()
        context.version = 3
        context.page_flip_handler2 = { _, sequence, seconds, microseconds, crtc, data in
            guard let data else { return }
            let counter = Unmanaged<FlipCounter>.fromOpaque(data).takeUnretainedValue()
            let time = seconds == 0 && microseconds == 0 ? nil : Double(seconds) + Double(microseconds) / 1e6
            counter.flips.append(Flip(crtc: crtc, time: time, sequence: sequence))
        }
        _ = drmHandleEvent(fd, &context)
    }

    /// The flips read since the last call, oldest first.
    func take() -> [Flip] {
        defer { flips.removeAll(keepingCapacity: true) }
        return flips
    }
}
