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
            _ = PositionerObject(server: server, client: client, version: version, id: a[0].n)
        case .get_xdg_surface:
            guard let surface = ServerObject.of(a[1].resource, as: SurfaceObject.self) else { return }
            guard surface.role == nil else {
                postError(XdgWmBaseError.role, "wl_surface@\(wl_resource_get_id(surface.resource)) already has a role")
                return
            }
            guard !surface.hasBuffer else {
                postError(XdgWmBaseError.invalid_surface_state, "wl_surface@\(wl_resource_get_id(surface.resource)) has a buffer attached or committed")
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

/// `xdg_surface`: configure and acknowledge, window geometry; its role is a toplevel or a
/// popup (Popups.swift).
final class XDGSurfaceObject: ServerObject {
    weak var surface: SurfaceObject?
    /// The `xdg_wm_base` that made it, which pings its client.
    weak var wmBase: WMBase?
    private(set) var toplevel: Toplevel?
    private(set) var popup: PopupObject?
    /// The serial of the last configure sent, the last acknowledged, and whether one was.
    private(set) var lastSerial: UInt32 = 0
    private(set) var ackedSerial: UInt32 = 0
    private(set) var configured = false
    /// The first commit (which asks for the first configure) has been seen.
    private(set) var initialCommit = false
    var geometry: PixelRect?
    private var pendingGeometry: PixelRect?

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, surface: SurfaceObject) {
        self.surface = surface
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgShell["xdg_surface"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch XdgSurfaceRequest(rawValue: opcode) {
        case .destroy:
            if toplevel?.isAlive == true || popup?.isAlive == true {
                postError(XdgSurfaceError.defunct_role_object, "the xdg_\(toplevel != nil ? "toplevel" : "popup") must be destroyed before its xdg_surface")
                return
            }
            destroy()
        case .get_toplevel:
            guard canTakeRole() else { return }
            toplevel = Toplevel(server: server, client: client, version: version, id: a[0].n, xdg: self)
        case .get_popup:
            guard canTakeRole(), let positioner = ServerObject.of(a[2].resource, as: PositionerObject.self) else { return }
            guard positioner.rules.isComplete else {
                wmBase?.postError(XdgWmBaseError.invalid_positioner, "get_popup with an xdg_positioner without a size or an anchor rectangle; set both")
                return
            }
            let parent = ServerObject.of(a[1].resource, as: XDGSurfaceObject.self)
            if let parent, parent.window == nil {
                wmBase?.postError(XdgWmBaseError.invalid_popup_parent, "the popup's parent xdg_surface is neither a toplevel nor a popup")
                return
            }
            popup = PopupObject(server: server, client: client, version: version, id: a[0].n, xdg: self, parent: parent, rules: positioner.rules)
        case .set_window_geometry:
            guard a[2].i > 0, a[3].i > 0 else {
                postError(XdgSurfaceError.invalid_size, "window geometry \(a[2].i)×\(a[3].i) is not positive")
                return
            }
            pendingGeometry = PixelRect(x: Int(a[0].i), y: Int(a[1].i), width: Int(a[2].i), height: Int(a[3].i))
        case .ack_configure:
            guard a[0].u <= lastSerial, a[0].u > 0 else {
                postError(XdgSurfaceError.invalid_serial, "ack_configure with serial \(a[0].u), which was never sent")
                return
            }
            configured = true
            ackedSerial = a[0].u
        case nil:
            break
        }
    }

    /// The surface has no role object yet and no buffer; else the client is told.
    private func canTakeRole() -> Bool {
        guard toplevel == nil, popup == nil else {
            postError(XdgSurfaceError.already_constructed, "this xdg_surface already has a role object")
            return false
        }
        guard let surface, surface.buffer == nil else {
            postError(XdgSurfaceError.unconfigured_buffer, "the surface has a buffer before its role was given")
            return false
        }
        return true
    }

    /// The toplevel this surface is, or whose popup it is.
    var window: Toplevel? { toplevel ?? popup?.toplevel }

    override func destroyed() {
        toplevel?.xdgGone()
        popup?.dismiss(notify: false)
        if case .xdg(let me) = surface?.role, me === self { surface?.role = nil }
    }

    func surfaceGone() {
        toplevel?.unmap()
        popup?.dismiss(notify: false)
    }

    /// Sends a configure (after the role's) with a new serial, which it returns.
    @discardableResult
    func configure() -> UInt32 {
        lastSerial &+= 1
        post(XdgSurfaceEvent.configure.rawValue, [wl_argument(u: lastSerial)])
        return lastSerial
    }

    func committed(changed: Bool) {
        if geometry != pendingGeometry, pendingGeometry != nil {
            geometry = pendingGeometry
            toplevel?.contentChanged()
        }
        if let popup {
            popup.committed(changed: changed)
            return
        }
        guard let toplevel else {
            postError(XdgSurfaceError.not_constructed, "the xdg_surface was committed before it was given a role")
            return
        }
        if !initialCommit {
            initialCommit = true
            if let size = server.delegate?.initialSize(of: toplevel), size.width > 0, size.height > 0 {
                toplevel.configure(width: size.width, height: size.height, scale: size.scale)
            } else {
                toplevel.sendConfigure()
            }
            guard server.acceptsUnacknowledgedBuffers, surface?.buffer != nil else { return }
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
public final class Toplevel: ServerObject, HostedWindow {
    /// Unique while the daemon runs (the `surface` of `surface.list`).
    public internal(set) var id = 0
    public var kind: WindowKind { .xdg }
    public private(set) var title = ""
    public private(set) var appID = ""
    public var instance: String? { nil }
    /// The client's process.
    public let pid: Int
    /// Whether it shows a buffer.
    public private(set) var isMapped = false
    /// Whether it ever showed one.
    private var hasMapped = false
    /// The size last sent in a configure (0 × 0: the client chooses).
    public private(set) var configuredSize = (width: 0, height: 0)
    /// False once the client destroyed it (or went).
    public private(set) var isAlive = true
    private(set) weak var xdg: XDGSurfaceObject?
    /// The popups, bottom first (each over those made before it).
    var popups: [PopupObject] = []
    /// The window's size when popups were last placed.
    private var placedSize: (width: Int, height: Int)?
    /// What a layer draws of the window.
    private(set) var windowPicture: WindowPicture!
    /// Output pixels to one of its logical pixels: its layer's output's scale, told to its
    /// surfaces (SurfaceScale.swift).
    public private(set) var scale = 1.0
    /// Its `zxdg_toplevel_decoration_v1`, if it has one.
    weak var decoration: ToplevelDecorationObject?

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, xdg: XDGSurfaceObject) {
        self.xdg = xdg
        pid = WaylandServer.pid(of: client)
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgShell["xdg_toplevel"], version: version, id: id)
        windowPicture = WindowPicture(server: server, layout: self)
        server.register(self)
    }

    public var picture: WindowPicture? { windowPicture }

    /// The surface at the root of the window.
    var root: SurfaceObject? { xdg?.surface }

    /// The `xdg_wm_base` its client made it with.
    var wmBase: WMBase? { xdg?.wmBase }

    /// False while its client leaves a ping unanswered (`WaylandServer.pingTimeout`).
    public var isResponsive: Bool { server.pings.isResponsive(wmBase) }

    /// The part of the window's surfaces that is the window (xdg window geometry, without
    /// shadows), in window coordinates (the root surface's); nil while it has no buffer.
    public var windowRect: PixelRect? { windowPicture.windowRect }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch XdgToplevelRequest(rawValue: opcode) {
        case .destroy:
            if let decoration {
                decoration.postError(ZxdgToplevelDecorationV1Error.orphaned, "the xdg_toplevel was destroyed before its zxdg_toplevel_decoration_v1")
                return
            }
            destroy()
        case .set_title:
            title = String(a[0].text.prefix(1024))
            if isMapped { server.changed(self) }
        case .set_app_id:
            appID = String(a[0].text.prefix(1024))
            if isMapped { server.changed(self) }
        case .set_maximized, .unset_maximized, .set_fullscreen, .unset_fullscreen:
            // The layer gives the size and the state; xdg-shell still wants a configure in reply.
            if xdg?.initialCommit == true { sendConfigure() }
        default:
            break
        }
    }

    override func destroyed() {
        isAlive = false
        dismissPopups()
        // (a window that had shown and stopped before hears that it is gone)
        if !isMapped, hasMapped { server.unmapped(self) }
        unmap()
        windowPicture.retire()
        server.forget(self)
    }

    func xdgGone() {
        dismissPopups()
        unmap()
    }

    /// Asks the client for a `width` × `height` window (0 × 0 lets it choose), unless
    /// that is the size last asked for.
    public func configure(width: Int, height: Int) {
        guard isAlive, (width, height) != configuredSize else { return }
        configuredSize = (width, height)
        sendConfigure()
    }

    /// Asks for a `width` × `height` window of output pixels on an output of `scale`: a
    /// window of that size divided by `scale` (its logical pixels), its surfaces told the
    /// scale first.
    public func configure(width: Int, height: Int, scale: Double) {
        guard isAlive else { return }
        if scale != self.scale {
            self.scale = scale
            for surface in [root].compactMap({ $0 }) + windowPicture.stack().map(\.surface) { surface.prefer(scale: scale) }
        }
        configure(width: max(1, Int((Double(width) / scale).rounded())), height: max(1, Int((Double(height) / scale).rounded())))
    }

    /// Sends the configure again (the decoration mode was asked), once the window had its first.
    func configureAgain() {
        if xdg?.initialCommit == true { sendConfigure() }
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

    /// Every toplevel is configured activated: the keyboard's coming and going is the
    /// seat's `enter` and `leave`.
    public func focus(_ focused: Bool) {}

    /// The seat picks a Wayland window's surface itself: nothing to restack.
    public func raise() {}

    func mapOrChange() {
        guard root != nil else { return }
        replacePopups()
        if !isMapped {
            isMapped = true
            hasMapped = true
            windowPicture.replaced()
            server.mapped(self)
        } else {
            windowPicture.changed()
            server.changed(self)
        }
    }

    /// A surface of the window (a subsurface, a popup, the window geometry) changed.
    func contentChanged() {
        guard isMapped else { return }
        replacePopups()
        windowPicture.changed()
        server.changed(self)
    }

    /// The window's size changed: reactive popups are placed again.
    private func replacePopups() {
        guard let window = windowRect, placedSize.map({ $0 != (window.width, window.height) }) ?? true else { return }
        placedSize = (window.width, window.height)
        for popup in popups { popup.parentResized() }
    }

    func unmap() {
        guard isMapped else { return }
        dismissPopups()
        isMapped = false
        windowPicture.cleared()
        server.unmapped(self)
    }
}

extension Toplevel: PictureLayout {
    var geometry: PixelRect? { xdg?.geometry }

    var overlays: [(surface: SurfaceObject, x: Int, y: Int)] {
        popups.compactMap { popup in
            guard popup.isMapped, let surface = popup.surface else { return nil }
            let origin = popup.surfaceOrigin
            return (surface, origin.x, origin.y)
        }
    }

    var hiddenSurfaces: [SurfaceObject] { popups.filter { !$0.isMapped }.compactMap(\.surface) }

    var keyboardSurface: SurfaceObject? { keyboardTarget }
}
