import CWaylandServer
import VitrineCore
import VitrineRaster

/// `xdg_wm_base`: makes xdg surfaces and positioners, answers pings.
final class WMBase: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgShell["xdg_wm_base"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch XdgWmBaseRequest(rawValue: opcode) {
        case .destroy:
            destroy()
        case .create_positioner:
            _ = PlainObject(server: server, client: client, interface: "xdg_positioner", version: version, id: a[0].n)
        case .get_xdg_surface:
            guard let surface = ServerObject.of(a[1].resource, as: SurfaceObject.self) else { return }
            guard surface.role == nil else {
                postError(0, "wl_surface@\(wl_resource_get_id(surface.resource)) already has a role")
                return
            }
            guard let xdg = XDGSurfaceObject(server: server, client: client, version: version, id: a[0].n, surface: surface) else { return }
            xdg.wmBase = self
            surface.role = .xdg(xdg)
        case .pong:
            server.pings.pong(self, serial: a[0].u)
        case nil:
            break
        }
    }

    override func destroyed() { server.pings.forget(self) }
}

/// An object whose requests change nothing we show (`xdg_positioner`, a dismissed
/// `xdg_popup`): its destructor (opcode 0) is honoured.
final class PlainObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, interface: String, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgShell[interface], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == 0 { destroy() }
    }
}

/// `xdg_surface`: configure and acknowledge, window geometry; its role is a toplevel (a
/// popup is dismissed at once: popups are not shown yet).
final class XDGSurfaceObject: ServerObject {
    weak var surface: SurfaceObject?
    /// The `xdg_wm_base` that made it, which pings its client.
    weak var wmBase: WMBase?
    private(set) var toplevel: Toplevel?
    /// The serial of the last configure sent, and whether one was acknowledged.
    private var serial: UInt32 = 0
    private(set) var configured = false
    /// The first commit (which asks for the first configure) has been seen.
    private var initialCommit = false
    var geometry: PixelRect?
    private var pendingGeometry: PixelRect?

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, surface: SurfaceObject) {
        self.surface = surface
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgShell["xdg_surface"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch XdgSurfaceRequest(rawValue: opcode) {
        case .destroy:
            if toplevel?.isAlive == true {
                postError(6, "the xdg_toplevel must be destroyed before its xdg_surface")
                return
            }
            destroy()
        case .get_toplevel:
            guard toplevel == nil else {
                postError(2, "this xdg_surface already has a role object")
                return
            }
            guard let surface, surface.buffer == nil else {
                postError(3, "the surface has a buffer before its role was given")
                return
            }
            toplevel = Toplevel(server: server, client: client, version: version, id: a[0].n, xdg: self)
        case .get_popup:
            guard let popup = PlainObject(server: server, client: client, interface: "xdg_popup", version: version, id: a[0].n) else { return }
            popup.post(XdgPopupEvent.popup_done.rawValue)
        case .set_window_geometry:
            guard a[2].i > 0, a[3].i > 0 else {
                postError(5, "window geometry \(a[2].i)×\(a[3].i) is not positive")
                return
            }
            pendingGeometry = PixelRect(x: Int(a[0].i), y: Int(a[1].i), width: Int(a[2].i), height: Int(a[3].i))
        case .ack_configure:
            guard a[0].u <= serial, a[0].u > 0 else {
                postError(4, "ack_configure with serial \(a[0].u), which was never sent")
                return
            }
            configured = true
        case nil:
            break
        }
    }

    override func destroyed() {
        toplevel?.xdgGone()
        if case .xdg(let me) = surface?.role, me === self { surface?.role = nil }
    }

    func surfaceGone() { toplevel?.unmap() }

    /// Sends a configure: the toplevel's (size, states) then this one's serial.
    func configure() {
        serial &+= 1
        post(XdgSurfaceEvent.configure.rawValue, [wl_argument(u: serial)])
    }

    func committed(changed: Bool) {
        if geometry != pendingGeometry, pendingGeometry != nil {
            geometry = pendingGeometry
            toplevel?.contentChanged(whole: true)
        }
        guard let toplevel else {
            postError(1, "the xdg_surface was committed before it was given a role")
            return
        }
        if !initialCommit {
            initialCommit = true
            if let size = server.delegate?.initialSize(of: toplevel), size.width > 0, size.height > 0 {
                toplevel.configure(width: size.width, height: size.height)
                return
            }
            toplevel.sendConfigure()
            return
        }
        guard let surface else { return }
        if surface.buffer == nil {
            toplevel.unmap()
        } else if changed {
            toplevel.mapOrChange()
        } else if toplevel.isMapped, surface.awaitsFrame {
            server.changed(toplevel)
        }
    }
}

/// A client's toplevel window, which a `surface` layer can show.
public final class Toplevel: ServerObject {
    /// Unique while the daemon runs (the `surface` of `surface.list`).
    public internal(set) var id = 0
    public private(set) var title = ""
    public private(set) var appID = ""
    /// The client's process.
    public let pid: Int
    /// Whether it shows a buffer.
    public private(set) var isMapped = false
    /// Increases with every change of the picture.
    public private(set) var serial = 0
    /// What changed at each recent serial, in picture pixels; nil where all of it did.
    private var history: [(serial: Int, rects: [PixelRect]?)] = []
    /// The size last sent in a configure (0 × 0: the client chooses).
    public private(set) var configuredSize = (width: 0, height: 0)
    /// False once the client destroyed it (or went).
    public private(set) var isAlive = true
    private weak var xdg: XDGSurfaceObject?

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, xdg: XDGSurfaceObject) {
        self.xdg = xdg
        pid = WaylandServer.pid(of: client)
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgShell["xdg_toplevel"], version: version, id: id)
        server.register(self)
    }

    /// The surface at the root of the window.
    var root: SurfaceObject? { xdg?.surface }

    /// The `xdg_wm_base` its client made it with.
    var wmBase: WMBase? { xdg?.wmBase }

    /// False while its client leaves a ping unanswered (`WaylandServer.pingTimeout`).
    public var isResponsive: Bool { server.pings.isResponsive(wmBase) }

    /// The part of the root surface that is the window (xdg window geometry, without
    /// shadows), in window coordinates (the root surface's); nil while it has no buffer.
    public var windowRect: PixelRect? {
        guard let size = root?.size else { return nil }
        let whole = PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        return (xdg?.geometry ?? whole).intersection(whole)
    }

    /// Where the window changed after `serial`, in window coordinates; nil when all of it
    /// may have (or that serial is too old to tell).
    public func damage(since old: Int) -> [PixelRect]? {
        guard old >= 0, let first = history.first, first.serial <= old + 1 else { return nil }
        var rects: [PixelRect] = []
        for entry in history where entry.serial > old {
            guard let more = entry.rects else { return nil }
            rects += more
        }
        return rects
    }

    /// Whether every pixel of `windowRect` is opaque: the root surface's buffer is XRGB
    /// (subsurfaces are drawn over it).
    public var isOpaque: Bool { root?.buffer?.isOpaque ?? false }

    /// Whether frame callbacks wait for a frame.
    public var awaitsFrame: Bool { root?.awaitsFrame ?? false }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch XdgToplevelRequest(rawValue: opcode) {
        case .destroy:
            destroy()
        case .set_title:
            title = String(a[0].text.prefix(1024))
            if isMapped { server.changedMetadata(self) }
        case .set_app_id:
            appID = String(a[0].text.prefix(1024))
            if isMapped { server.changedMetadata(self) }
        default:
            break
        }
    }

    override func destroyed() {
        isAlive = false
        unmap()
        server.forget(self)
    }

    func xdgGone() { unmap() }

    /// Asks the client for a `width` × `height` window (0 × 0 lets it choose), unless
    /// that is the size last asked for.
    public func configure(width: Int, height: Int) {
        guard isAlive, (width, height) != configuredSize else { return }
        configuredSize = (width, height)
        sendConfigure()
    }

    func sendConfigure() {
        var states = wl_array()
        wl_array_init(&states)
        defer { wl_array_release(&states) }
        // activated, and maximized when the size is ours: the window fills it, undecorated.
        let list: [UInt32] = configuredSize.width > 0 ? [1, 4] : [4]
        for state in list {
            wl_array_add(&states, 4)?.storeBytes(of: state, as: UInt32.self)
        }
        withUnsafeMutablePointer(to: &states) { pointer in
            post(
                XdgToplevelEvent.configure.rawValue,
                [wl_argument(i: Int32(configuredSize.width)), wl_argument(i: Int32(configuredSize.height)), wl_argument(a: pointer)])
        }
        xdg?.configure()
        server.flush()
    }

    /// Asks the client to close the window.
    public func close() {
        guard isAlive else { return }
        post(XdgToplevelEvent.close.rawValue)
        server.flush()
    }

    func mapOrChange() {
        guard let root else { return }
        let rects = root.damage
        root.damage.removeAll()
        if !isMapped {
            isMapped = true
            note(nil)
            server.mapped(self)
        } else {
            note(rects)
            server.changed(self)
        }
    }

    func contentChanged(whole: Bool) {
        guard isMapped else { return }
        note(nil)
        server.changed(self)
    }

    private func note(_ rects: [PixelRect]?) {
        serial += 1
        history.append((serial, rects))
        if history.count > 8 { history.removeFirst(history.count - 8) }
    }

    func unmap() {
        guard isMapped else { return }
        isMapped = false
        note(nil)
        server.unmapped(self)
    }
}
