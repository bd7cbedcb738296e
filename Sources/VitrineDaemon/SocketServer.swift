import FoundationEssentials
import CLinuxEvents
import Glibc
import Logging
import SystemPackage
import VitrineProtocol
import VitrineSystem

/// The JSON-lines socket: one request per line in, one reply per request and events out.
///
/// Every connection is an ordinary client of the coordinator and is served on the
/// daemon's event loop. Reading and applying are apart: what a client sends is queued
/// per client (up to `queueBytes` of whole lines; past that its socket is not read, so the
/// client's own writes block), and the queued requests are applied in turns, one request
/// per client per turn, for at most `turnBudget` of the loop's time before it serves its
/// descriptors and frames again. So a client that pipelines thousands of requests neither
/// holds up the frames nor makes another client wait for more than one request of each.
///
/// A connection's errors stay its own: a bad line gets an error reply. Every disconnection
/// the daemon decides on is preceded by an error line with `"id": null` that says why: a
/// line over `limits.line_bytes`, `limits.idle_seconds` without a request (or with half a
/// line), too many clients, the daemon stopping, and — as far as it still fits — more than
/// `limits.outbound_bytes` of output left unread.
final class SocketServer {
    /// Where the requests go.
    unowned let requests: any RequestHandler
    let settings: DaemonSettings
    /// The limits in force, which a reload changes.
    var limits: DaemonSettings.Limits { requests.limits }
    let loop: EventLoop
    let logger: Logger
    /// The listening socket (nil once stopped); -1 as `listenerFD`.
    private var listener: OwnedDescriptor?
    private var listenerFD: CInt { listener?.rawValue ?? -1 }
    /// The path this server bound (and removes on stop); nil for a socket from systemd.
    private var boundPath: String?
    /// Open connections, by client id: admitted clients and those on their way out.
    private var connections: [Int: SocketClient] = [:]
    /// Connections that are the coordinator's clients (what `limits.clients` counts).
    private var admitted = 0
    private var nextClientID = 0
    /// Scratch space every read goes through.
    fileprivate var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    /// Clients with a request to apply, in turn order from `turnHead` on.
    private var turns: [SocketClient] = []
    private var turnHead = 0
    /// `serveTurns` is scheduled (or running).
    private var turnsScheduled = false
    /// The idle sweep's generation: a scheduled sweep of an older one does nothing.
    private var sweepGeneration = 0
    private var sweepScheduled = false
    /// The daemon's own user, which (with root) may take the place beyond `limits.clients`.
    private let ownUser = getuid()

    /// The loop time requests get in one go before descriptors and frames are served.
    static let turnBudget: UInt64 = 2_000_000
    /// Queued input past which a client's socket is not read while it has a whole line.
    static let queueBytes = 32 << 10
    /// Unsent output past which a client's requests wait until it has read its replies.
    static let outputPause = 256 << 10

    init(requests: any RequestHandler, settings: DaemonSettings, loop: EventLoop, logger: Logger) {
        self.requests = requests
        self.settings = settings
        self.loop = loop
        self.logger = logger
    }

    /// Listens on the configured path, or on the socket systemd passed in; returns the
    /// path listened on.
    @discardableResult
    func start(inheritedSocket: CInt? = nil) throws -> String {
        if let fd = inheritedSocket {
            guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
                throw SystemError.socket("make non-blocking", "the socket passed by systemd")
            }
            // systemd passes it inheritable: the programs the daemon starts must not get it.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            listener = OwnedDescriptor(fd)
            try loop.watch(fd, for: .readable) { [unowned self] _ in acceptClients() }
            let path = SocketFile.boundPath(of: fd) ?? "the socket passed by systemd"
            logger.info("listening on \(path) (passed by systemd)")
            return path
        }
        let path = settings.socketPath
        let socket = try SocketFile.listen(path, mode: settings.socketMode, group: settings.socketGroup)
        boundPath = path
        listener = socket
        try loop.watch(socket.rawValue, for: .readable) { [unowned self] _ in acceptClients() }
        logger.info("listening on \(path)")
        return path
    }

    /// Stops listening, tells the clients that the daemon stops and disconnects them, and
    /// removes the socket file.
    func stop() {
        let stopping = ProtocolError(.shuttingDown, "the daemon is stopping; connect again once it is back")
        for client in Array(connections.values) { client.disconnect(stopping) }
        if let listener {
            loop.unwatch(listener.rawValue)
            listener.close()
            self.listener = nil
        }
        if let boundPath { unlink(boundPath) }
        boundPath = nil
    }

    /// The reloadable limits changed: the idle sweep starts over with them.
    func limitsChanged() {
        sweepGeneration += 1
        sweepScheduled = false
        scheduleSweep()
    }

    private func acceptClients() {
        // A bounded batch: a flood of connections cannot hold the loop.
        for _ in 0..<16 {
            let fd = vitrine_accept_nonblocking(listenerFD)
            guard fd >= 0 else {
                let code = Errno.last
                switch code {
                case .resourceTemporarilyUnavailable, .wouldBlock, .interrupted, .connectionAbort, .protocolError:
                    return
                default:
                    // Out of descriptors or memory: stop accepting for a moment rather than
                    // spin on a listener that stays readable.
                    logger.warning("cannot accept a client: \(code); accepting again in a second")
                    loop.unwatch(listenerFD)
                    loop.schedule(after: 1) { [weak self] in
                        guard let self, let listener else { return }
                        try? loop.watch(listener.rawValue, for: .readable) { [unowned self] _ in acceptClients() }
                    }
                    return
                }
            }
            admit(OwnedDescriptor(fd))
        }
    }

    private func admit(_ socket: OwnedDescriptor) {
        nextClientID += 1
        let fd = socket.rawValue
        let client = SocketClient(socket, id: nextClientID, server: self)
        do {
            try loop.watch(fd, for: .readable) { [unowned client] events in client.ready(events) }
        } catch {
            logger.warning("cannot serve a client: \(error)")
            return
        }
        connections[client.clientID] = client
        let limit = limits.clients
        // One place more for the operator: root or the daemon's own user can always get in.
        guard admitted < limit || (admitted == limit && isOperator(fd)) else {
            logger.warning("refused a client: \(limit) clients are connected (limits.clients)")
            client.refuse(ProtocolError(.limitExceeded, "the daemon serves \(limit) clients at most (and one more for root or its own user); try again later"))
            return
        }
        admitted += 1
        client.isAdmitted = true
        requests.connect(client)
        scheduleSweep()
        logger.debug("client \(client.clientID) connected")
    }

    /// Whether the peer of `fd` is root or the daemon's own user (SO_PEERCRED).
    private func isOperator(_ fd: CInt) -> Bool {
        // struct ucred: pid, uid, gid.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return false }
        return credentials.uid == 0 || credentials.uid == ownUser
    }

    /// The client sends no more requests: it gets no more events, and its place is free.
    fileprivate func retire(_ client: SocketClient) {
        guard client.isAdmitted else { return }
        client.isAdmitted = false
        admitted -= 1
        requests.disconnect(client)
    }

    fileprivate func closed(_ client: SocketClient) {
        guard connections.removeValue(forKey: client.clientID) != nil else { return }
        logger.debug("client \(client.clientID) disconnected")
    }

    /// Whether the coordinator sends `client` events it subscribed to: a listener may stay
    /// silent.
    fileprivate func isListener(_ client: SocketClient) -> Bool {
        requests.listens(client.clientID)
    }

    // MARK: Turns

    /// `client` has a request to apply: it takes its turn after those queued already.
    fileprivate func enqueue(_ client: SocketClient) {
        guard !client.hasTurn else { return }
        client.hasTurn = true
        turns.append(client)
        guard !turnsScheduled else { return }
        turnsScheduled = true
        loop.schedule(after: 0) { [weak self] in self?.serveTurns() }
    }

    /// Applies one request of each client in turn, for at most `turnBudget`; then yields
    /// to the loop (descriptors, frames) and goes on after.
    private func serveTurns() {
        let deadline = EventLoop.monotonicNanoseconds() + Self.turnBudget
        while turnHead < turns.count {
            let client = turns[turnHead]
            turnHead += 1
            client.hasTurn = false
            client.applyNextRequest()
            if EventLoop.monotonicNanoseconds() >= deadline { break }
        }
        if turnHead == turns.count {
            turns.removeAll(keepingCapacity: true)
            turnHead = 0
            turnsScheduled = false
            return
        }
        if turnHead >= 1024 {
            turns.removeSubrange(0..<turnHead)
            turnHead = 0
        }
        loop.schedule(after: 0) { [weak self] in self?.serveTurns() }
    }

    // MARK: Idle connections

    /// Keeps one sweep scheduled while clients are connected and `limits.idle_seconds` is
    /// set, at the earliest moment a connection may have been idle for that long.
    private func scheduleSweep(at deadline: UInt64? = nil) {
        let idle = Double(limits.idleSeconds)
        guard !sweepScheduled, idle > 0, admitted > 0 else { return }
        sweepScheduled = true
        let now = EventLoop.monotonicNanoseconds()
        let at = deadline ?? now + UInt64(idle * 1e9)
        let generation = sweepGeneration
        loop.schedule(after: Double(at > now ? at - now : 0) / 1e9) { [weak self] in
            guard let self, generation == sweepGeneration else { return }
            sweepScheduled = false
            sweep()
        }
    }

    /// Closes the connections idle for `limits.idle_seconds`, with the reason.
    private func sweep() {
        let idle = Double(limits.idleSeconds)
        guard idle > 0 else { return }
        let span = UInt64(idle * 1e9)
        let now = EventLoop.monotonicNanoseconds()
        var next = now + span
        for client in Array(connections.values) where client.isAdmitted {
            if let deadline = client.idleDeadline(now: now, span: span) { next = min(next, deadline) }
        }
        scheduleSweep(at: next)
    }
}

/// One client connection: request lines to the coordinator, replies and events back.
private final class SocketClient: ClientConnection {
    /// The connection's socket, closed once by `close()`.
    private let socket: OwnedDescriptor
    /// The socket's number (kept after `close()`, for logs and lookups).
    let fd: CInt
    let clientID: Int
    unowned let server: SocketServer
    /// Bytes read and not applied yet: whole lines from `consumed` on, then the start of
    /// the next line from `tailStart` on.
    private var input: [UInt8] = []
    private var consumed = 0
    private var tailStart = 0
    /// The end of the next whole line, when known; `input` has no newline from `consumed`
    /// up to `searched` otherwise.
    private var lineEnd: Int?
    private var searched = 0
    /// Bytes the socket did not take yet, from `outputStart` on.
    private var output: [UInt8] = []
    private var outputStart = 0
    /// The client sent its last request, or will not be heard any more: once its output
    /// is out, the connection closes.
    private var finished = false
    /// The client's input has ended (it shut down its writing side or closed).
    private var inputEnded = false
    /// The line being read is over `limits.line_bytes`: it is refused once the whole lines
    /// before it are applied.
    private var overlong = false
    /// Output done, waiting for the client to close: what it still sends is read and
    /// dropped, so that closing does not reset the connection before it has read ours.
    private var lingering = false
    private var isClosed = false
    /// What the socket is watched for now.
    private var watched: EventLoop.Events = .readable
    /// One of the coordinator's clients (set by the server).
    var isAdmitted = false
    /// In the server's turn queue.
    var hasTurn = false
    /// A request's reply comes later (`Coordinator.handle` deferred it): the next lines wait.
    private var awaitingReply = false
    /// When the client last sent a whole line (or connected), and when the unfinished line
    /// at the end of its input began (nil: there is none).
    private var lastLine = EventLoop.monotonicNanoseconds()
    private var partialSince: UInt64?

    init(_ socket: OwnedDescriptor, id: Int, server: SocketServer) {
        self.socket = socket
        fd = socket.rawValue
        clientID = id
        self.server = server
    }

    func ready(_ events: EventLoop.Events) {
        if lingering { return dropInput() }
        // A hang-up while the last lines wait to go out: the write fails and closes.
        if events.contains(.writable) || (finished && events.contains(.closed)) { writeQueued() }
        guard !isClosed, !finished else { return }
        if events.contains(.readable) {
            readRequests()
        } else if !events.isDisjoint(with: .closed) {
            // Hung up while its queue is full: no one is left to read the replies.
            server.logger.debug("client \(clientID) hung up with requests queued")
            close()
        }
    }

    /// Turns the connection away with `error`, as the only line it gets.
    func refuse(_ error: ProtocolError) {
        send(Wire.failure(id: nil, error))
        finish()
    }

    /// Sends `error` as the last line (as far as the socket takes it) and closes at once.
    func disconnect(_ error: ProtocolError) {
        guard !isClosed else { return }
        send(Wire.failure(id: nil, error))
        if !isClosed, output.count > outputStart { writeQueued() }
        close()
    }

    // MARK: Reading

    private func readRequests() {
        let count = server.readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count > 0 {
            let now = EventLoop.monotonicNanoseconds()
            compactInput()
            let start = input.count
            input += server.readBuffer[0..<count]
            if let last = server.readBuffer[0..<count].lastIndex(of: UInt8(ascii: "\n")) {
                tailStart = start + last + 1
                lastLine = now
                partialSince = tailStart == input.count ? nil : now
            } else if partialSince == nil {
                partialSince = now
            }
            if input.count - tailStart > server.limits.lineBytes {
                // The rest of that line is not kept; the lines before it still go first.
                input.removeSubrange(tailStart...)
                overlong = true
            }
            proceed()
            updateInterest()
        } else if count == 0 {
            // End of input: a last request without its newline still counts.
            inputEnded = true
            if tailStart < input.count {
                input.append(UInt8(ascii: "\n"))
                tailStart = input.count
                partialSince = nil
            }
            proceed()
            updateInterest()
        } else {
            let code = Errno.last
            switch code {
            case .resourceTemporarilyUnavailable, .wouldBlock, .interrupted: break
            case .connectionReset, .brokenPipe: server.logger.debug("client \(clientID) went away: \(code)"); close()
            default: server.logger.warning("client \(clientID): read: \(code)"); close()
            }
        }
    }

    /// Drops the applied lines from the front of `input`.
    private func compactInput() {
        guard consumed > 0, consumed == input.count || consumed >= 16 << 10 else { return }
        if consumed == input.count {
            input.removeAll(keepingCapacity: input.capacity <= 256 << 10)
        } else {
            input.removeSubrange(0..<consumed)
        }
        tailStart -= consumed
        searched = max(0, searched - consumed)
        lineEnd = lineEnd.map { $0 - consumed }
        consumed = 0
    }

    /// The index of the newline that ends the next whole line, if there is one.
    private func nextLineEnd() -> Int? {
        if let lineEnd { return lineEnd }
        let from = max(consumed, searched)
        guard from < input.count else { return nil }
        let found = input.withUnsafeBufferPointer { bytes -> Int? in
            guard let hit = memchr(bytes.baseAddress! + from, Int32(UInt8(ascii: "\n")), bytes.count - from) else { return nil }
            return UnsafeRawPointer(hit) - UnsafeRawPointer(bytes.baseAddress!)
        }
        lineEnd = found
        searched = found ?? input.count
        return found
    }

    /// Whether the next request may be applied now.
    private var canApply: Bool {
        !isClosed && !finished && !awaitingReply && output.count - outputStart < SocketServer.outputPause && nextLineEnd() != nil
    }

    /// Applies the client's next whole line (its turn); queues the client again while it
    /// has more.
    func applyNextRequest() {
        guard !isClosed, !finished, !awaitingReply, output.count - outputStart < SocketServer.outputPause else { return }
        guard let end = nextLineEnd() else { return endOfRequests() }
        let start = consumed
        consumed = end + 1
        lineEnd = nil
        searched = consumed
        guard end - start <= server.limits.lineBytes else { return refuseLongLine() }
        handle(input[start..<end])
        guard !isClosed, !finished else { return }
        if consumed == input.count { compactInput() }
        // Reading again once the queue is half empty, or holds only the start of a line.
        if !watched.contains(.readable), input.count - consumed < SocketServer.queueBytes / 2 || nextLineEnd() == nil { updateInterest() }
        proceed()
    }

    /// Takes the next turn when a request can be applied; ends the requests when none is
    /// left and none will come.
    private func proceed() {
        if canApply {
            server.enqueue(self)
        } else if !isClosed, !finished, !awaitingReply, nextLineEnd() == nil {
            endOfRequests()
        }
    }

    /// No whole line is left: the input's end or an overlong line ends the connection.
    private func endOfRequests() {
        if overlong { return refuseLongLine() }
        if inputEnded { finish() }
    }

    private func handle(_ raw: ArraySlice<UInt8>) {
        let line = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
        // Empty and whitespace-only lines are ignored: no reply.
        guard !Request.isBlank(line) else { return }
        guard let reply = server.requests.handle(request: line, from: self) else {
            awaitingReply = true
            return
        }
        send(reply)
        // The change's frame (and the events it causes) follows its reply, before the
        // next request is applied.
        server.requests.flush()
    }

    private func refuseLongLine() {
        let limit = server.limits.lineBytes
        send(Wire.failure(id: nil, ProtocolError(.lineTooLong, "a request line is limited to \(limit) bytes (limits.line_bytes); the connection is closed")))
        server.logger.warning("client \(clientID) sent a line over \(limit) bytes: disconnected")
        finish()
    }

    func resume() {
        guard awaitingReply, !isClosed else { return }
        awaitingReply = false
        lastLine = EventLoop.monotonicNanoseconds()
        proceed()
        server.requests.flush()
    }

    /// What the socket is watched for: replies to write, and requests to read while the
    /// client's queue has room (a partial line is always read on, up to its limit).
    private var interest: EventLoop.Events {
        var events: EventLoop.Events = output.count > outputStart ? .writable : []
        if !finished, !inputEnded, !overlong, input.count - consumed < SocketServer.queueBytes || nextLineEnd() == nil {
            events.insert(.readable)
        }
        return events
    }

    private func updateInterest() {
        guard !isClosed, !lingering else { return }
        let events = interest
        guard events != watched else { return }
        watched = events
        server.loop.change(fd, to: events)
    }

    // MARK: Idle

    /// Closes the connection, with the reason, when it has been idle for `span`
    /// nanoseconds at `now`: no whole line for that long (unless it is a listener), or half
    /// a line kept for that long. Returns when it will be, or nil.
    func idleDeadline(now: UInt64, span: UInt64) -> UInt64? {
        guard !isClosed, !finished else { return nil }
        // Requests waiting, a reply coming or output going out: not idle.
        if awaitingReply || nextLineEnd() != nil || output.count > outputStart {
            lastLine = now
            if partialSince != nil { partialSince = now }
        }
        var deadline: UInt64?
        if let since = partialSince {
            guard now - min(now, since) < span else {
                idleOut("half a request line was left unfinished for \(Self.seconds(span)) (limits.idle_seconds); the connection is closed")
                return nil
            }
            deadline = since + span
        }
        if server.isListener(self) { return deadline }
        guard now - min(now, lastLine) < span else {
            idleOut("no request for \(Self.seconds(span)) (limits.idle_seconds); the connection is closed")
            return nil
        }
        return min(deadline ?? .max, lastLine + span)
    }

    private func idleOut(_ message: String) {
        server.logger.info("client \(clientID) was idle: disconnected")
        send(Wire.failure(id: nil, ProtocolError(.idleTimeout, message)))
        finish()
    }

    private static func seconds(_ nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds) / 1e9
        return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    // MARK: Ending

    /// No more requests: the replies already queued go out, then the connection closes
    /// (within ten seconds in all).
    private func finish() {
        guard !finished else { return }
        finished = true
        input = []
        consumed = 0
        tailStart = 0
        lineEnd = nil
        searched = 0
        server.retire(self)
        guard output.count > outputStart || !inputEnded else { return close() }
        // Waiting on the client: not for ever (and no timer when there is no wait).
        server.loop.schedule(after: 10) { [weak self] in self?.close() }
        guard output.count > outputStart else { return linger() }
        updateInterest()
    }

    /// The output is out: closes when the client has nothing more to send; otherwise shuts
    /// down writing (the client reads to the end of our output) and drops what it still
    /// sends until it closes.
    private func linger() {
        guard !inputEnded, !isClosed else { return close() }
        lingering = true
        shutdown(fd, Int32(SHUT_WR))
        watched = .readable
        server.loop.change(fd, to: .readable)
    }

    private func dropInput() {
        for _ in 0..<4 {
            let count = server.readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0, Errno.last.meansTryAgain || Errno.last == .interrupted { return }
            return close()
        }
    }

    // MARK: Writing

    /// Queues one line (without newline): written at once as far as the socket takes it,
    /// the rest when it is writable again.
    func send(_ line: String) {
        guard !isClosed else { return }
        var line = line
        line.withUTF8 { bytes in
            if output.count == outputStart {
                let written = writeNow(bytes)
                guard written >= 0 else { return }
                output.removeAll(keepingCapacity: true)
                outputStart = 0
                if written == bytes.count + 1 { return }
                if written < bytes.count { output += bytes[written...] }
                output.append(UInt8(ascii: "\n"))
                updateInterest()
            } else {
                output += bytes
                output.append(UInt8(ascii: "\n"))
            }
        }
        if output.count - outputStart > server.limits.outboundBytes { cutOff() }
    }

    /// The client does not read: the lines not begun are dropped for one saying why, which
    /// goes out if the socket still takes it; then the connection closes.
    private func cutOff() {
        let limit = server.limits.outboundBytes
        server.logger.warning("client \(clientID) is not reading its replies and events (over \(limit) bytes queued): disconnected")
        // The line at the head (perhaps partly written) stays, so that the reason arrives whole.
        let keep = output[outputStart...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? output.count
        output.removeSubrange(keep...)
        output += Array(
            Wire.failure(
                id: nil,
                ProtocolError(
                    .limitExceeded, "more than \(limit) bytes of replies and events were left unread (limits.outbound_bytes); the connection is closed")
            ).utf8)
        output.append(UInt8(ascii: "\n"))
        finished = true
        writeQueued()
        close()
    }

    /// Writes `bytes` and a newline; returns how many bytes went, or -1 when the
    /// connection closed.
    private func writeNow(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var newline = UInt8(ascii: "\n")
        let written = withUnsafeMutablePointer(to: &newline) { newline in
            var parts = [
                iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count),
                iovec(iov_base: UnsafeMutableRawPointer(newline), iov_len: 1),
            ]
            return parts.withUnsafeMutableBufferPointer { parts in
                var message = msghdr()
                message.msg_iov = parts.baseAddress
                message.msg_iovlen = 2
                return sendmsg(fd, &message, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
        }
        guard written < 0 else { return written }
        return failedWrite() ? 0 : -1
    }

    private func writeQueued() {
        while outputStart < output.count {
            let written = output.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + outputStart, $0.count - outputStart, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            // Full for now (a later EPOLLOUT goes on), or closed.
            guard written >= 0 else { _ = failedWrite(); return }
            outputStart += written
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 << 10)
        outputStart = 0
        if finished { return linger() }
        updateInterest()
        // Requests held back while the output was backed up go on.
        proceed()
    }

    /// After a failed write: true when the socket is only full for now; otherwise the
    /// connection is closed.
    private func failedWrite() -> Bool {
        let code = Errno.last
        if code.meansTryAgain || code == .interrupted { return true }
        if code == .brokenPipe || code == .connectionReset {
            server.logger.debug("client \(clientID) went away: \(code)")
        } else {
            server.logger.warning("client \(clientID): write: \(code)")
        }
        close()
        return false
    }

    /// Closes the connection at once, dropping what is unsent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        server.retire(self)
        server.closed(self)
        server.loop.unwatch(fd)
        socket.close()
        input = []
        output = []
    }
}
