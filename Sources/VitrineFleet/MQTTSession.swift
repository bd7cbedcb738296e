import CMosquitto
import Glibc
import Logging
import VitrineSystem

/// One MQTT connection (libmosquitto) served on the daemon's event loop: its socket is
/// watched by the loop, read and written as it becomes ready, and a one-second timer keeps
/// the keepalive; no thread of libmosquitto's runs. Connecting (a name lookup, then a
/// non-blocking connect and TLS handshake) starts on a worker thread, so a slow resolver
/// cannot hold the loop; while it does, nothing else touches the connection.
///
/// ```swift
/// let session = try MQTTSession(settings: settings, loop: loop, workers: workers, logger: logger)
/// session.onConnect = { session.subscribe(["vitrine/lobby/cmd"]) }
/// session.onMessage = { topic, payload, retained in … }
/// session.start()
/// _ = session.publish("vitrine/lobby/reply", Array(line.utf8))
/// ```
///
/// A lost connection (or one never made) is tried again after 1 s, then 2, 4, … up to
/// `reconnectMaxSeconds`. Outgoing messages are bounded: while more than `outboundBytes`
/// are waiting for the broker's acknowledgement, `publish` drops what it is given and
/// counts it, and while disconnected nothing is queued.
public final class MQTTSession {
    /// Where and how to connect.
    public struct Settings: Sendable {
        public var host = "127.0.0.1"
        public var port = 1883
        public var clientID = "vitrine"
        public var username: String?
        public var password: String?
        /// CA certificates (PEM): set, the connection uses TLS and verifies the broker.
        public var caFile: String?
        /// A client certificate and its key (PEM), for brokers that ask for one.
        public var certFile: String?
        public var keyFile: String?
        public var keepalive = 30
        public var reconnectMaxSeconds = 60.0
        /// The retained message the broker publishes if the connection dies unsaid.
        public var will: (topic: String, payload: String)?
        /// Bytes of unacknowledged messages past which `publish` drops.
        public var outboundBytes = 4 << 20

        public init() {}
    }

    /// Where the connection is.
    public enum State: String, Sendable {
        /// Looking up the broker, connecting, or waiting for its CONNACK.
        case connecting
        case connected
        /// Lost or refused; a reconnection is scheduled.
        case disconnected
        case stopped
    }

    public let settings: Settings
    public private(set) var state = State.disconnected
    /// Successful connections so far (1 after the first).
    public private(set) var connections = 0
    /// Messages `publish` dropped: disconnected, or over `outboundBytes`.
    public private(set) var dropped = 0
    /// Messages received.
    public private(set) var received = 0
    /// Bytes of published messages not yet acknowledged.
    public private(set) var queuedBytes = 0
    /// Called on the loop once the broker has accepted the connection.
    public var onConnect: () -> Void = {}
    /// Called on the loop with each message: topic, payload, whether it was retained.
    public var onMessage: (String, UnsafeRawBufferPointer, Bool) -> Void = { _, _, _ in }
    /// Called on the loop whenever `state` changes.
    public var onStateChange: (State) -> Void = { _ in }

    private let handle: Handle
    private let loop: EventLoop
    private let workers: WorkerPool
    private let logger: Logger
    /// The socket the loop watches, and for what.
    private var watchedFD: CInt = -1
    private var watchedEvents: EventLoop.Events = []
    private var tick: UInt64?
    private var retry: UInt64?
    private var backoff = 1.0
    /// Sizes of published messages by message id, until acknowledged.
    private var inFlight: [Int32: Int] = [:]

    /// The libmosquitto handle; a worker uses it only while the loop does not.
    private final class Handle: @unchecked Sendable {  // handed between the loop and one worker, never shared at once
        let mosq: OpaquePointer
        init(_ mosq: OpaquePointer) { self.mosq = mosq }
        deinit { mosquitto_destroy(mosq) }
    }

    private static let library: Void = { mosquitto_lib_init() }()

    /// Prepares a connection with `settings` (credentials, TLS, will); `start` connects.
    public init(settings: Settings, loop: EventLoop, workers: WorkerPool, logger: Logger) throws(SystemError) {
        _ = Self.library
        guard let mosq = mosquitto_new(settings.clientID, true, nil) else {
            throw SystemError("cannot create an MQTT client: \(SystemError.reason())")
        }
        handle = Handle(mosq)
        self.settings = settings
        self.loop = loop
        self.workers = workers
        self.logger = logger
        try check(mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)), "set the MQTT version")
        if let username = settings.username {
            try check(mosquitto_username_pw_set(mosq, username, settings.password), "set the broker credentials")
        }
        if let ca = settings.caFile {
            try check(mosquitto_tls_set(mosq, ca, nil, settings.certFile, settings.keyFile, nil), "use TLS with ca_file \(ca)")
        }
        if let will = settings.will {
            try check(mosquitto_will_set(mosq, will.topic, Int32(will.payload.utf8.count), will.payload, 1, true), "set the will on \(will.topic)")
        }
        mosquitto_user_data_set(mosq, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(mosq) { _, object, code in MQTTSession.from(object).connected(code) }
        mosquitto_disconnect_callback_set(mosq) { _, object, code in MQTTSession.from(object).disconnected(code) }
        mosquitto_publish_callback_set(mosq) { _, object, mid in MQTTSession.from(object).acknowledged(mid) }
        mosquitto_message_callback_set(mosq) { _, object, message in
            guard let message else { return }
            MQTTSession.from(object).arrived(message.pointee)
        }
    }

    deinit {
        if watchedFD >= 0 { loop.unwatch(watchedFD) }
        if let tick { loop.cancel(tick) }
        if let retry { loop.cancel(retry) }
    }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTSession {
        Unmanaged<MQTTSession>.fromOpaque(object!).takeUnretainedValue()
    }

    private func check(_ code: Int32, _ what: String) throws(SystemError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw SystemError("cannot \(what): \(Self.describe(code))") }
    }

    /// libmosquitto's words for an error code (for system errors, `error`'s: the errno of
    /// the thread that made the call, read there).
    static func describe(_ code: Int32, errno error: CInt = Glibc.errno) -> String {
        code == MOSQ_ERR_ERRNO.rawValue ? SystemError.reason(errno: error) : String(cString: mosquitto_strerror(code))
    }

    // MARK: Connecting

    /// Connects, and keeps connecting until `stop`.
    public func start() {
        guard state == .disconnected, retry == nil else { return }
        connect(first: connections == 0)
    }

    private func connect(first: Bool) {
        retry = nil
        setState(.connecting)
        let handle = handle
        let settings = settings
        // The errno of a system error is the worker's: it is read there, with the code.
        let queued = workers.submit({ () -> (code: Int32, errno: CInt) in
            let code =
                first
                ? mosquitto_connect_async(handle.mosq, settings.host, Int32(settings.port), Int32(settings.keepalive))
                : mosquitto_reconnect_async(handle.mosq)
            return (code, Glibc.errno)
        }) { [weak self] result in
            guard let self, state == .connecting else { return }
            guard result.code == MOSQ_ERR_SUCCESS.rawValue else {
                logger.warning("cannot reach the MQTT broker \(settings.host):\(settings.port): \(Self.describe(result.code, errno: result.errno))")
                return lost()
            }
            follow()
            startTicking()
        }
        if !queued { lost() }
    }

    /// The broker answered the CONNECT.
    private func connected(_ code: Int32) {
        guard code == 0 else {
            logger.warning("the MQTT broker \(settings.host):\(settings.port) refused the connection: \(String(cString: mosquitto_connack_string(code)))")
            return
        }
        connections += 1
        backoff = 1
        inFlight = [:]
        queuedBytes = 0
        logger.info("connected to the MQTT broker \(settings.host):\(settings.port)")
        setState(.connected)
        onConnect()
    }

    private func disconnected(_ code: Int32) {
        guard state != .stopped else { return }
        if state == .connected { logger.warning("lost the MQTT broker \(settings.host):\(settings.port): \(Self.describe(code))") }
        lost()
    }

    /// The connection is gone: try again after the backoff.
    private func lost() {
        guard state != .stopped else { return }
        follow()
        if let tick {
            loop.cancel(tick)
            self.tick = nil
        }
        setState(.disconnected)
        guard retry == nil else { return }
        let wait = backoff
        backoff = min(backoff * 2, settings.reconnectMaxSeconds)
        retry = loop.schedule(after: wait) { [weak self] in self?.connect(first: false) }
    }

    private func setState(_ new: State) {
        guard new != state else { return }
        state = new
        onStateChange(new)
    }

    /// Sends what is queued (a retained "offline" status, say) as far as the socket takes
    /// it at once, says DISCONNECT and stops; no reconnection follows.
    public func stop() {
        guard state != .stopped else { return }
        let wasConnected = state == .connected
        setState(.stopped)
        if wasConnected {
            mosquitto_disconnect(handle.mosq)
            for _ in 0..<8 where mosquitto_want_write(handle.mosq) {
                guard mosquitto_loop_write(handle.mosq, 1) == MOSQ_ERR_SUCCESS.rawValue else { break }
            }
        }
        if let retry { loop.cancel(retry) }
        if let tick { loop.cancel(tick) }
        (retry, tick) = (nil, nil)
        if watchedFD >= 0 { loop.unwatch(watchedFD) }
        watchedFD = -1
    }

    // MARK: The socket on the loop

    /// Watches the socket libmosquitto has now, for reading and, while it has output, for
    /// writing.
    private func follow() {
        let fd = state == .stopped ? -1 : mosquitto_socket(handle.mosq)
        if fd != watchedFD {
            if watchedFD >= 0 { loop.unwatch(watchedFD) }
            watchedFD = -1
            guard fd >= 0 else { return }
            let events: EventLoop.Events = mosquitto_want_write(handle.mosq) ? [.readable, .writable] : .readable
            do {
                try loop.watch(fd, for: events) { [unowned self] ready in serve(ready) }
            } catch {
                logger.warning("cannot watch the MQTT socket: \(error)")
                return
            }
            (watchedFD, watchedEvents) = (fd, events)
            return
        }
        guard fd >= 0 else { return }
        let events: EventLoop.Events = mosquitto_want_write(handle.mosq) ? [.readable, .writable] : .readable
        if events != watchedEvents {
            watchedEvents = events
            loop.change(fd, to: events)
        }
    }

    private func serve(_ ready: EventLoop.Events) {
        var code = MOSQ_ERR_SUCCESS.rawValue
        if ready.contains(.writable) || !ready.isDisjoint(with: .closed) { code = mosquitto_loop_write(handle.mosq, 1) }
        if code == MOSQ_ERR_SUCCESS.rawValue, ready.contains(.readable) || !ready.isDisjoint(with: .closed) {
            code = mosquitto_loop_read(handle.mosq, 1)
        }
        settle(code)
    }

    /// After a call into libmosquitto: a failure that is not "try again" ends the
    /// connection; otherwise the socket is watched for what it now needs.
    private func settle(_ code: Int32) {
        if code == MOSQ_ERR_SUCCESS.rawValue || state == .stopped {
            return follow()
        }
        if state != .disconnected {
            logger.warning("the MQTT connection to \(settings.host):\(settings.port) failed: \(Self.describe(code))")
            lost()
        }
    }

    /// Once a second while connected or connecting: pings and timeouts.
    private func startTicking() {
        guard tick == nil else { return }
        tick = loop.schedule(after: 1) { [weak self] in
            guard let self else { return }
            tick = nil
            guard state == .connected || state == .connecting else { return }
            settle(mosquitto_loop_misc(handle.mosq))
            if state == .connected || state == .connecting { startTicking() }
        }
    }

    // MARK: Messages

    /// Subscribes to `topics` at QoS 1.
    public func subscribe(_ topics: [String]) {
        for topic in topics {
            let code = mosquitto_subscribe(handle.mosq, nil, topic, 1)
            if code != MOSQ_ERR_SUCCESS.rawValue { logger.warning("cannot subscribe to \(topic): \(Self.describe(code))") }
        }
        follow()
    }

    /// Publishes `payload` on `topic` at QoS 1; returns false (and counts it) when it is
    /// dropped: not connected, or more than `outboundBytes` unacknowledged.
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8], retain: Bool = false) -> Bool {
        let size = payload.count + topic.utf8.count
        guard state == .connected, queuedBytes + size <= settings.outboundBytes else {
            dropped += 1
            return false
        }
        var mid: Int32 = 0
        let code = payload.withUnsafeBytes { mosquitto_publish(handle.mosq, &mid, topic, Int32($0.count), $0.baseAddress, 1, retain) }
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            dropped += 1
            settle(code)
            return false
        }
        if inFlight[mid] == nil {
            inFlight[mid] = size
            queuedBytes += size
        }
        follow()
        return true
    }

    private func acknowledged(_ mid: Int32) {
        guard let size = inFlight.removeValue(forKey: mid) else { return }
        queuedBytes -= size
    }

    private func arrived(_ message: mosquitto_message) {
        received += 1
        let topic = String(cString: message.topic)
        onMessage(topic, UnsafeRawBufferPointer(start: message.payload, count: Int(message.payloadlen)), message.retain)
    }
}
