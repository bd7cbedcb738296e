import Foundation
import Logging
import Testing
import VitrinePlayLog
import VitrineProtocol

/// `playlog.query` through a real `vitrined` started on a state directory whose play log
/// was written by the store's own writer (the player that records entries comes with the
/// signage part): ranges, filters, limits, a line cut short, bad requests, the metrics.
@Suite(.serialized) struct PlayLogQueryTests {
    static let t0 = 1_764_763_200.0

    /// A state directory holding a play log of a morning: `menu` and `promo` on two outputs.
    static func stateDirectory() throws -> String {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-playlog-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let store = PlayLogStore(directory: state + "/playlog", limits: .init(maxBytes: 64 << 20, keepSeconds: 3650 * 86_400), logger: Logger(label: "test"))
        var entries: [PlayEntry] = []
        for n in 0..<30 {
            let start = t0 + Double(n) * 20
            entries.append(
                PlayEntry(
                    id: "r-\(n)", output: n % 2 == 0 ? "HDMI-A-1" : "HDMI-A-2", playlist: "morning", item: n % 5 == 4 ? "promo" : "menu", start: start))
        }
        try store.append(entries)
        try store.append(
            entries.map { entry in
                var ended = entry
                (ended.end, ended.completed, ended.hash) = (entry.start + 20, entry.id != "r-9", "h" + entry.id)
                return ended
            })
        return state
    }

    static func entries(_ reply: JSON) -> [JSON] { reply["result"]?["entries"]?.array ?? [] }

    @Test func queriesByRangeOutputItemAndLimit() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let daemon = try DaemonProcess(arguments: ["--state-dir", state])
        let c = try daemon.connect()

        let all = try c.request(#"{"id": 1, "cmd": "playlog.query"}"#)
        #expect(Self.entries(all).count == 30 && all["result"]?["more"] == .bool(false) && all["result"]?["skipped"] == .number(0), "\(all)")
        #expect(
            Self.entries(all).first
                == .object([
                    "id": .string("r-0"), "output": .string("HDMI-A-1"), "playlist": .string("morning"), "item": .string("menu"),
                    "start": .number(Self.t0), "end": .number(Self.t0 + 20), "completed": .bool(true), "hash": .string("hr-0"),
                ]))
        #expect(Self.entries(all).map { $0["start"]?.number ?? 0 } == (0..<30).map { Self.t0 + Double($0) * 20 })

        let hour = try c.request(#"{"id": 2, "cmd": "playlog.query", "from": "2025-12-03T12:02:00Z", "to": \#(Self.t0 + 200)}"#)
        #expect(Self.entries(hour).map(\.["id"]) == (6..<10).map { .string("r-\($0)") }, "\(hour)")
        let promos = try c.request(#"{"id": 3, "cmd": "playlog.query", "item": "promo"}"#)
        #expect(Self.entries(promos).map(\.["id"]) == ["r-4", "r-9", "r-14", "r-19", "r-24", "r-29"].map(JSON.string))
        #expect(Self.entries(promos)[1]["completed"] == .bool(false))
        let second = try c.request(#"{"id": 4, "cmd": "playlog.query", "output": "HDMI-A-2", "item": "promo"}"#)
        #expect(Self.entries(second).map(\.["id"]) == ["r-9", "r-19", "r-29"].map(JSON.string))
        let limited = try c.request(#"{"id": 5, "cmd": "playlog.query", "playlist": "morning", "limit": 7}"#)
        #expect(Self.entries(limited).count == 7 && limited["result"]?["more"] == .bool(true))
        let none = try c.request(#"{"id": 6, "cmd": "playlog.query", "output": "DP-1"}"#)
        #expect(Self.entries(none).isEmpty && none["ok"] == .bool(true))
    }

    @Test func aLineCutShortIsSkippedAndCounted() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let handle = try #require(FileHandle(forWritingAtPath: state + "/playlog/playlog-000001.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"completed":true,"end":17647"#.utf8))
        handle.closeFile()
        let daemon = try DaemonProcess(arguments: ["--state-dir", state])
        let reply = try daemon.connect().request(#"{"id": 1, "cmd": "playlog.query", "item": "menu"}"#)
        #expect(Self.entries(reply).count == 24 && reply["result"]?["skipped"] == .number(1), "\(reply)")
    }

    @Test func badQueriesAreRefusedWithTheReason() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let daemon = try DaemonProcess(arguments: ["--state-dir", state])
        let c = try daemon.connect()
        let cases: [(String, String, String)] = [
            (#"{"id": 1, "cmd": "playlog.query", "from": 200, "to": 100}"#, "invalid_value", "must come before"),
            (#"{"id": 1, "cmd": "playlog.query", "from": "yesterday"}"#, "invalid_value", "RFC 3339"),
            (#"{"id": 1, "cmd": "playlog.query", "limit": 0}"#, "invalid_value", "1…10000"),
            (#"{"id": 1, "cmd": "playlog.query", "limit": 2.5}"#, "invalid_value", "whole number"),
            (#"{"id": 1, "cmd": "playlog.query", "item": 3}"#, "wrong_type", "\"item\" is a string"),
            (#"{"id": 1, "cmd": "playlog.query", "since": 3}"#, "unknown_field", "no field 'since'"),
            (#"{"id": 1, "cmd": "playlog.query", "at": 100}"#, "invalid_value", "takes no \"at\""),
        ]
        for (request, code, words) in cases {
            let reply = try c.request(request)
            #expect(reply["ok"] == .bool(false) && reply["error"]?["code"] == .string(code), "\(request): \(reply)")
            #expect(reply["error"]?["message"]?.string?.contains(words) == true, "\(request): \(reply)")
        }
        #expect(try c.request(#"{"id": 2, "cmd": "ping"}"#)["ok"] == .bool(true))
    }

    @Test func withoutAPlayLogTheQuerySaysWhy() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-playlog-off-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/vitrine.toml"
        try "[playlog]\nenabled = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config, "--state-dir", directory])
        let reply = try daemon.connect().request(#"{"id": 1, "cmd": "playlog.query"}"#)
        #expect(reply["error"]?["code"] == .string("not_allowed") && reply["error"]?["message"]?.string?.contains("[playlog] enabled") == true)
        #expect(!FileManager.default.fileExists(atPath: directory + "/playlog"))
    }

    @Test func theMetricsCountTheLogsBytes() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let metrics = state + "/m.sock", config = state + "/vitrine.toml"
        try "[metrics]\nenabled = true\nport = 0\nsocket = \"\(metrics)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config, "--state-dir", state])
        _ = try daemon.connect().request(#"{"id": 1, "cmd": "ping"}"#)
        let connection = try HTTPConnection(path: metrics)
        connection.write("GET /metrics HTTP/1.1\r\nHost: screen\r\n\r\n")
        let scrape = try Exposition(try #require(connection.answer()).body)
        let size = try FileManager.default.attributesOfItem(atPath: state + "/playlog/playlog-000001.jsonl")[.size] as! Int
        #expect(scrape["vitrine_playlog_bytes"] == Double(size))
        #expect(scrape["vitrine_playlog_items_started_total"] == 0)
        #expect(scrape["vitrine_playlog_items_ended_total", ["result": "completed"]] == 0)
    }
}
