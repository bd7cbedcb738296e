import FoundationEssentials
import Glibc
import Logging
import VitrineOutputSet
import VitrineConfig
import VitrineFleet
import VitrineProtocol
import VitrineSystem

/// The broker as one more client of the coordinator (`[fleet]`, docs/FLEET.md): every
/// message on `vitrine/<device>/cmd` or `vitrine/<group>/cmd` is one request line of the
/// socket's protocol, decoded, checked and limited as the socket's are; its reply goes to
/// `vitrine/<device>/reply`, and the events it subscribed to (with `subscribe`, as on the
/// socket) to `vitrine/<device>/events`. `vitrine/<device>/status` holds a retained
/// `online` status while connected, and the broker's will sets it `offline` when the
/// connection dies.
///
/// Requests wait in a bounded queue and are applied one per turn of the loop; a message
/// that does not fit (over `limits.line_bytes`, or the queue full) is answered with an
/// error and changes nothing.
final class FleetBridge: ClientConnection {
    /// The bridge's client id: socket clients count from 1.
    let clientID = 0
    let device: String
    let groups: [String]
    let session: MQTTSession
    /// Where the requests go.
    unowned let requests: any RequestHandler
    private let outputSet: OutputSet
    let loop: EventLoop
    let logger: Logger
    /// Requests waiting to be applied, in arrival order from `head` on.
    private var queue: [[UInt8]] = []
    private var head = 0
    private var queuedBytes = 0
    private var turnScheduled = false
    /// A request's reply comes later (`Coordinator.handle` deferred it): the next wait.
    private var awaitingReply = false
    /// While a reply is deferred, the last line sent: the reply if `resume` follows.
    private var held: String?
    /// Requests the queue holds at most.
    static let queueLimit = 256

    var commandTopics: [String] { (["vitrine/\(device)/cmd"] + groups.map { "vitrine/\($0)/cmd" }) }
    var replyTopic: String { "vitrine/\(device)/reply" }
    var eventTopic: String { "vitrine/\(device)/events" }
    var statusTopic: String { "vitrine/\(device)/status" }

    /// Prepares the connection `settings.fleet` describes; `start` connects.
    init(
        fleet: Configuration.Fleet, requests: any RequestHandler, outputSet: OutputSet, loop: EventLoop, workers: WorkerPool, logger: Logger
    ) throws(SystemError) {
        self.requests = requests
        self.outputSet = outputSet
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
        settings.outboundBytes = requests.limits.outboundBytes
        settings.will = ("vitrine/\(device)/status", Self.status("offline", device: device))
        session = try MQTTSession(settings: settings, loop: loop, workers: workers, logger: logger)
        session.onConnect = { [unowned self] in connected() }
        session.onMessage = { [unowned self] topic, payload, _ in arrived(topic: topic, payload) }
    }

    /// The first line of `path`, without its newline.
    private static func readPassword(_ path: String) throws(SystemError) -> String {
        let bytes = try SafeFile.read(path, limit: 64 << 10).bytes
        let text = String(decoding: bytes, as: UTF8.self)
        return String(text.prefix { $0 != "\n" && $0 != "\r" })
    }

    func start() {
        requests.connect(self)
        session.start()
    }

    /// Marks the device offline (retained) and disconnects.
    func stop() {
        session.publish(statusTopic, Array(Self.status("offline", device: device).utf8), retain: true)
        session.stop()
        requests.disconnect(self)
    }

    private static func status(_ state: String, device: String, more: [String: JSON] = [:]) -> String {
        var fields = more
        fields["state"] = .string(state)
        fields["device"] = .string(device)
        return JSON.object(fields).text
    }

    private func connected() {
        session.subscribe(commandTopics)
        let outputs: JSON = .array(
            outputSet.heads.map { head in
                var fields: [String: JSON] = [
                    "name": .string(head.backend.name),
                    "size": .array([.number(Double(head.backend.mode.width)), .number(Double(head.backend.mode.height))]),
                    "rate": .number(head.backend.mode.refreshRate),
                ]
                fields["viewport"] = head.description["viewport"]
                return .object(fields)
            })
        let online = Self.status(
            "online", device: device,
            more: ["version": .string(vitrineVersion), "outputs": outputs, "groups": .array(groups.map(JSON.string)), "clock": Self.clock])
        session.publish(statusTopic, Array(online.utf8), retain: true)
    }

    // MARK: Requests

    private func arrived(topic: String, _ payload: UnsafeRawBufferPointer) {
        // An empty message is what clears a retained one: nothing to apply.
        guard !payload.isEmpty else { return }
        let limit = requests.limits.lineBytes
        guard payload.count <= limit else {
            logger.warning("a message of \(payload.count) bytes on \(topic) is over limits.line_bytes (\(limit)): refused")
            return reply(
                Wire.failure(id: nil, ProtocolError(.lineTooLong, "a request is limited to \(limit) bytes (limits.line_bytes); this one has \(payload.count)")))
        }
        guard queue.count - head < Self.queueLimit, queuedBytes + payload.count <= requests.limits.outboundBytes else {
            return reply(
                Wire.failure(
                    id: nil, ProtocolError(.limitExceeded, "\(Self.queueLimit) requests from the broker are waiting already; send this one again later")))
        }
        queue.append(Array(payload))
        queuedBytes += payload.count
        scheduleTurn()
    }

    private func scheduleTurn() {
        guard !turnScheduled, !awaitingReply, head < queue.count else { return }
        turnScheduled = true
        loop.schedule(after: 0) { [weak self] in self?.applyNext() }
    }

    /// Applies one request per turn of the loop, as the socket's clients take turns.
    private func applyNext() {
        turnScheduled = false
        guard !awaitingReply, head < queue.count else { return }
        var line = queue[head][...]
        queue[head] = []
        head += 1
        queuedBytes -= line.count
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        while let last = line.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { line = line.dropLast() }
        if Request.isBlank(line) {
            reply(Wire.failure(id: nil, ProtocolError(.notAnObject, "the message holds no request; send one JSON request object")))
        } else if let answer = requests.handle(request: line, from: self) {
            reply(answer)
            requests.flush()
        } else {
            awaitingReply = true
        }
        scheduleTurn()
    }

    private func reply(_ line: String) {
        session.publish(replyTopic, Array(line.utf8))
    }

    /// An event (or, while a reply is deferred, perhaps that reply: `resume` tells).
    func send(_ line: String) {
        guard awaitingReply else {
            session.publish(eventTopic, Array(line.utf8))
            return
        }
        if let held { session.publish(eventTopic, Array(held.utf8)) }
        held = line
    }

    func resume() {
        guard awaitingReply else { return }
        awaitingReply = false
        if let held { reply(held) }
        held = nil
        requests.flush()
        scheduleTurn()
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
        ])
    }
}
