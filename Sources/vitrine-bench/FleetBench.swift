import Foundation
import VitrineProtocol

/// `vitrine-bench fleet`: one command published once to a group of screens. Mosquitto on
/// loopback and 50 release `vitrined` daemons (headless 64×48, each its own socket,
/// state, device and client id, all in group `bench`, a rolling counter each), each with
/// its `vitrine-fleet` bridging the broker to its socket, as a screen runs them; the bench
/// speaks MQTT through `mosquitto_pub -l` (one connection, a line a message) and
/// `mosquitto_sub`, and reads each daemon's reply, whose `applied` is the wall-clock time
/// of the frame that applied the command.
///
/// - `fleet.at`: `number.set` with `at` 1 s ahead: per command the spread of `applied`
///   across the daemons (the goal: within one frame, 16.7 ms), and how late each applied
///   it after `at`.
/// - `fleet.now`: the same command with `at` its publish instant, so that it is applied on
///   arrival as one without `at` is: publish to `applied`, and publish to the reply's
///   arrival back at the bench.
/// - `fleet.broker`: Mosquitto's CPU per command of `fleet.now` beside a plain round trip
///   (`mosquitto_pub -l` to `mosquitto_sub`, one message in and one out) in the same run.
func runFleetBenchmarks(_ options: [String]) {
    let quick = options.contains("--quick")
    let count = options.firstIndex(of: "--daemons").flatMap { options.indices.contains($0 + 1) ? Int(options[$0 + 1]) : nil } ?? (quick ? 10 : 50)
    BenchCleanup.shared.installSignalHandlers()
    BenchCleanup.shared.startWatchdog(seconds: 600)
    do {
        try BenchCleanup.withTemporaryDirectory { directory in
            let broker = try Broker(directory: directory)
            let listener = try MQTTListener(broker: broker, topics: ["vitrine/+/reply", "vitrine/+/status", "bench/echo"])
            var daemons: [DaemonChild] = []
            var bridges: [BridgeChild] = []
            defer {
                for bridge in bridges { bridge.stop() }
                for daemon in daemons { daemon.stop() }
            }
            for i in 0..<count {
                let config = "\(directory)/d\(i).toml"
                try Data(fleetConfig(device: "bench-\(i)", port: broker.port).utf8).write(to: URL(fileURLWithPath: config))
                let daemon = try DaemonChild(width: 64, height: 48, arguments: ["--config", config])
                daemons.append(daemon)
                bridges.append(try BridgeChild(config: config, socket: daemon.socketPath))
            }
            let devices = (0..<count).map { "bench-\($0)" }
            guard listener.wait(seconds: 60, until: { $0.online(devices) }) else {
                throw BenchError("only \(listener.snapshot().onlineCount) of \(count) daemons came online")
            }
            let commands = try Publisher(broker: broker, topic: "vitrine/bench/cmd")
            let echo = try Publisher(broker: broker, topic: "bench/echo")
            var value = 0

            // Scheduled: at 1 s ahead.
            var spreads: [Double] = [], lateness: [Double] = []
            for k in 0..<(quick ? 3 : 20) {
                value += 1
                let at = wallClock() + 1
                let id = "at\(k)"
                try commands.send(#"{"id": "\#(id)", "cmd": "number.set", "layer": "n", "value": \#(value), "at": \#(String(format: "%.6f", at))}"#)
                let applied = try listener.applied(id: id, devices: devices, seconds: 10)
                spreads.append((applied.max()! - applied.min()!) * 1000)
                lateness += applied.map { ($0 - at) * 1000 }
                usleep(300_000)
            }

            // On arrival, with the broker's CPU per command.
            var toApplied: [Double] = [], toReply: [Double] = []
            let immediate = quick ? 10 : 40
            let brokerBefore = cpuSeconds(broker.pid)
            for k in 0..<immediate {
                value += 1
                let id = "now\(k)"
                let sent = wallClock()
                try commands.send(#"{"id": "\#(id)", "cmd": "number.set", "layer": "n", "value": \#(value), "at": \#(String(format: "%.6f", sent))}"#)
                let replies = try listener.replies(id: id, devices: devices, seconds: 10)
                toApplied += replies.map { ($0.applied - sent) * 1000 }
                toReply += replies.map { ($0.received - sent) * 1000 }
            }
            let commandCPU = (cpuSeconds(broker.pid) - brokerBefore) / Double(immediate)

            // The reference: plain round trips through the same broker.
            let plain = quick ? 50 : 200
            var roundTrips: [Double] = []
            let plainBefore = cpuSeconds(broker.pid)
            for k in 0..<plain {
                let sent = wallClock()
                try echo.send("echo-\(k)")
                guard let received = listener.wait(seconds: 5, until: { $0.echo("echo-\(k)") != nil }) ? listener.snapshot().echo("echo-\(k)") : nil else {
                    throw BenchError("echo-\(k) did not come back through the broker")
                }
                roundTrips.append((received - sent) * 1000)
            }
            let plainCPU = (cpuSeconds(broker.pid) - plainBefore) / Double(plain)

            func ms(_ v: Double) -> String { String(format: "%.2f", v) }
            let s = spreads.sorted(), l = lateness.sorted()
            print(
                "{\"bench\":\"fleet.at\",\"daemons\":\(count),\"commands\":\(s.count),\"spread_p50_ms\":\(ms(quantile(s, 0.5))),\"spread_p99_ms\":\(ms(quantile(s, 0.99))),\"late_p50_ms\":\(ms(quantile(l, 0.5))),\"late_p99_ms\":\(ms(quantile(l, 0.99))),\"goal_spread_ms\":16.7}"
            )
            let a = toApplied.sorted(), r = toReply.sorted(), t = roundTrips.sorted()
            print(
                "{\"bench\":\"fleet.now\",\"daemons\":\(count),\"commands\":\(immediate),\"publish_to_applied_min_ms\":\(ms(a.first ?? .nan)),\"publish_to_applied_p50_ms\":\(ms(quantile(a, 0.5))),\"publish_to_applied_p99_ms\":\(ms(quantile(a, 0.99))),\"publish_to_reply_p50_ms\":\(ms(quantile(r, 0.5))),\"publish_to_reply_p99_ms\":\(ms(quantile(r, 0.99))),\"plain_round_trip_p50_ms\":\(ms(quantile(t, 0.5))),\"plain_round_trip_p99_ms\":\(ms(quantile(t, 0.99)))}"
            )
            print(
                "{\"bench\":\"fleet.broker\",\"daemons\":\(count),\"command_cpu_us\":\(String(format: "%.1f", commandCPU * 1e6)),\"plain_round_trip_cpu_us\":\(String(format: "%.1f", plainCPU * 1e6)),\"ratio\":\(String(format: "%.1f", commandCPU / max(plainCPU, 1e-9))),\"messages_per_command\":\(3 * count + 1)}"
            )
        }
        BenchCleanup.shared.runAll()
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench fleet: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

/// A `vitrine-fleet` beside a bench daemon: its configuration, its socket.
private final class BridgeChild {
    private let process = Process()
    private var cleanupToken = 0

    init(config: String, socket: String) throws {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vitrine-fleet")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BenchError("\(executable.path) is missing: build it first (swift build -c release --product vitrine-fleet)")
        }
        process.executableURL = executable
        process.arguments = ["--config", config, "--socket", socket, "--log-level", "warning"]
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { throw BenchError("cannot start \(executable.path): \(error)") }
        let process = self.process
        cleanupToken = BenchCleanup.shared.add {
            if process.isRunning { process.terminate() }
        }
    }

    /// SIGTERM, and waits for the exit.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        BenchCleanup.shared.remove(cleanupToken)
    }
}

/// A daemon of the bench's group: a counter to roll, no journal, the broker on loopback.
private func fleetConfig(device: String, port: Int) -> String {
    """
    [state]
    journal = false

    [fleet]
    enabled = true
    port = \(port)
    device = "\(device)"
    client_id = "vitrine-\(device)"
    groups = ["bench"]

    [[scene.layers]]
    id = "n"
    kind = "rolling-number"
    properties = { bounds = [0, 0, 64, 40], position = [32, 24], fontSize = 24, value = 0 }

    """
}

/// CLOCK_REALTIME in seconds, as `at` and `applied` are.
private func wallClock() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// The value below which a share `p` of the sorted `values` lie (nearest rank).
private func quantile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let rank = Int((p * Double(values.count)).rounded(.up))
    return values[min(values.count - 1, max(0, rank - 1))]
}

/// Mosquitto on a free loopback port, stopped with the bench.
private final class Broker {
    let port: Int
    let process = Process()

    init(directory: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
            throw BenchError("/usr/sbin/mosquitto is missing: apt-get install mosquitto mosquitto-clients")
        }
        port = Int.random(in: 20_000...40_000)
        let conf = "\(directory)/mosquitto.conf"
        try Data("listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\n".utf8).write(to: URL(fileURLWithPath: conf))
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", conf]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let process = self.process
        _ = BenchCleanup.shared.add { if process.isRunning { process.terminate() } }
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port) {
            guard process.isRunning, Date() < deadline else { throw BenchError("mosquitto did not start on port \(port)") }
            usleep(20_000)
        }
    }

    var pid: Int32 { process.processIdentifier }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// `mosquitto_pub -l` on one topic at QoS 1: each line written is one message, over one
/// connection.
private final class Publisher {
    private let process = Process()
    private let input = Pipe()

    init(broker: Broker, topic: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
        process.arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", topic, "-l"]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let process = self.process
        _ = BenchCleanup.shared.add { if process.isRunning { process.terminate() } }
        usleep(200_000)
        guard process.isRunning else { throw BenchError("mosquitto_pub -l did not stay connected") }
    }

    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }
}

/// What `MQTTListener` has heard: per device its status and its replies by id (with
/// `applied` and the arrival time), and the echo messages' arrival times.
private struct Heard {
    var online: Set<String> = []
    var replies: [String: [String: (applied: Double, received: Double)]] = [:]
    var echoes: [String: Double] = [:]

    var onlineCount: Int { online.count }
    func online(_ devices: [String]) -> Bool { devices.allSatisfy(online.contains) }
    func echo(_ payload: String) -> Double? { echoes[payload] }
}

/// `mosquitto_sub -v` on some topics, read on a thread of its own, each line stamped
/// with the wall clock when it arrives.
private final class MQTTListener: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let lock = NSCondition()
    private var heard = Heard()

    init(broker: Broker, topics: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
        process.arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-v"] + topics.flatMap { ["-t", $0] }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let process = self.process
        _ = BenchCleanup.shared.add { if process.isRunning { process.terminate() } }
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = []
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { return }
                let received = wallClock()
                pending += chunk
                while let newline = pending.firstIndex(of: 10) {
                    take(String(decoding: pending[..<newline], as: UTF8.self), at: received)
                    pending.removeSubrange(...newline)
                }
            }
        }
        usleep(200_000)
    }

    private func take(_ line: String, at received: Double) {
        guard let space = line.firstIndex(of: " ") else { return }
        let topic = line[..<space], payload = String(line[line.index(after: space)...])
        lock.lock()
        defer {
            lock.broadcast()
            lock.unlock()
        }
        if topic == "bench/echo" {
            heard.echoes[payload] = received
            return
        }
        let parts = topic.split(separator: "/")
        guard parts.count == 3, let json = try? JSON(parsing: Data(payload.utf8)) else { return }
        let device = String(parts[1])
        if parts[2] == "status", json["state"]?.string == "online" { heard.online.insert(device) }
        if parts[2] == "reply", let id = json["id"]?.string, let applied = json["applied"]?.number {
            heard.replies[id, default: [:]][device] = (applied, received)
        }
    }

    func snapshot() -> Heard {
        lock.lock()
        defer { lock.unlock() }
        return heard
    }

    /// Waits up to `seconds` for `done` to hold of what was heard.
    func wait(seconds: Double, until done: (Heard) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        lock.lock()
        defer { lock.unlock() }
        while !done(heard) {
            guard lock.wait(until: deadline) else { return done(heard) }
        }
        return true
    }

    /// Every device's reply to `id`: when it applied it and when the reply arrived.
    func replies(id: String, devices: [String], seconds: Double) throws -> [(applied: Double, received: Double)] {
        guard wait(seconds: seconds, until: { heard in devices.allSatisfy { heard.replies[id]?[$0] != nil } }) else {
            throw BenchError("\(snapshot().replies[id]?.count ?? 0) of \(devices.count) daemons replied to \(id) within \(seconds) s")
        }
        let replies = snapshot().replies[id]!
        return devices.map { replies[$0]! }
    }

    func applied(id: String, devices: [String], seconds: Double) throws -> [Double] {
        try replies(id: id, devices: devices, seconds: seconds).map(\.applied)
    }
}
