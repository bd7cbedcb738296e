import Foundation
import Testing
import VitrineProtocol

/// The MQTT bridge end to end: a Mosquitto started by the test, real `vitrined` daemons
/// (each with its own socket, state directory and configuration) and a real `vitrine-fleet`
/// beside each, connected to the broker, and Mosquitto's own client tools publishing and
/// listening.
@Suite(.serialized, .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto, mosquitto-clients and openssl"))
struct FleetTests {
    /// The scene every screen starts with: a counter at 0.
    static let scene = """
        [[scene.layers]]
        id = "count"
        kind = "rolling-number"
        properties = { bounds = [0, 0, 600, 140], position = [320, 120], value = 0, textColor = "#ffd166" }
        """

    /// Starts a screen of `broker` as `device` in `groups`: its daemon and its bridge;
    /// `extra` goes before `[fleet]`, `fleetKeys` in it.
    static func daemon(_ broker: MosquittoBroker, device: String, groups: [String] = ["wall"], extra: String = "", fleetKeys: String = "") throws -> Screen {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml").path
        let text = "[output]\nheadless_size = \"640x240\"\n\n" + extra + broker.fleetSection(device: device, groups: groups) + fleetKeys + "\n" + scene + "\n"
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        return try Screen(config: config, state: directory.appendingPathComponent("state").path)
    }

    /// The daemon's metrics on 127.0.0.1:`port`, read strictly.
    static func metrics(_ port: Int) throws -> Exposition {
        let connection = try HTTPConnection(port: port)
        connection.write("GET /metrics HTTP/1.1\r\n\r\n")
        return try Exposition(try #require(connection.answer()).body)
    }

    /// Waits for `devices` to say they are online on their retained status.
    static func waitOnline(_ subscriber: MQTTSubscriber, _ devices: [String]) -> Bool {
        subscriber.wait { s in devices.allSatisfy { s.json(on: "vitrine/\($0)/status").last?["state"]?.string == "online" } }
    }

    /// The screen as PNG base64, through the daemon's socket.
    static func picture(_ daemon: Screen) throws -> String {
        try #require(try daemon.connect().exchange(#"{"id": 1, "cmd": "screenshot"}"#)?["result"]?["png"]?.string)
    }

    static func value(_ daemon: Screen) throws -> Double? {
        try daemon.connect().exchange(#"{"id": 1, "cmd": "layer.get", "layer": "count", "keys": ["value"]}"#)?["result"]?["properties"]?["value"]?.number
    }

    @Test func aGroupCommandReachesEveryScreenAndALateOneCatchesUp() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screens = try ["a", "b", "c"].map { try Self.daemon(broker, device: $0) }
        #expect(Self.waitOnline(listener, ["a", "b", "c"]), "\(listener.messages)")
        let status = try #require(listener.json(on: "vitrine/a/status").last)
        #expect(status["clock"]?["synchronized"]?.bool != nil, "\(status)")
        #expect(status["version"]?.string != nil && status["outputs"]?.array?.first?["size"] == .array([.number(640), .number(240)]), "\(status)")

        // The standing state is retained on the group's topic; the roll itself is a plain command.
        try broker.publish("vitrine/wall/cmd", #"{"id": "v", "cmd": "number.set", "layer": "count", "value": 4217}"#, retain: true)
        let replied = listener.wait { s in
            ["a", "b", "c"].allSatisfy { device in s.json(on: "vitrine/\(device)/reply").contains { $0["id"] == .string("v") } }
        }
        #expect(replied, "\(listener.messages)")
        for device in ["a", "b", "c"] {
            let reply = listener.json(on: "vitrine/\(device)/reply").first { $0["id"] == .string("v") }
            #expect(reply?["result"]?["text"] == .string("4,217"), "\(device): \(String(describing: reply))")
        }
        for screen in screens { #expect(try Self.value(screen) == 4217) }
        // Mid-roll at the same media time, the screens agree pixel for pixel.
        try broker.publish("vitrine/wall/cmd", #"{"id": "t", "cmd": "clock.advance", "seconds": 0.2}"#)
        #expect(listener.wait { s in ["a", "b", "c"].allSatisfy { s.json(on: "vitrine/\($0)/reply").contains { $0["id"] == .string("t") } } })
        let pictures = try screens.map(Self.picture)
        #expect(pictures[0] == pictures[1] && pictures[1] == pictures[2])

        // A fourth screen, started later, gets the retained state and shows the same once settled.
        let late = try Self.daemon(broker, device: "d")
        #expect(Self.waitOnline(listener, ["d"]))
        #expect(listener.wait { s in s.json(on: "vitrine/d/reply").contains { $0["id"] == .string("v") } }, "\(listener.messages)")
        #expect(try Self.value(late) == 4217)
        for screen in screens + [late] { _ = try screen.connect().exchange(#"{"id": 1, "cmd": "clock.advance", "seconds": 10}"#) }
        let settled = try (screens + [late]).map(Self.picture)
        #expect(Set(settled).count == 1, "the late screen differs")
        #expect(settled[0] != pictures[0], "the roll had not finished at 0.2 s")
        try broker.publish("vitrine/wall/cmd", "", retain: true)
    }

    @Test func aCommandWithAtRollsEveryScreenInStep() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screens = try ["a", "b", "c"].map { try Self.daemon(broker, device: $0) }
        #expect(Self.waitOnline(listener, ["a", "b", "c"]), "\(listener.messages)")
        // The screens' clocks stand at different times when the command arrives.
        _ = try screens[1].connect().exchange(#"{"id": 1, "cmd": "clock.set", "time": 2.5}"#)
        try broker.publish("vitrine/wall/cmd", #"{"id": "roll", "cmd": "number.set", "layer": "count", "value": 4217, "at": "1970-01-01T00:00:03Z"}"#)
        usleep(300_000)
        #expect(!["a", "b", "c"].contains { device in listener.json(on: "vitrine/\(device)/reply").contains { $0["id"] == .string("roll") } })
        _ = try screens[0].connect().exchange(#"{"id": 1, "cmd": "clock.set", "time": 3.2}"#)
        for step in [2.9, 3.0, 3.1, 3.2] { _ = try screens[1].connect().exchange(#"{"id": 1, "cmd": "clock.set", "time": \#(step)}"#) }
        for step in [1.0, 3.2] { _ = try screens[2].connect().exchange(#"{"id": 1, "cmd": "clock.set", "time": \#(step)}"#) }
        #expect(listener.wait { s in ["a", "b", "c"].allSatisfy { s.json(on: "vitrine/\($0)/reply").contains { $0["id"] == .string("roll") } } })
        let pictures = try screens.map(Self.picture)
        #expect(Set(pictures).count == 1, "the screens differ mid-roll")
        _ = try screens[0].connect().exchange(#"{"id": 1, "cmd": "clock.advance", "seconds": 10}"#)
        #expect(try Self.picture(screens[0]) != pictures[0], "the roll had not finished at 0.2 s")
    }

    @Test func aRetainedCommandWithAtBringsALateScreenIntoPhase() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screens = try ["a", "b", "c"].map { try Self.daemon(broker, device: $0) }
        #expect(Self.waitOnline(listener, ["a", "b", "c"]), "\(listener.messages)")
        try broker.publish(
            "vitrine/wall/cmd", #"{"id": "roll", "cmd": "number.set", "layer": "count", "value": 4217, "at": 3}"#, retain: true)
        usleep(300_000)
        for screen in screens { _ = try screen.connect().exchange(#"{"id": 1, "cmd": "clock.set", "time": 3.1}"#) }
        #expect(listener.wait { s in ["a", "b", "c"].allSatisfy { s.json(on: "vitrine/\($0)/reply").contains { $0["id"] == .string("roll") } } })

        // A fourth screen starts while the others roll; its clock reaches the same instant later.
        let late = try Self.daemon(broker, device: "d")
        #expect(Self.waitOnline(listener, ["d"]))
        usleep(300_000)
        #expect(!listener.json(on: "vitrine/d/reply").contains { $0["id"] == .string("roll") }, "held until its clock reaches at")
        for screen in screens + [late] { _ = try screen.connect().exchange(#"{"id": 1, "cmd": "clock.set", "time": 3.2}"#) }
        #expect(listener.wait { $0.json(on: "vitrine/d/reply").contains { $0["id"] == .string("roll") } })
        let pictures = try (screens + [late]).map(Self.picture)
        #expect(Set(pictures).count == 1, "the late screen is out of phase mid-roll")
        _ = try late.connect().exchange(#"{"id": 1, "cmd": "clock.set", "time": 20}"#)
        #expect(try Self.picture(late) != pictures[3], "the roll had not finished at 3.2 s")
        try broker.publish("vitrine/wall/cmd", "", retain: true)
    }

    @Test func badMessagesAreAnsweredOnTheReplyTopicAndChangeNothing() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screen = try Self.daemon(broker, device: "bad", extra: "[limits]\nline_bytes = 1024\n\n")
        #expect(Self.waitOnline(listener, ["bad"]))
        let before = try Self.picture(screen)
        let messages = [
            ("not json", "malformed_json"),
            ("[1, 2]", "not_an_object"),
            (#"{"id": 1, "cmd": "layer.explode"}"#, "unknown_command"),
            (#"{"id": 2, "cmd": "number.set", "layer": "count", "value": "many"}"#, "wrong_type"),
            (#"{"id": 3, "cmd": "layer.add", "layer": "x","# + String(repeating: " ", count: 1100) + #""properties": {}}"#, "line_too_long"),
            (#"{"id": 4, "cmd": "screenshot", "path": "/etc/x.png"}"#, "path_not_allowed"),
        ]
        for (message, _) in messages { try broker.publish("vitrine/bad/cmd", message) }
        #expect(listener.wait { $0.json(on: "vitrine/bad/reply").count >= messages.count }, "\(listener.messages)")
        let codes = listener.json(on: "vitrine/bad/reply").map { $0["error"]?["code"]?.string ?? "ok" }
        #expect(codes == messages.map(\.1), "\(listener.json(on: "vitrine/bad/reply"))")
        #expect(try Self.value(screen) == 0)
        #expect(try screen.connect().exchange(#"{"id": 1, "cmd": "layer.get", "layer": "x"}"#)?["ok"] == .bool(false))
        #expect(try Self.picture(screen) == before)
        // The bridge still serves.
        try broker.publish("vitrine/bad/cmd", #"{"id": "p", "cmd": "ping"}"#)
        #expect(listener.wait { $0.json(on: "vitrine/bad/reply").contains { $0["id"] == .string("p") && $0["ok"] == .bool(true) } })
    }

    @Test func eventsFollowTheBrokersSubscription() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screen = try Self.daemon(broker, device: "ev")
        #expect(Self.waitOnline(listener, ["ev"]))
        try broker.publish("vitrine/ev/cmd", #"{"id": 1, "cmd": "number.set", "layer": "count", "value": 5, "animated": false}"#)
        #expect(listener.wait { !$0.json(on: "vitrine/ev/reply").isEmpty })
        try broker.publish("vitrine/ev/cmd", #"{"id": 2, "cmd": "subscribe", "events": ["number.*"]}"#)
        try broker.publish("vitrine/ev/cmd", #"{"id": 3, "cmd": "number.set", "layer": "count", "value": 6, "animated": false}"#)
        #expect(listener.wait { $0.json(on: "vitrine/ev/events").contains { $0["value"] == .number(6) } }, "\(listener.messages)")
        let events = listener.json(on: "vitrine/ev/events")
        // What a socket client would get: the subscribed events and its own transactions' completions.
        let names = Set(events.compactMap { $0["event"]?.string })
        #expect(names == ["number.completed", "transaction.completed"], "\(events)")
        #expect(screen.isRunning)
    }

    @Test func theBridgeSurvivesABrokerRestartAndItsWillMarksAKilledScreenOffline() throws {
        let broker = try MosquittoBroker()
        let port = try HTTPConnection.freePort()
        let screen = try Self.daemon(broker, device: "r", extra: "[metrics]\nenabled = true\nport = \(port)\n\n")
        var listener = try broker.subscribe()
        #expect(Self.waitOnline(listener, ["r"]))
        let first = try Self.metrics(port)
        #expect(first["vitrine_fleet_broker_state", ["state": "connected"]] == 1 && first["vitrine_fleet_broker_state", ["state": "disconnected"]] == 0)
        #expect(first["vitrine_fleet_connections_total"] == 1 && first["vitrine_fleet_reconnects_total"] == 0)
        broker.stop()
        try broker.start()
        // A fresh broker (no persistence): the screen comes back and says so.
        listener = try broker.subscribe()
        #expect(Self.waitOnline(listener, ["r"]), "\(screen.standardError)")
        try broker.publish("vitrine/r/cmd", #"{"id": "after", "cmd": "ping"}"#)
        #expect(listener.wait { $0.json(on: "vitrine/r/reply").contains { $0["id"] == .string("after") } })
        // `stats` through the broker carries the bridge's figures.
        try broker.publish("vitrine/r/cmd", #"{"id": "stats", "cmd": "stats"}"#)
        #expect(listener.wait { $0.json(on: "vitrine/r/reply").contains { $0["id"] == .string("stats") } })
        let reply = listener.json(on: "vitrine/r/reply").first { $0["id"] == .string("stats") }
        let stats = try #require(reply?["result"]?["fleet"], "\(String(describing: reply))")
        #expect(reply?["result"]?["frames"]?.number != nil, "the daemon's own figures are there too")
        #expect(stats["state"] == .string("connected") && (stats["connections"]?.number ?? 0) >= 2, "\(stats)")
        let again = try Self.metrics(port)
        #expect(again["vitrine_fleet_broker_state", ["state": "connected"]] == 1)
        #expect(again["vitrine_fleet_connections_total"] == stats["connections"]?.number)
        #expect(again["vitrine_fleet_reconnects_total"] == (stats["connections"]?.number).map { $0 - 1 })
        #expect(again["vitrine_fleet_messages_received_total"] == stats["received"]?.number && (stats["received"]?.number ?? 0) >= 1)
        #expect(again["vitrine_fleet_messages_dropped_total"] == stats["dropped"]?.number)
        // The kernel's clock sync (adjtimex), as chrony or a PTP daemon keeps it.
        let clock = try #require(stats["clock"])
        #expect(clock["synchronized"]?.bool != nil && (clock["maxErrorMicroseconds"]?.number ?? -1) >= 0, "\(clock)")

        kill(screen.bridge.pid, SIGKILL)
        #expect(listener.wait { $0.json(on: "vitrine/r/status").last?["state"] == .string("offline") }, "the will")
    }

    @Test func aStoppedScreenSaysItIsOffline() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screen = try Self.daemon(broker, device: "s")
        #expect(Self.waitOnline(listener, ["s"]))
        #expect(screen.stop() == 0)
        #expect(listener.wait { $0.json(on: "vitrine/s/status").last?["state"] == .string("offline") })
    }

    @Test func tlsWithAClientCertificateFromATestCA() throws {
        let broker = try MosquittoBroker(tls: true)
        let listener = try broker.subscribe()
        let screen = try Self.daemon(broker, device: "t")
        #expect(Self.waitOnline(listener, ["t"]), "\(broker.log)")
        try broker.publish("vitrine/wall/cmd", #"{"id": "tls", "cmd": "number.set", "layer": "count", "value": 8}"#)
        #expect(listener.wait { $0.json(on: "vitrine/t/reply").contains { $0["id"] == .string("tls") && $0["ok"] == .bool(true) } })
        #expect(try Self.value(screen) == 8)
    }
}
