import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// `[metrics]` end to end: a real `vitrined` scraped over its Unix socket, and over real
/// TCP through the real `vitrine-fleet` that serves the port, the text read by a strict
/// parser of the exposition format and held against `stats`, and the requests a broken
/// or hostile client sends.
@Suite struct MetricsTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-metrics-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var socketPath: String { directory.appendingPathComponent("m.sock").path }

    /// A daemon with the metrics on its Unix socket and, through a bridge, a free port;
    /// `extra` configuration.
    func start(clock: String = "manual", connections: Int = 4, extra: String = "") throws -> (MetricsScreen, Int) {
        let port = try HTTPConnection.freePort()
        let config = directory.appendingPathComponent("vitrine.toml").path
        let text = """
            [output]
            headless_size = "64x48"
            [limits]
            memory_mb = 48
            [metrics]
            enabled = true
            port = \(port)
            socket = "\(socketPath)"
            connections = \(connections)

            """
        try (text + extra).write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(clock: clock, arguments: ["--config", config, "--content-root", directory.path])
        let bridge = try FleetProcess(config: config, socket: daemon.socketPath)
        let deadline = Date().addingTimeInterval(20)
        while !bridge.standardError.contains("metrics on 127.0.0.1:\(port)"), bridge.isRunning, Date() < deadline { usleep(20_000) }
        return (MetricsScreen(daemon: daemon, bridge: bridge), port)
    }

    /// GET /metrics: the answer's status, headers and body, read strictly.
    func scrape(port: Int? = nil, path: String? = nil, method: String = "GET") throws -> (HTTPConnection.Answer, Exposition) {
        let connection = try port.map { try HTTPConnection(port: $0) } ?? HTTPConnection(path: path!)
        connection.write("\(method) /metrics HTTP/1.1\r\nHost: screen\r\nAccept: text/plain\r\n\r\n")
        let answer = try #require(connection.answer())
        return (answer, try Exposition(answer.body))
    }

    @Test func aScrapeParsesStrictlyAndAgreesWithStats() throws {
        let (daemon, port) = try start()
        let c = try daemon.connect()
        _ = try c.request(#"{"cmd": "subscribe", "events": ["content.*"]}"#)
        let image = directory.appendingPathComponent("card.png").path
        let surface = Surface(width: 8, height: 8)
        surface.fill(PixelRect(x: 0, y: 0, width: 8, height: 8), .white, mode: .source)
        try surface.writePNG(to: image)
        #expect(
            try c.request(#"{"cmd": "layer.add", "layer": "card", "properties": {"bounds": [0, 0, 20, 20], "position": [10, 10], "contents": "\#(image)"}}"#)[
                "ok"] == .bool(true))
        #expect(
            try c.request(#"{"cmd": "animation.add", "layer": "card", "animation": {"keyPath": "position.x", "from": 10, "to": 50, "duration": 10}}"#)["ok"]
                == .bool(true))
        for _ in 0..<5 { _ = try c.request(#"{"cmd": "clock.advance", "seconds": 0.1}"#) }
        // The file goes bad: the layer cannot show it, a content error.
        try Data("not a png".utf8).write(to: URL(fileURLWithPath: image))
        let deadline = Date().addingTimeInterval(10)
        while !c.events.contains(where: { $0["event"] == .string("content.failed") }), Date() < deadline {
            _ = try c.request(#"{"cmd": "clock.advance", "seconds": 0.1}"#)
            usleep(50_000)
        }
        #expect(c.events.contains { $0["event"] == .string("content.failed") }, "\(c.events)")

        let stats = try #require(try c.request(#"{"cmd": "stats"}"#)["result"])
        let (answer, metrics) = try scrape(port: port)
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(answer.headers["content-length"] == String(answer.body.utf8.count))
        func same(_ name: String, _ labels: [String: String] = [:], _ key: String) {
            #expect(metrics[name, labels] == stats[key]?.number, "\(name) against stats.\(key): \(String(describing: stats[key]))")
        }
        same("vitrine_frames_presented_total", [:], "frames")
        same("vitrine_output_frames_presented_total", ["output": "headless"], "frames")
        same("vitrine_pixels_repainted_total", [:], "pixels")
        same("vitrine_clients", [:], "clients")
        same("vitrine_layers", [:], "layers")
        same("vitrine_images", [:], "images")
        same("vitrine_content_memory_bytes", ["kind": "image"], "imageBytes")
        same("vitrine_frames_dropped_total", [:], "droppedFrames")
        #expect((stats["frames"]?.number ?? 0) >= 6)
        #expect(metrics["vitrine_content_errors_total", ["kind": "image"]] == 1)
        #expect(stats["contentErrors"] == .number(1))
        #expect(metrics["vitrine_content_errors_total", ["kind": "video"]] == 0)
        #expect(metrics["vitrine_content_memory_budget_bytes"] == Double(48 << 20))
        #expect(metrics["vitrine_output_powered", ["output": "headless"]] == 1)
        #expect(metrics["vitrine_output_refresh_hertz", ["output": "headless"]] == 60)
        #expect(metrics["vitrine_animating"] == 1)
        let resident = try #require(metrics["vitrine_resident_memory_bytes"])
        #expect(resident > 4e6 && resident < 4e9, "\(resident)")
        let quantiles = ["0.5", "0.9", "0.99", "1"].compactMap { metrics["vitrine_frame_time_seconds", ["quantile": $0]] }
        #expect(quantiles.count == 4 && quantiles[0] > 0 && quantiles == quantiles.sorted() && quantiles[3] < 5, "\(quantiles)")
        let busy = try #require(metrics["vitrine_frame_busy_seconds_total"])
        #expect(busy >= quantiles[3] && busy <= quantiles[3] * (stats["frames"]?.number ?? 0), "\(busy)")
        #expect(metrics["vitrine_clock_synchronized"] != nil)
        #expect(metrics.types["vitrine_frames_presented_total"] == "counter" && metrics.types["vitrine_clients"] == "gauge")
        #expect(metrics.help["vitrine_resident_memory_bytes"]?.isEmpty == false)
        // A blanked output says so.
        #expect(try c.request(#"{"cmd": "output.power", "output": "headless", "on": false}"#)["ok"] == .bool(true))
        #expect(try scrape(port: port).1["vitrine_output_powered", ["output": "headless"]] == 0)
        // Without [fleet] there is no broker to report.
        #expect(metrics.types["vitrine_fleet_broker_state"] == nil)

        // The Unix socket serves the same; HEAD has the headers alone.
        let (local, again) = try scrape(path: socketPath)
        #expect(local.status == 200 && again["vitrine_frames_presented_total"] == metrics["vitrine_frames_presented_total"])
        let head = try HTTPConnection(port: port)
        head.write("HEAD /metrics HTTP/1.1\r\nHost: screen\r\n\r\n")
        let headAnswer = try #require(head.answer())
        #expect(headAnswer.status == 200 && headAnswer.body.isEmpty && Int(headAnswer.headers["content-length"] ?? "0")! > 1000)
        _ = daemon.stop()
        #expect(!FileManager.default.fileExists(atPath: socketPath), "the metrics socket is removed at exit")
    }

    @Test func launchedClientsAreUpRestartedOrGivenUpOn() throws {
        let (daemon, port) = try start(
            extra: """
                [[clients]]
                name = "sleeper"
                command = ["sleep", "100"]

                [[clients]]
                name = "flaky"
                command = ["sh", "-c", "exit 3"]
                restarts_per_minute = 1

                """)
        let c = try daemon.connect()
        let deadline = Date().addingTimeInterval(10)
        while try c.request(#"{"cmd": "client.list"}"#)["result"]?["clients"]?.array?.first(where: { $0["name"] == .string("flaky") })?["state"]
            != .string("failed"), Date() < deadline
        {
            usleep(50_000)
        }
        let (_, metrics) = try scrape(port: port)
        #expect(metrics["vitrine_launched_client_up", ["name": "sleeper"]] == 1)
        #expect(metrics["vitrine_launched_client_up", ["name": "flaky"]] == 0)
        #expect(metrics["vitrine_launched_client_restarts_total", ["name": "flaky"]] == 1)
        #expect(metrics["vitrine_launched_client_failures_total", ["name": "flaky"]] == 1)
        #expect(metrics["vitrine_launched_client_restarts_total", ["name": "sleeper"]] == 0)
    }

    @Test func badRequestsAreAnsweredOrClosedAndFramesGoOn() throws {
        let (daemon, port) = try start(clock: "realtime", connections: 3)
        let c = try daemon.connect()
        _ = try c.request(#"{"cmd": "layer.add", "layer": "spin", "properties": {"bounds": [0, 0, 10, 10], "position": [20, 20], "backgroundColor": "red"}}"#)
        _ = try c.request(
            #"{"cmd": "animation.add", "layer": "spin", "animation": {"keyPath": "position.x", "from": 10, "to": 50, "duration": 1, "repeatCount": "infinity"}}"#
        )
        func frames() throws -> Double { try #require(try c.request(#"{"cmd": "stats"}"#)["result"]?["frames"]?.number) }

        let before = try frames()
        var cases: [(request: [UInt8], status: Int, says: String)] = [
            (Array("\u{1}\u{2}garbage\r\n\r\n".utf8), 400, "not an HTTP/1.1 request line"),
            (Array("POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc".utf8), 405, "the metrics answer GET and HEAD"),
            (Array("GET /secrets HTTP/1.1\r\n\r\n".utf8), 404, "the metrics are at /metrics"),
            (Array("GET /metrics HTTP/2.0\r\n\r\n".utf8), 400, "not an HTTP/1.1 request line"),
        ]
        cases.append((Array("GET /metrics HTTP/1.1\r\nX-Big: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 20_000), 431, "at most 8192 bytes"))
        for (request, status, says) in cases {
            let connection = try HTTPConnection(port: port)
            connection.write(request)
            let answer = try #require(connection.answer(), "\(status)")
            #expect(answer.status == status, "\(answer.status) \(answer.body)")
            #expect(answer.body.contains(says), "\(answer.body)")
            if status == 405 { #expect(answer.headers["allow"] == "GET, HEAD") }
        }
        usleep(200_000)
        // Slow clients hold their places no longer than the timeout; past `connections`
        // open at once, one more is told so and closed; meanwhile frames go on.
        let slow = try (0..<3).map { _ in try HTTPConnection(port: port) }
        for connection in slow { connection.write("GET /metr") }
        usleep(200_000)
        #expect(try HTTPConnection(port: port).answer()?.status == 503)
        usleep(500_000)
        #expect(try frames() - before >= 20, "frames went on while the bad requests were served")
        #expect(try c.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        for connection in slow { #expect(connection.answer(timeout: 10)?.status == 408) }
        let (answer, metrics) = try scrape(port: port)
        #expect(answer.status == 200 && (metrics["vitrine_frames_presented_total"] ?? 0) > before)
        #expect(daemon.isRunning)
    }

    @Test func aRequestSentByteByByteIsAnswered() throws {
        let (daemon, port) = try start()
        defer { withExtendedLifetime(daemon) {} }
        let connection = try HTTPConnection(port: port)
        for byte in "GET /metrics?x=1 HTTP/1.0\nHost: screen\n\n".utf8 {
            connection.write([byte])
            usleep(2_000)
        }
        let answer = try #require(connection.answer())
        #expect(answer.status == 200)
        #expect(try Exposition(answer.body)["vitrine_frames_presented_total"] == 1)
    }

    @Test func aPortInUseStopsTheStartWithAClearError() throws {
        let holder = try HTTPConnection.listener()
        let config = directory.appendingPathComponent("busy.toml").path
        try "[metrics]\nenabled = true\nport = \(holder.port)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (status, stderr) = try FleetProcess.runToExit(["--socket", directory.appendingPathComponent("v.sock").path, "--config", config])
        #expect(status != 0)
        #expect(stderr.contains("127.0.0.1:\(holder.port)") && stderr.contains("another program holds this port"), "\(stderr)")
        close(holder.fd)
    }
}

/// A daemon and the bridge that serves its metrics' TCP port.
struct MetricsScreen {
    let daemon: DaemonProcess
    let bridge: FleetProcess

    func connect() throws -> SocketClient { try daemon.connect() }

    var isRunning: Bool { daemon.isRunning && bridge.isRunning }

    /// Stops the bridge, then the daemon; the daemon's exit status.
    func stop() -> Int32 {
        _ = bridge.stop()
        return daemon.stop()
    }
}
