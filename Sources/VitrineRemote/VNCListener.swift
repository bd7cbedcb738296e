import CNeatVNC
import Glibc
import Logging
import VitrineRaster
import VitrineSystem

/// One VNC server (a Neat VNC `nvnc`) on one address, showing one output: it is fed that
/// output's frames (`show`), says when viewers connect and leave, and turns their pointer
/// and keys into `RemoteInput` unless the listener is view-only.
public final class VNCListener {
    public let settings: RemoteSettings.Listener
    /// The output it shows.
    public let output: String
    /// The viewers connected now.
    public private(set) var sessions: [RemoteSession] = []
    /// Sessions since the listener started.
    public private(set) var sessionsTotal = 0
    /// Frames not fed because the viewers still held every buffer.
    public var framesSkipped: Int { framebuffers.skipped }
    private let logger: Logger
    private let notify: (RemoteNotice) -> Void
    private let passwords: PasswordFile?
    private var server: OpaquePointer?
    private var display: OpaquePointer?
    private let framebuffers = VNCFramebuffers()
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

    init(settings: RemoteSettings.Listener, output: String, logger: Logger, notify: @escaping (RemoteNotice) -> Void) throws(SystemError) {
        self.settings = settings
        self.output = output
        self.logger = logger
        self.notify = notify
        let name = "[remote] \(settings.address)"
        passwords = settings.authenticates ? try PasswordFile(path: settings.passwordFile) : nil
        if settings.authenticates, !nvnc_has_auth() {
            throw SystemError("\(name): this Neat VNC was built without TLS; install Debian's libneatvnc0, which has it")
        }
        switch settings.address {
        case .tcp(let host, let port):
            server = nvnc_open(host, UInt16(port))
        case .unix(let path):
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
            server = nvnc_open_unix(path)
            if server != nil { chmod(path, 0o660) }
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
        nvnc_set_name(server, "Vitrine \(output)")
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
        logger.info(
            "VNC on \(settings.address) shows \(output)\(settings.viewOnly ? ", view-only" : "")\(settings.authenticates ? ", TLS and password" : ", no authentication")"
        )
    }

    deinit { close() }

    /// Stops listening and ends every session.
    func close() {
        if let server {
            nvnc_close(server)
            self.server = nil
            if case .unix(let path) = settings.address { unlink(path) }
        }
        if let display {
            nvnc_display_unref(display)
            self.display = nil
        }
        clients = [:]
        sessions = []
    }

    /// Feeds a frame of the output: `surface` is the whole picture (read during the call
    /// only), `damage` what changed since the frame before. Copies the damage into a free
    /// framebuffer and hands it to Neat VNC with that damage, which its workers encode for
    /// each viewer that asked for an update; with every buffer still held, the frame is
    /// skipped and its damage goes with the next.
    public func show(_ surface: Surface, damage: [PixelRect]) {
        guard let display, let (slot, fed) = framebuffers.next(surface, damage: damage) else { return }
        nvnc_fb_set_release_fn(
            slot.fb,
            { fb, context in
                Unmanaged<VNCListener>.fromOpaque(context!).takeUnretainedValue().framebuffers.released(fb!)
            }, Unmanaged.passUnretained(self).toOpaque())
        let rects = fed.flatMap { [Int32($0.x), Int32($0.y), Int32($0.width), Int32($0.height)] }
        vitrine_vnc_feed(display, slot.fb, rects, Int32(fed.count))
    }

    private static func of(_ client: OpaquePointer?) -> VNCListener? {
        guard let client, let server = nvnc_client_get_server(client), let me = nvnc_get_userdata(UnsafeRawPointer(server)) else { return nil }
        return Unmanaged<VNCListener>.fromOpaque(me).takeUnretainedValue()
    }

    // MARK: Sessions

    /// The user names that authenticated and whose viewers have not started yet (Neat
    /// VNC 0.5 does not say which connection authenticated): the next viewer is the
    /// oldest's.
    private var authenticated: [String] = []

    private func authenticate(user: String, password: String) -> Bool {
        let accepted = passwords?.accepts(user: user, password: password) ?? false
        if accepted {
            authenticated.append(user)
            if authenticated.count > 8 { authenticated.removeFirst() }
        } else {
            logger.warning("VNC \(settings.address): user \"\(user)\" refused (wrong user name or password)")
        }
        return accepted
    }

    private func began(_ client: OpaquePointer) {
        let descriptor = newestDescriptor(known: Set(clients.values.map(\.descriptor)))
        let user = authenticated.isEmpty ? "" : authenticated.removeFirst()
        Self.nextSession += 1
        sessionsTotal += 1
        let session = RemoteSession(
            id: Self.nextSession, listener: settings.address.description, output: output, peer: descriptor.map(Self.peer) ?? "",
            user: user, viewOnly: settings.viewOnly, since: Self.wallClock)
        clients[client] = Client(session: session, descriptor: descriptor ?? -1)
        sessions.append(session)
        nvnc_set_client_cleanup_fn(client) { client in VNCListener.of(client)?.ended(client!) }
        logger.notice(
            "VNC session \(session.id) on \(session.listener) from \(session.peer.isEmpty ? "?" : session.peer)\(user.isEmpty ? "" : " as \(user)")\(session.viewOnly ? ", view-only" : "")"
        )
        notify(.connected(session))
    }

    private func ended(_ client: OpaquePointer) {
        guard let gone = clients.removeValue(forKey: client) else { return }
        sessions.removeAll { $0.id == gone.session.id }
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
        guard !settings.viewOnly, let state = clients[client] else { return }
        let id = state.session.id
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
        guard !settings.viewOnly, let state = clients[client] else { return }
        notify(.input(.key(keysym: keysym, pressed: pressed), output: output, session: state.session.id))
    }
}
