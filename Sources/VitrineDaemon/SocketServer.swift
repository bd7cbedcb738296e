import FoundationEssentials
import CLinuxEvents
import Glibc
import Logging
import VitrineProtocol
import VitrineSystem

/// The JSON-lines socket: one request per line in, one reply per request and events out.
///
/// Every connection is an ordinary client of the compositor and is served on the
/// compositor's event loop, so requests are applied in arrival order between frames. A
/// connection's errors stay its own: a bad line gets an error reply; only a line over the
/// size limit closes the connection (after an error line); a client that stops reading is
/// cut off when its unsent output passes the limit, so it can never stall frames.
final class SocketServer {
    let compositor: Compositor
    let settings: DaemonSettings
    let loop: EventLoop
    let logger: Logger
    private var listener: CInt = -1
    /// The path this server bound (and removes on stop); nil for a socket from systemd.
    private var boundPath: String?
    /// Open connections, by client id: admitted clients and those on their way out.
    private var connections: [Int: SocketClient] = [:]
    /// Connections that are the compositor's clients (what `limits.clients` counts).
    private var admitted = 0
    private var nextClientID = 0
    /// Scratch space every read goes through.
    fileprivate var readBuffer = [UInt8](repeating: 0, count: 64 << 10)

    init(compositor: Compositor, settings: DaemonSettings, loop: EventLoop, logger: Logger) {
        self.compositor = compositor
        self.settings = settings
        self.loop = loop
        self.logger = logger
    }

    /// Listens on the configured path, or on the socket systemd passed in; returns the
    /// path listened on.
    @discardableResult
    func start(inheritedSocket: CInt? = nil) throws -> String {
        if let fd = inheritedSocket {
            guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else { throw SystemError.socket("make non-blocking", "the socket passed by systemd") }
            listener = fd
            try loop.watch(fd, for: .readable) { [unowned self] _ in acceptClients() }
            let path = SocketFile.boundPath(of: fd) ?? "the socket passed by systemd"
            logger.info("listening on \(path) (passed by systemd)")
            return path
        }
        let path = settings.socketPath
        try SocketFile.prepare(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError.socket("create a socket for", path) }
        var address = SocketFile.address(of: path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let error = SystemError.socket("bind", path)
            close(fd)
            throw error
        }
        boundPath = path
        guard listen(fd, 64) == 0 else {
            let error = SystemError.socket("listen on", path)
            close(fd)
            throw error
        }
        listener = fd
        try SocketFile.setPermissions(path, mode: settings.socketMode, group: settings.socketGroup)
        try loop.watch(fd, for: .readable) { [unowned self] _ in acceptClients() }
        logger.info("listening on \(path)")
        return path
    }

    /// Stops listening, disconnects the clients and removes the socket file.
    func stop() {
        for client in connections.values { client.close() }
        if listener >= 0 {
            loop.unwatch(listener)
            close(listener)
            listener = -1
        }
        if let boundPath { unlink(boundPath) }
        boundPath = nil
    }

    private func acceptClients() {
        // A bounded batch: a flood of connections cannot hold the loop.
        for _ in 0..<16 {
            let fd = vitrine_accept_nonblocking(listener)
            guard fd >= 0 else {
                switch errno {
                case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO:
                    return
                default:
                    // Out of descriptors or memory: stop accepting for a moment rather than
                    // spin on a listener that stays readable.
                    logger.warning("cannot accept a client: \(String(cString: strerror(errno))); accepting again in a second")
                    loop.unwatch(listener)
                    loop.schedule(after: 1) { [weak self] in
                        guard let self, listener >= 0 else { return }
                        try? loop.watch(listener, for: .readable) { [unowned self] _ in acceptClients() }
                    }
                    return
                }
            }
            admit(fd)
        }
    }

    private func admit(_ fd: CInt) {
        nextClientID += 1
        let client = SocketClient(fd: fd, id: nextClientID, server: self)
        do {
            try loop.watch(fd, for: .readable) { [unowned client] events in client.ready(events) }
        } catch {
            logger.warning("cannot serve a client: \(error)")
            close(fd)
            return
        }
        connections[client.clientID] = client
        guard admitted < settings.limits.clients else {
            logger.warning("refused a client: \(settings.limits.clients) clients are connected (limits.clients)")
            client.refuse(ProtocolError(.limitExceeded, "the daemon serves \(settings.limits.clients) clients at most; try again later"))
            return
        }
        admitted += 1
        client.isAdmitted = true
        compositor.connect(client)
        logger.debug("client \(client.clientID) connected")
    }

    /// The client sends no more requests: it gets no more events, and its place is free.
    fileprivate func retire(_ client: SocketClient) {
        guard client.isAdmitted else { return }
        client.isAdmitted = false
        admitted -= 1
        compositor.disconnect(client)
    }

    fileprivate func closed(_ client: SocketClient) {
        guard connections.removeValue(forKey: client.clientID) != nil else { return }
        logger.debug("client \(client.clientID) disconnected")
    }
}

/// One client connection: request lines to the compositor, replies and events back.
private final class SocketClient: ClientConnection {
    let fd: CInt
    let clientID: Int
    unowned let server: SocketServer
    /// Bytes read and not yet a whole line.
    private var input: [UInt8] = []
    /// Bytes the socket did not take yet, from `outputStart` on.
    private var output: [UInt8] = []
    private var outputStart = 0
    /// Bytes at the start of `input` known to hold no newline.
    private var searched = 0
    /// The client sent its last request, or will not be heard any more: once its output
    /// is out, the connection closes.
    private var finished = false
    /// The client's input has ended (it shut down its writing side or closed).
    private var inputEnded = false
    /// Output done, waiting for the client to close: what it still sends is read and
    /// dropped, so that closing does not reset the connection before it has read ours.
    private var lingering = false
    private var isClosed = false
    /// One of the compositor's clients (set by the server).
    var isAdmitted = false
    /// A request's reply comes later (`Compositor.handle` deferred it): the next lines wait,
    /// and the socket is not read meanwhile.
    private var awaitingReply = false

    init(fd: CInt, id: Int, server: SocketServer) {
        self.fd = fd
        clientID = id
        self.server = server
    }

    func ready(_ events: EventLoop.Events) {
        if lingering { return dropInput() }
        // A hang-up while the last lines wait to go out: the write fails and closes.
        if events.contains(.writable) || (finished && events.contains(.closed)) { writeQueued() }
        if !isClosed, !finished, !events.isDisjoint(with: [.readable, .closed]) { readRequests() }
    }

    /// Turns the connection away with `error`, as the only line it gets.
    func refuse(_ error: ProtocolError) {
        send(Wire.failure(id: nil, error))
        finish()
    }

    // MARK: Reading

    private func readRequests() {
        // A few reads per wake-up, then the other clients' turn (the socket stays ready).
        for _ in 0..<4 where !isClosed && !finished {
            let count = server.readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                let full = count == server.readBuffer.count
                input += server.readBuffer[0..<count]
                handleLines()
                if !full { break }
            } else if count == 0 {
                // End of input: a last request without its newline still counts.
                if !input.isEmpty, input.count <= server.settings.limits.lineBytes { handle(input[...]) }
                input = []
                inputEnded = true
                finish()
            } else {
                let code = errno
                switch code {
                case EAGAIN, EWOULDBLOCK, EINTR: break
                case ECONNRESET, EPIPE: server.logger.debug("client \(clientID) went away: \(String(cString: strerror(code)))"); close()
                default: server.logger.warning("client \(clientID): read: \(String(cString: strerror(code)))"); close()
                }
                break
            }
        }
        // The changes of all the lines read: their frame follows their replies.
        server.compositor.flush()
    }

    /// Applies the whole lines in `input`, keeping the partial one; closes the connection
    /// on a line over the limit.
    private func handleLines() {
        let limit = server.settings.limits.lineBytes
        var start = 0
        while !isClosed, !awaitingReply, let newline = input[max(start, searched)...].firstIndex(of: UInt8(ascii: "\n")) {
            guard newline - start <= limit else { return refuseLongLine() }
            handle(input[start..<newline])
            start = newline + 1
        }
        guard !isClosed else { return }
        input.removeSubrange(0..<start)
        searched = awaitingReply ? 0 : input.count
        if !awaitingReply, input.count > limit { refuseLongLine() }
    }

    private func handle(_ raw: ArraySlice<UInt8>) {
        let line = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
        guard !line.isEmpty else { return }
        guard let reply = server.compositor.handle(line: line, from: self) else {
            awaitingReply = true
            server.loop.change(fd, to: interest)
            return
        }
        send(reply)
        // The change's frame (and the events it causes) follows its reply, before the
        // next request is applied.
        server.compositor.flush()
    }

    private func refuseLongLine() {
        let limit = server.settings.limits.lineBytes
        send(Wire.failure(id: nil, ProtocolError(.lineTooLong, "a request line is limited to \(limit) bytes (limits.line_bytes); the connection is closed")))
        server.logger.warning("client \(clientID) sent a line over \(limit) bytes: disconnected")
        finish()
    }

    func resume() {
        guard awaitingReply, !isClosed else { return }
        awaitingReply = false
        server.loop.change(fd, to: interest)
        if !finished { handleLines() }
        server.compositor.flush()
    }

    /// What the socket is watched for: replies to write, and requests to read unless a
    /// reply is awaited or the client is done.
    private var interest: EventLoop.Events {
        var events: EventLoop.Events = output.count > outputStart ? .writable : []
        if !finished, !awaitingReply { events.insert(.readable) }
        return events
    }

    /// No more requests: the replies already queued go out, then the connection closes
    /// (within ten seconds in all).
    private func finish() {
        guard !finished else { return }
        finished = true
        input = []
        server.retire(self)
        guard output.count > outputStart || !inputEnded else { return close() }
        // Waiting on the client: not for ever (and no timer when there is no wait).
        server.loop.schedule(after: 10) { [weak self] in self?.close() }
        guard output.count > outputStart else { return linger() }
        server.loop.change(fd, to: .writable)
    }

    /// The output is out: closes when the client has nothing more to send; otherwise shuts
    /// down writing (the client reads to the end of our output) and drops what it still
    /// sends until it closes.
    private func linger() {
        guard !inputEnded, !isClosed else { return close() }
        lingering = true
        shutdown(fd, Int32(SHUT_WR))
        server.loop.change(fd, to: .readable)
    }

    private func dropInput() {
        for _ in 0..<4 {
            let count = server.readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
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
                server.loop.change(fd, to: interest)
            } else {
                output += bytes
                output.append(UInt8(ascii: "\n"))
            }
        }
        if output.count - outputStart > server.settings.limits.outboundBytes {
            server.logger.warning("client \(clientID) is not reading its replies and events (over \(server.settings.limits.outboundBytes) bytes queued): disconnected")
            close()
        }
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
        if finished { linger() } else { server.loop.change(fd, to: interest) }
    }

    /// After a failed write: true when the socket is only full for now; otherwise the
    /// connection is closed.
    private func failedWrite() -> Bool {
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return true }
        if code == EPIPE || code == ECONNRESET {
            server.logger.debug("client \(clientID) went away: \(String(cString: strerror(code)))")
        } else {
            server.logger.warning("client \(clientID): write: \(String(cString: strerror(code)))")
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
        Glibc.close(fd)
        input = []
        output = []
    }
}
