import CX11
import Glibc

/// What the window manager does to windows: size them, focus and raise them, close them,
/// and answer what their clients ask (`WL_SURFACE_ID`, `_NET_WM_STATE`, pongs).
extension XWindowManager {
    /// Puts a managed window at the screen's origin with its size: the layer's when one
    /// gave it (`configuredSize`), else its own. Every managed window is at (0, 0): where
    /// it shows is its layer's business, and menus are placed relative to it.
    func place(_ window: X11Window) {
        guard window.isAlive, !window.isOverrideRedirect else { return }
        if window.configuredSize.width > 0 { (window.width, window.height) = window.configuredSize }
        var values: [UInt32] = [0, 0, UInt32(max(1, window.width)), UInt32(max(1, window.height)), 0]
        let mask =
            XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue | XCB_CONFIG_WINDOW_HEIGHT.rawValue
            | XCB_CONFIG_WINDOW_BORDER_WIDTH.rawValue
        _ = xcb_configure_window(connection.connection, window.xid, UInt16(mask), &values)
        // ICCCM 4.1.5: a configure the window manager did not carry out as asked is told
        // with a synthetic ConfigureNotify of where the window is.
        var event = xcb_configure_notify_event_t()
        event.response_type = UInt8(XCB_CONFIGURE_NOTIFY)
        (event.event, event.window, event.above_sibling) = (window.xid, window.xid, 0)
        (event.x, event.y, event.width, event.height) = (0, 0, UInt16(max(1, window.width)), UInt16(max(1, window.height)))
        send(&event, to: window.xid, mask: XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue)
        connection.flush()
    }

    /// Gives the keyboard focus to `window` (as its ICCCM input model says: SetInputFocus
    /// unless it takes no input, WM_TAKE_FOCUS when it speaks it), or to none.
    func focus(_ window: X11Window?) {
        let c = connection.connection
        focused = window
        if let window, window.isAlive {
            if window.acceptsInput {
                _ = xcb_set_input_focus(c, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), window.xid, UInt32(XCB_CURRENT_TIME))
            }
            if window.speaks(.wmTakeFocus) { sendProtocol(.wmTakeFocus, to: window) }
            Self.setWindows(c, connection.root, connection.atoms[.netActiveWindow], [window.xid])
        } else {
            _ = xcb_set_input_focus(c, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), 0, UInt32(XCB_CURRENT_TIME))
            Self.setWindows(c, connection.root, connection.atoms[.netActiveWindow], [0])
        }
        overlaysDirty = true
        updateOverlays()
        barrier()
    }

    /// Puts `window` over the other managed windows in X's stacking order: Xwayland picks
    /// the window under the pointer by it, and every managed window is at (0, 0).
    func raise(_ window: X11Window) {
        guard window.isAlive, !window.isOverrideRedirect, window.stackOrder != topOrder else { return }
        topOrder += 1
        window.stackOrder = topOrder
        restackAbove(window)
        barrier()
    }

    /// Puts `window` at the top of X's stacking order, and the mapped override-redirect
    /// windows (menus, tooltips) back over it, in their order: they are drawn over the
    /// managed windows, and must be picked there.
    func restackAbove(_ window: X11Window) {
        var above = XCB_STACK_MODE_ABOVE.rawValue
        _ = xcb_configure_window(connection.connection, window.xid, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), &above)
        for overlay in windows.values.filter({ $0.isOverrideRedirect && $0.isMappedInX }).sorted(by: { $0.stackOrder < $1.stackOrder }) {
            var mode = XCB_STACK_MODE_ABOVE.rawValue
            _ = xcb_configure_window(connection.connection, overlay.xid, UInt16(XCB_CONFIG_WINDOW_STACK_MODE.rawValue), &mode)
        }
    }

    /// Holds the input for Xwayland until it has carried out what was just asked (a round
    /// trip): Xwayland reads its Wayland and X11 connections in no set order, and input it
    /// read before a restacking would go to the window that was on top, a key before a
    /// focus change to the window that had the focus. At most 0.2 s: a stuck X server does
    /// not keep input from the others.
    func barrier() {
        guard !isBroken else { return }
        barriersSent += 1
        xwayland.holdEvents()
        expect(xcb_get_input_focus(connection.connection).sequence, .barrier)
        connection.flush()
        let number = barriersSent
        loop.schedule(after: 0.2) { [weak self] in
            guard let self, barriersPassed < number else { return }
            logger.debug("Xwayland did not answer within 0.2 s of a restacking or a focus change: its input goes on")
            barriersPassed = barriersSent
            xwayland.releaseEvents()
        }
    }

    /// A round trip came back: when it was the last awaited, the held input goes.
    func barrierPassed() {
        guard barriersPassed < barriersSent else { return }
        barriersPassed += 1
        if barriersPassed == barriersSent { xwayland.releaseEvents() }
    }

    /// `surface.close`: WM_DELETE_WINDOW when the window speaks it, else its client is
    /// killed (`KillClient`). A window that was asked and is still there `pingTimeout`
    /// seconds later (5 s without pings) is killed too, unless it answers pings: a program
    /// may ask its user first, as a Wayland one may.
    func close(_ window: X11Window) {
        guard window.speaks(.wmDeleteWindow) else {
            kill(window, reason: "it does not take WM_DELETE_WINDOW")
            return
        }
        sendProtocol(.wmDeleteWindow, to: window)
        connection.flush()
        let grace = pingTimeout > 0 ? pingTimeout : 5
        loop.schedule(after: grace) { [weak self, weak window] in
            guard let self, let window, window.isAlive, window.isMappedInX else { return }
            if window.speaks(.netWMPing), window.isResponsive {
                logger.info(
                    "X11 window 0x\(String(window.xid, radix: 16)) (\(window.appID)) is still open \(grace) s after WM_DELETE_WINDOW; it answers pings: left open"
                )
                return
            }
            kill(window, reason: "it is still open \(grace) s after WM_DELETE_WINDOW and does not answer pings")
        }
    }

    /// Ends `window`'s client's connection (the client usually exits).
    private func kill(_ window: X11Window, reason: String) {
        logger.warning("X11 client of window 0x\(String(window.xid, radix: 16)) (\(window.appID), pid \(window.pid)) killed: \(reason)")
        _ = xcb_kill_client(connection.connection, window.xid)
        connection.flush()
    }

    /// A WM_PROTOCOLS client message `atom` (with the current time, and `extra`) to `window`.
    func sendProtocol(_ atom: Atom, to window: X11Window, extra: [UInt32] = []) {
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.window = window.xid
        event.type = connection.atoms[.wmProtocols]
        let words = [connection.atoms[atom], UInt32(XCB_CURRENT_TIME)] + extra + [0, 0, 0]
        event.data.data32 = (words[0], words[1], words[2], words[3], words[4])
        send(&event, to: window.xid, mask: XCB_EVENT_MASK_NO_EVENT.rawValue)
    }

    /// Sends `event` (one of xcb's 32-byte event structs) to `window`.
    func send<Event>(_ event: inout Event, to window: xcb_window_t, mask: UInt32) {
        withUnsafeBytes(of: &event) { bytes in
            var message = [CChar](repeating: 0, count: 32)
            for i in 0..<min(32, bytes.count) { message[i] = CChar(bitPattern: bytes[i]) }
            _ = xcb_send_event(connection.connection, 0, window, mask, message)
        }
    }

    // MARK: What clients ask

    func clientMessage(_ event: xcb_client_message_event_t) {
        let atoms = connection.atoms
        let data = event.data.data32
        switch atoms.name(of: event.type) {
        case .wlSurfaceID:
            guard let window = windows[event.window] else { return }
            pair(window, surface: data.0)
        case .netWMState:
            guard let window = windows[event.window], !window.isOverrideRedirect else { return }
            changeStates(of: window, action: data.0, [data.1, data.2])
        case .wmProtocols where data.0 == atoms[.netWMPing]:
            guard let window = windows[data.2] else { return }
            pings.pong(window, serial: data.1)
        case .netActiveWindow:
            // Focus follows touches and clicks alone: a program does not take it.
            logger.debug("X11 window 0x\(String(event.window, radix: 16)) asked to be activated: ignored")
        default:
            break
        }
    }

    /// `_NET_WM_STATE`: remove (0), add (1) or toggle (2) `states`. Fullscreen and
    /// maximized are taken as asked (the property says so, as programs expect), while the
    /// layer keeps giving the size; the window is told its place again.
    private func changeStates(of window: X11Window, action: UInt32, _ states: [UInt32]) {
        let atoms = connection.atoms
        let known: Set<UInt32> = [atoms[.netWMStateFullscreen], atoms[.netWMStateMaximizedVert], atoms[.netWMStateMaximizedHorz]]
        var current = window.states
        for state in states where state != 0 && known.contains(state) {
            let on = current.contains(state)
            switch action {
            case 0 where on: current.removeAll { $0 == state }
            case 1 where !on: current.append(state)
            case 2: if on { current.removeAll { $0 == state } } else { current.append(state) }
            default: break
            }
        }
        window.states = current
        _ = xcb_change_property(
            connection.connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window.xid, atoms[.netWMState], XCB_ATOM_ATOM.rawValue, 32,
            UInt32(current.count), &current)
        place(window)
    }

    /// A client gave the focus to one of its windows itself: allowed within the focused
    /// window's client (a dialog, a second window), else it goes back where it was.
    func focusIn(_ event: xcb_focus_in_event_t) {
        guard event.mode != UInt8(XCB_NOTIFY_MODE_GRAB.rawValue), event.mode != UInt8(XCB_NOTIFY_MODE_UNGRAB.rawValue),
            event.detail != UInt8(XCB_NOTIFY_DETAIL_POINTER.rawValue), let window = windows[event.event]
        else { return }
        if window === focused { return }
        if let focused, focused.client == window.client { return }
        focus(focused)
    }
}
