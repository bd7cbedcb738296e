import Foundation
import Testing
import VitrineDaemon
import VitrineProtocol

/// The daemon's edges: the line limit, the client and subscription limits, screenshot
/// paths outside the allowed directory, and clock commands on a real-time clock. Each bad
/// request must get its code, change nothing (whole `layer.tree` / `layer.get` replies
/// compared) and, except for the over-long line, leave the connection working.
@Suite struct BoundaryTests {
    /// A small static scene; `state` returns the replies that show it.
    static func makeScene(_ client: SocketClient) throws {
        for line in [
            #"{"id": "s1", "cmd": "layer.add", "layer": "a", "properties": {"bounds": [0, 0, 40, 30], "position": [20, 20], "backgroundColor": "teal"}}"#,
            #"{"id": "s2", "cmd": "layer.add", "layer": "b", "parent": "a", "properties": {"count": 2}}"#,
        ] {
            let reply = try #require(try client.exchange(line))
            try #require(reply["ok"] == .bool(true), "\(line) → \(reply)")
        }
    }

    static func state(_ client: SocketClient) throws -> [JSON] {
        try [
            #"{"id": "tree", "cmd": "layer.tree"}"#,
            #"{"id": "a", "cmd": "layer.get", "layer": "a"}"#,
            #"{"id": "a-shown", "cmd": "layer.get", "layer": "a", "presentation": true}"#,
            #"{"id": "b", "cmd": "layer.get", "layer": "b"}"#,
        ].map { probe in try #require(try client.exchange(probe), "no reply to \(probe)") }
    }

    static func expectAlive(_ client: SocketClient, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pong = try client.exchange(#"{"id": "alive", "cmd": "ping"}"#)
        #expect(pong?["result"]?["pong"] == .bool(true), "\(context): ping after it got \(String(describing: pong))", sourceLocation: sourceLocation)
    }

    /// A client the daemon admitted (it answers a ping). A connection closed just before
    /// (the start-up probe) may still hold its place for a moment, so a refusal is retried.
    static func admittedClient(_ connect: () throws -> SocketClient) throws -> SocketClient {
        let deadline = Date().addingTimeInterval(5)
        while true {
            let client = try connect()
            let reply = try client.exchange(#"{"id": "admitted", "cmd": "ping"}"#)
            if reply?["ok"] == .bool(true) { return client }
            guard reply?["error"]?["code"] == .string("limit_exceeded"), Date() < deadline else {
                throw DaemonError("client not admitted: \(String(describing: reply))")
            }
        }
    }

    /// `{"id": 1, "cmd": "ping", "pad": "xxx…"}` of exactly `bytes` bytes.
    static func paddedLine(bytes: Int) -> [UInt8] {
        let head = Array(#"{"id": 1, "cmd": "ping", "pad": ""#.utf8), tail = Array(#""}"#.utf8)
        return head + [UInt8](repeating: UInt8(ascii: "x"), count: bytes - head.count - tail.count) + tail
    }

    @Test func lineAtTheLimitIsReadAndOneByteMoreClosesOnlyThatConnection() throws {
        let daemon = try DaemonProcess()
        let offender = try daemon.connect(), bystander = try daemon.connect()
        try Self.makeScene(bystander)
        let before = try Self.state(bystander)
        let limit = 1 << 20

        // Exactly the limit: an ordinary reply (the padding is an unknown field).
        let atLimit = try #require(try offender.exchange(Self.paddedLine(bytes: limit)))
        #expect(atLimit["error"]?["code"] == .string("unknown_field"), "\(atLimit)")
        #expect(atLimit["id"] == .number(1))

        // One byte more: line_too_long with a null id, then the connection closes.
        let tooLong = try #require(try offender.exchange(Self.paddedLine(bytes: limit + 1)), "no line_too_long reply")
        #expect(tooLong["error"]?["code"] == .string("line_too_long"), "\(tooLong)")
        #expect(tooLong["id"] == .null)
        #expect(tooLong["ok"] == .bool(false))
        #expect(offender.drain(timeout: 5).closed, "the connection must close after line_too_long")

        // The other client neither noticed nor lost anything.
        #expect(try Self.state(bystander) == before)
        try Self.expectAlive(bystander, "bystander")
        let fresh = try daemon.connect()
        try Self.expectAlive(fresh, "a new client after line_too_long")
    }

    @Test func endlessLineWithoutNewlineIsCutOffEarly() throws {
        let daemon = try DaemonProcess()
        let offender = try daemon.connect(), bystander = try daemon.connect()
        // 1.5 MiB with no newline at all: the daemon must not wait for the end of the line.
        offender.write([UInt8](repeating: UInt8(ascii: "["), count: 3 << 19))
        let reply = try #require(offender.readLine().flatMap { try? JSON(parsing: Data($0.utf8)) }, "no reply")
        #expect(reply["error"]?["code"] == .string("line_too_long"), "\(reply)")
        #expect(offender.drain(timeout: 5).closed)
        try Self.expectAlive(bystander, "bystander")
    }

    @Test func theEndOfInputIsTheLastRequestAndItsRepliesStillCome() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.connect()
        // Two requests, the second without its newline, then the end of input.
        client.write(Array("{\"id\": 1, \"cmd\": \"ping\"}\n{\"id\": 2, \"cmd\": \"stats\"}".utf8))
        client.shutdownWriting()
        let first = try #require(client.readLine().flatMap { try? JSON(parsing: Data($0.utf8)) }, "no reply to the first request")
        let second = try #require(client.readLine().flatMap { try? JSON(parsing: Data($0.utf8)) }, "no reply to the last request without its newline")
        #expect(first["id"] == .number(1) && first["ok"] == .bool(true), "\(first)")
        #expect(second["id"] == .number(2) && second["ok"] == .bool(true), "\(second)")
        #expect(client.drain(timeout: 5).closed, "the connection closes once the replies are out")
        try Self.expectAlive(try daemon.connect(), "a new client")
    }

    @Test func clientLimitAtTheDefault() throws {
        // vitrined has no flag for limits.clients; its default (64) is small enough to reach.
        let daemon = try DaemonProcess()
        var clients: [SocketClient] = []
        // 64 places, and one more for root or the daemon's own user (as these tests run).
        for _ in 0..<65 { clients.append(try Self.admittedClient(daemon.connect)) }
        let refused = try daemon.connect()
        let line = try #require(refused.readLine(), "the 66th client got no line")
        let reply = try JSON(parsing: Data(line.utf8))
        #expect(reply["error"]?["code"] == .string("limit_exceeded"), "\(reply)")
        #expect(reply["id"] == .null)
        #expect(refused.drain(timeout: 5).closed, "a refused client is disconnected")
        try Self.expectAlive(clients[0], "an admitted client")

        // A place frees up when a client leaves.
        clients.removeLast()
        try Self.expectAlive(clients[0], "an admitted client")
        clients.append(try Self.admittedClient(daemon.connect))
    }

    @Test func smallClientAndSubscriptionLimits() throws {
        // The command line sets no limits, so this daemon runs in-process with small ones.
        // (The default of 32 subscriptions cannot be reached at all: only eight distinct
        // patterns match an event — the four names, "*", "animation.*", "transaction.*",
        // "config.*" — and subscribing twice to one counts once.)
        let daemon = try InProcessDaemon {
            $0.limits.clients = 3
            $0.limits.subscriptionsPerClient = 2
        }
        // Three places and the operator's (these tests run as the daemon's user).
        let clients = try (0..<4).map { _ in try Self.admittedClient(daemon.connect) }
        let fourth = try daemon.connect()
        let refusal = try #require(fourth.readLine().flatMap { try? JSON(parsing: Data($0.utf8)) })
        #expect(refusal["error"]?["code"] == .string("limit_exceeded"), "\(refusal)")
        #expect(refusal["error"]?["message"]?.string?.contains("3 clients") == true, "\(refusal)")
        #expect(fourth.drain(timeout: 5).closed)

        let client = clients[0]
        let two = try #require(try client.exchange(#"{"id": 1, "cmd": "subscribe", "events": ["animation.*", "transaction.completed"]}"#))
        #expect(two["result"] == .object(["subscriptions": .array([.string("animation.*"), .string("transaction.completed")])]), "\(two)")
        // Subscribing again to what it has is no new subscription.
        let again = try #require(try client.exchange(#"{"id": 2, "cmd": "subscribe", "events": ["animation.*"]}"#))
        #expect(again["ok"] == .bool(true), "\(again)")
        let third = try #require(try client.exchange(#"{"id": 3, "cmd": "subscribe", "events": ["config.reloaded"]}"#))
        #expect(third["error"]?["code"] == .string("limit_exceeded"), "\(third)")
        #expect(third["id"] == .number(3))
        // Nothing changed: unsubscribing lists the two it had.
        let list = try #require(try client.exchange(#"{"id": 4, "cmd": "unsubscribe", "events": ["nothing-held"]}"#))
        #expect(list["result"] == .object(["subscriptions": .array([.string("animation.*"), .string("transaction.completed")])]), "\(list)")
        try Self.expectAlive(client, "after limit_exceeded")
        // The other clients have their own allowance.
        let other = try #require(try clients[1].exchange(#"{"id": 1, "cmd": "subscribe", "events": ["*", "config.reloaded"]}"#))
        #expect(other["ok"] == .bool(true), "\(other)")
    }

    @Test func screenshotPathsOutsideTheDirectoryAreRefused() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-paths-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: base) }
        let shots = base.appendingPathComponent("shots").path, outside = base.appendingPathComponent("outside").path
        let sibling = base.appendingPathComponent("shots-evil").path
        for d in [shots, outside, sibling, shots + "/sub"] { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(atPath: shots + "/link", withDestinationPath: outside)
        let victim = outside + "/victim.png"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: shots + "/trap.png", withDestinationPath: victim)
        try FileManager.default.createSymbolicLink(atPath: shots + "/dangling.png", withDestinationPath: outside + "/new.png")

        let daemon = try DaemonProcess(screenshotDirectory: shots, arguments: ["--size", "64x48"])
        let client = try daemon.connect()
        try Self.makeScene(client)
        let before = try Self.state(client)
        let refused = [
            "/etc/passwd.png", outside + "/abs.png", "../outside/up.png", "sub/../../outside/up2.png", shots + "/../outside/abs-up.png",
            sibling + "/prefix.png", "../shots-evil/prefix2.png", "link/through-dir-link.png", "trap.png", "dangling.png",
            shots + "/trap.png",
        ]
        for path in refused {
            let reply = try #require(try client.exchange(JSON.object(["id": .string(path), "cmd": .string("screenshot"), "path": .string(path)]).text))
            #expect(reply["error"]?["code"] == .string("path_not_allowed"), "\(path): \(reply)")
            #expect(reply["id"] == .string(path))
            #expect(try Self.state(client) == before, "\(path) changed the scene")
            try Self.expectAlive(client, path)
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious", "a screenshot was written through a symlink")
        let leaked = try FileManager.default.contentsOfDirectory(atPath: outside).sorted()
        #expect(leaked == ["victim.png"], "files appeared outside the screenshot directory: \(leaked)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sibling).isEmpty)

        // Inside the directory it works, relative and absolute, also in a subdirectory.
        for path in ["ok.png", "sub/ok.png", shots + "/abs-ok.png", "sub/../back.png"] {
            let reply = try #require(try client.exchange(JSON.object(["id": .number(1), "cmd": .string("screenshot"), "path": .string(path)]).text))
            #expect(reply["ok"] == .bool(true), "\(path): \(reply)")
            let written = try #require(reply["result"]?["path"]?.string)
            #expect(written.hasPrefix(shots + "/") && FileManager.default.fileExists(atPath: written), "\(path) → \(written)")
        }
    }

    @Test func clockCommandsOnARealTimeClockAreRefused() throws {
        let daemon = try DaemonProcess(clock: "realtime", arguments: ["--size", "64x48"])
        let client = try daemon.connect()
        try Self.makeScene(client)
        let hello = try #require(try client.exchange(#"{"id": 0, "cmd": "hello"}"#))
        #expect(hello["result"]?["clock"] == .string("realtime"))
        let before = try Self.state(client)
        for line in [
            #"{"id": 1, "cmd": "clock.set", "time": 5}"#, #"{"id": 1, "cmd": "clock.advance", "seconds": 1}"#,
            #"{"id": 1, "cmd": "clock.set", "time": 0}"#, #"{"id": 1, "cmd": "clock.advance", "seconds": 0}"#,
        ] {
            let t0 = try #require(try client.exchange(#"{"id": "t", "cmd": "time"}"#)?["result"]?["time"]?.number)
            let reply = try #require(try client.exchange(line))
            #expect(reply["error"]?["code"] == .string("not_manual_clock"), "\(line): \(reply)")
            #expect(reply["id"] == .number(1))
            let t1 = try #require(try client.exchange(#"{"id": "t", "cmd": "time"}"#)?["result"]?["time"]?.number)
            #expect(t1 >= t0 && t1 - t0 < 0.9, "\(line) moved the real-time clock: \(t0) → \(t1)")
            #expect(try Self.state(client) == before, "\(line) changed the scene")
            try Self.expectAlive(client, line)
        }
    }
}
