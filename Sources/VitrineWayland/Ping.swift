import CWaylandServer
import VitrineSystem

/// Watches whether the clients that show windows still answer: each `xdg_wm_base` of a
/// client with a mapped toplevel is sent `ping` every half `timeout`, one ping at a time,
/// and a client that leaves a ping unanswered for `timeout` seconds is unresponsive until
/// it answers it. A `pong` with another serial than the ping's is ignored, as Weston
/// does. Unresponsive is not a protocol error: the client stays connected.
final class PingWatch {
    /// What is known of one `xdg_wm_base`.
    struct State {
        /// The ping waiting for its pong (0: none).
        var serial: UInt32 = 0
        /// When it was sent (monotonic nanoseconds).
        var sentAt: UInt64 = 0
        var unresponsive = false
        /// The check at `sentAt` + timeout.
        var deadline: UInt64?
    }

    unowned let server: WaylandServer
    /// Seconds a ping may wait for its pong; 0 sends no pings.
    var timeout = 5.0 {
        didSet { if timeout != oldValue { restart() } }
    }
    private var states: [ObjectIdentifier: State] = [:]
    private var tick: UInt64?

    init(server: WaylandServer) { self.server = server }

    /// Whether the client of `base` answers (true when it is not watched).
    func isResponsive(_ base: WMBase?) -> Bool {
        guard let base else { return true }
        return states[ObjectIdentifier(base)]?.unresponsive != true
    }

    /// A toplevel was mapped: pings start if they were not running.
    func toplevelMapped() {
        guard tick == nil, timeout > 0 else { return }
        ping()
    }

    /// `xdg_wm_base.pong`.
    func pong(_ base: WMBase, serial: UInt32) {
        let key = ObjectIdentifier(base)
        guard var state = states[key], state.serial != 0, state.serial == serial else { return }
        if let ticket = state.deadline { server.loop.cancel(ticket) }
        let waited = Double(EventLoop.monotonicNanoseconds() - state.sentAt) / 1e9
        let wasUnresponsive = state.unresponsive
        state = State()
        states[key] = state
        if wasUnresponsive { server.responsivenessChanged(of: base, responsive: true, seconds: waited) }
    }

    /// The `xdg_wm_base` is gone (destroyed, or its client).
    func forget(_ base: WMBase) {
        if let ticket = states.removeValue(forKey: ObjectIdentifier(base))?.deadline { server.loop.cancel(ticket) }
    }

    /// Pings every watched client that has no ping waiting, and comes again in half the
    /// timeout while any toplevel is mapped.
    private func ping() {
        tick = nil
        guard timeout > 0 else { return }
        var bases: [ObjectIdentifier: WMBase] = [:]
        for toplevel in server.toplevels.values where toplevel.isMapped {
            if let base = toplevel.wmBase { bases[ObjectIdentifier(base)] = base }
        }
        for key in states.keys where bases[key] == nil {
            if let ticket = states.removeValue(forKey: key)?.deadline { server.loop.cancel(ticket) }
        }
        guard !bases.isEmpty else { return }
        for (key, base) in bases where states[key]?.serial ?? 0 == 0 {
            var state = states[key] ?? State()
            state.serial = max(1, wl_display_next_serial(server.display))
            state.sentAt = EventLoop.monotonicNanoseconds()
            state.deadline = server.loop.schedule(after: timeout) { [weak self, weak base] in
                guard let self, let base else { return }
                expired(base)
            }
            states[key] = state
            base.post(XdgWmBaseEvent.ping.rawValue, [wl_argument(u: state.serial)])
        }
        server.flush()
        tick = server.loop.schedule(after: timeout / 2) { [weak self] in self?.ping() }
    }

    /// The ping to `base` was not answered within the timeout.
    private func expired(_ base: WMBase) {
        let key = ObjectIdentifier(base)
        guard var state = states[key], state.serial != 0 else { return }
        state.deadline = nil
        let newly = !state.unresponsive
        state.unresponsive = true
        states[key] = state
        if newly { server.responsivenessChanged(of: base, responsive: false, seconds: timeout) }
    }

    /// The timeout changed: pings start over with it.
    private func restart() {
        if let tick { server.loop.cancel(tick) }
        tick = nil
        for (key, state) in states {
            if let ticket = state.deadline { server.loop.cancel(ticket) }
            states[key]?.deadline = nil
            if !state.unresponsive { states[key]?.serial = 0 }
        }
        if timeout > 0, server.toplevels.values.contains(where: \.isMapped) { ping() }
    }
}

extension WaylandServer {
    /// Seconds a client that shows windows may leave `xdg_wm_base.ping` unanswered before
    /// it is unresponsive (`WindowDelegate.windows(_:responsive:seconds:)`); 0
    /// sends no pings. Pings go every half of it.
    public var pingTimeout: Double {
        get { pings.timeout }
        set { pings.timeout = newValue }
    }

    /// Tells the delegate that the client of `base` stopped or started answering again:
    /// its mapped toplevels.
    func responsivenessChanged(of base: WMBase, responsive: Bool, seconds: Double) {
        let shown = toplevels.values.filter { $0.isMapped && $0.wmBase === base }.sorted { $0.id < $1.id }
        guard !shown.isEmpty else { return }
        delegate?.windows(shown, responsive: responsive, seconds: seconds)
    }
}
