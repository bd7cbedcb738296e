import Foundation
import Testing
import VitrineProtocol

/// Starting over a dead daemon's socket, refusing to steal a live one, stopping cleanly on
/// SIGTERM, and cutting off a subscriber that stops reading.
@Suite struct LifecycleTests {
    static func ping(_ client: SocketClient) throws -> Bool {
        try client.exchange(#"{"id": "ping", "cmd": "ping"}"#)?["result"]?["pong"] == .bool(true)
    }

    /// Context switches of every thread of `pid` so far: how often it woke up.
    static func wakeUps(_ pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            return total
                + status.split(separator: "\n").filter { $0.hasSuffix("ctxt_switches:") == false && $0.contains("ctxt_switches:") }
                .compactMap { Int($0.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
        }
    }

    @Test func anIdleDaemonDoesNotWakeUpAfterClientsCameAndWent() throws {
        let daemon = try DaemonProcess(clock: "realtime", arguments: ["--size", "64x48"])
        // Clients that leave in the usual ways: closing, ending their input after a request
        // and reading the reply, and one refused a line over the limit.
        do { #expect(try Self.ping(daemon.connect())) }
        let halfClosed = try daemon.connect()
        halfClosed.write(Array(#"{"id": 1, "cmd": "ping"}"#.utf8))
        halfClosed.shutdownWriting()
        #expect(halfClosed.readLine() != nil)
        let tooLong = try daemon.connect()
        tooLong.write([UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) + 2))
        #expect(tooLong.readLine()?.contains("line_too_long") == true)
        _ = tooLong.drain(timeout: 5)
        Thread.sleep(forTimeInterval: 0.3)
        let before = Self.wakeUps(daemon.pid)
        Thread.sleep(forTimeInterval: 2)
        let woke = Self.wakeUps(daemon.pid) - before
        #expect(woke <= 2, "the idle daemon woke \(woke) times in 2 s")
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
        let second = try DaemonProcess.runToExit([
            "--socket", first.socketPath, "--clock", "manual", "--screenshot-dir", first.directory.path, "--size", "64x48",
        ])
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
