import CX11
import Glibc
import Logging
import VitrineSystem
import VitrineWayland

/// X11 programs through Xwayland: the X11 display's sockets, held by the daemon from the
/// start, and an Xwayland it starts on them — when the first X11 program connects
/// (`onDemand`), or at once (`always`) — with its window manager, whose managed windows
/// the window host places in surface layers like Wayland ones.
///
/// ```swift
/// let x11 = try XWayland(mode: .onDemand, server: server, loop: loop, logger: logger)
/// x11.delegate = windowHost          // the X11 windows' lives, as `HostedWindow`s
/// environment["DISPLAY"] = x11.display
/// ```
///
/// Xwayland is started as `Xwayland :N -rootless -listenfd A -listenfd B -wm C -displayfd D`
/// with `WAYLAND_SOCKET` one end of a socket pair whose other end is a client of our
/// Wayland server (no socket file), in a process group of its own, watched through a
/// pidfd. When it ends (it crashed, or was killed) the log says how, its windows are
/// unmapped, and it is started again when the next X11 program connects; one that ends
/// within 5 s of its start waits 1, 2, 4 … 30 s before that. The loop never waits for it:
/// its readiness is a pipe (`-displayfd`), and the window manager's connection is made on
/// a thread of its own.
///
/// The xcb libraries (libxcb, libxcb-composite, libxcb-res) are opened when Xwayland is
/// first started: a daemon no X11 program connects to maps none of them.
public final class XWayland {
    /// When Xwayland runs.
    public enum Mode: Sendable {
        /// Started when the first X11 program connects.
        case onDemand
        /// Started at once.
        case always
    }

    private let mode: Mode
    private unowned let server: WaylandServer
    private let loop: EventLoop
    private let logger: Logger
    private let sockets: XDisplaySockets
    /// The Xwayland executable.
    private let program: String
    private var process: Subprocess?
    private var client: XWaylandClient?
    /// Xwayland's window manager, once Xwayland is ready.
    public private(set) var manager: XWindowManager?
    /// Our end of the window manager's socket, until the connection is made on it.
    private var wmSocket: OwnedDescriptor?
    /// The pipe Xwayland writes the display to when it is ready, and what it wrote.
    private var readiness: OwnedDescriptor?
    private var announced: [UInt8] = []
    private var startedAt: UInt64 = 0
    private var backoff = 1.0
    private var watchingSockets = false
    private var rearm: UInt64?
    private var output = OutputLines(maximumLine: 1024)
    /// Xwayland's last lines of output, for the log line of its end.
    private var lastLines: [String] = []
    private var buffer = [UInt8](repeating: 0, count: 16384)
    /// Hears of the managed X11 windows.
    public weak var delegate: WindowDelegate? {
        didSet { manager?.delegate = delegate }
    }
    /// Seconds a window that takes `_NET_WM_PING` may leave a ping unanswered (0: none sent).
    public var pingTimeout = 5.0 {
        didSet { manager?.pingTimeout = pingTimeout }
    }

    /// Opens an X11 display's sockets and serves them with Xwayland, a client of `server`.
    /// - Throws: `SystemError` when Xwayland is not installed or no display can be opened.
    public init(mode: Mode, server: WaylandServer, loop: EventLoop, logger: Logger, program: String = "Xwayland") throws(SystemError) {
        let path = Subprocess.inheritedEnvironment()["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        do { self.program = try Subprocess.resolve(program, searchPath: path, directory: nil) } catch {
            throw SystemError("X11 programs need Xwayland: \(error.message) (Debian: apt-get install xwayland)")
        }
        self.mode = mode
        self.server = server
        self.loop = loop
        self.logger = logger
        sockets = try XDisplaySockets()
        if mode == .always { start() } else { watchSockets() }
    }

    deinit { stop() }

    /// ":N", what X11 programs find the display by (`DISPLAY`).
    public var display: String { sockets.display }

    /// The managed X11 windows that have shown.
    public var windows: [any HostedWindow] { manager?.hostedWindows ?? [] }

    /// Xwayland's process id while it runs.
    public var pid: Int? { process.map { Int($0.pid) } }

    /// Stops Xwayland (SIGTERM, SIGKILL a second later) and closes the display's sockets'
    /// watch; call when the daemon stops, before the Wayland server goes.
    public func stop() {
        unwatchSockets()
        if let rearm { loop.cancel(rearm) }
        rearm = nil
        manager?.shutDown()
        manager = nil
        guard let process else { return }
        loop.unwatch(process.pidfd)
        if process.output >= 0 { loop.unwatch(process.output) }
        if let readiness { loop.unwatch(readiness.rawValue) }
        readiness = nil
        process.signalGroup(SIGTERM)
        var ended = pollfd(fd: process.pidfd, events: Int16(POLLIN), revents: 0)
        _ = retryingOnInterrupt { poll(&ended, 1, 1000) }
        if let ending = process.reap() { logger.info("Xwayland (pid \(process.pid)) stopped: \(ending)") }
        self.process = nil
        client = nil
    }

    // MARK: The display's sockets

    /// Starts Xwayland when an X11 program connects.
    private func watchSockets() {
        guard !watchingSockets else { return }
        do {
            for socket in [sockets.abstractSocket, sockets.fileSocket] {
                try loop.watch(socket.rawValue, for: .readable) { [unowned self] _ in start() }
            }
            watchingSockets = true
        } catch {
            unwatchSockets()
            logger.error("X11 display \(display): \(error.message); X11 programs cannot start Xwayland")
        }
    }

    private func unwatchSockets() {
        loop.unwatch(sockets.abstractSocket.rawValue)
        loop.unwatch(sockets.fileSocket.rawValue)
        watchingSockets = false
    }

    // MARK: Xwayland's life

    /// Starts Xwayland on the display's sockets (which it accepts on from then on).
    private func start() {
        unwatchSockets()
        guard process == nil else { return }
        do throws(SystemError) {
            try FeatureLibraries("X11 programs (Xwayland's window manager)", vitrine_x11_wm_load).load()
            let wayland = try Self.socketPair()
            let wm = try Self.socketPair()
            var pipe: [CInt] = [-1, -1]
            guard Glibc.pipe(&pipe) == 0 else { throw SystemError.errno("make a pipe for", "Xwayland's readiness") }
            for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            let (readEnd, writeEnd) = (OwnedDescriptor(pipe[0]), OwnedDescriptor(pipe[1]))
            let client = try XWaylandClient(server: server, socket: wayland.ours)
            var environment = Subprocess.inheritedEnvironment()
            (environment["WAYLAND_DISPLAY"], environment["DISPLAY"], environment["WAYLAND_SOCKET"]) = (nil, nil, "7")
            let process = try Subprocess(
                program: program,
                arguments: ["Xwayland", display, "-rootless", "-listenfd", "3", "-listenfd", "4", "-wm", "5", "-displayfd", "6"],
                environment: environment.map { "\($0.key)=\($0.value)" }.sorted(),
                passing: [sockets.abstractSocket.rawValue, sockets.fileSocket.rawValue, wm.theirs.rawValue, writeEnd.rawValue, wayland.theirs.rawValue])
            // (kept before they are watched: an error from here on is cleaned up as an end)
            (self.process, self.client, wmSocket, readiness) = (process, client, wm.ours, readEnd)
            try loop.watch(process.pidfd, for: .readable) { [unowned self] _ in ended() }
            try loop.watch(process.output, for: .readable) { [unowned self] _ in readOutput() }
            try loop.watch(readEnd.rawValue, for: .readable) { [unowned self] _ in ready() }
            startedAt = EventLoop.monotonicNanoseconds()
            (lastLines, announced) = ([], [])
            logger.info("Xwayland started on \(display) (pid \(process.pid))")
        } catch {
            logger.error("Xwayland cannot start: \(error.message); X11 programs wait until it can")
            cleanUp()
            startAgainLater()
        }
    }

    /// Xwayland wrote its display: it runs. The window manager connects (off the loop).
    /// (The pipe stays open until Xwayland closes it: it writes the number and the newline
    /// in two writes, and a closed pipe makes the second one fatal.)
    private func ready() {
        guard let readiness else { return }
        let count = buffer.withUnsafeMutableBytes { read(readiness.rawValue, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR || errno == EAGAIN { return }
        if count > 0 { announced += buffer[..<count] }
        guard count <= 0 || announced.contains(10) else { return }
        loop.unwatch(readiness.rawValue)
        if count <= 0 { self.readiness = nil }
        guard !announced.isEmpty, let socket = wmSocket else { return }  // it ended first: `ended` says so
        wmSocket = nil
        let pid = process?.pid
        XConnection.open(socket: socket, loop: loop) { [weak self] result in
            guard let self, let process = self.process, process.pid == pid, let client = self.client else { return }
            do {
                let manager = try XWindowManager(connection: try result.get(), xwayland: client, server: server, loop: loop, logger: logger)
                manager.delegate = delegate
                manager.pingTimeout = pingTimeout
                self.manager = manager
                logger.info("Xwayland on \(display) is ready; its windows are managed")
            } catch {
                logger.error("Xwayland's window manager cannot start: \(error); Xwayland is stopped")
                process.signalGroup(SIGTERM)
            }
        }
    }

    /// Xwayland ended: said in the log, its windows unmapped, and started again on the next
    /// connection (after a wait when it did not last).
    private func ended() {
        guard let process, let ending = process.reap() else { return }
        readOutput(toTheEnd: true)
        let ranFor = Double(EventLoop.monotonicNanoseconds() - startedAt) / 1e9
        let words = lastLines.isEmpty ? "" : "; its last output: " + lastLines.joined(separator: " / ")
        let again = ranFor < 5 ? "in \(Int(backoff)) s, when an X11 program connects" : "when an X11 program connects"
        if ending.succeeded {
            logger.info("Xwayland (pid \(process.pid)) ended: \(ending); started again \(again)")
        } else {
            logger.warning("Xwayland (pid \(process.pid)) ended: \(ending) after \(Int(ranFor)) s\(words); started again \(again)")
        }
        manager?.shutDown()
        manager = nil
        cleanUp()
        if ranFor < 5 {
            startAgainLater()
        } else {
            backoff = 1
            watchSockets()
        }
    }

    /// Watches the sockets again after the backoff, which doubles up to 30 s.
    private func startAgainLater() {
        let delay = backoff
        backoff = min(backoff * 2, 30)
        rearm = loop.schedule(after: delay) { [weak self] in
            self?.rearm = nil
            self?.watchSockets()
        }
    }

    private func cleanUp() {
        if let readiness { loop.unwatch(readiness.rawValue) }
        if let process {
            loop.unwatch(process.pidfd)
            if process.output >= 0 {
                loop.unwatch(process.output)
                process.closeOutput()
            }
        }
        (process, readiness, wmSocket) = (nil, nil, nil)
        client = nil
    }

    /// Xwayland's output goes to the log at debug level; its last lines are kept for the
    /// line that tells its end.
    private func readOutput(toTheEnd: Bool = false) {
        guard let process, process.output >= 0 else { return }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(process.output, $0.baseAddress, $0.count) }
            if count > 0 {
                output.take(buffer[..<count]) { keep($0) }
                if !toTheEnd { return }
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK, !toTheEnd { return }
            break
        }
        output.finish { keep($0) }
        loop.unwatch(process.output)
        process.closeOutput()
    }

    private func keep(_ line: String) {
        logger.debug("[Xwayland] \(line)")
        lastLines.append(line)
        if lastLines.count > 3 { lastLines.removeFirst() }
    }

    /// A connected pair of Unix stream sockets (close-on-exec; the child gets its end as a
    /// passed descriptor).
    private static func socketPair() throws(SystemError) -> (ours: OwnedDescriptor, theirs: OwnedDescriptor) {
        var pair: [CInt] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SystemError.errno("make a socket pair for", "Xwayland")
        }
        return (OwnedDescriptor(pair[0]), OwnedDescriptor(pair[1]))
    }
}
