import Foundation
import Synchronization
import Testing
import VitrineProtocol

/// Fairness between clients, against the real daemon: a flood of pipelined requests
/// neither stops the frames nor makes another client wait; idle connections are closed;
/// the operator always gets in; every disconnection comes with its reason.
@Suite struct FairnessTests {
    /// A configuration file with `text`, in a fresh temporary directory.
    static func configuration(_ text: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-config-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("vitrine.toml").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The error line a connection gets before the daemon closes it, then the end of the
    /// stream: the error's code and message.
    static func lastWords(_ client: SocketClient, timeout: Double = 5, sourceLocation: SourceLocation = #_sourceLocation) throws -> (
        code: String?, message: String
    ) {
        let line = try #require(client.readLine(timeout: timeout), "no line before the connection ended", sourceLocation: sourceLocation)
        let json = try JSON(parsing: Data(line.utf8))
        #expect(json["id"] == .null && json["ok"] == .bool(false), "\(line)", sourceLocation: sourceLocation)
        #expect(client.drain(timeout: 5).closed, "the connection closes after \(line)", sourceLocation: sourceLocation)
        return (json["error"]?["code"]?.string, json["error"]?["message"]?.string ?? "")
    }

    static let floodClients = 100
    static let floodRequests = 2_000

    /// 100 clients pipeline 2 000 requests each while a rolling number rolls in real time:
    /// the frame rate holds, an unrelated client's `stats` is answered promptly, and every
    /// client gets all its replies, in order.
    @Test func aFloodOfPipelinedRequestsKeepsTheFramesAndOtherClientsGoing() throws {
        let config = try Self.configuration("[limits]\nclients = \(Self.floodClients + 10)\n")
        let daemon = try DaemonProcess(clock: "realtime", arguments: ["--size", "320x200", "--config", config])
        let probe = try daemon.connect()
        func stats() throws -> (frames: Double, time: Double) {
            let reply = try probe.request(["cmd": .string("stats")])
            return (try #require(reply["result"]?["frames"]?.number), try #require(reply["result"]?["time"]?.number))
        }
        // A counter that rolls and a text colour that pulses for ever: a frame is due at
        // every 60 Hz slot.
        for setup in [
            #"{"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, 300, 60], "position": [160, 100], "fontSize": 40, "usesGrouping": false, "value": 10000000}}"#,
            ##"{"cmd": "animation.add", "layer": "n", "key": "pulse", "animation": {"keyPath": "textColor", "from": "#ffd166", "to": "#66d1ff", "duration": 1, "autoreverses": true, "repeatCount": "infinity"}}"##,
            #"{"cmd": "number.set", "layer": "n", "value": 98765432, "spring": {"duration": 30}}"#,
        ] {
            try #require(try probe.request(setup)["ok"] == .bool(true), "\(setup)")
        }
        for c in 0..<Self.floodClients {
            try #require(
                try probe.request(#"{"cmd": "layer.add", "layer": "f\#(c)", "properties": {"bounds": [0, 0, 4, 4], "position": [\#(4 + c * 3), 180]}}"#)["ok"]
                    == .bool(true))
        }
        let quiet0 = try stats()
        Thread.sleep(forTimeInterval: 1)
        let quiet1 = try stats()
        let quietFPS = (quiet1.frames - quiet0.frames) / (quiet1.time - quiet0.time)

        let clients = try (0..<Self.floodClients).map { _ in try daemon.connect() }
        let problems = Mutex<[String]>([])
        let replies = Mutex(0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for (c, client) in clients.enumerated() {
            nonisolated(unsafe) let client = client
            var batch = ""
            for n in 1...Self.floodRequests {
                batch +=
                    n % 10 == 0
                    ? #"{"id":\#(n),"cmd":"layer.set","layer":"f\#(c)","properties":{"opacity":\#(Double(n % 100) / 100)},"actions":false}"# + "\n"
                    : #"{"id":\#(n),"cmd":"ping"}"# + "\n"
            }
            let bytes = Array(batch.utf8)
            done.enter()
            Thread {
                defer { done.leave() }
                go.wait()
                client.write(bytes)
                // Replies, and the completions of its own transactions (events).
                var expected = 1, bad: String?
                while expected <= Self.floodRequests, bad == nil {
                    let read = client.readLines(Self.floodRequests + 1 - expected, timeout: 30) { line in
                        guard bad == nil, !line.starts(with: Array(#"{"event":"#.utf8)) else { return }
                        if line.starts(with: Array(#"{"id":\#(expected),"ok":true"#.utf8)) {
                            expected += 1
                        } else {
                            bad = String(decoding: line.prefix(120), as: UTF8.self)
                        }
                    }
                    if read == 0 { break }
                }
                replies.withLock { $0 += expected - 1 }
                if let bad { problems.withLock { $0.append("client \(c): expected the reply to \(expected), got \(bad)") } }
                if expected <= Self.floodRequests, bad == nil {
                    problems.withLock { $0.append("client \(c): \(expected - 1) replies of \(Self.floodRequests)") }
                }
            }.start()
        }

        let before = try stats()
        let start = Date()
        for _ in clients { go.signal() }
        var latencies: [Double] = []
        while done.wait(timeout: .now()) == .timedOut, Date().timeIntervalSince(start) < 60 {
            let sent = Date()
            _ = try stats()
            latencies.append(Date().timeIntervalSince(sent))
            Thread.sleep(forTimeInterval: 0.05)
        }
        let elapsed = Date().timeIntervalSince(start)
        let after = try stats()
        let fps = (after.frames - before.frames) / (after.time - before.time)
        let sorted = latencies.sorted()
        let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((0.99 * Double(sorted.count)).rounded(.up)) - 1)]
        print(
            "FairnessTests flood: \(Self.floodClients)×\(Self.floodRequests) requests in \(String(format: "%.2f", elapsed)) s (\(Int(Double(replies.withLock { $0 }) / elapsed)) requests/s); \(String(format: "%.1f", fps)) frames/s during the flood (\(String(format: "%.1f", quietFPS)) before); stats reply p50 \(String(format: "%.1f", (sorted.isEmpty ? 0 : sorted[sorted.count / 2]) * 1000)) ms, p99 \(String(format: "%.1f", p99 * 1000)) ms, max \(String(format: "%.1f", (sorted.last ?? 0) * 1000)) ms over \(sorted.count) samples"
        )

        #expect(done.wait(timeout: .now() + 1) == .success, "the flood clients did not finish within 60 s")
        let found = problems.withLock { $0 }
        #expect(found.isEmpty, "\(found.count) problems:\n\(found.prefix(10).joined(separator: "\n"))")
        #expect(replies.withLock { $0 } == Self.floodClients * Self.floodRequests)
        #expect(sorted.count >= 5, "the flood was too short to measure")
        #expect(fps >= 40, "the frame rate dropped to \(fps) frames/s during the flood (\(quietFPS) before it)")
        #expect(p99 < 0.25, "the unrelated client's stats took \(p99 * 1000) ms at the 99th percentile")
    }

    /// Connections that send nothing are closed after `limits.idle_seconds`, each with the
    /// reason, and no longer keep a new client out.
    @Test func idleConnectionsAreClosedWithTheReasonAndDoNotLockOthersOut() throws {
        let config = try Self.configuration("[limits]\nidle_seconds = 1\n")
        let daemon = try DaemonProcess(arguments: ["--size", "64x48", "--config", config])
        let start = Date()
        let idle = try (0..<70).map { _ in try daemon.connect() }
        var codes: [String: Int] = [:]
        for client in idle {
            let (code, message) = try Self.lastWords(client)
            codes[code ?? "none", default: 0] += 1
            if code == "idle_timeout" { #expect(message.contains("limits.idle_seconds"), "\(message)") }
        }
        let elapsed = Date().timeIntervalSince(start)
        // 64 places (limits.clients) and the operator's (the start-up probe's connection
        // may still hold one for a moment); the rest are refused at once.
        #expect(codes["idle_timeout", default: 0] >= 64, "\(codes)")
        #expect(codes["idle_timeout", default: 0] + codes["limit_exceeded", default: 0] == 70, "\(codes)")
        #expect(elapsed >= 0.9, "closed after \(elapsed) s, before idle_seconds")
        try BoundaryTests.expectAlive(try daemon.connect(), "a new client after the idle ones were closed")
    }

    /// Half a line kept for `limits.idle_seconds` closes the connection, listener or not;
    /// a listener that sends nothing stays.
    @Test func halfALineIsClosedButASilentListenerStays() throws {
        let config = try Self.configuration("[limits]\nidle_seconds = 1\n")
        let daemon = try DaemonProcess(arguments: ["--size", "64x48", "--config", config])
        let listener = try daemon.connect(), halfListener = try daemon.connect(), half = try daemon.connect()
        for client in [listener, halfListener] {
            #expect(try client.request(#"{"cmd": "subscribe", "events": ["config.reloaded"]}"#)["ok"] == .bool(true))
        }
        for client in [half, halfListener] { client.write(Array(#"{"id": 1, "cmd": "pi"#.utf8)) }
        let start = Date()
        for client in [half, halfListener] {
            let (code, message) = try Self.lastWords(client)
            #expect(code == "idle_timeout", "\(message)")
            if client === halfListener { #expect(message.contains("half a request line"), "\(message)") }
        }
        #expect(Date().timeIntervalSince(start) >= 0.9)
        Thread.sleep(forTimeInterval: 1.5)
        #expect(!listener.peerClosed, "a listener that sends nothing is not idle")
        let pong = try listener.request(["cmd": .string("ping")])
        #expect(pong["result"]?["pong"] == .bool(true), "\(pong)")
    }

    /// With `limits.clients` connected, one more place is kept for root and the daemon's
    /// own user (these tests run as either); the next client is refused with the reason.
    @Test func theOperatorHasAReservedPlace() throws {
        let config = try Self.configuration("[limits]\nclients = 2\n")
        let daemon = try DaemonProcess(arguments: ["--size", "64x48", "--config", config])
        let admitted = try (0..<2).map { _ in try BoundaryTests.admittedClient(daemon.connect) }
        let operatorClient = try daemon.connect()
        let pong = try #require(try operatorClient.exchange(#"{"id": "op", "cmd": "ping"}"#))
        #expect(pong["result"]?["pong"] == .bool(true), "the operator's connection was refused: \(pong)")
        let refused = try daemon.connect()
        let (code, message) = try Self.lastWords(refused)
        #expect(code == "limit_exceeded", "\(message)")
        #expect(message.contains("2 clients"), "\(message)")
        for client in admitted + [operatorClient] { try BoundaryTests.expectAlive(client, "an admitted client") }
    }

    /// A line over `limits.line_bytes` gets its reason after the replies to the lines
    /// before it, then the end of the stream; and the daemon stopping says so to every
    /// client before it closes.
    @Test func disconnectionsComeWithTheirReason() throws {
        let config = try Self.configuration("[limits]\nline_bytes = 1024\n")
        let daemon = try DaemonProcess(arguments: ["--size", "64x48", "--config", config])
        let offender = try daemon.connect()
        let long = #"{"id": 3, "cmd": "ping", "pad": ""# + String(repeating: "x", count: 2_000) + #""}"#
        offender.write(Array(#"{"id": 1, "cmd": "ping"}\#n{"id": 2, "cmd": "ping"}\#n\#(long)\#n"#.utf8))
        for id in [1, 2] {
            let line = try #require(offender.readLine(), "no reply to \(id)")
            #expect(try JSON(parsing: Data(line.utf8))["id"] == .number(Double(id)), "\(line)")
        }
        let (code, message) = try Self.lastWords(offender)
        #expect(code == "line_too_long", "\(message)")

        let bystander = try daemon.connect(), listener = try daemon.connect()
        try BoundaryTests.expectAlive(bystander, "a client beside the offender")
        #expect(try listener.request(#"{"cmd": "subscribe", "events": ["*"]}"#)["ok"] == .bool(true))
        kill(daemon.pid, SIGTERM)
        for client in [bystander, listener] {
            let (code, message) = try Self.lastWords(client)
            #expect(code == "shutting_down", "\(message)")
        }
        #expect(daemon.waitForExit() == 0)
    }
}
