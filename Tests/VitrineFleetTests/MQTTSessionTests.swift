import Logging
import Testing
import VitrineFleet
import VitrineSystem
import VitrineTestSupport

/// `MQTTSession` on its own event loop against a real Mosquitto that each test starts on a
/// free loopback port, with Mosquitto's client tools on the other side: connecting,
/// subscribing and receiving (retained and live), publishing at QoS 1 until acknowledged,
/// the bound on what waits, reconnecting after the broker restarts, the will of a session
/// that dies unsaid, and what a refused connection says and does.
@Suite(.enabled(if: MosquittoBroker.isAvailable, "needs mosquitto, mosquitto-clients and openssl"))
struct MQTTSessionTests {
    /// A message as the session handed it over.
    struct Message: Equatable {
        let topic: String, payload: String, retained: Bool
    }

    /// A session of one test: its loop, its worker pool, what it said and received.
    final class Client {
        let loop: EventLoop
        let workers: WorkerPool
        let log = LogRecorder()
        let session: MQTTSession
        var states: [MQTTSession.State] = []
        var messages: [Message] = []

        /// A session of the broker on 127.0.0.1:`port` that subscribes to `topics` on each
        /// connection, trying again after at most 1 s; not started.
        init(port: Int, topics: [String] = [], configure: (inout MQTTSession.Settings) -> Void = { _ in }) throws {
            loop = try EventLoop()
            workers = WorkerPool(threads: 1, loop: loop)
            var settings = MQTTSession.Settings()
            settings.port = port
            settings.reconnectMaxSeconds = 1
            configure(&settings)
            session = try MQTTSession(settings: settings, loop: loop, workers: workers, logger: log.logger)
            session.onStateChange = { [unowned self] in states.append($0) }
            session.onConnect = { [unowned self] in session.subscribe(topics) }
            session.onMessage = { [unowned self] topic, payload, retained in
                messages.append(Message(topic: topic, payload: String(decoding: payload, as: UTF8.self), retained: retained))
            }
        }

        deinit { workers.stop() }

        /// Runs the loop until `condition` holds; whether it did.
        func run(until condition: @escaping () -> Bool) -> Bool { loop.run(until: condition) }

        func startAndWaitConnected() -> Bool {
            session.start()
            return run { [unowned self] in session.state == .connected }
        }

        var warnings: [String] { log.messages(atLeast: .warning) }
    }

    @Test func subscribesAndReceivesWhatMosquittoPubPublishesRetainedThenLive() throws {
        let broker = try MosquittoBroker()
        try broker.publish("vitrine/in", "kept", retain: true)
        let client = try Client(port: broker.port, topics: ["vitrine/in"])
        #expect(client.session.state == .disconnected && client.session.connections == 0)
        #expect(client.startAndWaitConnected(), "\(client.warnings)")
        #expect(client.states == [.connecting, .connected] && client.session.connections == 1)
        #expect(client.run { client.messages.count == 1 }, "\(broker.log)")
        #expect(client.messages == [Message(topic: "vitrine/in", payload: "kept", retained: true)])
        try broker.publish("vitrine/in", "live {\"id\": 1}")
        #expect(client.run { client.messages.count == 2 })
        #expect(client.messages.last == Message(topic: "vitrine/in", payload: "live {\"id\": 1}", retained: false))
        #expect(client.session.received == 2 && client.warnings.isEmpty)
        client.session.stop()
        #expect(client.session.state == .stopped && client.states.last == .stopped)
    }

    @Test func whatItPublishesReachesMosquittoSubAndIsAcknowledged() throws {
        let broker = try MosquittoBroker()
        let subscriber = try broker.subscribe("vitrine/out/#")
        let client = try Client(port: broker.port)
        // Before a connection, nothing is queued.
        #expect(!client.session.publish("vitrine/out/early", [1]))
        #expect(client.session.dropped == 1)
        #expect(client.startAndWaitConnected(), "\(client.warnings)")
        // A retained message reaches the subscriber whenever it subscribed; once it has, a
        // live one must too.
        #expect(client.session.publish("vitrine/out/ready", Array("yes".utf8), retain: true))
        #expect(client.run { subscriber.messages.contains { $0 == ("vitrine/out/ready", "yes") } }, "\(subscriber.messages)")
        let payload = #"{"cmd": "ping", "text": "é"}"#
        #expect(client.session.publish("vitrine/out/live", Array(payload.utf8)))
        #expect(client.session.queuedBytes > 0)
        #expect(client.run { subscriber.messages.contains { $0 == ("vitrine/out/live", payload) } }, "\(subscriber.messages)")
        #expect(client.run { client.session.queuedBytes == 0 })
        #expect(client.session.dropped == 1 && !subscriber.messages.contains { $0.topic == "vitrine/out/early" })
    }

    @Test func publishDropsWhatWouldPassTheOutboundBound() throws {
        let broker = try MosquittoBroker()
        let client = try Client(port: broker.port) { $0.outboundBytes = 32 }
        #expect(client.startAndWaitConnected(), "\(client.warnings)")
        // Topic and payload count: 4 + 20 fits, another 24 does not until acknowledged.
        let twenty = [UInt8](repeating: 0x61, count: 20)
        #expect(client.session.publish("a/bc", twenty))
        #expect(client.session.queuedBytes == 24)
        #expect(!client.session.publish("a/bc", twenty))
        #expect(client.session.dropped == 1)
        #expect(!client.session.publish("a/bc", [UInt8](repeating: 0, count: 40)))
        #expect(client.run { client.session.queuedBytes == 0 })
        #expect(client.session.publish("a/bc", twenty))
        #expect(client.session.dropped == 2)
    }

    @Test func reconnectsAndSubscribesAgainAfterTheBrokerRestarts() throws {
        let broker = try MosquittoBroker()
        let client = try Client(port: broker.port, topics: ["vitrine/in"])
        #expect(client.startAndWaitConnected(), "\(client.warnings)")
        broker.stop()
        #expect(client.run { client.session.state != .connected })
        #expect(client.warnings.contains { $0.hasPrefix("lost the MQTT broker 127.0.0.1:\(broker.port)") }, "\(client.warnings)")
        try broker.start()
        #expect(client.run { client.session.state == .connected }, "\(client.states) \(client.warnings)")
        #expect(client.session.connections == 2)
        #expect(Array(client.states.prefix(3)) == [.connecting, .connected, .disconnected] && client.states.last == .connected)
        // The broker kept nothing (no persistence): the new connection subscribed again.
        try broker.publish("vitrine/in", "after the restart", retain: true)
        #expect(client.run { client.messages.contains { $0.payload == "after the restart" } })
    }

    @Test func aSessionThatDiesUnsaidLeavesItsRetainedWill() throws {
        let broker = try MosquittoBroker()
        let subscriber = try broker.subscribe("vitrine/screen/status")
        var client: Client? = try Client(port: broker.port) { $0.will = ("vitrine/screen/status", "offline") }
        #expect(client?.startAndWaitConnected() == true)
        #expect(client?.session.publish("vitrine/screen/status", Array("online".utf8), retain: true) == true)
        #expect(client?.run { subscriber.messages.contains { $0.payload == "online" } } == true, "\(subscriber.messages)")
        // Released without stop: its socket closes without a DISCONNECT.
        client = nil
        #expect(subscriber.wait { $0.messages.last.map { $0 == ("vitrine/screen/status", "offline") } ?? false }, "\(subscriber.messages)")
    }

    @Test func aRefusedConnectionIsToldAndTriedAgain() throws {
        let port = try HTTPConnection.freePort()
        let client = try Client(port: port)
        client.session.start()
        #expect(client.run { client.states.count >= 4 }, "\(client.states)")
        #expect(Array(client.states.prefix(4)) == [.connecting, .disconnected, .connecting, .disconnected])
        #expect(client.session.connections == 0)
        #expect(client.warnings.first?.hasPrefix("cannot reach the MQTT broker 127.0.0.1:\(port): ") == true, "\(client.warnings)")
        #expect(client.warnings.first?.hasSuffix(": Connection refused") == true, "the worker's errno: \(client.warnings)")
        #expect(!client.session.publish("t", [1]) && client.session.dropped == 1)
        client.session.stop()
        #expect(client.session.state == .stopped)
    }

    @Test func aBrokerThatRefusesTheClientIsToldWithItsReason() throws {
        let broker = try MosquittoBroker(anonymous: false)
        let client = try Client(port: broker.port)
        client.session.start()
        #expect(client.run { client.warnings.contains { $0.contains("refused the connection") } }, "\(client.warnings)")
        let refusal = try #require(client.warnings.first { $0.contains("refused the connection") })
        #expect(refusal.contains("127.0.0.1:\(broker.port)") && refusal.contains("not authorised"), "\(refusal)")
        #expect(client.run { client.states.filter { $0 == .connecting }.count >= 2 }, "\(client.states)")
        #expect(client.session.connections == 0 && !client.states.contains(.connected))
    }
}
