import CWaylandClient
import Glibc
import VitrineRaster
import VitrineSystem

/// Frames in a window on a Wayland compositor, for layout work on a desktop:
/// `--backend wayland`.
///
/// An xdg-shell toplevel titled "Vitrine" (app id `vitrined`); frames are drawn into system
/// memory and the damaged parts copied into `wl_shm` buffers, double buffered (a third or
/// fourth is made while the compositor holds both), each written only once the compositor
/// has released it. The compositor's frame callback is the frame's flip; the daemon's frame
/// pacer keeps the rate at the configured refresh. A configure with another size resizes
/// the output (`.resized`), the toplevel's close reports `.closed`, and the seat's pointer,
/// keyboard (with the compositor's keymap) and touch come as `WindowEvent`s. The display's
/// descriptor is read on the daemon's event loop; nothing blocks but the round trips at start.
public final class WaylandOutput: WindowOutput {
    public let name: String
    public private(set) var mode: OutputMode
    public var modes: [OutputMode] { [mode] }
    public var frameDone: (() -> Void)?
    public var events: ((WindowEvent) -> Void)?
    public private(set) var presentedFrames = 0
    public private(set) var shownFrame: ShownFrame?
    public var keymap: String? { seat?.keymap }
    /// The frame callback says when the compositor wants the next frame.
    public var pacesFrames: Bool { true }

    private let display: OpaquePointer
    private var registry: OpaquePointer!
    private var compositor: OpaquePointer?, shm: OpaquePointer?, wmBase: OpaquePointer?
    private var surface: OpaquePointer!, xdgSurface: OpaquePointer!, toplevel: OpaquePointer!
    private var seat: WaylandSeat?
    /// Listeners by proxy, kept as long as their proxies.
    private var listeners: [OpaquePointer: WaylandListener] = [:]
    private var frame: WindowFrame
    private var buffers: [WaylandBuffer] = []
    /// Buffers of a size gone, destroyed when the compositor releases them.
    private var retired: [WaylandBuffer] = []
    /// The size the next configure asks for, and whether one was acknowledged.
    private var pendingSize: (width: Int, height: Int)?
    private var configured = false
    private var callback: OpaquePointer?
    private weak var loop: EventLoop?
    private var closed = false
    private let log: (String) -> Void
    private static let xdg = WaylandInterfaceTable.xdgShell
    /// The most buffers made while the compositor holds the others.
    private static let maximumBuffers = 4

    /// Opens a window of `width`×`height` on the compositor at `socket` (nil:
    /// `WAYLAND_DISPLAY`, else `wayland-0`, in `XDG_RUNTIME_DIR`).
    ///
    /// - Throws: `OutputError` saying why the compositor could not be reached or used, or
    ///   that libwayland-client is not installed.
    public init(
        width: Int, height: Int, refreshRate: Double = 60, socket: String? = nil, title: String = "Vitrine", log: @escaping (String) -> Void = { _ in }
    ) throws(OutputError) {
        frame = try WindowFrame(width: width, height: height)
        do { try FeatureLibraries("the wayland backend", vitrine_wayland_client_load).load() } catch { throw OutputError(error.message) }
        let shown = socket ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
        guard let display = wl_display_connect(socket) else {
            let runtime = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
            throw OutputError(
                "cannot connect to the Wayland compositor \(shown)"
                    + (runtime.map { " in \($0)" } ?? " (XDG_RUNTIME_DIR is not set)")
                    + ": is one running, and are WAYLAND_DISPLAY and XDG_RUNTIME_DIR those of its session?")
        }
        self.display = display
        self.log = log
        name = "wayland:\(shown)"
        mode = OutputMode(width: width, height: height, refreshRate: refreshRate)
        registry = wlDisplayGetRegistry(display)
        listen(registry) { [unowned self] opcode, args in
            guard opcode == 0, let interface = args[1].s else { return }
            bind(name: args[0].u, interface: String(cString: interface), version: args[2].u)
        }
        wl_display_roundtrip(display)
        guard let compositor, shm != nil, let wmBase else {
            let missing = [compositor == nil ? "wl_compositor" : nil, shm == nil ? "wl_shm" : nil, wmBase == nil ? "xdg_wm_base" : nil].compactMap { $0 }
            close()
            throw OutputError(
                "the Wayland compositor \(shown) lacks \(missing.joined(separator: ", ")): a desktop compositor (GNOME, KDE, Sway, Weston) has them")
        }
        surface = wlCompositorCreateSurface(compositor)
        xdgSurface = waylandRequest(
            wmBase, XdgWmBaseRequest.get_xdg_surface.rawValue, [wl_argument(n: 0), wl_argument(o: surface)], creating: Self.xdg["xdg_surface"])
        toplevel = waylandRequest(xdgSurface, XdgSurfaceRequest.get_toplevel.rawValue, [wl_argument(n: 0)], creating: Self.xdg["xdg_toplevel"])
        listen(xdgSurface) { [unowned self] opcode, args in
            if opcode == XdgSurfaceEvent.configure.rawValue { configure(serial: args[0].u) }
        }
        listen(toplevel) { [unowned self] opcode, args in
            switch XdgToplevelEvent(rawValue: opcode) {
            case .configure:
                let (w, h) = (Int(args[0].i), Int(args[1].i))
                if w > 0, h > 0 { pendingSize = (min(w, WindowFrame.sides.upperBound), min(h, WindowFrame.sides.upperBound)) }
            case .close:
                events?(.closed("the window was closed"))
            default:
                break
            }
        }
        for (opcode, text) in [(XdgToplevelRequest.set_title, title), (.set_app_id, "vitrined")] {
            _ = text.withCString { waylandRequest(toplevel, opcode.rawValue, [wl_argument(s: $0)]) }
        }
        wlSurfaceCommit(surface)
        for _ in 0..<20 where !configured { wl_display_roundtrip(display) }
        guard configured else {
            close()
            throw OutputError("the Wayland compositor \(shown) did not configure the window")
        }
        log("wayland: window on \(shown), \(mode.width)x\(mode.height)" + (seat == nil ? ", no seat (no input)" : ""))
    }

    deinit { close() }

    private func listen(_ proxy: OpaquePointer, _ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) {
        let listener = WaylandListener(handle)
        listeners[proxy] = listener
        listener.listen(to: proxy)
    }

    private func bind(name: UInt32, interface: String, version: UInt32) {
        func bound(_ table: UnsafePointer<wl_interface>, _ highest: UInt32) -> OpaquePointer? {
            wlRegistryBind(registry, name, table, min(version, highest))
        }
        switch interface {
        case "wl_compositor": compositor = bound(vitrine_wl_compositor_interface(), 4)
        case "wl_shm": shm = bound(vitrine_wl_shm_interface(), 1)
        case "xdg_wm_base":
            wmBase = bound(Self.xdg["xdg_wm_base"], 1)
            if let wmBase {
                listen(wmBase) { opcode, args in
                    if opcode == XdgWmBaseEvent.ping.rawValue { waylandRequest(wmBase, XdgWmBaseRequest.pong.rawValue, [wl_argument(u: args[0].u)]) }
                }
            }
        case "wl_seat" where seat == nil:
            if let proxy = bound(vitrine_wl_seat_interface(), 5) {
                seat = WaylandSeat(seat: proxy) { [unowned self] event in events?(event) }
            }
        default:
            break
        }
    }

    /// xdg_surface.configure: acknowledged, and a new size taken.
    private func configure(serial: UInt32) {
        waylandRequest(xdgSurface, XdgSurfaceRequest.ack_configure.rawValue, [wl_argument(u: serial)])
        configured = true
        guard let size = pendingSize, size.width != mode.width || size.height != mode.height else { return }
        mode = OutputMode(width: size.width, height: size.height, refreshRate: mode.refreshRate)
        frame.resize(width: size.width, height: size.height)
        for buffer in buffers {
            if buffer.busy { retired.append(buffer) } else { listeners[buffer.buffer] = nil }
        }
        buffers.removeAll()
        events?(.resized(mode))
    }

    // MARK: Frames

    public func acquireBuffer() throws -> OutputBuffer { try frame.acquire(closed: closed, name: name) }

    public func present(damage: [PixelRect]) throws {
        try frame.present()
        let rects = damage.map { $0.intersection(frame.surface.bounds) }.filter { !$0.isEmpty }
        for buffer in buffers { buffer.missing += rects }
        let buffer = try freeBuffer()
        buffer.update(from: frame.surface)
        buffer.busy = true
        wlSurfaceAttach(surface, buffer.buffer, 0, 0)
        for r in rects { wlSurfaceDamageBuffer(surface, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height)) }
        if callback == nil, let made = wlSurfaceFrame(surface) {
            callback = made
            listen(made) { [unowned self] _, _ in frameShown() }
        }
        wlSurfaceCommit(surface)
        presentedFrames += 1
        wl_display_flush(display)
    }

    /// A buffer the compositor does not hold, made when all are held.
    private func freeBuffer() throws -> WaylandBuffer {
        if let free = buffers.first(where: { !$0.busy }) { return free }
        guard buffers.count < Self.maximumBuffers, let shm else {
            throw OutputError("the Wayland compositor holds all \(buffers.count) buffers of the window")
        }
        let buffer = try WaylandBuffer(shm: shm, for: frame.surface)
        buffers.append(buffer)
        listen(buffer.buffer) { [unowned self, unowned buffer] _, _ in released(buffer) }
        return buffer
    }

    private func released(_ buffer: WaylandBuffer) {
        buffer.busy = false
        if let index = retired.firstIndex(where: { $0 === buffer }) {
            listeners[buffer.buffer] = nil
            retired.remove(at: index)
        }
    }

    /// The frame callback: the frame presented last is on screen.
    private func frameShown() {
        if let callback {
            listeners[callback] = nil
            wl_callback_destroy(callback)
        }
        callback = nil
        shownFrame = ShownFrame(number: presentedFrames, time: Double(EventLoop.monotonicNanoseconds()) / 1e9)
        frameDone?()
    }

    public func attach(to loop: EventLoop) {
        self.loop = loop
        do {
            try loop.watch(wl_display_get_fd(display), for: .readable) { [weak self] _ in self?.readEvents() }
        } catch {
            log("wayland: cannot watch the compositor's connection: \(error)")
        }
        loop.schedule(after: 0) { [weak self] in
            guard let self, !closed else { return }
            wl_display_dispatch_pending(display)
            wl_display_flush(display)
        }
    }

    private func readEvents() {
        guard !closed else { return }
        if wl_display_dispatch(display) < 0 {
            loop?.unwatch(wl_display_get_fd(display))
            events?(.closed("the connection to the Wayland compositor (\(name.dropFirst(8))) was lost"))
            return
        }
        if !closed { wl_display_flush(display) }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        loop?.unwatch(wl_display_get_fd(display))
        seat = nil
        if let callback { wl_callback_destroy(callback) }
        buffers.removeAll()
        retired.removeAll()
        if let toplevel { waylandRequest(toplevel, XdgToplevelRequest.destroy.rawValue, destroying: true) }
        if let xdgSurface { waylandRequest(xdgSurface, XdgSurfaceRequest.destroy.rawValue, destroying: true) }
        if let surface { wlSurfaceDestroy(surface) }
        if let wmBase { waylandRequest(wmBase, XdgWmBaseRequest.destroy.rawValue, destroying: true) }
        for proxy in [compositor, shm].compactMap({ $0 }) { wl_proxy_destroy(proxy) }
        if let registry { wl_registry_destroy(registry) }
        listeners.removeAll()
        wl_display_flush(display)
        wl_display_disconnect(display)
    }
}
