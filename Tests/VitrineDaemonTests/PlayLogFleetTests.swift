import Foundation
import Synchronization
import Testing
import VitrineDaemon
import VitrinePlayLog
import VitrineProtocol

/// Proof of play as items play: a daemon whose play log records items (the test makes the
/// player's calls on the daemon's loop, as the signage player will), its `playlog.entry`
/// events and metrics; and with the real `vitrine-fleet` on the real Mosquitto, each
/// item's entry published on `vitrine/<device>/playlog` as it ends, not on `…/events`, and
/// `playlog.query` through the broker reading the log back.
@Suite(.serialized, .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto, mosquitto-clients and openssl"))
struct PlayLogFleetTests {
    /// Plays one item on the daemon's loop: began, its first frame, ended.
    static func play(_ daemon: InProcessDaemon, _ n: Int, completed: Bool) {
        daemon.onLoop { coordinator in
            guard let log = coordinator.playLog else { return }
            let start = 1_796_299_200.0 + Double(n) * 10
            let token = log.began(output: "headless", playlist: "cafe", item: "item-\(n)", start: start)
            log.firstFrame(token, hash: "f\(n)")
            log.ended(token, end: start + 10, completed: completed)
        }
    }

    /// On the socket: `playlog.entry` as an item ends; the item still playing is in the
    /// query's answer before anything is written; the metrics count both.
    @Test func theEventComesAsTheItemEndsAndThePlayingItemIsQueried() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-playlog-event-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let metrics = state + "/m.sock"
        let daemon = try InProcessDaemon { settings in
            settings.playLogState = (state, false)
            (settings.metrics.enabled, settings.metrics.port, settings.metrics.socket) = (true, 0, metrics)
        }
        let c = try daemon.connect()
        _ = try c.request(#"{"id": 1, "cmd": "subscribe", "events": ["playlog.*"]}"#)
        daemon.onLoop { coordinator in
            guard let log = coordinator.playLog else { return }
            let first = log.began(output: "headless", playlist: "cafe", item: "breakfast", start: 1_796_299_200)
            log.firstFrame(first, hash: "b1")
            log.ended(first, end: 1_796_299_230, completed: true)
            _ = log.began(output: "headless", playlist: "cafe", item: "promo", start: 1_796_299_230)
        }
        let event = try c.waitForEvent("playlog.entry")
        #expect(event["item"] == .string("breakfast") && event["end"] == .number(1_796_299_230) && event["completed"] == .bool(true))
        #expect(event["hash"] == .string("b1") && event["output"] == .string("headless"))
        let reply = try c.request(#"{"id": 2, "cmd": "playlog.query", "from": 1796299200}"#)
        let entries = reply["result"]?["entries"]?.array ?? []
        #expect(entries.map(\.["item"]) == [.string("breakfast"), .string("promo")], "\(reply)")
        #expect(entries.last?["end"] == .null && entries.last?["completed"] == .null && entries.last?["hash"] == .null)
        let connection = try HTTPConnection(path: metrics)
        connection.write("GET /metrics HTTP/1.1\r\nHost: screen\r\n\r\n")
        let scrape = try Exposition(try #require(connection.answer()).body)
        #expect(scrape["vitrine_playlog_items_started_total"] == 2 && scrape["vitrine_playlog_items_ended_total", ["result": "completed"]] == 1)
        #expect(scrape["vitrine_playlog_items_ended_total", ["result": "cut_short"]] == 0)
        // Written by the workers within a second: the files hold both items.
        let deadline = Date().addingTimeInterval(5)
        var written = 0
        while written < 2, Date() < deadline {
            usleep(100_000)
            let text = (try? String(contentsOfFile: state + "/playlog/playlog-000001.jsonl", encoding: .utf8)) ?? ""
            written = Set(text.split(separator: "\n").compactMap { try? JSON(parsing: String($0)) }.compactMap(\.["item"])).count
        }
        #expect(written == 2)
    }

    @Test func eachEndedItemIsPublishedOnThePlaylogTopic() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-playlog-fleet-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let daemon = try InProcessDaemon { $0.playLogState = (state, false) }
        let config = daemon.directory.appendingPathComponent("vitrine.toml").path
        try broker.fleetSection(device: "cafe", groups: []).write(toFile: config, atomically: true, encoding: .utf8)
        let bridge = try FleetProcess(config: config, socket: daemon.socketPath)
        #expect(FleetTests.waitOnline(listener, ["cafe"]), "\(bridge.standardError)")

        // The relay subscribes on its own connection once the daemon answers it: items
        // are played until the first entry arrives, then three more.
        var n = 0
        let first = listener.wait { s in
            n += 1
            Self.play(daemon, n, completed: true)
            usleep(100_000)
            return !s.json(on: "vitrine/cafe/playlog").isEmpty
        }
        #expect(first, "\(listener.messages)\n\(bridge.standardError)")
        let before = listener.json(on: "vitrine/cafe/playlog").count
        for k in 1...3 { Self.play(daemon, n + k, completed: k != 2) }
        #expect(listener.wait { $0.json(on: "vitrine/cafe/playlog").count >= before + 3 })
        let published = listener.json(on: "vitrine/cafe/playlog").suffix(3)
        #expect(published.map(\.["item"]) == (1...3).map { .string("item-\(n + $0)") })
        let second = try #require(published.dropFirst().first)
        #expect(
            second["event"] == .string("playlog.entry") && second["completed"] == .bool(false) && second["output"] == .string("headless")
                && second["playlist"] == .string("cafe"))
        #expect(second["start"] == .number(1_796_299_200 + Double(n + 2) * 10) && second["end"] == .number(1_796_299_210 + Double(n + 2) * 10))
        #expect(second["hash"] == .string("f\(n + 2)") && second["id"]?.string?.hasSuffix("-\(n + 2)") == true)
        #expect(listener.json(on: "vitrine/cafe/events").isEmpty, "the broker subscribed to nothing")

        // The broker reads the log back: every item played, written by the workers.
        try broker.publish("vitrine/cafe/cmd", #"{"id": "pop", "cmd": "playlog.query", "item": "item-\#(n + 2)"}"#)
        #expect(listener.wait { $0.json(on: "vitrine/cafe/reply").contains { $0["id"] == .string("pop") } })
        let reply = try #require(listener.json(on: "vitrine/cafe/reply").first { $0["id"] == .string("pop") })
        var expected = second.object ?? [:]
        expected["event"] = nil
        #expect(reply["result"]?["entries"] == .array([.object(expected)]), "\(reply)")
        #expect(bridge.stop() == 0)
    }
}
