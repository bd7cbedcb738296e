import CWaylandServer
import VitrineRaster

/// `xdg_popup`: a menu or tooltip of a toplevel, drawn over the window at the place its
/// positioner gives relative to its parent (the toplevel or another popup), kept within
/// the window (the toplevel's layer is its output), and clipped to it where the
/// adjustments cannot. A popup with an explicit grab is dismissed with its chain by a
/// press outside the client's popups, and holds the keyboard focus meanwhile.
final class PopupObject: ServerObject {
    weak var xdg: XDGSurfaceObject?
    /// The parent's xdg surface (a toplevel's or a popup's).
    private weak var parentXDG: XDGSurfaceObject?
    /// The toplevel the chain belongs to.
    private(set) weak var toplevel: Toplevel?
    private var rules: PositionerRules
    /// The place shown, in the parent's window geometry's coordinates; and places sent in
    /// configures not yet acknowledged and committed, by serial.
    private(set) var place: PixelRect
    private var pending: [(serial: UInt32, place: PixelRect)] = []
    /// The surface rectangle last drawn, in the root surface's coordinates.
    private var drawn: PixelRect?
    private(set) var isGrabbing = false
    private(set) var isDismissed = false
    private(set) var isMapped = false
    private(set) var isAlive = true
    private var initialCommit = false

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, xdg: XDGSurfaceObject, parent: XDGSurfaceObject?, rules: PositionerRules) {
        self.xdg = xdg
        parentXDG = parent
        toplevel = parent?.window
        self.rules = rules
        place = PixelRect(x: 0, y: 0, width: rules.width, height: rules.height)
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgShell["xdg_popup"], version: version, id: id)
        toplevel?.popups.append(self)
        place = placement()
        // Without a parent (one another protocol would give), nothing shows it.
        if parent == nil { dismiss(notify: true) }
    }

    /// The parent popup, nil for a toplevel's.
    var parent: PopupObject? { parentXDG?.popup }

    var surface: SurfaceObject? { xdg?.surface }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch XdgPopupRequest(rawValue: opcode) {
        case .destroy:
            if toplevel?.popups.contains(where: { $0.parent === self }) == true {
                xdg?.wmBase?.postError(XdgWmBaseError.not_the_topmost_popup, "xdg_popup destroyed before the popups over it; destroy the topmost popup first")
                return
            }
            destroy()
        case .grab:
            grab(serial: a[1].u)
        case .reposition:
            guard let positioner = ServerObject.of(a[0].resource, as: PositionerObject.self) else { return }
            guard positioner.rules.isComplete else {
                xdg?.wmBase?.postError(XdgWmBaseError.invalid_positioner, "reposition with an xdg_positioner without a size or an anchor rectangle")
                return
            }
            rules = positioner.rules
            guard !isDismissed else { return }
            post(XdgPopupEvent.repositioned.rawValue, [wl_argument(u: a[1].u)])
            configure()
        case nil:
            break
        }
    }

    override func destroyed() {
        isAlive = false
        dismiss(notify: false)
        toplevel?.popups.removeAll { $0 === self }
        if let toplevel { server.refocus(toplevel) }
    }

    private func grab(serial: UInt32) {
        guard !initialCommit else {
            postError(XdgPopupError.invalid_grab, "grab after the popup's first commit; grab before committing it")
            return
        }
        if let parent, !parent.isGrabbing {
            postError(XdgPopupError.invalid_grab, "grab on a popup whose parent popup has no grab; a grabbing popup's parent is a toplevel or a grabbing popup")
            return
        }
        guard !isDismissed, parent?.isDismissed != true, server.seat.isPress(serial, of: client) else {
            dismiss(notify: true)
            return
        }
        isGrabbing = true
        for other in server.toplevels.values where other !== toplevel && other.popups.contains(where: \.isGrabbing) { other.dismissPopups() }
    }

    /// The place the rules give against the parent and the window's area.
    private func placement() -> PixelRect {
        guard let toplevel else { return place }
        var size = (width: toplevel.configuredSize.width, height: toplevel.configuredSize.height)
        if let window = toplevel.windowRect { size = (window.width, window.height) }
        if parent == nil, let expected = rules.parentSize, rules.parentConfigure == nil || rules.parentConfigure == toplevel.xdg?.lastSerial {
            size = expected
        }
        let origin = parent?.windowOrigin ?? (x: 0, y: 0)
        return rules.place(within: PixelRect(x: -origin.x, y: -origin.y, width: size.width, height: size.height))
    }

    /// Where the popup's window geometry is, relative to the toplevel's.
    var windowOrigin: (x: Int, y: Int) {
        guard let base = parent?.windowOrigin else { return (place.x, place.y) }
        return (base.x + place.x, base.y + place.y)
    }

    /// Where the popup's surface is in the root surface's coordinates.
    var surfaceOrigin: (x: Int, y: Int) {
        let window = windowOrigin
        let top = toplevel?.windowRect.map { ($0.x, $0.y) } ?? (0, 0)
        let own = xdg?.geometry.map { ($0.x, $0.y) } ?? (0, 0)
        return (top.0 + window.x - own.0, top.1 + window.y - own.1)
    }

    /// Sends configure (the place and size) and the xdg_surface's configure.
    private func configure() {
        guard let xdg else { return }
        let next = placement()
        post(
            XdgPopupEvent.configure.rawValue,
            [
                wl_argument(i: Int32(clamping: next.x)), wl_argument(i: Int32(clamping: next.y)), wl_argument(i: Int32(next.width)),
                wl_argument(i: Int32(next.height)),
            ])
        pending.append((xdg.configure(), next))
        if pending.count > 16 { pending.removeFirst() }
    }

    /// The parent's size changed: a reactive popup is placed again.
    func parentResized() {
        guard rules.reactive, !isDismissed, placement() != (pending.last?.place ?? place) else { return }
        configure()
    }

    func committed(changed: Bool) {
        guard !isDismissed, let surface else { return }
        if !initialCommit {
            initialCommit = true
            configure()
            return
        }
        if let acked = xdg?.ackedSerial, let index = pending.lastIndex(where: { $0.serial <= acked }) {
            place = pending[index].place
            pending.removeFirst(index + 1)
        }
        isMapped = surface.buffer != nil && toplevel?.isMapped == true
        let now = isMapped ? surface.size.map { PixelRect(x: surfaceOrigin.x, y: surfaceOrigin.y, width: $0.width, height: $0.height) } : nil
        if now != drawn || (changed && now != nil) {
            toplevel?.contentChanged()
        } else if isMapped, surface.awaitsFrame, let toplevel {
            server.changed(toplevel)
        }
        surface.damage.removeAll()
        drawn = now
        if isGrabbing, isMapped, let toplevel { server.refocus(toplevel) }
    }

    /// Dismissed: popups over it first, each told `popup_done` when `notify`, then hidden.
    func dismiss(notify: Bool) {
        guard !isDismissed else { return }
        for child in (toplevel?.popups ?? []).reversed() where child.parent === self { child.dismiss(notify: notify) }
        isDismissed = true
        isMapped = false
        if notify { post(XdgPopupEvent.popup_done.rawValue) }
        if let surface { server.hidden(surface) }
        if drawn != nil { toplevel?.contentChanged() }
        drawn = nil
    }
}

extension Toplevel {
    /// Dismisses every popup of the window, topmost first, each told `popup_done`.
    func dismissPopups() {
        for popup in popups.reversed() where !popup.isDismissed { popup.dismiss(notify: true) }
    }

    /// The surface keys go to: the topmost grabbing popup's, else the window's.
    var keyboardTarget: SurfaceObject? {
        popups.last { $0.isGrabbing && $0.isMapped && !$0.isDismissed }?.surface ?? root
    }

    /// Whether `surface` is one of the window's popups or inside one.
    func isPopupSurface(_ surface: SurfaceObject) -> Bool {
        var current: SurfaceObject? = surface
        while let this = current {
            switch this.role {
            case .xdg(let xdg): return xdg.popup != nil
            case .subsurface(let sub): current = sub.parent
            case .xwayland, .layer, .cursor, nil: return false
            }
        }
        return false
    }
}

extension WaylandServer {
    /// A press (button or touch down) at (`x`, `y`) of the window `picture` shows (its root
    /// surface's coordinates), or on no window: when a popup grab is on and the press is
    /// outside the grabbing client's popups, the popups are dismissed (topmost first) and
    /// true is returned: the press is not to be delivered.
    public func pressDismissesPopups(on picture: WindowPicture?, x: Double, y: Double) -> Bool {
        guard let grabbing = toplevels.values.first(where: { $0.popups.contains { $0.isGrabbing && !$0.isDismissed } }) else { return false }
        if let picture, picture.client == grabbing.client, let hit = picture.surface(at: x, y), grabbing.isPopupSurface(hit.surface) { return false }
        grabbing.dismissPopups()
        refocus(grabbing)
        return true
    }

    /// Moves the keyboard focus within `toplevel` to where it belongs (its topmost grabbing
    /// popup, else its root) when the focus is on the window or nowhere.
    func refocus(_ toplevel: Toplevel) {
        let focus = seat.keyboardFocus
        guard focus == nil || focus?.toplevel === toplevel else { return }
        if focus == nil, !toplevel.popups.contains(where: { $0.isGrabbing && $0.isMapped && !$0.isDismissed }) { return }
        focusKeyboard(on: toplevel.picture)
    }
}
