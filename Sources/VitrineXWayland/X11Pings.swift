import CX11
import VitrineSystem

/// Watches whether the shown X11 windows that take `_NET_WM_PING` still answer: each is
/// sent a ping every half `timeout`, one at a time, and one that leaves a ping unanswered
/// for `timeout` seconds is unresponsive until it answers it — reported to the window host
/// as an unanswered `xdg_wm_base.ping` is. A pong with another timestamp than the ping's
/// is ignored. Windows that do not take it are not pinged (and count as responsive).
final class X11Pings {
    private struct State {
        /// The timestamp of the ping waiting for its pong (0: none).
        var serial: UInt32 = 0
        var sentAt: UInt64 = 0
        var unresponsive = false
        var deadline: UInt64?
    }

    private unowned let manager: XWindowManager
    /// Seconds a ping may wait for its pong; 0 sends none.
    var timeout = 5.0 {
        didSet { if timeout != oldValue { restart() } }
    }
    private var states: [xcb_window_t: State] = [:]
    private var tick: UInt64?
    private var lastSerial: UInt32 = 0

    init(manager: XWindowManager) { self.manager = manager }

    func isResponsive(_ window: X11Window) -> Bool { states[window.xid]?.unresponsive != true }

    /// A window showed: pings start if they were not running.
    func windowShown() {
        guard tick == nil, timeout > 0 else { return }
        ping()
    }

    /// The window answered the ping with timestamp `serial`.
    func pong(_ window: X11Window, serial: UInt32) {
        guard var state = states[window.xid], state.serial != 0, state.serial == serial else { return }
        if let ticket = state.deadline { manager.loop.cancel(ticket) }
        let waited = Double(EventLoop.monotonicNanoseconds() - state.sentAt) / 1e9
        let wasUnresponsive = state.unresponsive
        state = State()
        states[window.xid] = state
        if wasUnresponsive, window.isMapped { manager.delegate?.windows([window], responsive: true, seconds: waited) }
    }

    /// The window is gone.
    func forget(_ window: X11Window) {
        if let ticket = states.removeValue(forKey: window.xid)?.deadline { manager.loop.cancel(ticket) }
    }

    /// Pings every shown window that takes pings and has none waiting; comes again in half
    /// the timeout while any is shown.
    private func ping() {
        tick = nil
        guard timeout > 0, !manager.isBroken else { return }
        let shown = manager.windows.values.filter { !$0.isOverrideRedirect && $0.isMapped && $0.speaks(.netWMPing) }
        let watched = Set(shown.map(\.xid))
        for (xid, state) in states where !watched.contains(xid) {
            if let ticket = state.deadline { manager.loop.cancel(ticket) }
            states[xid] = nil
        }
        guard !shown.isEmpty || manager.windows.values.contains(where: { !$0.isOverrideRedirect && $0.isMapped }) else { return }
        for window in shown where states[window.xid]?.serial ?? 0 == 0 {
            var state = states[window.xid] ?? State()
            lastSerial = lastSerial &+ 1 == 0 ? 1 : lastSerial &+ 1
            state.serial = lastSerial
            state.sentAt = EventLoop.monotonicNanoseconds()
            state.deadline = manager.loop.schedule(after: timeout) { [weak self, weak window] in
                guard let self, let window else { return }
                expired(window)
            }
            states[window.xid] = state
            manager.sendPing(to: window, serial: state.serial)
        }
        manager.connection.flush()
        tick = manager.loop.schedule(after: timeout / 2) { [weak self] in self?.ping() }
    }

    private func expired(_ window: X11Window) {
        guard var state = states[window.xid], state.serial != 0 else { return }
        state.deadline = nil
        let newly = !state.unresponsive
        state.unresponsive = true
        states[window.xid] = state
        if newly, window.isMapped { manager.delegate?.windows([window], responsive: false, seconds: timeout) }
    }

    private func restart() {
        if let tick { manager.loop.cancel(tick) }
        tick = nil
        for (xid, state) in states {
            if let ticket = state.deadline { manager.loop.cancel(ticket) }
            states[xid]?.deadline = nil
            if !state.unresponsive { states[xid]?.serial = 0 }
        }
        if timeout > 0, manager.windows.values.contains(where: { !$0.isOverrideRedirect && $0.isMapped }) { ping() }
    }
}

extension XWindowManager {
    /// `_NET_WM_PING` with timestamp `serial` to `window` (it sends it back to the root).
    func sendPing(to window: X11Window, serial: UInt32) {
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.window = window.xid
        event.type = connection.atoms[.wmProtocols]
        event.data.data32 = (connection.atoms[.netWMPing], serial, window.xid, 0, 0)
        send(&event, to: window.xid, mask: XCB_EVENT_MASK_NO_EVENT.rawValue)
    }
}
