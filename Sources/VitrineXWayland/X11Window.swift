import CX11
import VitrineWayland

/// A top-level X11 window of a client of Xwayland, as the window manager knows it: its
/// place and properties, and the surface Xwayland draws it into. A managed window (one
/// that asks to be mapped) is a `HostedWindow` a surface layer can show; an
/// override-redirect window (a menu, a tooltip) is drawn over the managed window it belongs
/// to, at its place relative to it.
public final class X11Window: HostedWindow {
    /// The X window's id.
    public let xid: xcb_window_t
    /// The window manager that manages it.
    unowned let manager: XWindowManager
    /// Whether it placed itself (a menu, a tooltip) instead of asking the window manager.
    var isOverrideRedirect: Bool
    /// Its place and size on the X screen.
    var x: Int, y: Int, width: Int, height: Int

    // Properties (PropertyNotify keeps them current).
    var wmName = ""
    var netWMName: String?
    var wmClass: (instance: String, className: String)?
    var protocols: Set<xcb_atom_t> = []
    /// WM_HINTS' input field: false for a window that takes no focus itself.
    var acceptsInput = true
    var transientFor: xcb_window_t?
    var windowTypes: [xcb_atom_t] = []
    /// The states of `_NET_WM_STATE` (fullscreen, maximized…), as the client asked.
    var states: [xcb_atom_t] = []
    /// `_NET_WM_PID`, and the pid X-Resource gives (which wins).
    var netWMPID = 0
    var clientPID = 0

    /// The X window is mapped (for a managed window: the window manager mapped it).
    var isMappedInX = false
    /// Xwayland's surface of it, once paired (`WL_SURFACE_ID`).
    var surface: XWaylandSurface?
    /// The surface id `WL_SURFACE_ID` named before Xwayland made it.
    var awaitedSurface: UInt32?
    /// Its place in the stacking order the window manager keeps (higher is over).
    var stackOrder = 0
    /// The size last asked for (0 × 0: none yet).
    var configuredSize = (width: 0, height: 0)
    /// A MapRequest waits for the properties read after it.
    var mapRequested = false
    /// Its hosted id, once it was first shown.
    private var hostedID = 0
    /// The window host was told it mapped (it is one of the host's windows from then on).
    var isReported = false
    /// False once the X window is destroyed.
    public private(set) var isAlive = true

    init(xid: xcb_window_t, manager: XWindowManager, overrideRedirect: Bool, x: Int, y: Int, width: Int, height: Int) {
        (self.xid, self.manager, isOverrideRedirect) = (xid, manager, overrideRedirect)
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    // MARK: HostedWindow

    public var id: Int {
        if hostedID == 0 { hostedID = manager.nextWindowID() }
        return hostedID
    }

    public var kind: WindowKind { .x11 }
    public var title: String { netWMName ?? wmName }
    public var appID: String { wmClass?.className ?? "" }
    public var instance: String? { wmClass?.instance ?? "" }
    public var pid: Int { clientPID != 0 ? clientPID : netWMPID }
    public var isMapped: Bool { surface?.isShown ?? false }
    public var isResponsive: Bool { manager.pings.isResponsive(self) }
    public var picture: WindowPicture? { surface?.picture }

    /// The client's resource base: windows of one X client share it.
    var client: UInt32 { xid & ~manager.connection.resourceMask }

    /// Whether it speaks `protocol` (`WM_PROTOCOLS`).
    func speaks(_ atom: Atom) -> Bool { protocols.contains(manager.connection.atoms[atom]) }

    public func configure(width: Int, height: Int) {
        guard isAlive, !isOverrideRedirect, width > 0, height > 0, (width, height) != configuredSize else { return }
        configuredSize = (width, height)
        manager.place(self)
    }

    public func close() {
        guard isAlive else { return }
        manager.close(self)
    }

    public func focus(_ focused: Bool) {
        manager.focus(focused ? self : nil)
    }

    public func raise() {
        manager.raise(self)
    }

    /// The X window is gone.
    func destroyed() {
        isAlive = false
    }
}
