import Foundation
import Testing
import VitrineProtocol

/// Starting over a dead daemon's socket, refusing to steal a live one, stopping cleanly on
/// SIGTERM, and cutting off a subscriber that stops reading.
@Suite struct LifecycleTests {
    static func ping(_ client: SocketClient) throws -> Bool {
        try client.exchange(#"{"id": "ping", "cmd": "ping"}"#)?["result"]?["pong"] == .bool(true)
    }

    @Test func staleSocketOfADeadDaemonIsReplaced() throws {
        let dead = try DaemonProcess(arguments: ["--size", "64x48"])
        let path = dead.socketPath
        kill(dead.pid, SIGKILL)
        #expect(dead.waitForExit() != nil, "SIGKILL did not stop it")
        var info = stat()
        try #require(lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK, "a killed daemon leaves its socket file behind")
        #expect((try? SocketClient(path: path)) == nil, "nothing listens on the stale socket")

        let fresh = try DaemonProcess(socketPath: path, arguments: ["--size", "64x48"])
        #expect(try Self.ping(fresh.connect()))
        withExtendedLifetime(dead) {}
    }

    @Test func aFileThatIsNotASocketIsLeftAlone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-life-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v.sock").path
        try Data("not a socket".utf8).write(to: URL(fileURLWithPath: path))
        let run = try DaemonProcess.runToExit(["--socket", path, "--clock", "manual", "--screenshot-dir", directory.path, "--size", "64x48"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("is not a socket"), "\(run.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a socket")
    }

    @Test func aLiveDaemonsSocketIsNotStolen() throws {
        let first = try DaemonProcess(arguments: ["--size", "64x48"])
        let client = try first.connect()
        _ = try client.exchange(#"{"id": 1, "cmd": "layer.add", "layer": "mine"}"#)
        let second = try DaemonProcess.runToExit(["--socket", first.socketPath, "--clock", "manual", "--screenshot-dir", first.directory.path, "--size", "64x48"])
        #expect(second.status != 0, "a second daemon on the same socket must fail")
        #expect(second.stderr.contains("another vitrined is listening"), "its message must say why: \(second.stderr)")
        #expect(first.isRunning)
        #expect(try Self.ping(client), "the first daemon's clients keep working")
        let later = try first.connect()
        #expect(try later.exchange(#"{"id": 2, "cmd": "layer.get", "layer": "mine"}"#)?["ok"] == .bool(true), "and new clients still reach the first daemon")
    }

    @Test func sigtermRemovesTheSocketAndExitsZero() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        let client = try daemon.connect()
        #expect(try Self.ping(client))
        #expect(daemon.stop() == 0, "SIGTERM is a clean stop")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket file is removed")
        #expect(client.drain(timeout: 5).closed, "connected clients see the end of the stream")
    }

    /// A client subscribed to everything that stops reading is cut off once more than
    /// limits.outbound_bytes (4 MiB; no command-line flag sets it) wait for it. Many
    /// animations with 1 KB keys make big events: each round adds 200 on a manual clock and
    /// advances it past their end, about 450 KB of events to the silent client.
    @Test func aSubscriberThatStopsReadingIsDisconnected() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        let silent = try SocketClient(path: daemon.socketPath, receiveBuffer: 4096)
        #expect(try silent.exchange(#"{"id": 1, "cmd": "subscribe", "events": ["*"]}"#)?["ok"] == .bool(true))
        let producer = try daemon.connect(), bystander = try daemon.connect()
        _ = try producer.exchange(#"{"id": 0, "cmd": "layer.add", "layer": "x"}"#)
        let padding = String(repeating: "k", count: 1000)
        var produced = 0, rounds = 0
        while !silent.peerClosed, rounds < 40 {
            rounds += 1
            let commands = (0..<200).map { i in
                #"{"cmd": "animation.add", "layer": "x", "key": "\#(padding)-\#(rounds)-\#(i)", "animation": {"keyPath": "opacity", "from": 0, "to": 1, "duration": 0.5}}"#
            }
            let tx = try #require(try producer.exchange(#"{"id": \#(rounds), "cmd": "transaction", "commands": [\#(commands.joined(separator: ","))]}"#))
            try #require(tx["ok"] == .bool(true), "\(tx)")
            let advance = try #require(try producer.exchange(#"{"id": "t\#(rounds)", "cmd": "clock.advance", "seconds": 1}"#))
            try #require(advance["ok"] == .bool(true), "\(advance)")
            produced += 200 * 2 * (padding.utf8.count + 100)
            #expect(try Self.ping(bystander), "round \(rounds): another client must keep getting replies")
        }
        #expect(silent.peerClosed, "the silent subscriber was not disconnected after \(rounds) rounds (~\(produced >> 20) MiB of events)")
        let drained = silent.drain(timeout: 5)
        #expect(drained.closed)
        #expect(drained.bytes < produced, "it cannot have received everything: \(drained.bytes) of ~\(produced) bytes")
        #expect(try Self.ping(producer) && Self.ping(bystander), "the others are unaffected")
        #expect(producer.takeEvents().count >= rounds, "the producer got its transactions' completions")
        print("slow reader cut off after \(rounds) rounds, ~\(produced >> 10) KiB produced, \(drained.bytes >> 10) KiB read afterwards")
    }
}
