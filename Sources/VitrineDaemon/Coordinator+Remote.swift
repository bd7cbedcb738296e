import VitrineCore
import VitrineInput
import VitrineOutputSet
import VitrineRaster
import VitrineRemote
import VitrineSystem

/// Remote view (`[remote]`): the VNC listeners fed by their outputs' frame taps, their
/// viewers' input going through the input router as a local device's would.
extension Coordinator {
    /// Starts the listeners `[remote]` configures; nothing (no library loaded, no tap) when
    /// it configures none. A listener that cannot start is logged and the daemon runs on
    /// without remote view.
    func startRemote(loop: EventLoop) {
        guard !settings.remote.listeners.isEmpty else { return }
        do {
            let server = try VNCServer(settings: settings.remote, outputs: outputSet.heads.map(\.name), loop: loop, logger: logger) {
                [unowned self] notice in take(notice)
            }
            for head in outputSet.heads {
                let listeners = server.listeners(showing: head.name)
                if !listeners.isEmpty { head.pipeline.add(RemoteTap(listeners)) }
            }
            remote = RemoteView(server: server)
            outputSet.requestFrame()
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
            afterReply.events.append(
                .remoteConnected(session: s.id, listener: s.listener, output: s.output, peer: s.peer, user: s.user, viewOnly: s.viewOnly))
            flush()
        case .disconnected(let session):
            afterReply.events.append(.remoteDisconnected(session: session.id, listener: session.listener, peer: session.peer, user: session.user))
            for code in remote.held.removeValue(forKey: session.id) ?? [] {
                if code >= 0x110 { pointRemotely(.button(code, pressed: false), at: input.pointer) } else { typeRemoteKey(code: code, pressed: false) }
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

    private func pointRemotely(_ kind: PointerEvent.Kind, at point: Point) {
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

/// An output's frames, handed to the listeners that show it.
final class RemoteTap: FrameTap {
    private let listeners: [VNCListener]

    init(_ listeners: [VNCListener]) { self.listeners = listeners }

    func frame(_ surface: Surface, damage: [PixelRect]) {
        for listener in listeners { listener.show(surface, damage: damage) }
    }
}
