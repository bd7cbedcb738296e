import FoundationEssentials
import Glibc
import Logging
import VitrineConfig
import VitrineFleet
import VitrineJSON
import VitrineProtocol
import VitrineSystem

/// The broker as one client of the daemon's socket (`[fleet]`, docs/FLEET.md): every
/// message on `vitrine/<device>/cmd` or `vitrine/<group>/cmd` is one request line on the
/// socket, decoded, checked and limited there as any client's; its reply goes to
/// `vitrine/<device>/reply`, and the events it subscribed to (with `subscribe`, as on the
/// socket) to `vitrine/<device>/events`. `vitrine/<device>/status` holds a retained
/// `online` status while both the broker and the daemon are there, `offline` otherwise,
/// and the broker's will sets it `offline` when the bridge's connection dies.
///
/// Requests wait in a bounded queue and go to the daemon one at a time; a message that
/// does not fit (over `limits.line_bytes`, or the queue full), or that arrives while the
/// daemon is away, is answered with an error and changes nothing.
final class FleetBridge {
    let device: String
    let groups: [String]
    let session: MQTTSession
    let link: DaemonLink
    /// Screenshots and thumbnails for the broker.
    let screenshots: Screenshots
    /// Proof of play's entries for the broker.
    let playLog: PlayLogRelay
    private let limits: Configuration.Limits
    private let loop: EventLoop
    private let logger: Logger
    /// Requests waiting to go to the daemon, in arrival order from `head` on.
    /// What waits, in arrival order: requests for the daemon, and the answers to messages
    /// refused here, sent when their turn comes (replies keep the messages' order).
    private var queue: [Queued] = []
    private var head = 0
    private var queuedBytes = 0
    /// The daemon's `hello` while it is there: its version and outputs, for the status.
    private var hello: JSON?
    /// Requests the queue holds at most.
    static let queueLimit = 256

    var commandTopics: [String] { (["vitrine/\(device)/cmd"] + groups.map { "vitrine/\($0)/cmd" }) }
    var replyTopic: String { "vitrine/\(device)/reply" }
    var eventTopic: String { "vitrine/\(device)/events" }
    var statusTopic: String { "vitrine/\(device)/status" }

    /// Prepares the connections `fleet` and `controlSocket` describe; `start` makes them.
    init(
        fleet: Configuration.Fleet, limits: Configuration.Limits, controlSocket: String, loop: EventLoop, workers: WorkerPool, logger: Logger
    ) throws(SystemError) {
        self.limits = limits
        self.loop = loop
        self.logger = logger
        device = fleet.deviceName
        groups = fleet.groups
        var settings = MQTTSession.Settings()
        settings.host = fleet.host
        settings.port = fleet.port
        settings.clientID = fleet.clientID.isEmpty ? "vitrine-\(device)" : fleet.clientID
        if !fleet.username.isEmpty {
            settings.username = fleet.username
            settings.password = fleet.passwordFile.isEmpty ? fleet.password : try Self.readPassword(fleet.passwordFile)
        }
        settings.caFile = fleet.caFile.isEmpty ? nil : fleet.caFile
        settings.certFile = fleet.certFile.isEmpty ? nil : fleet.certFile
        settings.keyFile = fleet.keyFile.isEmpty ? nil : fleet.keyFile
        settings.keepalive = fleet.keepalive
        settings.reconnectMaxSeconds = Double(fleet.reconnectMaxSeconds)
        settings.outboundBytes = limits.outboundBytes
        settings.will = ("vitrine/\(device)/status", Self.status("offline", device: device))
        session = try MQTTSession(settings: settings, loop: loop, workers: workers, logger: logger)
        screenshots = Screenshots(device: device, fleet: fleet, session: session, loop: loop, workers: workers, logger: logger)
        link = DaemonLink(path: controlSocket, idleSeconds: limits.idleSeconds, outputLimit: limits.outboundBytes, loop: loop, logger: logger)
        playLog = PlayLogRelay(
            device: device, session: session, controlSocket: controlSocket, idleSeconds: limits.idleSeconds, outputLimit: limits.outboundBytes, loop: loop,
            logger: logger)
        session.onConnect = { [unowned self] in brokerConnected() }
        session.onMessage = { [unowned self] topic, payload, _ in arrived(topic: topic, payload) }
        link.onNotice = { [unowned self] notice in daemon(notice) }
    }

    /// The first line of `path`, without its newline.
    private static func readPassword(_ path: String) throws(SystemError) -> String {
        let bytes = try SafeFile.read(path, limit: 64 << 10).bytes
        let text = String(decoding: bytes, as: UTF8.self)
        return String(text.prefix { $0 != "\n" && $0 != "\r" })
    }

    func start() {
        link.start()
        playLog.start()
        session.start()
        screenshots.startThumbnails(outputs: { [unowned self] in
            guard link.isReady, session.state == .connected else { return [] }
            return (hello?["outputs"]?.array ?? []).compactMap { $0["name"]?.string }
        }) { [unowned self] job in
            queue.append(.thumbnail(job))
            sendNext()
        }
    }

    /// Marks the device offline (retained) and disconnects from both.
    func stop() {
        screenshots.stop()
        publishStatus(online: false)
        session.stop()
        link.stop()
        playLog.stop()
    }

    private static func status(_ state: String, device: String, more: [String: JSON] = [:]) -> String {
        var fields = more
        fields["state"] = .string(state)
        fields["device"] = .string(device)
        return JSON.object(fields).text
    }

    /// `online` with the daemon's outputs while it is there, else `offline`.
    private func publishStatus(online: Bool) {
        guard online, let hello else {
            let reason: [String: JSON] = link.isReady || session.state == .stopped ? [:] : ["reason": .string("the display daemon is not running")]
            session.publish(statusTopic, Array(Self.status("offline", device: device, more: reason).utf8), retain: true)
            return
        }
        let outputs: JSON = .array(
            (hello["outputs"]?.array ?? []).map { output in
                var fields: [String: JSON] = [:]
                for key in ["name", "size", "rate", "viewport"] { fields[key] = output[key] }
                return .object(fields)
            })
        let fields: [String: JSON] = [
            "version": hello["version"] ?? .null, "outputs": outputs, "groups": .array(groups.map(JSON.string)), "clock": Self.clock,
        ]
        session.publish(statusTopic, Array(Self.status("online", device: device, more: fields).utf8), retain: true)
    }

    /// The broker is (again) there: commands are taken once the daemon is there too.
    private func brokerConnected() {
        if link.isReady { session.subscribe(commandTopics) }
        publishStatus(online: link.isReady)
    }

    private func daemon(_ notice: DaemonLink.Notice) {
        switch notice {
        case .ready(let hello):
            self.hello = hello
            // Subscribing (again) has the broker hand over the retained commands, which a
            // restarted daemon applies as a screen that starts does.
            guard session.state == .connected else { return }
            session.subscribe(commandTopics)
            publishStatus(online: true)
        case .reply(let line, .screenshot(let job)):
            screenshots.finish(job, daemonReply: line) { [unowned self] text in reply(text) }
        case .reply(let line, let purpose):
            reply(line, to: purpose)
        case .event(let line):
            session.publish(eventTopic, Array(line))
        case .lost(_, let unanswered):
            hello = nil
            if case .broker(let id, _) = unanswered { reply(Wire.failure(id: id, Self.away)) }
            if case .screenshot(let job) = unanswered {
                screenshots.abandon(job)
                if !job.periodic { reply(Wire.failure(id: job.id, Self.away)) }
            }
            while let waiting = nextQueued() {
                switch waiting {
                case .line(let line): reply(Wire.failure(id: Self.id(of: line), Self.away))
                case .answer(let text): reply(text)
                case .thumbnail(let job): screenshots.abandon(job)
                }
            }
            if session.state == .connected { publishStatus(online: false) }
        case .idle:
            sendNext()
        }
    }

    /// What a request gets while the daemon is away.
    static let away = ProtocolError(
        .shuttingDown, "the display daemon is not running (stopped or restarting): nothing was applied; send the request again once the status says online")

    // MARK: Requests

    private func arrived(topic: String, _ payload: UnsafeRawBufferPointer) {
        // An empty message is what clears a retained one: nothing to apply.
        guard !payload.isEmpty else { return }
        let limit = limits.lineBytes
        guard payload.count <= limit else {
            logger.warning("a message of \(payload.count) bytes on \(topic) is over limits.line_bytes (\(limit)): refused")
            return answerInTurn(
                Wire.failure(id: nil, ProtocolError(.lineTooLong, "a request is limited to \(limit) bytes (limits.line_bytes); this one has \(payload.count)")))
        }
        let line: [UInt8]
        switch Self.oneLine(payload) {
        case .success(let joined): line = joined
        case .failure(let error): return answerInTurn(Wire.failure(id: nil, error))
        }
        guard link.isReady else { return reply(Wire.failure(id: Self.id(of: line), Self.away)) }
        guard queue.count - head < Self.queueLimit, queuedBytes + line.count <= limits.outboundBytes else {
            return reply(
                Wire.failure(
                    id: nil, ProtocolError(.limitExceeded, "\(Self.queueLimit) requests from the broker are waiting already; send this one again later")))
        }
        queue.append(.line(line))
        queuedBytes += line.count
        sendNext()
    }

    /// A request, or the answer to a message refused here.
    private enum Queued {
        case line([UInt8])
        case answer(String)
        /// A periodic thumbnail's turn.
        case thumbnail(Screenshots.Job)
    }

    /// Sends `text`, the answer to a message refused here, after the replies to the
    /// requests before it.
    private func answerInTurn(_ text: String) {
        guard link.isBusy || head < queue.count else { return reply(text) }
        queue.append(.answer(text))
    }

    /// The message as one socket line: its line ends outside strings are JSON's white space
    /// (a pretty-printed file), made spaces; trailing ones go. A line end inside a string is
    /// not JSON, and the socket would read two requests: refused here.
    static func oneLine(_ payload: UnsafeRawBufferPointer) -> Result<[UInt8], ProtocolError> {
        var bytes = Array(payload)
        while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
        var inString = false, escaped = false
        for i in bytes.indices {
            let byte = bytes[i]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte == 10 || byte == 13 {
                    return .failure(ProtocolError(.malformedJSON, "a line break inside a string at byte \(i): write it as \\n"))
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == 10 || byte == 13 {
                bytes[i] = UInt8(ascii: " ")
            }
        }
        return .success(bytes)
    }

    /// The `id` of a request, when it can be read.
    static func id(of line: [UInt8]) -> JSON? {
        (try? JSON(parsing: String(decoding: line, as: UTF8.self)))?["id"]
    }

    private func nextQueued() -> Queued? {
        guard head < queue.count else { return nil }
        let entry = queue[head]
        queue[head] = .answer("")
        head += 1
        if case .line(let line) = entry { queuedBytes -= line.count }
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return entry
    }

    /// Hands the next request to the daemon once the one before it is answered.
    private func sendNext() {
        guard link.isReady, !link.isBusy, let entry = nextQueued() else { return }
        let line: [UInt8]
        switch entry {
        case .line(let request): line = request
        case .answer(let text):
            reply(text)
            return sendNext()
        case .thumbnail(let job):
            return link.send(Screenshots.daemonLine(for: job, cursor: false), for: .screenshot(job))
        }
        if Request.isBlank(line) {
            reply(Wire.failure(id: nil, ProtocolError(.notAnObject, "the message holds no request; send one JSON request object")))
            return sendNext()
        }
        let request = try? JSON(parsing: String(decoding: line, as: UTF8.self))
        if let request, Screenshots.handles(request) {
            switch screenshots.take(request) {
            case .send(let daemonLine, let job): return link.send(daemonLine, for: .screenshot(job))
            case .refuse(let text):
                reply(text)
                return sendNext()
            }
        }
        link.send(line, for: .broker(id: request?["id"], stats: request?["cmd"] == .string("stats")))
    }

    private func reply(_ line: ArraySlice<UInt8>, to purpose: DaemonLink.Purpose) {
        guard case .broker(_, true) = purpose, let answer = try? JSON(parsing: String(decoding: line, as: UTF8.self)),
            var object = answer.object, var result = answer["result"]?.object
        else {
            session.publish(replyTopic, Array(line))
            return
        }
        result["fleet"] = statistics
        object["result"] = .object(result)
        reply(JSON.object(object).text)
    }

    private func reply(_ line: String) {
        session.publish(replyTopic, Array(line.utf8))
    }

    /// The system clock's sync as the kernel reports it, for `stats` and the status.
    static var clock: JSON {
        guard let sync = ClockSync.read() else { return .null }
        return .object([
            "synchronized": .bool(sync.synchronized), "maxErrorMicroseconds": .number(Double(sync.maximumErrorMicroseconds)),
            "estimatedErrorMicroseconds": .number(Double(sync.estimatedErrorMicroseconds)),
        ])
    }

    /// The bridge's figures for `stats`.
    var statistics: JSON {
        .object([
            "clock": Self.clock,
            "state": .string(session.state.rawValue), "device": .string(device), "groups": .array(groups.map(JSON.string)),
            "connections": .number(Double(session.connections)), "received": .number(Double(session.received)),
            "dropped": .number(Double(session.dropped)), "queuedBytes": .number(Double(session.queuedBytes)),
            "daemon": .string(link.isReady ? "connected" : "disconnected"), "daemonConnections": .number(Double(link.connections)),
            "pictures": .number(Double(screenshots.published)), "picturesRefused": .number(Double(screenshots.refused)),
            "playlogPublished": .number(Double(playLog.published)), "playlogDropped": .number(Double(playLog.dropped)),
        ])
    }
}
