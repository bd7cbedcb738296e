import Logging
import VitrineFleet
import VitrineJSON
import VitrineSystem

/// The bridge's connection to the daemon's control socket: one client of it, with a
/// socket client's checks and limits, that sends one request at a time and waits for its
/// reply, so that replies pair with requests and a request held for its `at` holds the
/// ones after it, as on the socket.
///
/// Connected, it asks `hello` (the daemon's version and outputs) and is `ready` once
/// answered. A lost daemon (stopped, restarting) is tried again after 0.25 s, 0.5 s, …
/// up to 2 s. While nothing is asked for `limits.idle_seconds` / 2 it sends `ping`, so the
/// daemon does not close it as idle (which would drop its subscriptions).
final class DaemonLink {
    /// What a request sent was for.
    enum Purpose {
        /// A message from the broker; `stats` when it asked for `stats`, whose reply gets
        /// the bridge's figures.
        case broker(id: JSON?, stats: Bool)
        /// `hello` after connecting.
        case hello
        /// `ping` to stay out of the idle limit.
        case keepalive
        /// A picture for the broker (`Screenshots`).
        case screenshot(Screenshots.Job)
    }

    /// What happened, on the loop.
    enum Notice {
        /// Connected and answered `hello`: the daemon's reply.
        case ready(hello: JSON)
        /// The reply to a broker's request, as the daemon wrote it.
        case reply(line: ArraySlice<UInt8>, purpose: Purpose)
        /// An event the daemon sent this client.
        case event(line: ArraySlice<UInt8>)
        /// The connection ended; `unanswered` is the request that was waiting for its reply.
        case lost(reason: String, unanswered: Purpose?)
        /// The link is free for the next request.
        case idle
    }

    let path: String
    /// Says what happened; set once, before `start`.
    var onNotice: (Notice) -> Void = { _ in }
    /// Connected and past `hello`.
    private(set) var isReady = false
    /// A request waits for its reply.
    var isBusy: Bool { waiting != nil }
    /// Connections made so far.
    private(set) var connections = 0

    private let loop: EventLoop
    private let logger: Logger
    private let idleSeconds: Int
    private let outputLimit: Int
    /// Bytes of a line from the daemon at most (a screenshot's base64 is the longest).
    static let lineLimit = 64 << 20
    private var connection: UnixConnection?
    private var waiting: Purpose?
    private var input: [UInt8] = []
    private var retryDelay = DaemonLink.firstRetry
    private var retryTicket: UInt64?
    private var lastSent = 0.0
    private var stopped = false
    /// The first failure of a run of them was logged; the rest are not.
    private var failureLogged = false

    static let firstRetry = 0.25
    static let lastRetry = 2.0

    init(path: String, idleSeconds: Int, outputLimit: Int, loop: EventLoop, logger: Logger) {
        self.path = path
        self.idleSeconds = idleSeconds
        self.outputLimit = outputLimit
        self.loop = loop
        self.logger = logger
    }

    /// Connects, and keeps connecting until `stop`.
    func start() {
        stopped = false
        connect()
        if idleSeconds > 0 { keepAlive(every: Double(idleSeconds) / 2) }
    }

    /// Closes the connection for good.
    func stop() {
        stopped = true
        if let retryTicket { loop.cancel(retryTicket) }
        connection?.close()
        connection = nil
        isReady = false
    }

    /// Sends one request line (no newline in it) for `purpose`; the link must be ready and
    /// not busy.
    func send(_ line: some Collection<UInt8>, for purpose: Purpose) {
        guard let connection, isReady || purpose.isHello, waiting == nil else { return }
        waiting = purpose
        lastSent = Self.now
        connection.send(Array(line) + [10])
    }

    private static var now: Double { Double(EventLoop.monotonicNanoseconds()) / 1e9 }

    private func connect() {
        retryTicket = nil
        guard !stopped, connection == nil else { return }
        do {
            let connection = try UnixConnection(path: path, loop: loop, outputLimit: outputLimit)
            connection.onBytes = { [unowned self] bytes in received(bytes) }
            connection.onClose = { [unowned self] reason in lost(reason) }
            self.connection = connection
            connections += 1
            input.removeAll()
            logger.info("connected to the daemon's socket \(path)")
            failureLogged = false
            send(Array(#"{"id":"vitrine-fleet.hello","cmd":"hello"}"#.utf8), for: .hello)
        } catch {
            if !failureLogged { logger.warning("\(error.message); trying again every \(Self.lastRetry) s at most") }
            failureLogged = true
            retryLater()
        }
    }

    private func retryLater() {
        guard !stopped, retryTicket == nil else { return }
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, Self.lastRetry)
        retryTicket = loop.schedule(after: delay) { [weak self] in self?.connect() }
    }

    private func lost(_ reason: String) {
        let unanswered = waiting
        connection = nil
        waiting = nil
        let wasReady = isReady
        isReady = false
        if wasReady || unanswered != nil { logger.warning("the daemon's socket \(path) closed: \(reason)") }
        retryDelay = Self.firstRetry
        onNotice(.lost(reason: reason, unanswered: unanswered))
        retryLater()
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        input.append(contentsOf: bytes)
        var start = 0
        while let newline = input[start...].firstIndex(of: 10) {
            line(input[start..<newline])
            start = newline + 1
            guard connection != nil else { return }
        }
        input.removeSubrange(0..<start)
        if input.count > Self.lineLimit {
            connection?.close()
            lost("a line from the daemon was longer than \(Self.lineLimit) bytes")
        }
    }

    private func line(_ line: ArraySlice<UInt8>) {
        let object = try? JSON(parsing: String(decoding: line, as: UTF8.self))
        if object?["event"] != nil, object?["ok"] == nil { return onNotice(.event(line: line)) }
        guard let purpose = waiting else {
            // The reason the daemon closes this connection (idle, shutting down, a limit).
            logger.warning("the daemon says: \(String(decoding: line.prefix(500), as: UTF8.self))")
            return
        }
        waiting = nil
        switch purpose {
        case .hello:
            guard let object, object["ok"] == .bool(true), let hello = object["result"] else {
                logger.error("the daemon's socket \(path) answered hello with \(String(decoding: line.prefix(500), as: UTF8.self))")
                connection?.close()
                return lost("hello was refused")
            }
            isReady = true
            retryDelay = Self.firstRetry
            onNotice(.ready(hello: hello))
        case .keepalive:
            break
        case .broker, .screenshot:
            onNotice(.reply(line: line, purpose: purpose))
        }
        if waiting == nil { onNotice(.idle) }
    }

    private func keepAlive(every seconds: Double) {
        loop.schedule(after: seconds) { [weak self] in
            guard let self, !stopped else { return }
            if isReady, waiting == nil, Self.now - lastSent >= seconds {
                send(Array(#"{"id":"vitrine-fleet.keepalive","cmd":"ping"}"#.utf8), for: .keepalive)
            }
            keepAlive(every: seconds)
        }
    }
}

extension DaemonLink.Purpose {
    var isHello: Bool {
        if case .hello = self { return true }
        return false
    }
}
