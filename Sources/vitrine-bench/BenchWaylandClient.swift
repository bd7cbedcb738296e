import CWaylandClient
import Foundation
import VitrineOutput
import WaylandDescription

/// The compositor bench's own Wayland client: an xdg toplevel (app id
/// "vitrine-bench-client") of `width`×`height` XRGB8888 wl_shm buffers, which on every frame
/// callback fills a free buffer with the next colour, damages all of it and commits, with
/// `wp_presentation_feedback` for each commit: its commit-to-presentation latency as it
/// sees it (its commit times read on the compositor's presentation clock).
final class BenchWaylandClient {
    let display: OpaquePointer
    /// The registry, and the name of each global by interface (the last one told).
    private(set) var registry: OpaquePointer?
    private(set) var globalNames: [String: UInt32] = [:]
    /// The presentation clock the compositor announced (Weston's is CLOCK_MONOTONIC_RAW
    /// where there is one).
    private(set) var clock = CLOCK_MONOTONIC
    private var compositor: OpaquePointer?, shm: OpaquePointer?, wmBase: OpaquePointer?, presentation: OpaquePointer?
    private(set) var surface: OpaquePointer?
    private var xdgSurface: OpaquePointer?, toplevel: OpaquePointer?
    private var buffers: [(buffer: OpaquePointer, pixels: UnsafeMutablePointer<UInt32>, busy: Bool)] = []
    private var listeners: [OpaquePointer: WaylandListener] = [:]
    private var configured = false
    private var colour: UInt32 = 0
    private var mapping: (address: UnsafeMutableRawPointer, bytes: Int)?
    private var file: Int32 = -1
    private let width: Int, height: Int
    /// Commits since measuring began, and those presented or discarded.
    private var measuring = false
    private var lastPresented: UInt64?
    private var run = PresentationRun(latencies: [], intervals: [], discarded: 0)
    private static let xdg = WaylandInterfaceTable(WaylandProtocol.xdgShell)
    private static let timing = WaylandInterfaceTable(WaylandProtocol.presentationTime)

    /// Connects to the compositor at `socket` (a path) and maps the window.
    init(socket: String, width: Int, height: Int) throws {
        (self.width, self.height) = (width, height)
        guard let display = wl_display_connect(socket) else { throw BenchError("cannot connect to the Wayland compositor at \(socket)") }
        self.display = display
        let globals = WaylandListener.globals(of: display) { [unowned self] registry, name, interface in bind(registry, name, interface) }
        registry = globals?.registry
        listeners[globals?.registry ?? display] = globals?.listener
        guard let compositor, let shm, let wmBase, presentation != nil else {
            throw BenchError("the compositor at \(socket) lacks wl_compositor, wl_shm, xdg_wm_base or wp_presentation")
        }
        let bytes = width * height * 4
        file = memfd_create("vitrine-bench-client", 1)
        guard file >= 0, ftruncate(file, off_t(bytes * 3)) == 0,
            let address = mmap(nil, bytes * 3, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0), address != MAP_FAILED,
            let pool = wlShmCreatePool(shm, file, Int32(bytes * 3))
        else { throw BenchError("cannot make the client's buffers") }
        mapping = (address, bytes * 3)
        for index in 0..<3 {
            guard
                let buffer = wlShmPoolCreateBuffer(
                    pool, Int32(index * bytes), Int32(width), Int32(height), Int32(width * 4), WL_SHM_FORMAT_XRGB8888.rawValue)
            else { throw BenchError("cannot make the client's buffers") }
            buffers.append((buffer, (address + index * bytes).bindMemory(to: UInt32.self, capacity: width * height), false))
            listen(buffer) { [unowned self] _, _ in
                if let i = buffers.firstIndex(where: { $0.buffer == buffer }) { buffers[i].busy = false }
            }
        }
        wlShmPoolDestroy(pool)
        surface = wlCompositorCreateSurface(compositor)
        xdgSurface = waylandRequest(
            wmBase, XdgWmBaseRequest.get_xdg_surface.rawValue, [wl_argument(n: 0), wl_argument(o: surface)], creating: Self.xdg["xdg_surface"])
        toplevel = waylandRequest(xdgSurface!, XdgSurfaceRequest.get_toplevel.rawValue, [wl_argument(n: 0)], creating: Self.xdg["xdg_toplevel"])
        listen(xdgSurface!) { [unowned self] opcode, a in
            guard opcode == XdgSurfaceEvent.configure.rawValue else { return }
            waylandRequest(xdgSurface!, XdgSurfaceRequest.ack_configure.rawValue, [wl_argument(u: a[0].u)])
            configured = true
        }
        listen(toplevel!) { _, _ in }
        _ = "vitrine-bench-client".withCString { waylandRequest(toplevel!, XdgToplevelRequest.set_app_id.rawValue, [wl_argument(s: $0)]) }
        wlSurfaceCommit(surface)
        for _ in 0..<50 where !configured { wl_display_roundtrip(display) }
        guard configured else { throw BenchError("the compositor at \(socket) did not configure the window") }
    }

    deinit {
        wl_display_disconnect(display)
        if let mapping { munmap(mapping.address, mapping.bytes) }
        if file >= 0 { close(file) }
    }

    private func bind(_ registry: OpaquePointer, _ name: UInt32, _ interface: String) {
        globalNames[interface] = name
        let bound = { (table: UnsafePointer<wl_interface>, version: UInt32) in wlRegistryBind(registry, name, table, version) }
        switch interface {
        case "wp_presentation":
            presentation = bound(Self.timing["wp_presentation"], 1)
            listen(presentation!) { [unowned self] opcode, a in
                if opcode == WpPresentationEvent.clock_id.rawValue { clock = clockid_t(a[0].u) }
            }
        case "xdg_wm_base":
            wmBase = bound(Self.xdg["xdg_wm_base"], 1)
            listen(wmBase!) { [unowned self] opcode, a in
                if opcode == XdgWmBaseEvent.ping.rawValue { waylandRequest(wmBase!, XdgWmBaseRequest.pong.rawValue, [wl_argument(u: a[0].u)]) }
            }
        case "wl_compositor": compositor = bound(vitrine_wl_compositor_interface(), 4)
        case "wl_shm": shm = bound(vitrine_wl_shm_interface(), 1)
        default: break
        }
    }

    /// Routes `proxy`'s events to `handle` while the client lives, or until `forget`.
    func listen(_ proxy: OpaquePointer, _ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) {
        let listener = WaylandListener(handle)
        listeners[proxy] = listener
        listener.listen(to: proxy)
    }

    /// Draws for `settle` seconds, then for `seconds` measuring: the latencies of the
    /// commits made while measuring (their feedback waited for up to a second after).
    func measure(settle: Double, seconds: Double) throws -> PresentationRun {
        draw()
        let start = Date()
        var stopped = false
        while true {
            let elapsed = Date().timeIntervalSince(start)
            measuring = elapsed >= settle && elapsed < settle + seconds
            if elapsed >= settle + seconds { stopped = true }
            if elapsed >= settle + seconds + 1 { break }
            wl_display_flush(display)
            var ready = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 20) > 0, wl_display_dispatch(display) < 0 {
                throw BenchError("the compositor closed the connection (error \(wl_display_get_error(display)))")
            }
            if stopped, pendingFeedback == 0 { break }
        }
        run.latencies.sort()
        run.intervals.sort()
        return run
    }

    private var pendingFeedback = 0

    /// Stops routing `proxy`'s events.
    func forget(_ proxy: OpaquePointer) { listeners[proxy] = nil }

    /// The next frame: a free buffer filled with the next colour, all of it damaged, a
    /// frame callback and (while measuring) feedback, committed.
    private func draw() {
        var committed: UInt64 = 0
        let drawn = commitNextColour(frameCallback: true) { [unowned self] presented in
            guard let presented else { return run.discarded += 1 }
            run.latencies.append(Double(Int64(bitPattern: presented &- committed)) / 1e6)
            if let lastPresented, presented > lastPresented { run.intervals.append(Double(presented - lastPresented) / 1e6) }
            lastPresented = presented
        }
        if let drawn { committed = drawn }
    }

    /// Fills a free buffer with the next colour, damages all of it, asks for a frame
    /// callback (which draws the next frame) when `frameCallback`, and for feedback while
    /// measuring or when `always` (`presented` gets the presentation time, or nil when the
    /// commit was discarded), and commits. Returns the commit's time on the presentation
    /// clock; nil when every buffer is held (then, with `frameCallback`, the next callback draws).
    @discardableResult
    func commitNextColour(frameCallback: Bool, always: Bool = false, presented: @escaping (UInt64?) -> Void) -> UInt64? {
        guard let index = buffers.firstIndex(where: { !$0.busy }) else {
            if frameCallback {
                requestFrame()
                wlSurfaceCommit(surface)
            }
            return nil
        }
        colour = (colour &+ 0x0003_0201) | 0xFF00_0000
        buffers[index].pixels.update(repeating: colour, count: width * height)
        buffers[index].busy = true
        wlSurfaceAttach(surface, buffers[index].buffer, 0, 0)
        wlSurfaceDamageBuffer(surface, 0, 0, Int32(width), Int32(height))
        if frameCallback { requestFrame() }
        if measuring || always, let presentation,
            let feedback = waylandRequest(
                presentation, WpPresentationRequest.feedback.rawValue, [wl_argument(o: surface), wl_argument(n: 0)],
                creating: Self.timing["wp_presentation_feedback"])
        {
            pendingFeedback += 1
            listen(feedback) { [unowned self] opcode, a in
                switch WpPresentationFeedbackEvent(rawValue: opcode) {
                case .presented: presented((UInt64(a[0].u) << 32 | UInt64(a[1].u)) * 1_000_000_000 + UInt64(a[2].u))
                case .discarded: presented(nil)
                default: return
                }
                pendingFeedback -= 1
                listeners[feedback] = nil
                wl_proxy_destroy(feedback)
            }
        }
        let committed = now()
        wlSurfaceCommit(surface)
        return committed
    }

    private func requestFrame() {
        guard let callback = wlSurfaceFrame(surface) else { return }
        listen(callback) { [unowned self] _, _ in
            listeners[callback] = nil
            wl_callback_destroy(callback)
            draw()
        }
    }

    /// The presentation clock's nanoseconds.
    func now() -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
