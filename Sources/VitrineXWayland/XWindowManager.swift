import CX11
import Glibc
import Logging
import VitrineSystem
import VitrineWayland

/// The daemon's X window manager: a client of Xwayland on the daemon's loop that manages
/// the top-level X11 windows (substructure redirect on the root, Composite's redirection
/// as wlroots sets it), pairs each with the surface Xwayland draws it into
/// (`WL_SURFACE_ID`), and tells the window host about the managed ones as `HostedWindow`s:
/// mapped, changed, unmapped, unresponsive. It sizes them as their layers say, gives them
/// the keyboard focus, raises them under the pointer, asks them to close or kills their
/// client, and draws the override-redirect windows (menus, tooltips) over the window they
/// belong to.
///
/// ```swift
/// let manager = XWindowManager(connection: connection, xwayland: client, server: server, loop: loop, logger: logger)
/// manager.delegate = windowHost
/// ```
///
/// Nothing here waits for the X server: requests are sent, their replies collected as they
/// arrive (`Pending`), and events are read at most `eventBudget` at a turn of the loop, so
/// that a client flooding the server with windows or properties cannot hold the loop.
public final class XWindowManager {
    /// What a reply answers.
    enum Pending {
        /// A property of a window (the atom's value).
        case property(xcb_window_t, xcb_atom_t)
        /// X-Resource's ids of a window's client: its pid.
        case clientPID(xcb_window_t)
        /// A round trip after the properties a MapRequest read: the window may be mapped.
        case mapRequested(xcb_window_t)
        /// A round trip after a restacking or a focus change: the input held for Xwayland
        /// may go.
        case barrier
    }

    /// Events handled at most per turn of the loop.
    static let eventBudget = 256
    /// Top-level windows known at most; more are not managed (a client making windows
    /// without end).
    static let maximumWindows = 4096

    let connection: XConnection
    let xwayland: XWaylandClient
    private unowned let server: WaylandServer
    let loop: EventLoop
    let logger: Logger
    /// Hears of the managed windows.
    public weak var delegate: WindowDelegate?
    /// The top-level windows, by X id.
    var windows: [xcb_window_t: X11Window] = [:]
    /// The window manager's own window (`_NET_SUPPORTING_WM_CHECK`, the selections' owner).
    private let wmWindow: xcb_window_t
    /// Surface ids that `WL_SURFACE_ID` named before Xwayland made them, and their windows.
    var unpaired: [UInt32: xcb_window_t] = [:]
    /// Replies awaited, in the order of their requests (replies come in that order).
    private var pending: [(sequence: UInt32, request: Pending)] = []
    private var pendingHead = 0
    /// Properties being read, and those that changed again meanwhile (read once more).
    var reading: Set<PropertyKey> = []
    var stale: Set<PropertyKey> = []
    /// The window the keyboard focus is on.
    weak var focused: X11Window?
    /// The highest stacking order given (a window raised gets the next).
    var topOrder = 0
    /// Override-redirect windows moved, came or went: their places are worked out again.
    var overlaysDirty = false
    /// A turn of the loop is scheduled to read on.
    private var continuing = false
    /// Pings of the windows that take `_NET_WM_PING`.
    private(set) lazy var pings = X11Pings(manager: self)
    private var tooManyLogged = false
    /// Whether the connection broke.
    public private(set) var isBroken = false
    /// Round trips sent and come back: the input held for Xwayland goes when all have
    /// (`barrier`).
    var barriersSent = 0
    var barriersPassed = 0

    /// A window's property.
    struct PropertyKey: Hashable {
        let window: xcb_window_t
        let atom: xcb_atom_t
    }

    /// Manages Xwayland's windows over `connection`, pairing them with `xwayland`'s surfaces.
    /// - Throws: `SystemError` when the connection cannot be watched.
    init(connection: XConnection, xwayland: XWaylandClient, server: WaylandServer, loop: EventLoop, logger: Logger) throws(SystemError) {
        self.connection = connection
        self.xwayland = xwayland
        self.server = server
        self.loop = loop
        self.logger = logger
        let c = connection.connection
        let atoms = connection.atoms
        var mask = XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue | XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
        _ = xcb_change_window_attributes(c, connection.root, XCB_CW_EVENT_MASK.rawValue, &mask)
        if connection.hasComposite {
            _ = xcb_composite_redirect_subwindows(c, connection.root, UInt8(XCB_COMPOSITE_REDIRECT_MANUAL.rawValue))
        }
        wmWindow = xcb_generate_id(c)
        _ = xcb_create_window(
            c, UInt8(XCB_COPY_FROM_PARENT), wmWindow, connection.root, 0, 0, 10, 10, 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
            connection.rootVisual, 0, nil)
        Self.setString(c, wmWindow, atoms[.netWMName], atoms[.utf8String], "vitrined")
        Self.setWindows(c, wmWindow, atoms[.netSupportingWMCheck], [wmWindow])
        Self.setWindows(c, connection.root, atoms[.netSupportingWMCheck], [wmWindow])
        let supported: [Atom] = [
            .netWMState, .netWMStateFullscreen, .netWMStateMaximizedVert, .netWMStateMaximizedHorz, .netActiveWindow, .netWMPing, .netWMName,
            .netSupportingWMCheck, .netClientList, .netFrameExtents,
        ]
        var list = supported.map { atoms[$0] }
        _ = xcb_change_property(
            c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), connection.root, atoms[.netSupported], XCB_ATOM_ATOM.rawValue, 32, UInt32(list.count), &list)
        Self.setWindows(c, connection.root, atoms[.netActiveWindow], [0])
        // Owning WM_S0 tells Xwayland that a window manager runs: only then does it accept
        // X11 clients on its sockets.
        _ = xcb_set_selection_owner(c, wmWindow, atoms[.wmS0], UInt32(XCB_CURRENT_TIME))
        _ = xcb_set_selection_owner(c, wmWindow, atoms[.netWMCMS0], UInt32(XCB_CURRENT_TIME))
        connection.flush()
        try loop.watch(connection.fd, for: .readable) { [unowned self] _ in pump() }
        xwayland.delegate = self
    }

    deinit {
        if !isBroken { loop.unwatch(connection.fd) }
    }

    /// The managed windows that have shown (the window host's), by X id order.
    public var hostedWindows: [any HostedWindow] {
        windows.values.filter { !$0.isOverrideRedirect && $0.isReported && $0.isAlive }.sorted { $0.id < $1.id }
    }

    /// Seconds a window that takes `_NET_WM_PING` may leave a ping unanswered.
    public var pingTimeout: Double {
        get { pings.timeout }
        set { pings.timeout = newValue }
    }

    func nextWindowID() -> Int { server.nextWindowID() }

    /// Stops managing: every shown window is unmapped for the window host, and the
    /// connection is no longer read (Xwayland is gone, or going).
    public func shutDown() {
        guard !isBroken else { return }
        isBroken = true
        loop.unwatch(connection.fd)
        barriersPassed = barriersSent
        xwayland.releaseEvents()
        for window in windows.values { forget(window) }
        windows.removeAll()
        unpaired.removeAll()
    }

    // MARK: Reading

    /// Handles what the server sent: events (at most `eventBudget`) and the replies that
    /// arrived; comes back at the next turn when more is queued.
    func pump() {
        continuing = false
        guard !isBroken else { return }
        let c = connection.connection
        var handled = 0
        var progress = true
        while progress, handled < Self.eventBudget {
            progress = false
            while handled < Self.eventBudget, let event = xcb_poll_for_event(c) {
                handle(event)
                free(event)
                handled += 1
                progress = true
            }
            if collectReplies() { progress = true }
        }
        if overlaysDirty { updateOverlays() }
        connection.flush()
        if connection.hasError {
            logger.warning("Xwayland's window manager connection broke: X11 windows are no longer managed")
            shutDown()
            return
        }
        if handled >= Self.eventBudget, !continuing {
            continuing = true
            loop.schedule(after: 0) { [weak self] in self?.pump() }
        }
    }

    /// Sends a request whose reply `request` says what to do with.
    func expect(_ sequence: UInt32, _ request: Pending) {
        pending.append((sequence, request))
    }

    /// Handles the replies that arrived, in order; whether there were any.
    private func collectReplies() -> Bool {
        var any = false
        while pendingHead < pending.count {
            let (sequence, request) = pending[pendingHead]
            var reply: UnsafeMutableRawPointer?
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            guard xcb_poll_for_reply(connection.connection, sequence, &reply, &error) != 0 else { break }
            pendingHead += 1
            any = true
            answer(request, reply: reply.map(UnsafeRawPointer.init))
            free(reply)
            free(error)
        }
        if pendingHead > 64, pendingHead * 2 > pending.count {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
        return any
    }

    private func answer(_ request: Pending, reply: UnsafeRawPointer?) {
        switch request {
        case .property(let window, let atom): propertyRead(window, atom, reply: reply)
        case .clientPID(let window): clientIDsRead(window, reply: reply)
        case .mapRequested(let xid): mapRequestedWindow(xid)
        case .barrier: barrierPassed()
        }
    }

    private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>) {
        let raw = UnsafeRawPointer(event)
        switch Int32(event.pointee.response_type & 0x7f) {
        case 0:
            let error = raw.load(as: xcb_generic_error_t.self)
            logger.debug("X error \(error.error_code) for request \(error.major_code).\(error.minor_code) (resource \(error.resource_id))")
        case XCB_CREATE_NOTIFY: created(raw.load(as: xcb_create_notify_event_t.self))
        case XCB_DESTROY_NOTIFY: destroyed(raw.load(as: xcb_destroy_notify_event_t.self).window)
        case XCB_MAP_REQUEST: mapRequest(raw.load(as: xcb_map_request_event_t.self).window)
        case XCB_MAP_NOTIFY: mapped(raw.load(as: xcb_map_notify_event_t.self))
        case XCB_UNMAP_NOTIFY: unmapped(raw.load(as: xcb_unmap_notify_event_t.self).window)
        case XCB_CONFIGURE_REQUEST: configureRequest(raw.load(as: xcb_configure_request_event_t.self))
        case XCB_CONFIGURE_NOTIFY: configured(raw.load(as: xcb_configure_notify_event_t.self))
        case XCB_PROPERTY_NOTIFY:
            let event = raw.load(as: xcb_property_notify_event_t.self)
            if windows[event.window] != nil { read(event.atom, of: event.window) }
        case XCB_CLIENT_MESSAGE: clientMessage(raw.load(as: xcb_client_message_event_t.self))
        case XCB_FOCUS_IN: focusIn(raw.load(as: xcb_focus_in_event_t.self))
        default: break
        }
    }

    // MARK: Windows' lives

    private func created(_ event: xcb_create_notify_event_t) {
        guard event.parent == connection.root, event.window != wmWindow, windows[event.window] == nil else { return }
        guard windows.count < Self.maximumWindows else {
            if !tooManyLogged { logger.warning("X11 clients made more than \(Self.maximumWindows) windows: the others are not managed") }
            tooManyLogged = true
            return
        }
        let window = X11Window(
            xid: event.window, manager: self, overrideRedirect: event.override_redirect != 0, x: Int(event.x), y: Int(event.y), width: Int(event.width),
            height: Int(event.height))
        windows[event.window] = window
        var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue | XCB_EVENT_MASK_FOCUS_CHANGE.rawValue
        _ = xcb_change_window_attributes(connection.connection, event.window, XCB_CW_EVENT_MASK.rawValue, &mask)
        readProperties(of: window)
    }

    private func destroyed(_ xid: xcb_window_t) {
        guard let window = windows[xid] else { return }
        forget(window)
        windows[xid] = nil
        overlaysDirty = true
        updateClientList()
    }

    /// `window` is gone: the window host hears it unmapped, and not alive.
    private func forget(_ window: X11Window) {
        let wasMapped = window.isMapped
        window.destroyed()
        window.isMappedInX = false
        if let id = window.awaitedSurface { unpaired[id] = nil }
        pings.forget(window)
        if focused === window { focused = nil }
        // (unmapping tells the host of a window that shows; one that showed before hears it here)
        window.surface?.show(false)
        if !wasMapped, window.isReported, !window.isOverrideRedirect { delegate?.windowUnmapped(window) }
        window.surface = nil
    }

    private func mapRequest(_ xid: xcb_window_t) {
        guard let window = windows[xid] else {
            _ = xcb_map_window(connection.connection, xid)
            return
        }
        // The properties are read again (the client set them after it made the window,
        // maybe after the first read): rules match them when the window is mapped.
        window.mapRequested = true
        readProperties(of: window)
        expect(xcb_get_input_focus(connection.connection).sequence, .mapRequested(xid))
    }

    /// The properties a MapRequest read have arrived: the window gets its first size (its
    /// rule's layer's, if any) and is mapped.
    private func mapRequestedWindow(_ xid: xcb_window_t) {
        guard let window = windows[xid], window.isAlive, window.mapRequested else { return }
        window.mapRequested = false
        let c = connection.connection
        let atoms = connection.atoms
        if window.configuredSize.width == 0, let size = delegate?.initialSize(of: window), size.width > 0, size.height > 0 {
            window.configuredSize = (size.width, size.height)
        }
        place(window)
        var state: [UInt32] = [1, 0]  // NormalState, no icon window
        _ = xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), xid, atoms[.wmState], atoms[.wmState], 32, 2, &state)
        var extents: [UInt32] = [0, 0, 0, 0]
        _ = xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), xid, atoms[.netFrameExtents], XCB_ATOM_CARDINAL.rawValue, 32, 4, &extents)
        topOrder += 1
        window.stackOrder = topOrder
        restackAbove(window)
        _ = xcb_map_window(c, xid)
    }

    private func mapped(_ event: xcb_map_notify_event_t) {
        guard let window = windows[event.window] else { return }
        window.isMappedInX = true
        window.isOverrideRedirect = event.override_redirect != 0
        if window.isOverrideRedirect {
            topOrder += 1
            window.stackOrder = topOrder
            overlaysDirty = true
        } else {
            window.surface?.show(true)
        }
    }

    private func unmapped(_ xid: xcb_window_t) {
        guard let window = windows[xid] else { return }
        window.isMappedInX = false
        if window.isOverrideRedirect {
            overlaysDirty = true
            return
        }
        window.surface?.show(false)
        var state: [UInt32] = [0, 0]  // WithdrawnState
        let atom = connection.atoms[.wmState]
        _ = xcb_change_property(connection.connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), xid, atom, atom, 32, 2, &state)
        if focused === window { focused = nil }
        updateClientList()
    }

    private func configureRequest(_ event: xcb_configure_request_event_t) {
        guard let window = windows[event.window], !window.isOverrideRedirect else { return }
        let mask = UInt32(event.value_mask)
        if window.configuredSize.width == 0 {
            // No layer gives its size yet: it may choose its own.
            if mask & XCB_CONFIG_WINDOW_WIDTH.rawValue != 0 { window.width = Int(event.width) }
            if mask & XCB_CONFIG_WINDOW_HEIGHT.rawValue != 0 { window.height = Int(event.height) }
        }
        place(window)
    }

    private func configured(_ event: xcb_configure_notify_event_t) {
        guard let window = windows[event.window], event.window != wmWindow else { return }
        let moved = (Int(event.x), Int(event.y), Int(event.width), Int(event.height)) != (window.x, window.y, window.width, window.height)
        (window.x, window.y, window.width, window.height) = (Int(event.x), Int(event.y), Int(event.width), Int(event.height))
        window.isOverrideRedirect = event.override_redirect != 0
        if moved { overlaysDirty = true }
    }

    // MARK: Surfaces

    /// `WL_SURFACE_ID`: Xwayland draws `window` into its surface `id`, made now or soon.
    func pair(_ window: X11Window, surface id: UInt32) {
        if let old = window.awaitedSurface { unpaired[old] = nil }
        window.awaitedSurface = nil
        guard let surface = xwayland.takeSurface(id: id, window: window.xid) else {
            window.awaitedSurface = id
            unpaired[id] = window.xid
            return
        }
        window.surface = surface
        if !window.isOverrideRedirect, window.isMappedInX { surface.show(true) }
        overlaysDirty = true
    }

    /// Works out which managed window each mapped override-redirect window belongs to and
    /// where it is on it, and draws them there.
    func updateOverlays() {
        overlaysDirty = false
        var overlays: [xcb_window_t: [X11Window]] = [:]
        for window in windows.values where window.isOverrideRedirect && window.isMappedInX && window.surface != nil {
            if let host = host(of: window) { overlays[host.xid, default: []].append(window) }
        }
        for window in windows.values where !window.isOverrideRedirect {
            guard let surface = window.surface else { continue }
            let shown = (overlays[window.xid] ?? []).sorted { $0.stackOrder < $1.stackOrder }.compactMap { overlay in
                overlay.surface.map { (surface: $0, x: overlay.x - window.x, y: overlay.y - window.y) }
            }
            surface.show(overlays: shown)
        }
    }

    /// The managed window an override-redirect window is drawn over: the one it is
    /// transient for, else the focused window of its client, else its client's topmost
    /// shown window.
    private func host(of window: X11Window) -> X11Window? {
        var current = window
        for _ in 0..<8 {
            guard let parent = current.transientFor.flatMap({ windows[$0] }) else { break }
            if !parent.isOverrideRedirect { return parent.isMapped ? parent : nil }
            current = parent
        }
        if let focused, focused.client == window.client, focused.isMapped { return focused }
        return windows.values.filter { !$0.isOverrideRedirect && $0.client == window.client && $0.isMapped }.max { $0.stackOrder < $1.stackOrder }
    }

    /// `_NET_CLIENT_LIST`: the managed windows shown.
    func updateClientList() {
        var list = windows.values.filter { !$0.isOverrideRedirect && $0.isMapped }.sorted { $0.id < $1.id }.map(\.xid)
        _ = xcb_change_property(
            connection.connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), connection.root, connection.atoms[.netClientList], XCB_ATOM_WINDOW.rawValue, 32,
            UInt32(list.count), &list)
    }

    // MARK: Helpers

    static func setString(_ c: OpaquePointer, _ window: xcb_window_t, _ property: xcb_atom_t, _ type: xcb_atom_t, _ text: String) {
        var bytes = Array(text.utf8)
        _ = xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, type, 8, UInt32(bytes.count), &bytes)
    }

    static func setWindows(_ c: OpaquePointer, _ window: xcb_window_t, _ property: xcb_atom_t, _ values: [xcb_window_t]) {
        var values = values
        _ = xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, property, XCB_ATOM_WINDOW.rawValue, 32, UInt32(values.count), &values)
    }
}

extension XWindowManager: XWaylandClientDelegate {
    public func xwaylandMadeSurface(id: UInt32) {
        guard let xid = unpaired.removeValue(forKey: id), let window = windows[xid] else { return }
        pair(window, surface: id)
        if overlaysDirty { updateOverlays() }
        connection.flush()
    }

    public func xwaylandSurface(_ surface: XWaylandSurface, did change: XWaylandSurface.Change) {
        guard let window = windows[surface.window], window.surface === surface, !window.isOverrideRedirect else { return }
        switch change {
        case .mapped:
            window.isReported = true
            updateClientList()
            overlaysDirty = true
            pings.windowShown()
            delegate?.windowMapped(window)
        case .unmapped:
            updateClientList()
            delegate?.windowUnmapped(window)
        case .changed:
            delegate?.windowChanged(window)
        }
        connection.flush()
    }

    public func xwaylandSurfaceGone(_ surface: XWaylandSurface) {
        guard let window = windows[surface.window], window.surface === surface else { return }
        window.surface = nil
        overlaysDirty = true
    }

    public func xwaylandDisconnected() {
        shutDown()
    }
}
