import Glibc
import Logging
import VitrineConfig
import VitrineProtocol
import VitrineSystem

/// The programs the daemon runs as its clients (`[[clients]]`, `client.start`): started
/// with `posix_spawn`, each in a process group of its own, watched on the event loop
/// through a pidfd (no wait blocks, no thread per child), restarted after an exit as their
/// policy says with a backoff of 1 s, 2 s, 4 s … up to `restartMaxSeconds`, and given up
/// on after `restartsPerMinute` restarts within a minute. Their output goes to the
/// daemon's log, a line at a time with a `[name]` prefix, within a bounded rate.
final class ClientLauncher {
    /// Where a client is in its life.
    enum State: String {
        /// Its process runs.
        case running
        /// `client.stop` (or the daemon's stop) sent SIGTERM; SIGKILL follows the grace.
        case stopping
        /// It exited and waits out its backoff before it starts again.
        case restarting
        /// It exited, and its policy does not start it again.
        case exited
        /// `client.stop` stopped it.
        case stopped
        /// It could not be started, or exited too often: the daemon gave up.
        case failed
        /// A `[[clients]]` entry with `start = false`, not started yet.
        case idle
    }

    final class Client {
        let name: String
        let program: ClientProgram
        let configured: Bool
        var state: State
        var process: Subprocess?
        /// Restarts since the client was last started by the daemon or a command.
        var restarts = 0
        /// Restarts, and times the daemon gave up on it, since the daemon started (metrics).
        var restartsTotal = 0
        var failures = 0
        var lastExit: Subprocess.Ending?
        /// Why it failed, when it did.
        var reason: String?
        /// When the restarts of the last minute happened (monotonic nanoseconds).
        var restartTimes: [UInt64] = []
        /// The wait before the next restart.
        var backoff = 1.0
        /// When its process started (monotonic nanoseconds).
        var startedAt: UInt64 = 0
        /// The restart or SIGKILL scheduled on the loop.
        var timer: UInt64?
        /// The kill scheduled while its window does not answer pings.
        var unresponsiveTimer: UInt64?
        /// It was killed for not answering: started again whatever its policy says.
        var killedUnresponsive = false
        /// `client.stop` requests waiting for the process to end.
        var waiting: [(JSON) -> Void] = []
        var lines = OutputLines(maximumLine: ClientLauncher.maximumLine)
        var log = LineBudget()

        init(name: String, program: ClientProgram, configured: Bool, state: State) {
            self.name = name
            self.program = program
            self.configured = configured
            self.state = state
        }
    }

    /// Lines of a client's output logged at most a second, beyond a burst of `burst`.
    struct LineBudget {
        static let rate = 100.0
        static let burst = 500.0
        var tokens = burst
        var refilled = EventLoop.monotonicNanoseconds()
        var dropped = 0

        /// Whether one more line may be logged now.
        mutating func allow() -> Bool {
            let now = EventLoop.monotonicNanoseconds()
            tokens = min(Self.burst, tokens + Double(now - refilled) / 1e9 * Self.rate)
            refilled = now
            guard tokens >= 1 else { return false }
            tokens -= 1
            return true
        }
    }

    /// The longest line logged whole; longer ones are logged in pieces.
    static let maximumLine = 4096
    /// Output read from one client per turn of the loop.
    static let readChunk = 65536
    /// Clients known at most: the configured ones and those started by command.
    static let maximumClients = 64

    /// What the launcher is configured with.
    struct Settings {
        /// The Wayland server's socket, which clients are given as `WAYLAND_DISPLAY`; nil
        /// while `[compositor]` is off.
        var waylandSocket: String?
        /// `[[clients]]`.
        var clients: [Configuration.ClientEntry]
        /// `[launcher] allow_commands`: `client.start` may run a command the request gives
        /// (reloadable).
        var allowCommands: Bool
    }

    private(set) var clients: [String: Client] = [:]
    var settings: Settings
    /// Where the launcher's events go.
    let notify: (WindowNotice) -> Void
    let loop: EventLoop
    let logger: Logger
    /// The daemon's environment without what systemd meant for the daemon alone, with the
    /// compositor's socket (and X11 display): what every client starts from.
    private(set) var environment: [String: String]
    private var buffer = [UInt8](repeating: 0, count: ClientLauncher.readChunk)

    init(settings: Settings, loop: EventLoop, logger: Logger, notify: @escaping (WindowNotice) -> Void) {
        self.settings = settings
        self.notify = notify
        self.loop = loop
        self.logger = logger
        var variables = Subprocess.inheritedEnvironment()
        if let socket = settings.waylandSocket {
            variables["WAYLAND_DISPLAY"] = socket
            variables["XDG_RUNTIME_DIR"] = socket.lastIndex(of: "/").map { String(socket[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        }
        environment = variables
        for entry in settings.clients {
            clients[entry.name] = Client(name: entry.name, program: entry.program, configured: true, state: .idle)
        }
    }

    /// X11 programs are served on `display`: clients started from now on get it as `DISPLAY`.
    func serveX11(display: String) {
        environment["DISPLAY"] = display
    }

    // MARK: Commands

    /// Starts the `[[clients]]` entries marked to start with the daemon; one that cannot
    /// start is logged and marked failed (`client.failed`), and the others go on.
    func startConfigured() {
        if settings.waylandSocket == nil, !settings.clients.isEmpty {
            logger.warning(
                "[[clients]] are configured but [compositor] is off: they get no WAYLAND_DISPLAY of this daemon and no window of theirs can be shown; set [compositor] enabled = true"
            )
        }
        for entry in settings.clients where entry.start {
            guard let client = clients[entry.name] else { continue }
            do throws(ProtocolError) {
                try launch(client)
            } catch {
                giveUp(client, reason: error.message)
            }
        }
    }

    /// `client.start`: the configured client `name` (`program` nil), or `program` under
    /// `name`; its description. Nothing changes when it cannot start.
    func start(_ name: String, program: ClientProgram?) throws(ProtocolError) -> JSON {
        let known = clients[name]
        if program != nil {
            guard settings.allowCommands else {
                throw ProtocolError(
                    .notAllowed, "client.start runs [[clients]] entries by name; set [launcher] allow_commands = true to let requests give a command")
            }
            guard known?.configured != true else {
                throw ProtocolError(.invalidValue, "'\(name)' is a [[clients]] entry; start it by its name alone, or give the command another name")
            }
        } else if known == nil {
            throw unknown(name)
        }
        if let known, known.state == .running || known.state == .stopping {
            throw ProtocolError(
                .invalidValue, "'\(name)' is \(known.state.rawValue) (pid \(known.process?.pid ?? 0)); client.stop it first, or give another name")
        }
        let forgotten = known == nil && clients.count >= Self.maximumClients ? endedCommandClient() : nil
        guard known != nil || clients.count < Self.maximumClients || forgotten != nil else {
            throw ProtocolError(.limitExceeded, "\(Self.maximumClients) clients are known already and none has ended; client.stop one first")
        }
        let client = program.map { Client(name: name, program: $0, configured: false, state: .idle) } ?? known!
        let previous = (client.restarts, client.restartTimes, client.backoff)
        (client.restarts, client.restartTimes, client.backoff) = (0, [], 1)
        do throws(ProtocolError) {
            try launch(client, queued: true)
        } catch {
            (client.restarts, client.restartTimes, client.backoff) = previous
            throw error
        }
        if let known, known !== client {
            cancelTimer(known)
            (client.restartsTotal, client.failures) = (known.restartsTotal, known.failures)
        }
        if let forgotten { clients[forgotten] = nil }
        clients[name] = client
        return describe(client)
    }

    /// `client.stop`: SIGTERM to the client's process group, SIGKILL after its grace;
    /// `done` gets its description once its process has ended (at once when none runs).
    func stop(_ name: String, done: @escaping (Result<JSON, ProtocolError>) -> Void) {
        guard let client = clients[name] else {
            return done(.failure(unknown(name)))
        }
        switch client.state {
        case .running:
            client.state = .stopping
            client.waiting.append { done(.success($0)) }
            terminate(client)
        case .stopping:
            client.waiting.append { done(.success($0)) }
        case .restarting:
            cancelTimer(client)
            client.state = .stopped
            done(.success(describe(client)))
        case .exited, .stopped, .failed, .idle:
            done(.success(describe(client)))
        }
    }

    /// `client.list`.
    func list() -> JSON {
        .object(["clients": .array(clients.keys.sorted().map { describe(clients[$0]!) })])
    }

    private func unknown(_ name: String) -> ProtocolError {
        guard !clients.isEmpty else {
            return ProtocolError(.unknownClient, "there is no client '\(name)'; there is none yet: configure one in [[clients]], or start one with a command")
        }
        let names = clients.keys.sorted().map { "'\($0)'" }.joined(separator: ", ")
        return ProtocolError(.unknownClient, "there is no client '\(name)'; the clients are \(names) (client.list)")
    }

    /// The first by name of the clients started by command that have ended: the one a
    /// new client replaces when `maximumClients` are known.
    private func endedCommandClient() -> String? {
        clients.values.filter { !$0.configured && [.exited, .stopped, .failed].contains($0.state) }.map(\.name).min()
    }

    // MARK: Processes

    /// Starts `client`'s process and watches it; `client.started` goes out after the
    /// reply (`queued`) or at once.
    private func launch(_ client: Client, queued: Bool = false) throws(ProtocolError) {
        let program = client.program
        var variables = environment
        variables.merge(program.environment) { $1 }
        let directory = program.directory.isEmpty ? nil : program.directory
        let process: Subprocess
        do throws(SystemError) {
            if let directory {
                var info = stat()
                guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw SystemError("the working directory \(directory) does not exist or is not a directory")
                }
            }
            let path = try Subprocess.resolve(program.command[0], searchPath: variables["PATH"] ?? "/usr/local/bin:/usr/bin:/bin", directory: directory)
            process = try Subprocess(
                program: path, arguments: program.command, environment: variables.map { "\($0.key)=\($0.value)" }.sorted(), directory: directory)
        } catch {
            throw ProtocolError(.startFailed, "client '\(client.name)' cannot start: \(error.message)")
        }
        do throws(SystemError) {
            try loop.watch(process.pidfd, for: .readable) { [unowned self, unowned client] _ in ended(client) }
            try loop.watch(process.output, for: .readable) { [unowned self, unowned client] _ in readOutput(client) }
        } catch {
            loop.unwatch(process.pidfd)
            throw ProtocolError(.startFailed, "client '\(client.name)' cannot be watched: \(error.message)")
        }
        cancelTimer(client)
        client.process = process
        client.state = .running
        client.reason = nil
        client.startedAt = EventLoop.monotonicNanoseconds()
        client.lines = OutputLines(maximumLine: Self.maximumLine)
        logger.info("client \(client.name) started (pid \(process.pid)): \(program.command.joined(separator: " "))")
        let event = Event.clientStarted(name: client.name, pid: Int(process.pid), restarts: client.restarts)
        notify(.event(event, afterReply: queued))
    }

    /// SIGTERM to the group, SIGKILL after the client's grace if it is still there.
    private func terminate(_ client: Client) {
        guard let process = client.process else { return }
        process.signalGroup(SIGTERM)
        cancelTimer(client)
        client.timer = loop.schedule(after: client.program.stopSeconds) { [weak self, weak client, weak process] in
            guard let self, let client, let process, client.process === process else { return }
            client.timer = nil
            logger.warning("client \(client.name) (pid \(process.pid)) did not end \(client.program.stopSeconds) s after SIGTERM: SIGKILL")
            process.signalGroup(SIGKILL)
        }
    }

    private func cancelTimer(_ client: Client) {
        if let ticket = client.timer { loop.cancel(ticket) }
        client.timer = nil
    }

    /// The client's process has ended: reaps it, logs its last output, and restarts it,
    /// leaves it or gives up on it.
    private func ended(_ client: Client) {
        guard let process = client.process, let ending = process.reap() else { return }
        loop.unwatch(process.pidfd)
        readOutput(client, toTheEnd: true)
        client.process = nil
        client.lastExit = ending
        cancelTimer(client)
        let ranFor = Double(EventLoop.monotonicNanoseconds() - client.startedAt) / 1e9
        let exitEvent = { (state: Event.ClientState) in Event.clientExited(name: client.name, pid: Int(process.pid), exit: ending.status, state: state) }
        cancelUnresponsiveKill(client)
        let stopping = client.state == .stopping
        let restart =
            switch client.program.restart {
            case _ where client.killedUnresponsive: true
            case .never: false
            case .onFailure: !ending.succeeded
            case .always: true
            }
        client.killedUnresponsive = false
        if stopping || !restart {
            client.state = stopping ? .stopped : .exited
            logger.log(level: ending.succeeded || stopping ? .info : .warning, "client \(client.name) (pid \(process.pid)) ended: \(ending)")
            notify(.event(exitEvent(stopping ? .stopped : .exited), afterReply: false))
            let description = describe(client)
            let waiting = client.waiting
            client.waiting = []
            for done in waiting { done(description) }
            return
        }
        let now = EventLoop.monotonicNanoseconds()
        client.restartTimes.removeAll { now - $0 >= 60_000_000_000 }
        if ranFor >= 60 { client.backoff = 1 }
        guard client.restartTimes.count < client.program.restartsPerMinute else {
            notify(.event(exitEvent(.failed), afterReply: false))
            let count = client.restartTimes.count
            giveUp(client, reason: "it ended (\(ending)) after \(count) restart\(count == 1 ? "" : "s") within a minute (restarts_per_minute)")
            return
        }
        let delay = client.backoff
        client.backoff = min(client.backoff * 2, Double(client.program.restartMaxSeconds))
        client.state = .restarting
        logger.warning("client \(client.name) (pid \(process.pid)) ended: \(ending); restarting in \(delay) s")
        notify(.event(exitEvent(.restarting(in: delay)), afterReply: false))
        client.timer = loop.schedule(after: delay) { [weak self, weak client] in
            guard let self, let client, client.state == .restarting else { return }
            client.timer = nil
            client.restarts += 1
            client.restartsTotal += 1
            client.restartTimes.append(EventLoop.monotonicNanoseconds())
            do throws(ProtocolError) { try launch(client) } catch { giveUp(client, reason: error.message) }
        }
    }

    /// Marks `client` failed: logged, and `client.failed` to subscribers.
    private func giveUp(_ client: Client, reason: String) {
        client.state = .failed
        client.reason = reason
        client.failures += 1
        logger.error("client \(client.name) failed, not restarted: \(reason)")
        notify(.event(.clientFailed(name: client.name, reason: reason, restarts: client.restarts), afterReply: false))
    }

    /// Reads what the client wrote, one chunk a turn (or, at its end, all that is there)
    /// and logs it as lines; at the end of the stream stops watching it.
    private func readOutput(_ client: Client, toTheEnd: Bool = false) {
        guard let process = client.process, process.output >= 0 else { return }
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(process.output, $0.baseAddress, $0.count) }
            if count > 0 {
                client.lines.take(buffer[..<count]) { log($0, of: client) }
                total += count
                if !toTheEnd || total >= 16 * Self.readChunk { return }
                continue
            }
            if count < 0 && (errno == EINTR) { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !toTheEnd { return }
            break
        }
        client.lines.finish { log($0, of: client) }
        reportDropped(client)
        loop.unwatch(process.output)
        process.closeOutput()
    }

    private func log(_ line: String, of client: Client) {
        guard client.log.allow() else {
            client.log.dropped += 1
            return
        }
        reportDropped(client)
        logger.info("[\(client.name)] \(line)")
    }

    private func reportDropped(_ client: Client) {
        guard client.log.dropped > 0 else { return }
        logger.warning("[\(client.name)] … \(client.log.dropped) lines left out (more than \(Int(LineBudget.rate)) a second)")
        client.log.dropped = 0
    }

    // MARK: Descriptions

    func describe(_ client: Client) -> JSON {
        var fields: [String: JSON] = [
            "name": .string(client.name), "state": .string(client.state.rawValue),
            "pid": client.process.map { .number(Double($0.pid)) } ?? .null, "restarts": .number(Double(client.restarts)),
            "lastExit": client.lastExit.map { .object($0.status.fields) } ?? .null,
            "command": .array(client.program.command.map(JSON.string)), "restart": .string(client.program.restart.rawValue),
            "configured": .bool(client.configured),
        ]
        if let reason = client.reason { fields["reason"] = .string(reason) }
        return .object(fields)
    }

    // MARK: The daemon's stop

    /// Ends every client's process (after the loop has stopped): SIGTERM to each group,
    /// a wait of at most each client's grace, SIGKILL for the rest.
    func stopAll() {
        let running = clients.values.filter { $0.process != nil }
        guard !running.isEmpty else { return }
        for client in running {
            cancelTimer(client)
            client.process?.signalGroup(SIGTERM)
        }
        let start = EventLoop.monotonicNanoseconds()
        var left = running
        while !left.isEmpty {
            let elapsed = Double(EventLoop.monotonicNanoseconds() - start) / 1e9
            for client in left where elapsed >= client.program.stopSeconds {
                logger.warning("client \(client.name) did not end \(client.program.stopSeconds) s after SIGTERM: SIGKILL")
                client.process?.signalGroup(SIGKILL)
            }
            var polls = left.map { pollfd(fd: $0.process!.pidfd, events: Int16(POLLIN), revents: 0) }
            let wait = left.map { max(0, $0.program.stopSeconds - elapsed) }.min() ?? 0
            _ = poll(&polls, nfds_t(polls.count), Int32(min(wait, 1) * 1000) + 1)
            for client in left where client.process?.reap() != nil {
                let process = client.process!
                readOutput(client, toTheEnd: true)
                loop.unwatch(process.pidfd)
                logger.info("client \(client.name) (pid \(process.pid)) ended: \(process.ending!)")
                client.lastExit = process.ending
                client.state = .stopped
                client.process = nil
            }
            left.removeAll { $0.process == nil }
        }
    }
}

extension Subprocess.Ending {
    /// How the process ended, as `client.exited` and `client.list` give it.
    var status: Event.ExitStatus {
        switch self {
        case .exited(let code): .exited(code: Int(code))
        case .signaled(let number): .signaled(Subprocess.signalName(number))
        case .unknown: .unknown
        }
    }
}
