import CWaylandServer
import Glibc
import VitrineRaster
import VitrineSystem

/// What the X window manager hears of Xwayland's Wayland connection, on the loop.
public protocol XWaylandClientDelegate: AnyObject {
    /// Xwayland made the surface `id` (an X window's `WL_SURFACE_ID` may name it, before or
    /// after).
    func xwaylandMadeSurface(id: UInt32)
    /// An X window's surface started or stopped showing, or changed.
    func xwaylandSurface(_ surface: XWaylandSurface, did change: XWaylandSurface.Change)
    /// Xwayland destroyed an X window's surface (the window was unmapped or destroyed).
    func xwaylandSurfaceGone(_ surface: XWaylandSurface)
    /// Xwayland's connection closed (it exited, or was disconnected).
    func xwaylandDisconnected()
}

/// Xwayland as a client of the server: the Wayland connection the daemon hands the X server
/// it starts (one end of a socket pair, the other its `WAYLAND_SOCKET`), whose surfaces
/// become X11 windows' once the X window manager pairs them (`takeSurface`).
///
/// ```swift
/// let xwayland = try XWaylandClient(server: server, socket: ours)   // Xwayland has the other end
/// xwayland.delegate = windowManager
/// // WL_SURFACE_ID 18 for X window 0x400001:
/// if let surface = xwayland.takeSurface(id: 18, window: 0x400001) { … }
/// ```
///
/// Xwayland is our own child: its requests are not counted against the flood limit, since
/// an X client's flood reaches the server only as Xwayland's commits, paced by frame
/// callbacks.
public final class XWaylandClient {
    let client: OpaquePointer
    private unowned let server: WaylandServer
    /// Hears of the surfaces and of the connection's end.
    public weak var delegate: XWaylandClientDelegate?
    private var watch: UnsafeMutablePointer<vitrine_watch>?
    /// False once libwayland destroyed the client.
    public private(set) var isConnected = true

    /// Makes a client of `server` on `socket` (a connected Unix stream socket; libwayland
    /// owns it from then on).
    /// - Throws: `SystemError` when libwayland cannot make the client.
    public init(server: WaylandServer, socket: OwnedDescriptor) throws(SystemError) {
        guard let made = wl_client_create(server.display, socket.rawValue) else {
            throw SystemError.errno("make a Wayland client of", "Xwayland's socket")
        }
        _ = socket.release()
        client = made
        self.server = server
        watch = vitrine_watch_client(made, Unmanaged.passUnretained(self).toOpaque(), xwaylandClientGone)
        server.xwayland = self
    }

    deinit {
        if let watch { vitrine_unwatch(watch) }
        if isConnected { server.disconnect(client) }
        if server.xwayland === self { server.xwayland = nil }
    }

    /// Keeps the events for Xwayland (input) from being sent until `releaseEvents`: the X
    /// window manager holds them while Xwayland has yet to carry out a restacking or a
    /// focus change that they depend on (Xwayland picks the X window under the pointer by
    /// X's stacking, and reads the two connections in no set order).
    public func holdEvents() {
        if isConnected { server.hold(client) }
    }

    /// Sends the events held for Xwayland.
    public func releaseEvents() {
        server.release(client)
    }

    /// Xwayland's process, as the socket's credentials give it.
    public var pid: Int { isConnected ? WaylandServer.pid(of: client) : 0 }

    /// Gives Xwayland's surface `id` to the X window `window`: its picture from now on.
    /// Nil when Xwayland has no surface of that id (yet), or it has a role already.
    public func takeSurface(id: UInt32, window: UInt32) -> XWaylandSurface? {
        guard isConnected, let resource = wl_client_get_object(client, id), let surface = ServerObject.of(resource, as: SurfaceObject.self),
            surface.role == nil
        else { return nil }
        let role = XWaylandSurface(server: server, surface: surface, window: window, client: self)
        surface.role = .xwayland(role)
        return role
    }

    /// Xwayland made `surface`.
    func made(_ surface: SurfaceObject) {
        delegate?.xwaylandMadeSurface(id: wl_resource_get_id(surface.resource))
    }

    fileprivate func gone() {
        guard isConnected else { return }
        isConnected = false
        server.release(client)
        if let watch { vitrine_unwatch(watch) }
        watch = nil
        if server.xwayland === self { server.xwayland = nil }
        delegate?.xwaylandDisconnected()
    }
}

private let xwaylandClientGone: @convention(c) (UnsafeMutableRawPointer?) -> Void = { owner in
    guard let owner else { return }
    Unmanaged<XWaylandClient>.fromOpaque(owner).takeUnretainedValue().gone()
}

/// The role of a surface Xwayland made for an X11 window, given by the X window manager
/// (`XWaylandClient.takeSurface`): the window's picture, with the surfaces of the
/// override-redirect windows (menus, tooltips) that belong to it drawn over it at their
/// places (`show(overlays:)`).
///
/// The window shows while the window manager wants it shown (`show(_:)`: the X window is
/// mapped) and its surface has a buffer; what changes is told to the client's delegate as a
/// `Change`.
public final class XWaylandSurface {
    /// What happened to the window's picture.
    public enum Change: Sendable, Equatable {
        /// It shows a buffer now.
        case mapped
        /// It stopped showing (no buffer, or no longer wanted).
        case unmapped
        /// A shown picture changed, or a commit waits for a frame.
        case changed
    }

    private unowned let server: WaylandServer
    private weak var surface: SurfaceObject?
    private weak var client: XWaylandClient?
    /// The X window it was given to.
    public let window: UInt32
    /// What a layer draws of the window.
    public private(set) var picture: WindowPicture!
    /// The surface this one is drawn over, for an override-redirect window's.
    public private(set) weak var host: XWaylandSurface?
    /// The override-redirect windows' surfaces drawn over this one, bottom first, at their
    /// places in this surface's coordinates.
    private var shownOverlays: [(surface: XWaylandSurface, x: Int, y: Int)] = []
    /// The window manager wants the window shown (the X window is mapped).
    private var wanted = false
    /// Whether the picture shows as a window.
    public private(set) var isShown = false
    /// False once Xwayland destroyed the surface.
    public private(set) var isAlive = true

    init(server: WaylandServer, surface: SurfaceObject, window: UInt32, client: XWaylandClient) {
        self.server = server
        self.surface = surface
        self.window = window
        self.client = client
        picture = WindowPicture(server: server, layout: self)
    }

    /// The surface's size in surface coordinates; nil without a buffer.
    public var size: (width: Int, height: Int)? { surface?.size }

    /// Shows the window's picture while it has a buffer (`wanted`), or hides it.
    public func show(_ wanted: Bool) {
        self.wanted = wanted
        update(changed: false)
    }

    /// Draws `overlays` (override-redirect windows' surfaces) over this one, bottom first,
    /// each at its place in this surface's coordinates; those drawn before and not listed
    /// are no longer drawn here.
    public func show(overlays: [(surface: XWaylandSurface, x: Int, y: Int)]) {
        let now = overlays.filter { $0.surface !== self && $0.surface.isAlive }
        let same =
            now.count == shownOverlays.count && zip(now, shownOverlays).allSatisfy { $0.surface === $1.surface && $0.x == $1.x && $0.y == $1.y }
        guard !same else { return }
        for old in shownOverlays where old.surface.host === self && !now.contains(where: { $0.surface === old.surface }) { old.surface.host = nil }
        for new in now {
            if let other = new.surface.host, other !== self { other.forget(overlay: new.surface) }
            new.surface.host = self
        }
        shownOverlays = now
        overlaysChanged()
    }

    /// Whether the surface or one of its overlays waits for a frame callback.
    public var awaitsFrame: Bool { picture.awaitsFrame }

    private func forget(overlay: XWaylandSurface) {
        shownOverlays.removeAll { $0.surface === overlay }
        overlaysChanged()
    }

    private func overlaysChanged() {
        guard isShown else { return }
        picture.changed()
        client?.delegate?.xwaylandSurface(self, did: .changed)
    }

    /// Xwayland committed the surface.
    func committed(changed: Bool) {
        if let host {
            if changed {
                host.overlaysChanged()
            } else if host.isShown, surface?.awaitsFrame == true {
                host.client?.delegate?.xwaylandSurface(host, did: .changed)
            }
            return
        }
        update(changed: changed)
    }

    /// A commit holds presentation feedback: the window's owner decides whether a frame shows it.
    func commitWaits() {
        let shown = host ?? self
        guard shown.isShown else { return }
        shown.client?.delegate?.xwaylandSurface(shown, did: .changed)
    }

    private func update(changed: Bool) {
        if wanted, surface?.buffer != nil {
            if !isShown {
                isShown = true
                picture.replaced()
                client?.delegate?.xwaylandSurface(self, did: .mapped)
            } else if changed {
                picture.changed()
                client?.delegate?.xwaylandSurface(self, did: .changed)
            } else if picture.awaitsFrame {
                client?.delegate?.xwaylandSurface(self, did: .changed)
            }
        } else if isShown {
            isShown = false
            picture.cleared()
            client?.delegate?.xwaylandSurface(self, did: .unmapped)
        }
    }

    /// Xwayland destroyed the surface.
    func surfaceGone() {
        guard isAlive else { return }
        wanted = false
        update(changed: false)
        isAlive = false
        host?.forget(overlay: self)
        host = nil
        for overlay in shownOverlays where overlay.surface.host === self { overlay.surface.host = nil }
        shownOverlays = []
        picture.retire()
        client?.delegate?.xwaylandSurfaceGone(self)
    }
}

extension XWaylandSurface: PictureLayout {
    var root: SurfaceObject? { surface }
    var geometry: PixelRect? { nil }
    var overlays: [(surface: SurfaceObject, x: Int, y: Int)] {
        shownOverlays.compactMap { overlay in overlay.surface.surface.map { ($0, overlay.x, overlay.y) } }
    }
    var hiddenSurfaces: [SurfaceObject] { [] }
    var keyboardSurface: SurfaceObject? { surface }
}
