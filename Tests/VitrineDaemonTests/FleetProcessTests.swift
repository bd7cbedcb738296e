import Foundation
import Testing
import VitrineProtocol

/// `vitrine-fleet` as a process of its own: what the broker sees while the daemon it
/// bridges to is away and after it comes back, and a configuration it cannot run with.
@Suite(.serialized, .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto, mosquitto-clients and openssl"))
struct FleetProcessTests {
    @Test func theBridgeOutlivesARestartOfTheDaemon() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screen = try FleetTests.daemon(broker, device: "x")
        #expect(FleetTests.waitOnline(listener, ["x"]), "\(screen.standardError)")
        try broker.publish("vitrine/x/cmd", #"{"id": "state", "cmd": "number.set", "layer": "count", "value": 77, "animated": false}"#, retain: true)
        #expect(listener.wait { $0.json(on: "vitrine/x/reply").contains { $0["id"] == .string("state") && $0["ok"] == .bool(true) } })

        // The daemon goes: the status says so, and a request is answered with why.
        #expect(screen.stopDaemon() == 0)
        #expect(
            listener.wait { $0.json(on: "vitrine/x/status").last?["state"] == .string("offline") }, "\(listener.messages)\n\(screen.standardError)")
        #expect(listener.json(on: "vitrine/x/status").last?["reason"]?.string?.contains("not running") == true)
        try broker.publish("vitrine/x/cmd", #"{"id": "away", "cmd": "ping"}"#)
        #expect(listener.wait { $0.json(on: "vitrine/x/reply").contains { $0["id"] == .string("away") } })
        let away = listener.json(on: "vitrine/x/reply").first { $0["id"] == .string("away") }
        #expect(away?["ok"] == .bool(false) && away?["error"]?["code"] == .string("shutting_down"), "\(String(describing: away))")
        #expect(away?["error"]?["message"]?.string?.contains("not running") == true)

        // A new daemon on the same socket, with no journal: the bridge connects to it, says
        // online again and hands it the retained state, as to a screen that starts.
        let fresh = URL(fileURLWithPath: screen.state).deletingLastPathComponent().appendingPathComponent("state-2")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
        let onlineBefore = listener.json(on: "vitrine/x/status").filter { $0["state"] == .string("online") }.count
        try screen.restartDaemon(state: fresh.path)
        #expect(
            listener.wait { s in
                s.json(on: "vitrine/x/status").filter { $0["state"] == .string("online") }.count > onlineBefore
                    && s.json(on: "vitrine/x/status").last?["state"] == .string("online")
            }, "\(listener.messages)\n\(screen.standardError)")
        let deadline = Date().addingTimeInterval(10)
        while try FleetTests.value(screen) != 77, Date() < deadline { usleep(50_000) }
        #expect(try FleetTests.value(screen) == 77, "the retained state reached the new daemon")
        try broker.publish("vitrine/x/cmd", #"{"id": "back", "cmd": "ping"}"#)
        #expect(listener.wait { $0.json(on: "vitrine/x/reply").contains { $0["id"] == .string("back") && $0["ok"] == .bool(true) } })
        #expect(screen.bridge.isRunning)
        try broker.publish("vitrine/x/cmd", "", retain: true)
    }

    @Test func aBadFleetSectionStopsTheBridgeNamingTheKeyAsTheDaemonDoes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-fleet-bad-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("v.sock").path
        let cases = [
            ("[fleet]\nenabled = true\nport = 0\n", "port"),
            ("[fleet]\nenabled = true\ngroups = [\"lobby/#\"]\n", "groups"),
            ("[fleet]\nenabled = true\nkeepalive = \"often\"\n", "keepalive"),
            ("[metrics]\nenabled = true\naddress = \"localhost\"\n", "address"),
        ]
        for (text, key) in cases {
            let config = directory.appendingPathComponent("vitrine.toml").path
            try text.write(toFile: config, atomically: true, encoding: .utf8)
            let bridge = try FleetProcess.runToExit(["--config", config, "--socket", socket])
            #expect(bridge.status == 1, "\(text): \(bridge.stderr)")
            #expect(bridge.stderr.hasPrefix("vitrine-fleet: \(config):") && bridge.stderr.contains(key), "\(bridge.stderr)")
            // The daemon reads the same file with the same words.
            let daemon = try DaemonProcess.runToExit(["--backend", "headless", "--config", config, "--socket", socket])
            #expect(daemon.status == 1)
            #expect(
                daemon.stderr.replacingOccurrences(of: "vitrined: ", with: "") == bridge.stderr.replacingOccurrences(of: "vitrine-fleet: ", with: ""),
                "\(daemon.stderr) / \(bridge.stderr)")
        }
        // Nothing to serve: it says so and exits cleanly.
        let idle = directory.appendingPathComponent("idle.toml").path
        try "[output]\nheadless_size = \"64x48\"\n".write(toFile: idle, atomically: true, encoding: .utf8)
        let run = try FleetProcess.runToExit(["--config", idle, "--socket", socket])
        #expect(run.status == 0 && run.stderr.contains("nothing to do: [fleet] is not enabled"), "\(run.stderr)")
    }

    @Test func aBridgeStartedBeforeItsDaemonWaitsForIt() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        try ("[output]\nheadless_size = \"320x200\"\n\n" + broker.fleetSection(device: "early", groups: [])).write(
            toFile: config, atomically: true, encoding: .utf8)
        let socket = directory.appendingPathComponent("v.sock").path
        let bridge = try FleetProcess(config: config, socket: socket)
        #expect(listener.wait { $0.json(on: "vitrine/early/status").last?["state"] == .string("offline") }, "\(bridge.standardError)")
        let daemon = try DaemonProcess(socketPath: socket, arguments: ["--config", config])
        #expect(FleetTests.waitOnline(listener, ["early"]), "\(bridge.standardError)")
        let status = try #require(listener.json(on: "vitrine/early/status").last)
        #expect(status["outputs"]?.array?.first?["size"] == .array([.number(320), .number(200)]), "\(status)")
        #expect(daemon.isRunning && bridge.isRunning)
    }

    @Test func theDaemonWithFleetAndMetricsOpensNoIPSocket() throws {
        let broker = try MosquittoBroker()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-fleet-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        let port = try HTTPConnection.freePort()
        try ("[metrics]\nenabled = true\nport = \(port)\n\n" + broker.fleetSection(device: "quiet", groups: [])).write(
            toFile: config, atomically: true, encoding: .utf8)
        let socket = directory.appendingPathComponent("v.sock").path
        let daemon = try DaemonProcess(socketPath: socket, arguments: ["--config", config, "--log-level", "info"])
        let listener = try broker.subscribe()
        let bridge = try FleetProcess(config: config, socket: socket)
        #expect(FleetTests.waitOnline(listener, ["quiet"]), "\(bridge.standardError)")
        #expect(daemon.standardError.contains("[fleet] is served by vitrine-fleet"), "\(daemon.standardError)")
        #expect(daemon.standardError.contains("are served by vitrine-fleet, which reads them from \(directory.path)/metrics.sock"))
        // The bridge answers on the metrics port (once it listens: it starts beside the broker's connection).
        var answered = false
        let deadline = Date().addingTimeInterval(10)
        while !answered, Date() < deadline {
            if let connection = try? HTTPConnection(port: port) {
                connection.write("GET /metrics HTTP/1.1\r\nHost: screen\r\n\r\n")
                answered = connection.answer()?.status == 200
            }
            if !answered { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(answered, "the bridge does not serve the metrics port: \(bridge.standardError)")
        // The daemon's descriptors are Unix sockets and no IP socket: the broker's connection
        // (the status came through it) and the metrics port (scraped above) are the bridge's.
        #expect(Self.ipSockets(of: daemon.pid).isEmpty, "vitrined holds IP sockets")
    }

    /// The inodes of the TCP and UDP sockets (IPv4 and IPv6) process `pid` holds.
    static func ipSockets(of pid: Int32) -> Set<String> {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let held = Set(
            fds.compactMap { fd -> String? in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"), target.hasPrefix("socket:[") else {
                    return nil
                }
                return String(target.dropFirst(8).dropLast())
            })
        var ip = Set<String>()
        for table in ["tcp", "tcp6", "udp", "udp6"] {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 9 { ip.insert(String(fields[9])) }
            }
        }
        return held.intersection(ip)
    }
}
