import Foundation
import Testing
import VitrineProtocol

/// Every code of the error table in docs/PROTOCOL.md ("## Errors"), read from the document
/// when the test runs, is provoked through the socket of a real daemon and checked in the
/// reply's `error.code`: a code added to the table without a way to provoke it here fails
/// the test, and so does a code provoked here that the table does not list.
@Suite struct ErrorCodeTests {
    /// The one documented code no request can provoke honestly, and why.
    static let exceptions: [String: String] = [
        "internal_error":
            "only a failure inside the daemon gives it (the renderer cannot draw a screenshot, or libpng cannot encode one); no request provokes it in a working daemon, and faking it would test nothing"
    ]

    /// The codes of the "## Errors" table, in its order.
    static func documentedCodes() throws -> [String] {
        let text = try String(contentsOf: ProtocolDocTests.document, encoding: .utf8)
        guard let heading = text.range(of: "\n## Errors\n") else { throw DaemonError("docs/PROTOCOL.md has no \"## Errors\" section") }
        let rest = text[heading.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `") else { return nil }
            return String(line.dropFirst(3).prefix { $0 != "`" })
        }
    }

    @Test func everyDocumentedErrorCodeIsProvoked() throws {
        let documented = try Self.documentedCodes()
        #expect(documented.count >= 30, "the error table was not read: \(documented)")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-errors-\(UUID().uuidString.prefix(8))")
        let content = work.appendingPathComponent("content")
        try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let notPNG = content.appendingPathComponent("not-a.png").path
        try "this is text, not a PNG\n".write(toFile: notPNG, atomically: true, encoding: .utf8)
        let limitsConfig = work.appendingPathComponent("limits.toml").path
        try """
        [limits]
        line_bytes = 1024
        layers = 4
        animations_per_layer = 2

        [[clients]]
        name = "gone"
        command = ["/nonexistent/vitrine-test-program"]
        start = false
        """.write(toFile: limitsConfig, atomically: true, encoding: .utf8)
        let idleConfig = work.appendingPathComponent("idle.toml").path
        try "[limits]\nidle_seconds = 1\n".write(toFile: idleConfig, atomically: true, encoding: .utf8)

        // The idle daemon first: its client's second of silence passes during the rest.
        let idle = try DaemonProcess(arguments: ["--size", "32x24", "--config", idleConfig])
        let silent = try idle.connect()
        let silentSince = Date()
        // Small limits, a content root, a manual clock.
        let limited = try DaemonProcess(arguments: ["--size", "64x48", "--config", limitsConfig, "--content-root", content.path])
        // A real-time clock and no configuration file.
        let realtime = try DaemonProcess(clock: "realtime", arguments: ["--size", "32x24"])

        var seen: [String: [String]] = [:]
        /// Checks that `reply` is a failure with `code` (and a message `message` accepts).
        func expectCode(_ code: String, _ name: String, _ reply: JSON?, message: (String) -> Bool = { _ in true }) {
            guard let reply else {
                Issue.record("\(name): no reply (expected \(code))")
                return
            }
            #expect(reply["ok"] == .bool(false), "\(name): \(reply)")
            #expect(reply["error"]?["code"] == .string(code), "\(name): expected \(code), got \(reply)")
            let text = reply["error"]?["message"]?.string ?? ""
            #expect(text.count > 10 && message(text), "\(name): message \(text)")
            if reply["error"]?["code"] == .string(code) { seen[code, default: []].append(name) }
        }

        let c = try limited.connect()
        for line in [
            #"{"id": "s1", "cmd": "layer.add", "layer": "box", "properties": {"bounds": [0, 0, 10, 10]}}"#,
            #"{"id": "s2", "cmd": "layer.add", "layer": "t", "kind": "text", "properties": {"string": "Hi"}}"#,
            #"{"id": "s3", "cmd": "clock.advance", "seconds": 1}"#,
        ] {
            let reply = try #require(try c.exchange(line))
            try #require(reply["ok"] == .bool(true), "setup \(line) → \(reply)")
        }

        // Blank lines are no requests: the next line that comes back answers the ping.
        c.write(Array("   \n\t\n \t \r\n\r\r\n\n".utf8))
        let pong = try c.exchange(#"{"id": "after-blank", "cmd": "ping"}"#)
        #expect(pong?["id"] == .string("after-blank"), "blank lines must get no reply: \(String(describing: pong))")

        let requests: [(code: String, name: String, line: [UInt8])] = [
            ("malformed_json", "truncated JSON", Array(#"{"id": 1, "cmd": "ping""#.utf8)),
            ("invalid_utf8", "a lone continuation byte", [0x80, 0x7B, 0x7D]),
            ("not_an_object", "an array", Array("[1]".utf8)),
            ("missing_field", "no id", Array(#"{"cmd": "ping"}"#.utf8)),
            ("unknown_field", "a field ping does not take", Array(#"{"id": 1, "cmd": "ping", "verbose": true}"#.utf8)),
            ("wrong_type", "a layer id that is a number", Array(#"{"id": 1, "cmd": "layer.remove", "layer": 5}"#.utf8)),
            ("invalid_value", "opacity 2", Array(#"{"id": 1, "cmd": "layer.set", "layer": "box", "properties": {"opacity": 2}}"#.utf8)),
            ("unknown_command", "no such cmd", Array(#"{"id": 1, "cmd": "layer.nuke"}"#.utf8)),
            (
                "limit_exceeded", "more layers than limits.layers",
                Array(
                    #"{"id": 1, "cmd": "transaction", "commands": [{"cmd": "layer.add", "layer": "l1"}, {"cmd": "layer.add", "layer": "l2"}, {"cmd": "layer.add", "layer": "l3"}]}"#
                        .utf8)
            ),
            (
                "limit_exceeded", "more animations than limits.animations_per_layer",
                Array(
                    #"{"id": 1, "cmd": "transaction", "commands": [{"cmd": "animation.add", "layer": "box", "animation": {"keyPath": "opacity", "to": 0, "duration": 5}}, {"cmd": "animation.add", "layer": "box", "animation": {"keyPath": "opacity", "to": 0, "duration": 5}}, {"cmd": "animation.add", "layer": "box", "animation": {"keyPath": "opacity", "to": 0, "duration": 5}}]}"#
                        .utf8)
            ),
            ("path_not_allowed", "a screenshot outside the screenshot directory", Array(#"{"id": 1, "cmd": "screenshot", "path": "/etc/passwd.png"}"#.utf8)),
            (
                "path_not_allowed", "contents outside the content roots",
                Array(#"{"id": 1, "cmd": "layer.set", "layer": "box", "properties": {"contents": "\#(limitsConfig)"}}"#.utf8)
            ),
            (
                "content_failed", "contents that is not a PNG",
                Array(#"{"id": 1, "cmd": "layer.set", "layer": "box", "properties": {"contents": "\#(notPNG)"}}"#.utf8)
            ),
            ("unknown_output", "a screenshot of no output", Array(#"{"id": 1, "cmd": "screenshot", "output": "hdmi-9"}"#.utf8)),
            ("unknown_layer", "no such layer", Array(#"{"id": 1, "cmd": "layer.get", "layer": "ghost"}"#.utf8)),
            ("duplicate_id", "a layer id taken", Array(#"{"id": 1, "cmd": "layer.add", "layer": "box"}"#.utf8)),
            ("invalid_id", "spaces in a layer id", Array(#"{"id": 1, "cmd": "layer.add", "layer": "no spaces!"}"#.utf8)),
            ("unknown_kind", "no such kind", Array(#"{"id": 1, "cmd": "layer.add", "layer": "new", "kind": "hologram"}"#.utf8)),
            ("cycle", "a move into itself", Array(#"{"id": 1, "cmd": "layer.move", "layer": "box", "parent": "box"}"#.utf8)),
            ("root_layer", "removing the root", Array(#"{"id": 1, "cmd": "layer.remove", "layer": "root"}"#.utf8)),
            ("invalid_key_path", "an empty key", Array(#"{"id": 1, "cmd": "layer.set", "layer": "box", "properties": {"position..x": 3}}"#.utf8)),
            ("unknown_key_path", "no such property", Array(#"{"id": 1, "cmd": "layer.get", "layer": "box", "keys": ["nothing"]}"#.utf8)),
            ("unknown_property", "a misspelt property", Array(#"{"id": 1, "cmd": "layer.set", "layer": "box", "properties": {"cornerRaduis": 4}}"#.utf8)),
            (
                "not_animatable", "animating a string",
                Array(#"{"id": 1, "cmd": "animation.add", "layer": "t", "animation": {"keyPath": "string", "from": "a", "to": "b", "duration": 1}}"#.utf8)
            ),
            (
                "invalid_animation", "keyTimes not matching values",
                Array(
                    #"{"id": 1, "cmd": "animation.add", "layer": "box", "animation": {"keyPath": "opacity", "values": [0, 1, 0], "keyTimes": [0, 1], "duration": 1}}"#
                        .utf8)
            ),
            ("unknown_animation", "no animation under that key", Array(#"{"id": 1, "cmd": "animation.remove", "layer": "box", "key": "nope"}"#.utf8)),
            ("unknown_client", "client.stop of no client", Array(#"{"id": 1, "cmd": "client.stop", "name": "nobody"}"#.utf8)),
            ("start_failed", "client.start of a missing program", Array(#"{"id": 1, "cmd": "client.start", "name": "gone"}"#.utf8)),
            ("not_allowed", "client.start with a command", Array(#"{"id": 1, "cmd": "client.start", "name": "x", "command": ["true"]}"#.utf8)),
            (
                "invalid_timing", "a negative duration",
                Array(#"{"id": 1, "cmd": "animation.add", "layer": "box", "animation": {"keyPath": "opacity", "to": 0, "duration": -1}}"#.utf8)
            ),
        ]
        for (code, name, line) in requests {
            let reply = try c.exchange(line)
            expectCode(code, name, reply) { message in
                switch name {
                case "more layers than limits.layers": message.contains("limits.layers")
                case "more animations than limits.animations_per_layer": message.contains("limits.animations_per_layer")
                default: true
                }
            }
        }
        // A speed too near 0 for the layer's time to continue is the client's "speed" at
        // fault (not beginTime, which it never sent), with the speeds accepted.
        expectCode("invalid_value", "layer.speed 1e-300", try c.exchange(#"{"id": 1, "cmd": "layer.speed", "layer": "box", "speed": 1e-300}"#)) {
            $0.contains("\"speed\" 1e-300") && $0.contains("…1000") && !$0.contains("beginTime")
        }
        #expect(try c.exchange(#"{"id": 2, "cmd": "layer.tree"}"#)?["result"]?["sublayers"]?.array?.count == 2, "a refused request changed the tree")

        // A line over limits.line_bytes: the last line, then the connection closes.
        let long = try limited.connect()
        long.send(#"{"id": 1, "cmd": "ping", "pad": ""# + String(repeating: "x", count: 2000) + #""}"#)
        let tooLong = long.readLine().flatMap { try? JSON(parsing: Data($0.utf8)) }
        expectCode("line_too_long", "a line of 2 KB over line_bytes = 1024", tooLong)
        #expect(tooLong?["id"] == .null)
        #expect(long.drain().closed, "the connection stays open after line_too_long")

        // The real-time daemon without a configuration file.
        let r = try realtime.connect()
        expectCode("not_manual_clock", "clock.advance on a real-time clock", try r.exchange(#"{"id": 1, "cmd": "clock.advance", "seconds": 1}"#))
        expectCode("invalid_config", "config.reload without --config", try r.exchange(#"{"id": 2, "cmd": "config.reload"}"#))
        // SIGTERM: every connection gets a last line with a null id.
        #expect(realtime.stop() == 0)
        let stopping = r.readLine().flatMap { try? JSON(parsing: Data($0.utf8)) }
        expectCode("shutting_down", "SIGTERM", stopping)
        #expect(stopping?["id"] == .null)

        // The silent client of idle_seconds = 1.
        let closing = silent.readLine(timeout: 5).flatMap { try? JSON(parsing: Data($0.utf8)) }
        expectCode("idle_timeout", "no request for idle_seconds", closing)
        #expect(closing?["id"] == .null)
        #expect(Date().timeIntervalSince(silentSince) >= 1, "closed before idle_seconds")
        #expect(silent.drain().closed)

        for code in documented where seen[code] == nil {
            if let reason = Self.exceptions[code] {
                print("\(code) is not provoked: \(reason)")
            } else {
                Issue.record("docs/PROTOCOL.md lists \(code), but no case here provokes it: add one")
            }
        }
        for code in Self.exceptions.keys {
            #expect(documented.contains(code), "\(code) is an exception here but not documented")
            #expect(seen[code] == nil, "\(code) was provoked: it is no exception any more")
        }
        for code in seen.keys {
            #expect(documented.contains(code), "\(code) is provoked but missing from docs/PROTOCOL.md's error table")
        }
    }
}
