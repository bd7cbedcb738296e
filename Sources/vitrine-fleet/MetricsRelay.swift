import Logging
import VitrineConfig
import VitrineFleet
import VitrineMetrics
import VitrineSystem

/// The metrics' TCP port (`[metrics] address` and `port`), served by the bridge process so
/// that the display process opens no IP socket: each scrape reads the daemon's figures from
/// its metrics socket (`MetricsServer.daemonSocketPath`) and adds the bridge's own
/// (`vitrine_fleet_…`, with `[fleet]`). A daemon that does not answer within the scrape's
/// time makes it a 503, as a busy daemon did.
final class MetricsRelay {
    private let metrics: Configuration.Metrics
    private let daemonSocket: String
    private weak var bridge: FleetBridge?
    private let loop: EventLoop
    private let logger: Logger
    private let server: MetricsServer
    private let families = MetricFamilies()
    /// Scrapes of the daemon's socket under way.
    private var reads: [ObjectIdentifier: UnixConnection] = [:]
    /// Bytes of the daemon's answer at most.
    static let answerLimit = 16 << 20
    /// Seconds the daemon has to answer.
    static let timeout = 4.0

    init(metrics: Configuration.Metrics, daemonSocket: String, bridge: FleetBridge?, loop: EventLoop, logger: Logger) {
        self.metrics = metrics
        self.daemonSocket = daemonSocket
        self.bridge = bridge
        self.loop = loop
        self.logger = logger
        var scrape: MetricsServer.Body = { $0(nil) }
        server = MetricsServer(loop: loop, connections: metrics.connections, logger: logger) { answer in scrape(answer) }
        scrape = { [unowned self] answer in relay(answer) }
    }

    /// Listens on the TCP port.
    func start() throws(SystemError) {
        try server.listen(address: metrics.address, port: metrics.port)
    }

    func stop() {
        server.stop()
        for connection in reads.values { connection.close() }
        reads.removeAll()
    }

    private func relay(_ answer: @escaping ([UInt8]?) -> Void) {
        let connection: UnixConnection
        do { connection = try UnixConnection(path: daemonSocket, loop: loop) } catch {
            logger.warning("metrics: \(error.message)")
            return answer(nil)
        }
        let key = ObjectIdentifier(connection)
        reads[key] = connection
        var bytes: [UInt8] = []
        var answered = false
        let finish: ([UInt8]?) -> Void = { [unowned self] body in
            guard !answered else { return }
            answered = true
            reads[key]?.close()
            reads[key] = nil
            answer(body.map { $0 + fleetFamilies() })
        }
        connection.onBytes = { chunk in
            bytes.append(contentsOf: chunk)
            if bytes.count > Self.answerLimit { finish(nil) }
        }
        connection.onClose = { [unowned self] _ in
            let body = Self.body(ofOK: bytes)
            if body == nil { logger.warning("metrics: the daemon's socket \(daemonSocket) gave no answer") }
            finish(body)
        }
        loop.schedule(after: Self.timeout) { finish(nil) }
        connection.send(Array("GET /metrics HTTP/1.1\r\nHost: vitrined\r\nConnection: close\r\n\r\n".utf8))
    }

    /// The body of an HTTP `200` answer, nil for any other.
    static func body(ofOK answer: [UInt8]) -> [UInt8]? {
        let blank: [UInt8] = [13, 10, 13, 10]
        guard answer.starts(with: Array("HTTP/1.1 200 ".utf8)),
            let end = answer.indices.dropLast(3).first(where: { answer[$0..<$0 + 4].elementsEqual(blank) })
        else { return nil }
        return Array(answer[(end + 4)...])
    }

    /// The bridge's figures, when it runs.
    private func fleetFamilies() -> [UInt8] {
        guard let bridge else { return [] }
        let s = bridge.session
        for state in [MQTTSession.State.connecting, .connected, .disconnected, .stopped] {
            families.gauge("fleet_broker_state", "1 for the MQTT bridge's state now, 0 for the others.", s.state == state ? 1 : 0, [("state", state.rawValue)])
        }
        families.counter("fleet_connections_total", "Connections made to the broker.", s.connections)
        families.counter("fleet_reconnects_total", "Connections made to the broker after the first.", max(0, s.connections - 1))
        families.counter("fleet_messages_received_total", "Messages received from the broker.", s.received)
        families.counter("fleet_messages_dropped_total", "Messages not published: disconnected, or past limits.outbound_bytes unacknowledged.", s.dropped)
        families.gauge("fleet_queued_bytes", "Bytes published and not yet acknowledged by the broker.", Double(s.queuedBytes))
        families.gauge("fleet_daemon_connected", "1 while the bridge is connected to the display daemon's socket.", bridge.link.isReady ? 1 : 0)
        return families.text()
    }
}
