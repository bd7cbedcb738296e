import CNeatVNC
import Glibc
import Logging
import VitrineRaster
import VitrineSystem

/// One VNC server (a Neat VNC `nvnc`) on one address, showing one output or the wall
/// (`screen`): it is fed the frames of the outputs it shows while a viewer is connected
/// (`show`), sends them at most `maxRate` times a second, says when viewers connect and
/// leave, and turns their pointer and keys into `RemoteInput` unless they may only watch.
public final class VNCListener {
    public let settings: RemoteSettings.Listener
    /// What it shows.
    public let screen: RemoteScreen
    /// The output it shows (`RemoteSettings.wall` for the wall).
    public var output: String { screen.name }
    /// The viewers connected now.
    public private(set) var sessions: [RemoteSession] = []
    /// Sessions since the listener started.
    public private(set) var sessionsTotal = 0
    /// Frames whose damage could not be copied because the viewers held every buffer.
    public private(set) var framesSkipped = 0
    /// Pictures handed to Neat VNC (each becomes at most one update for each viewer).
    public private(set) var updatesSent = 0
    private let logger: Logger
    private let loop: EventLoop
    private let aml: AMLWatch
    private let notify: (RemoteNotice) -> Void
    private let users: Users?
    private var server: OpaquePointer?
    private var display: OpaquePointer?
    /// A Unix socket listener's relay, in front of Neat VNC's own socket.
    private var relay: VNCUnixRelay?
    /// The picture's buffers while a viewer is connected.
    private var framebuffers: VNCFramebuffers?
    /// When the last picture was sent (monotonic seconds), and the timer that sends the
    /// changes gathered since once the rate limit allows.
    private var lastSent = -Double.infinity
    private var flushTimer: UInt64?
    /// The outputs whose first frame the picture waits for since its first viewer came,
    /// the timer that stops waiting (an output blanked draws none), and whether aml is held
    /// meanwhile.
    private var awaiting: Set<String> = []
    private var awaitTimer: UInt64?
    private var holding = false
    /// The clients that finished their handshake, by their Neat VNC pointer.
    private var clients: [OpaquePointer: Client] = [:]
    /// Session ids, counted on the event loop across listeners.
    nonisolated(unsafe) private static var nextSession = 0

    private final class Client {
        var session: RemoteSession
        var descriptor: CInt
        var buttons: UInt8 = 0
        var position: (x: Int, y: Int) = (-1, -1)
        init(session: RemoteSession, descriptor: CInt) { (self.session, self.descriptor) = (session, descriptor) }
    }

    /// Who may connect: a password file's users, or PAM's.
    private enum Users {
        case file(PasswordFile)
        case pam(PAMUsers)
    }

    init(
        settings: RemoteSettings.Listener, screen: RemoteScreen, loop: EventLoop, aml: AMLWatch, logger: Logger,
        notify: @escaping (RemoteNotice) -> Void
    ) throws(SystemError) {
        self.settings = settings
        self.screen = screen
        self.loop = loop
        self.aml = aml
        self.logger = logger
        self.notify = notify
        let name = "[remote] \(settings.address)"
        if !settings.authenticates {
            users = nil
        } else if settings.pam {
            users = .pam(try PAMUsers(service: settings.pamService, viewOnlyUsers: settings.viewOnlyUsers, viewOnlyGroup: settings.viewOnlyGroup))
        } else {
            users = .file(try PasswordFile(path: settings.passwordFile))
        }
        if settings.authenticates, !nvnc_has_auth() {
            throw SystemError("\(name): this Neat VNC was built without TLS; install Debian's libneatvnc0, which has it")
        }
        switch settings.address {
        case .tcp(let host, let port):
            server = nvnc_open(host, UInt16(port))
        case .unix(let path):
            let relay = try VNCUnixRelay(path: path, loop: loop)
            self.relay = relay
            server = nvnc_open_unix(relay.inner)
            if server == nil { relay.close() }
        }
        guard let server else {
            throw SystemError.errno("listen on", "\(name)", advice: " — is another VNC server (or vitrined) listening there?")
        }
        guard let display = nvnc_display_new(0, 0) else {
            nvnc_close(server)
            throw SystemError("\(name): Neat VNC cannot make a display")
        }
        self.display = display
        nvnc_add_display(server, display)
        nvnc_set_name(server, "Vitrine \(screen.name == RemoteSettings.wall ? "wall" : screen.name)")
        nvnc_set_userdata(UnsafeMutableRawPointer(server), Unmanaged.passUnretained(self).toOpaque(), nil)
        nvnc_set_new_client_fn(server) { client in VNCListener.of(client)?.began(client!) }
        nvnc_set_pointer_fn(server) { client, x, y, mask in
            VNCListener.of(client)?.pointer(client!, x: Int(x), y: Int(y), mask: UInt8(truncatingIfNeeded: mask.rawValue))
        }
        nvnc_set_key_fn(server) { client, keysym, pressed in VNCListener.of(client)?.key(client!, keysym: keysym, pressed: pressed) }
        if settings.authenticates {
            let context = Unmanaged.passUnretained(self).toOpaque()
            let status = nvnc_enable_auth(
                server, settings.key, settings.certificate,
                { user, password, context in
                    let listener = Unmanaged<VNCListener>.fromOpaque(context!).takeUnretainedValue()
                    return listener.authenticate(user: String(cString: user!), password: String(cString: password!))
                }, context)
            guard status == 0 else {
                close()
                throw SystemError(
                    "\(name): Neat VNC cannot use the certificate \(settings.certificate) and key \(settings.key) (are they PEM files the daemon can read?)")
            }
        }
        // Neat VNC greets viewers only once it has a picture (its size is in the greeting):
        // a black one until the first viewer's frames come.
        let first = VNCFramebuffers(width: screen.width, height: screen.height)
        first.changeAll()
        framebuffers = first
        send()
        framebuffers = nil
        let auth = settings.authenticates ? (settings.pam ? ", TLS and PAM (\(settings.pamService))" : ", TLS and password") : ", no authentication"
        logger.info(
            "VNC on \(settings.address) shows \(screen.name == RemoteSettings.wall ? "the wall" : screen.name) (\(screen.width)x\(screen.height)), at most \(settings.maxRate) updates/s\(settings.viewOnly ? ", view-only" : "")\(auth)"
        )
    }

    deinit { close() }

    /// Stops listening and ends every session.
    func close() {
        if let flushTimer { loop.cancel(flushTimer) }
        flushTimer = nil
        stopAwaiting()
        if let server {
            nvnc_close(server)
            self.server = nil
        }
        relay?.close()
        relay = nil
        if let display {
            nvnc_display_unref(display)
            self.display = nil
        }
        clients = [:]
        sessions = []
        framebuffers = nil
    }

    /// Feeds a frame of `output` (one the listener shows) while a viewer is connected:
    /// `surface` is the output's whole picture (read during the call only), `damage` what
    /// changed since its frame before. The damage is copied into the picture at once; the
    /// picture goes to Neat VNC, whose workers encode it for each viewer that asked for an
    /// update, when `maxRate` allows — later, by a timer, if an update went out less than
    /// 1 / `maxRate` s ago, so that the last change of a burst is sent too.
    public func show(_ surface: Surface, damage: [PixelRect], of output: String) {
        guard let framebuffers, let part = screen.parts[output] else { return }
        let clipped = damage.compactMap { rect -> PixelRect? in
            let inside = rect.intersection(PixelRect(x: 0, y: 0, width: part.width, height: part.height))
            return inside.isEmpty ? nil : inside
        }
        if !framebuffers.write(surface, damage: clipped, at: part.x, y: part.y) { framesSkipped += 1 }
        awaiting.remove(output)
        schedule()
    }

    /// Sends what the picture has, whether or not every output drew its first frame.
    private func stopAwaiting() {
        if let awaitTimer { loop.cancel(awaitTimer) }
        awaitTimer = nil
        awaiting = []
        schedule()
        if holding {
            holding = false
            aml.release()
        }
    }

    /// Sends the gathered changes now if the rate limit allows, else arms the timer that
    /// does; with every buffer held, a released buffer sends them (`released`).
    private func schedule() {
        guard awaiting.isEmpty, let framebuffers, !framebuffers.unsent.isEmpty, flushTimer == nil else { return }
        let now = EventLoop.monotonicSeconds
        let interval = 1 / Double(max(1, settings.maxRate))
        let due = lastSent + interval
        // A frame a little before its slot (frames come at the display's rate, not ours)
        // goes at once, and counts as sent at the slot: on average no more than maxRate.
        if now >= due - interval / 4 {
            send(slot: due)
        } else {
            flushTimer = loop.schedule(after: due - now) { [unowned self] in
                flushTimer = nil
                schedule()
            }
        }
    }

    /// Hands the draft to Neat VNC; `slot` is when the rate limit let it go.
    private func send(slot due: Double = -.infinity) {
        guard let display, let (slot, damage) = framebuffers?.send() else { return }
        nvnc_fb_set_release_fn(
            slot.fb,
            { fb, context in
                Unmanaged<VNCListener>.fromOpaque(context!).takeUnretainedValue().released(fb!)
            }, Unmanaged.passUnretained(self).toOpaque())
        let rects = damage.flatMap { [Int32($0.x), Int32($0.y), Int32($0.width), Int32($0.height)] }
        vitrine_vnc_feed(display, slot.fb, rects, Int32(damage.count))
        lastSent = max(EventLoop.monotonicSeconds, due)
        updatesSent += 1
        if awaitTimer != nil { stopAwaiting() }
    }

    private func released(_ fb: OpaquePointer) {
        framebuffers?.released(fb)
        schedule()
    }

    private static func of(_ client: OpaquePointer?) -> VNCListener? {
        guard let client, let server = nvnc_client_get_server(client), let me = nvnc_get_userdata(UnsafeRawPointer(server)) else { return nil }
        return Unmanaged<VNCListener>.fromOpaque(me).takeUnretainedValue()
    }

    // MARK: Sessions

    /// The users that authenticated and whose viewers have not started yet (Neat VNC 0.5
    /// does not say which connection authenticated): the next viewer is the oldest's.
    private var authenticated: [(user: String, viewOnly: Bool)] = []

    private func authenticate(user: String, password: String) -> Bool {
        let verdict: Bool?
        var why = "wrong user name or password"
        switch users {
        case .file(let file)?: verdict = file.check(user: user, password: password)
        case .pam(let pam)?: (verdict, why) = pam.check(user: user, password: password, now: EventLoop.monotonicSeconds)
        case nil: verdict = nil
        }
        guard let verdict else {
            logger.warning("VNC \(settings.address): user \"\(user)\" refused (\(why))")
            return false
        }
        authenticated.append((user, verdict))
        if authenticated.count > 8 { authenticated.removeFirst() }
        return true
    }

    private func began(_ client: OpaquePointer) {
        let descriptor = newestDescriptor(known: Set(clients.values.map(\.descriptor)), on: relay.map { .unix(path: $0.inner) } ?? settings.address)
        let (user, userViewOnly) = authenticated.isEmpty ? ("", false) : authenticated.removeFirst()
        Self.nextSession += 1
        sessionsTotal += 1
        let session = RemoteSession(
            id: Self.nextSession, listener: settings.address.description, output: output, peer: relay != nil ? "unix" : descriptor.map(Self.peer) ?? "",
            user: user, viewOnly: settings.viewOnly || userViewOnly, since: Self.wallClock)
        clients[client] = Client(session: session, descriptor: descriptor ?? -1)
        let first = sessions.isEmpty
        if first {
            framebuffers = VNCFramebuffers(width: screen.width, height: screen.height)
            lastSent = -.infinity
            awaiting = Set(screen.parts.keys)
            awaitTimer = loop.schedule(after: 0.25) { [unowned self] in
                awaitTimer = nil
                stopAwaiting()
            }
        }
        sessions.append(session)
        nvnc_set_client_cleanup_fn(client) { client in VNCListener.of(client)?.ended(client!) }
        logger.notice(
            "VNC session \(session.id) on \(session.listener) from \(session.peer.isEmpty ? "?" : session.peer)\(user.isEmpty ? "" : " as \(user)")\(session.viewOnly ? ", view-only" : "")"
        )
        notify(.connected(session))
        // The outputs draw the first picture at their next frame slot (at once with the
        // manual clock): until it is sent, the viewer's requests wait unread.
        if first, awaitTimer != nil, !holding {
            holding = true
            aml.hold()
        }
    }

    private func ended(_ client: OpaquePointer) {
        guard let gone = clients.removeValue(forKey: client) else { return }
        sessions.removeAll { $0.id == gone.session.id }
        if sessions.isEmpty {
            framebuffers = nil
            if let flushTimer { loop.cancel(flushTimer) }
            flushTimer = nil
            stopAwaiting()
        }
        logger.notice("VNC session \(gone.session.id) from \(gone.session.peer.isEmpty ? "?" : gone.session.peer) ended")
        notify(.disconnected(gone.session))
    }

    private static var wallClock: Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    // MARK: Input

    /// evdev codes of the RFB button mask's first three bits.
    private static let buttonCodes: [UInt32] = [0x110, 0x112, 0x111]

    private func pointer(_ client: OpaquePointer, x: Int, y: Int, mask: UInt8) {
        guard let state = clients[client], !state.session.viewOnly else { return }
        let id = state.session.id
        let (x, y) = (x + screen.originX, y + screen.originY)
        let before = state.buttons
        state.buttons = mask & 0x07
        if state.position != (x, y) {
            state.position = (x, y)
            notify(.input(.motion(x: x, y: y), output: output, session: id))
        }
        for (bit, code) in Self.buttonCodes.enumerated() where (before ^ mask) & (1 << bit) != 0 {
            notify(.input(.button(code, pressed: mask & (1 << bit) != 0, x: x, y: y), output: output, session: id))
        }
        // Wheel steps are presses of buttons 4–7 (up, down, left, right), each its own event.
        let steps: [(UInt8, Double, Double)] = [(1 << 3, 0, -15), (1 << 4, 0, 15), (1 << 5, -15, 0), (1 << 6, 15, 0)]
        for (bit, dx, dy) in steps where mask & bit != 0 {
            notify(.input(.scroll(dx: dx, dy: dy, x: x, y: y), output: output, session: id))
        }
    }

    private func key(_ client: OpaquePointer, keysym: UInt32, pressed: Bool) {
        guard let state = clients[client], !state.session.viewOnly else { return }
        notify(.input(.key(keysym: keysym, pressed: pressed), output: output, session: state.session.id))
    }
}
