import CWaylandServer
import Glibc
import Logging
import VitrineSystem

/// The daemon's Wayland server: libwayland-server on the daemon's event loop, serving
/// `wl_compositor`, `wl_subcompositor`, `wl_shm`, `xdg_wm_base`, `wl_seat`, `wp_presentation`,
/// `wp_viewporter`, `wp_fractional_scale_manager_v1`, `zxdg_decoration_manager_v1` and a
/// `wl_output` per output on a listening socket the daemon made.
///
/// ```swift
/// let server = try WaylandServer(listening: fd, outputs: [.init(name: "HEADLESS-1", width: 1280, height: 800, rate: 60)], loop: loop, logger: logger)
/// server.delegate = self
/// ```
///
/// Requests are read and dispatched when the display's descriptor is readable; replies
/// are flushed after each dispatch and after each frame (`flush`). A client's socket is
/// non-blocking: one that does not read its events is disconnected by libwayland when
/// its buffer fills, never waited for.
public final class WaylandServer {
    /// An output as clients see it (`wl_output`).
    public struct Output: Sendable {
        public var name: String
        public var width: Int
        public var height: Int
        /// Frames per second.
        public var rate: Double
        /// Output pixels to a client's logical pixel (`[[outputs]] scale`); `wl_output.scale`
        /// tells it rounded up.
        public var scale: Double
        /// Where the output's top-left is on the wall, in output pixels (`zxdg_output_v1`
        /// tells it in logical pixels).
        public var x: Int
        public var y: Int

        public init(name: String, width: Int, height: Int, rate: Double, scale: Double = 1, x: Int = 0, y: Int = 0) {
            (self.name, self.width, self.height, self.rate, self.scale, self.x, self.y) = (name, width, height, rate, scale, x, y)
        }
    }

    let display: OpaquePointer
    let loop: EventLoop
    private let loopFD: CInt
    let logger: Logger
    /// Hears of the xdg toplevels' lives.
    public weak var delegate: WindowDelegate?
    /// Told what the pointer's cursor is when the pointer moves onto another client's
    /// surface and when that client sets or changes its cursor.
    public var cursorChanged: ((PointerCursor) -> Void)?
    /// The mapped and unmapped toplevels, by id.
    public private(set) var toplevels: [Int: Toplevel] = [:]
    /// The last window id given (to a toplevel or an X11 window).
    private var lastWindowID = 0
    /// The last version given to a window's picture.
    private var lastPictureSerial = 0
    /// The pictures of every window of every kind, until their windows go.
    var pictures: [ObjectIdentifier: WindowPicture] = [:]
    /// Xwayland's connection, while it has one.
    weak var xwayland: XWaylandClient?
    /// Whether an xdg surface may be given a buffer before it acknowledged its first
    /// configure (xdg-shell makes that `unconfigured_buffer`, and so does this server
    /// unless this is set); a first commit with a buffer then maps the window at once.
    /// Only for the WLCS integration: WLCS 1.5's own helpers attach their windows' first
    /// buffers so (fixed in WLCS 1.8), and every test that makes a window would fail.
    public var acceptsUnacknowledgedBuffers = false
    /// Requests a client may send in one second before it is disconnected as a flood.
    public var maximumRequestsPerSecond = 100_000
    /// Requests per client in the current second.
    private var requestCounts: [OpaquePointer: Int] = [:]
    private var countingSince = Double(EventLoop.monotonicNanoseconds()) / 1e9
    /// The objects each client holds, bounded.
    let limits: ClientLimits
    /// Clients whose events wait (`hold`).
    private var held: Set<OpaquePointer> = []
    /// Clients to disconnect once the dispatch that found them is over.
    private var flooding: Set<OpaquePointer> = []
    /// Bytes of surface buffers the daemon may still show (`limits.memory_mb` less what
    /// images and videos hold); a commit that does not fit disconnects its client.
    public var memoryAvailable: () -> Int = { .max }
    /// Bytes of the buffers the surfaces show (the clients' memory, which the daemon keeps
    /// mapped and draws from) and of pictures copied from shown buffers their clients destroyed.
    public internal(set) var bytes = 0
    /// Called when `bytes` changes.
    public var onMemory: ((Int) -> Void)?
    private var globals: [GlobalBinding] = []
    /// Every client's `wl_output`s, to find them without walking a client's objects (which
    /// may be going).
    var outputObjects: [OutputObject] = []
    /// libwayland is dispatching or flushing: clients may be half destroyed.
    private var insideLibwayland = false
    /// Pointer, keyboard and touch focus and the clients' devices.
    private(set) lazy var seat = SeatState(server: self)
    /// Pings of the clients that show windows.
    private(set) lazy var pings = PingWatch(server: self)
    /// Text inputs and the input method (TextInputRelay.swift).
    private(set) lazy var textInputs = TextInputRelay(server: self)
    /// The globals of keyboards and input methods, and who may bind them (InputGlobals.swift).
    private(set) lazy var inputGlobals = InputGlobals(server: self)
    /// Each output's capture, by name (Screencopy.swift).
    private(set) var captures: [String: OutputCapture] = [:]
    /// Screen capture managers and frames the clients hold.
    var captureClients = 0
    /// `zwp_linux_dmabuf_v1`, once offered (LinuxDmabuf.swift), and its buffers' images.
    var linuxDmabuf: LinuxDmabufGlobal?
    var dmabufImages: [OpaquePointer: DmabufImage] = [:]

    /// Serves the Wayland protocol on `listening` (a bound, listening, non-blocking,
    /// close-on-exec Unix socket, which the server closes when it goes).
    ///
    /// - Throws: `SystemError` when libwayland-server is not installed or the display
    ///   cannot be set up.
    public init(listening: OwnedDescriptor, outputs: [Output], loop: EventLoop, logger: Logger) throws(SystemError) {
        try FeatureLibraries("the Wayland server", vitrine_wayland_server_load).load()
        guard let display = wl_display_create() else {
            throw SystemError("cannot create the Wayland display (out of memory)")
        }
        self.display = display
        self.loop = loop
        self.logger = logger
        limits = ClientLimits(display: display, logger: logger)
        loopFD = wl_event_loop_get_fd(wl_display_get_event_loop(display))
        // libwayland owns the socket once it took it (wl_display_destroy closes it); when it
        // refuses it, it leaves it open, and `listening` closes it.
        guard wl_display_add_socket_fd(display, listening.rawValue) == 0 else {
            wl_display_destroy(display)
            throw SystemError("libwayland refused the Wayland socket")
        }
        _ = listening.release()
        guard wl_display_init_shm(display) == 0 else {
            wl_display_destroy(display)
            throw SystemError("cannot serve wl_shm (out of memory)")
        }
        globals.append(GlobalBinding(self, Compositor.interface, version: 6) { Compositor(server: $0, client: $1, version: $2, id: $3) })
        globals.append(
            GlobalBinding(self, vitrine_wl_subcompositor_interface(), version: 1) { SubcompositorObject(server: $0, client: $1, version: $2, id: $3) })
        globals.append(GlobalBinding(self, ServerInterfaceTable.xdgShell["xdg_wm_base"], version: 5) { WMBase(server: $0, client: $1, version: $2, id: $3) })
        globals.append(
            GlobalBinding(self, ServerInterfaceTable.viewporter["wp_viewporter"], version: 1) { ViewporterObject(server: $0, client: $1, version: $2, id: $3) })
        globals.append(
            GlobalBinding(self, vitrine_wl_data_device_manager_interface(), version: 3) {
                DataDeviceManagerObject(server: $0, client: $1, version: $2, id: $3)
            })
        globals.append(GlobalBinding(self, vitrine_wl_seat_interface(), version: 7) { SeatObject(server: $0, client: $1, version: $2, id: $3) })
        globals.append(GlobalBinding(self, PresentationObject.interface, version: 1) { PresentationObject(server: $0, client: $1, version: $2, id: $3) })
        globals.append(
            GlobalBinding(self, FractionalScaleManagerObject.interface, version: 1) {
                FractionalScaleManagerObject(server: $0, client: $1, version: $2, id: $3)
            })
        globals.append(
            GlobalBinding(self, DecorationManagerObject.interface, version: 1) { DecorationManagerObject(server: $0, client: $1, version: $2, id: $3) })
        for output in outputs {
            globals.append(
                GlobalBinding(self, vitrine_wl_output_interface(), version: 4) { OutputObject(server: $0, client: $1, version: $2, id: $3, output: output) })
        }
        for output in outputs { captures[output.name] = OutputCapture(output: output, loop: loop) }
        inputGlobals.offer()
        do {
            try loop.watch(loopFD, for: .readable) { [unowned self] _ in dispatch() }
        } catch {
            wl_display_destroy(display)
            throw error
        }
    }

    deinit {
        loop.unwatch(loopFD)
        wl_display_destroy_clients(display)
        wl_display_destroy(display)
    }

    /// Reads and handles what clients sent, then disconnects flooders and flushes.
    func dispatch() {
        insideLibwayland = true
        wl_event_loop_dispatch(wl_display_get_event_loop(display), 0)
        for client in flooding where isConnected(client) { wl_client_destroy(client) }
        insideLibwayland = false
        flooding.removeAll()
        flush()
    }

    /// Disconnects `client`, once libwayland is done with it when it is dispatching.
    func disconnect(_ client: OpaquePointer) {
        if insideLibwayland {
            flooding.insert(client)
        } else if isConnected(client) {
            wl_client_destroy(client)
        }
    }

    /// Whether `client` is still one of the display's: libwayland may have destroyed a
    /// flooding client itself in the same dispatch (a protocol error, a cap of
    /// `ClientLimits`), and destroying it again would free it twice.
    private func isConnected(_ client: OpaquePointer) -> Bool {
        guard let head = wl_display_get_client_list(display) else { return false }
        var link = head.pointee.next
        while let current = link, current != head {
            if wl_client_from_link(current) == client { return true }
            link = current.pointee.next
        }
        return false
    }

    /// Disconnects every client, their objects going while the server is whole (toplevels
    /// unmapped, pictures released). Call before letting the server go.
    public func disconnectClients() {
        wl_display_destroy_clients(display)
    }

    /// The globals this server offers clients, by interface name, with their versions
    /// (`wl_shm` is libwayland's own, version 1 in the libwayland this is built for).
    public var offeredGlobals: [(name: String, version: Int)] {
        let dmabuf: [(name: String, version: Int)] = linuxDmabuf?.binding.map { [$0.offered] } ?? []
        return [("wl_shm", 1)] + globals.map(\.offered) + inputGlobals.offered + dmabuf
    }

    /// Sends the events queued for clients (call after each frame), but those of held
    /// clients (`hold`). Within a dispatch or a flush (a client going, whose toplevel's
    /// unmapping drew a frame) it waits for theirs: libwayland would destroy the client it
    /// is destroying a second time.
    public func flush() {
        guard !insideLibwayland else { return }
        insideLibwayland = true
        if held.isEmpty {
            wl_display_flush_clients(display)
        } else if let head = wl_display_get_client_list(display) {
            var link = head.pointee.next
            while let current = link, current != head {
                link = current.pointee.next
                if let client = wl_client_from_link(current), !held.contains(client) { wl_client_flush(client) }
            }
        }
        insideLibwayland = false
    }

    /// Keeps `client`'s events from being sent until `release`: what is queued meanwhile
    /// (a few input events) waits in libwayland's buffer for the client.
    func hold(_ client: OpaquePointer) { held.insert(client) }

    /// Sends `client`'s events again, what waited first.
    func release(_ client: OpaquePointer) {
        guard held.remove(client) != nil else { return }
        flush()
    }

    /// Counts one request of `client`; false when it is over the rate and is to be
    /// disconnected (its request is then not handled).
    func count(requestFrom client: OpaquePointer) -> Bool {
        if let xwayland, client == xwayland.client { return true }
        let now = Double(EventLoop.monotonicNanoseconds()) / 1e9
        if now - countingSince >= 1 {
            requestCounts.removeAll(keepingCapacity: true)
            countingSince = now
        }
        let count = requestCounts[client, default: 0] + 1
        requestCounts[client] = count
        guard count > maximumRequestsPerSecond else { return true }
        if flooding.insert(client).inserted {
            logger.warning("Wayland client \(Self.describe(client)) sent more than \(maximumRequestsPerSecond) requests in a second: disconnected")
        }
        return false
    }

    /// "pid 123" for logs.
    static func describe(_ client: OpaquePointer) -> String { "pid \(pid(of: client))" }

    /// The process id of `client`.
    static func pid(of client: OpaquePointer) -> Int {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        wl_client_get_credentials(client, &pid, &uid, &gid)
        return Int(pid)
    }

    // MARK: Toplevels

    func register(_ toplevel: Toplevel) {
        toplevel.id = nextWindowID()
        toplevels[toplevel.id] = toplevel
    }

    /// A fresh window id: toplevels and X11 windows share them, so that `surface.list`
    /// names each window of either kind once.
    public func nextWindowID() -> Int {
        lastWindowID += 1
        return lastWindowID
    }

    /// A fresh version for a window's picture.
    func nextPictureSerial() -> Int {
        lastPictureSerial += 1
        return lastPictureSerial
    }

    /// The pictures of the windows of every kind (toplevels', X11 windows'), until each
    /// window goes: for presentation feedback.
    public var windowPictures: [WindowPicture] { Array(pictures.values) }

    /// A client made `surface`: Xwayland's may be one an X11 window waits for.
    func made(_ surface: SurfaceObject) {
        if let xwayland, surface.client == xwayland.client { xwayland.made(surface) }
    }

    func forget(_ toplevel: Toplevel) {
        toplevels[toplevel.id] = nil
    }

    func mapped(_ toplevel: Toplevel) {
        pings.toplevelMapped()
        delegate?.windowMapped(toplevel)
    }
    func unmapped(_ toplevel: Toplevel) { delegate?.windowUnmapped(toplevel) }

    /// A mapped toplevel changed (its picture, title or app id), or its commit waits for a frame.
    func changed(_ toplevel: Toplevel) { delegate?.windowChanged(toplevel) }

    /// Sends `wl_callback.done` to the frame callbacks of the windows whose pictures are in
    /// `shown` (those on screen in a frame just presented) with `milliseconds`, the
    /// presentation time.
    public func framePresented(showing shown: [WindowPicture], milliseconds: UInt32) {
        for picture in shown { picture.sendFrameDone(milliseconds) }
        flush()
    }

    /// Accounts `delta` bytes of pictures; false (nothing counted) when they do not fit.
    func reserve(_ delta: Int) -> Bool {
        guard delta <= 0 || delta <= memoryAvailable() else { return false }
        bytes += delta
        onMemory?(bytes)
        return true
    }
}

/// A global (`wl_global`) and what binding it makes.
final class GlobalBinding {
    private(set) var global: OpaquePointer?
    unowned let server: WaylandServer
    let make: (WaylandServer, OpaquePointer, UInt32, UInt32) -> ServerObject?
    /// The interface's name and the version offered.
    private(set) var offered = (name: "", version: 0)

    init(
        _ server: WaylandServer, _ interface: UnsafePointer<wl_interface>, version: Int32,
        make: @escaping (WaylandServer, OpaquePointer, UInt32, UInt32) -> ServerObject?
    ) {
        self.server = server
        self.make = make
        create(interface, version: version)
    }

    /// Offers the global to clients (the server keeps the binding as long as the display).
    func create(_ interface: UnsafePointer<wl_interface>, version: Int32) {
        offered = (String(cString: interface.pointee.name), Int(version))
        global = wl_global_create(server.display, interface, version, Unmanaged.passUnretained(self).toOpaque(), globalBind)
    }
}

private let globalBind: wl_global_bind_func_t = { client, data, version, id in
    guard let client, let data else { return }
    let binding = Unmanaged<GlobalBinding>.fromOpaque(data).takeUnretainedValue()
    _ = binding.make(binding.server, client, version, id)
}
