import VitrineCore
import VitrineInput
import VitrineOutputSet
import VitrineRaster
import VitrineRemote
import VitrineSystem

/// Remote view (`[remote]`): the VNC listeners fed by their outputs' frame taps while a
/// viewer is connected, their viewers' input going through the input router as a local
/// device's would.
extension Coordinator {
    /// Starts the listeners `[remote]` configures; nothing (no library loaded, no tap) when
    /// it configures none. A listener that cannot start is logged and the daemon runs on
    /// without remote view.
    func startRemote(loop: EventLoop) {
        guard !settings.remote.listeners.isEmpty else { return }
        var screens = outputSet.heads.map { head in
            RemoteScreen(
                output: head.name, width: head.backend.mode.width, height: head.backend.mode.height, originX: head.viewport?.x ?? 0,
                originY: head.viewport?.y ?? 0)
        }
        let viewports = outputSet.heads.compactMap { head in head.viewport.map { (head.name, $0) } }
        if let wall = RemoteScreen(wall: Dictionary(viewports) { first, _ in first }) { screens.append(wall) }
        do {
            let server = try VNCServer(settings: settings.remote, screens: screens, loop: loop, logger: logger) {
                [unowned self] notice in take(notice)
            }
            remote = RemoteView(server: server)
        } catch {
            logger.error("remote view: \(error.message); the daemon runs on without it")
        }
    }

    /// Ends every session and stops listening.
    func stopRemote() {
        for head in outputSet.heads {
            for tap in head.pipeline.taps where tap is RemoteTap { head.pipeline.remove(tap) }
        }
        remote?.server.stop()
        remote = nil
    }

    private func take(_ notice: RemoteNotice) {
        guard let remote else { return }
        switch notice {
        case .connected(let s):
            remote.total += 1
            feedRemote(listener: s.listener)
            afterReply.events.append(
                .remoteConnected(session: s.id, listener: s.listener, output: s.output, peer: s.peer, user: s.user, viewOnly: s.viewOnly))
            flush()
        case .disconnected(let session):
            afterReply.events.append(.remoteDisconnected(session: session.id, listener: session.listener, peer: session.peer, user: session.user))
            feedRemote(listener: nil)
            for code in remote.held.removeValue(forKey: session.id) ?? [] {
                if code >= 0x110 {
                    pointRemotely(.button(code, pressed: false), at: outputSet.primary.rootPoint(input.pointer))
                } else {
                    typeRemoteKey(code: code, pressed: false)
                }
            }
            flush()
        case .input(let event, _, let session):
            switch event {
            case .motion(let x, let y):
                pointRemotely(.motion, at: Point(x: Double(x), y: Double(y)))
            case .button(let code, let pressed, let x, let y):
                remote.note(code, pressed: pressed, session: session)
                pointRemotely(.button(code, pressed: pressed), at: Point(x: Double(x), y: Double(y)))
            case .scroll(let dx, let dy, let x, let y):
                pointRemotely(.axis(dx: dx, dy: dy), at: Point(x: Double(x), y: Double(y)))
            case .key(let keysym, let pressed):
                guard let keyboard = try? input.keyboardForInjection(), let place = keyboard.place(ofKeysym: keysym) else { return }
                // A keysym of a shifted level sent without Shift held (viewers that send
                // "V" alone): Shift, or AltGr, is held around the press.
                let held = remote.held[session] ?? []
                let shift = place.level & 1 != 0 && held.isDisjoint(with: [42, 54]) ? [UInt32(42)] : []
                let altGr = place.level & 2 != 0 && !held.contains(100) ? [UInt32(100)] : []
                let around = pressed ? shift + altGr : []
                for code in around { typeRemoteKey(code: code, pressed: true) }
                remote.note(place.code, pressed: pressed, session: session)
                typeRemoteKey(code: place.code, pressed: pressed)
                for code in around.reversed() { typeRemoteKey(code: code, pressed: false) }
            }
            flush()
        }
    }

    /// Puts a frame tap on each output a viewer watches and takes it off the others; the
    /// outputs of the listener (its address) whose first viewer just came draw a whole
    /// frame for it.
    private func feedRemote(listener address: String?) {
        guard let remote else { return }
        let starting = remote.server.listeners.first { $0.settings.address.description == address && $0.sessions.count == 1 }
        var drawn = false
        for head in outputSet.heads {
            let listeners = remote.server.listeners(showing: head.name)
            let watched = listeners.contains { !$0.sessions.isEmpty }
            let tap = head.pipeline.taps.first { $0 is RemoteTap }
            if watched, tap == nil {
                head.pipeline.add(RemoteTap(head: head.name, listeners))
                drawn = true
            } else if !watched, let tap {
                head.pipeline.remove(tap)
            } else if let starting, starting.screen.parts[head.name] != nil {
                head.pipeline.invalidate()
                drawn = true
            }
        }
        if drawn { outputSet.requestFrame() }
    }

    /// `point` (the root's space) in the primary output's pixels, where input happens.
    private func pointRemotely(_ kind: PointerEvent.Kind, at point: Point) {
        let origin = outputSet.primary.origin
        let point = Point(x: point.x - origin.x, y: point.y - origin.y)
        input.handle(.pointer(PointerEvent(time: EventLoop.monotonicSeconds, kind: kind, point: point, device: RemoteView.device)), measured: false)
    }

    private func typeRemoteKey(code: UInt32, pressed: Bool) {
        guard let keyboard = try? input.keyboardForInjection() else { return }
        input.handle(.key(keyboard.key(code, pressed: pressed, time: EventLoop.monotonicSeconds, device: RemoteView.device)), measured: false)
    }
}

/// The running VNC server and what the daemon keeps of its sessions.
final class RemoteView {
    /// The device name remote input carries (`input.*` events' `device`).
    static let device = "vnc"
    let server: VNCServer
    /// Sessions since the daemon started.
    var total = 0
    /// Keys and buttons (evdev codes) each session holds down, let go when it leaves.
    var held: [Int: Set<UInt32>] = [:]

    init(server: VNCServer) { self.server = server }

    /// Sessions connected now.
    var current: Int { server.listeners.reduce(0) { $0 + $1.sessions.count } }

    func note(_ code: UInt32, pressed: Bool, session: Int) {
        if pressed { held[session, default: []].insert(code) } else { held[session]?.remove(code) }
    }
}

/// An output's frames, handed to the listeners that show it (those without a viewer
/// ignore them).
final class RemoteTap: FrameTap {
    private let head: String
    private let listeners: [VNCListener]

    init(head: String, _ listeners: [VNCListener]) { (self.head, self.listeners) = (head, listeners) }

    func frame(_ surface: Surface, damage: [PixelRect]) {
        for listener in listeners { listener.show(surface, damage: damage, of: head) }
    }
}
