import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// The content watchdog (`[[watch]]`) against the real daemon (manual clock): a real
/// animating Wayland client (`weston-simple-shm`, started by the daemon from `[[clients]]`)
/// frozen with SIGSTOP, a video whose decoder helper is frozen, and still scenes.
@Suite(
    .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-simple-shm"), "weston-simple-shm is not installed: apt-get install weston"))
struct ContentWatchdogTests {
    /// The fallback a watch shows while its picture is stalled, and hides once it moves.
    static let fallback = """
        commands = [{ cmd = "layer.set", layer = "sorry", properties = { hidden = false } }]
        resume_commands = [{ cmd = "layer.set", layer = "sorry", properties = { hidden = true } }]
        """

    static let sorryLayer = """
        [[scene.layers]]
        id = "sorry"
        kind = "layer"
        properties = { bounds = [0, 0, 40, 40], position = [290, 30], backgroundColor = "#ff0000", hidden = true }
        """

    /// A daemon on `config`, with a client subscribed to `content.*`, `client.*` and `surface.*`.
    static func daemon(_ config: String, arguments: [String] = []) throws -> (DaemonProcess, SocketClient) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-watch-\(UUID().uuidString.prefix(8)).toml").path
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", path] + arguments)
        let client = try daemon.connect()
        try client.ok(#"{"cmd": "subscribe", "events": ["content.*", "client.*", "surface.*"]}"#)
        return (daemon, client)
    }

    /// A daemon running `weston-simple-shm` in the surface layer `app`, watched with `watch`.
    static func animatingClient(watch: String) throws -> (DaemonProcess, SocketClient, pid: Int32) {
        let (daemon, client) = try Self.daemon(
            """
            [output]
            headless_size = "320x260"

            [compositor]
            enabled = true
            socket = "wl-\(UUID().uuidString.prefix(8))"

            [[compositor.rules]]
            title = "simple-shm"
            layer = "app"

            [[clients]]
            name = "shm"
            command = ["weston-simple-shm"]
            stop_seconds = 0.5

            [[watch]]
            layer = "app"
            must_change_every = 2
            \(watch)

            [[scene.layers]]
            id = "app"
            kind = "surface"
            properties = { bounds = [0, 0, 250, 250], position = [125, 130] }

            \(sorryLayer)
            """)
        // The client may map before the subscription: its window in `app` is waited for.
        let deadline = Date().addingTimeInterval(20)
        var pid: Int32?
        while pid == nil, Date() < deadline {
            let surfaces = try client.request(#"{"cmd": "surface.list"}"#)["result"]?["surfaces"]?.array ?? []
            if let shown = surfaces.first(where: { $0["layer"] == .string("app") }) { pid = shown["pid"]?.number.map { Int32($0) } }
            if pid == nil { usleep(100_000) }
        }
        return (daemon, client, try #require(pid, "weston-simple-shm's window never showed in the layer app: \(daemon.standardError)"))
    }

    /// A 64×48 daemon showing the test video (`VideoTests`) in the layer `clip` with the
    /// extra `properties`, watched with `watch`; `scene` is added to its configuration.
    static func videoDaemon(watch: String, properties: String, scene: String = "") throws -> (DaemonProcess, SocketClient) {
        let videos = try VideoTests()
        let video = try videos.makeVideo()
        let (daemon, client) = try Self.daemon(
            """
            [output]
            headless_size = "64x48"

            [[watch]]
            layer = "clip"
            must_change_every = 1
            \(watch)

            \(scene)
            """, arguments: ["--content-root", videos.content.path])
        try client.ok(
            #"{"cmd": "layer.add", "layer": "clip", "kind": "video", "properties": {"bounds": [0, 0, 64, 48], "position": [32, 24], "src": "\#(video)", \#(properties)}}"#
        )
        return (daemon, client)
    }

    /// The daemon's metrics from its socket.
    static func metrics(_ socket: String) throws -> Exposition {
        let connection = try HTTPConnection(path: socket)
        connection.write("GET /metrics HTTP/1.1\r\nHost: screen\r\n\r\n")
        return try Exposition(try #require(connection.answer()).body)
    }

    /// Events read until `done` holds of all read so far (within `timeout` seconds); all of them.
    static func collect(_ client: SocketClient, timeout: Double = 10, until done: ([JSON]) -> Bool) throws -> [JSON] {
        var seen = client.takeEvents()
        let deadline = Date().addingTimeInterval(timeout)
        while !done(seen), Date() < deadline, let line = client.readLine(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            seen.append(try JSON(parsing: Data(line.utf8)))
        }
        return seen
    }

    /// The events named `name` among those sent so far.
    static func events(_ client: SocketClient, _ name: String) throws -> [JSON] {
        try client.drain().filter { $0["event"] == .string(name) }
    }

    static func sorryHidden(_ client: SocketClient) throws -> Bool? {
        try client.request(#"{"cmd": "layer.get", "layer": "sorry", "keys": ["hidden"]}"#)["result"]?["properties"]?["hidden"]?.bool
    }

    /// The pixels of `rect` in a screenshot taken now.
    static func pixels(_ client: SocketClient, _ rect: (x: Int, y: Int, width: Int, height: Int)) throws -> [UInt32] {
        let shot = try client.screenshot("watch-\(UUID().uuidString.prefix(6))")
        return (rect.y..<rect.y + rect.height).flatMap { y in (rect.x..<rect.x + rect.width).map { x in shot.pixels[y * shot.stride + x] } }
    }

    @Test func aFrozenClientStallsAndIsRestartedAndItsPictureMovesAgain() throws {
        let (daemon, client, pid) = try Self.animatingClient(watch: "restart = \"shm\"\n" + Self.fallback)
        defer { kill(pid, SIGCONT) }
        // Animating, it never stalls however far the clock goes.
        usleep(300_000)
        try client.ok(#"{"cmd": "clock.advance", "seconds": 3}"#)
        usleep(2_500_000)
        #expect(try Self.events(client, "content.stalled").isEmpty, "\(daemon.standardError)")

        #expect(kill(pid, SIGSTOP) == 0)
        usleep(200_000)
        try client.ok(#"{"cmd": "clock.advance", "seconds": 3}"#)
        let stalled = try client.waitForEvent("content.stalled", timeout: 8)
        #expect(stalled["layer"] == .string("app") && stalled["actions"] == .array([.string("restart"), .string("commands")]), "\(stalled)")
        #expect((stalled["duration"]?.number ?? 0) >= 2, "\(stalled)")
        #expect(try Self.sorryHidden(client) == false, "the fallback shows while it is stalled")

        // The client is stopped (SIGKILL after stop_seconds: it cannot take SIGTERM while
        // frozen) and started again; its new window moves the picture.
        let seen = try Self.collect(client) { events in
            events.contains { $0["event"] == .string("surface.mapped") } && events.contains { $0["event"] == .string("content.resumed") }
        }
        let started = try #require(seen.first { $0["event"] == .string("client.started") }, "\(seen)")
        let newPID = try #require(started["pid"]?.number.map { Int32($0) })
        #expect(newPID != pid)
        let mapped = seen.first { $0["event"] == .string("surface.mapped") }
        #expect(mapped?["pid"] == .number(Double(newPID)), "\(seen)")
        let resumed = try #require(seen.first { $0["event"] == .string("content.resumed") }, "\(seen)")
        #expect(resumed["layer"] == .string("app") && resumed["reason"] == .string("changed"), "\(resumed)")
        #expect(try Self.sorryHidden(client) == true, "the fallback is hidden again")
        // The new client's picture moves.
        let before = try Self.pixels(client, (60, 60, 130, 130))
        usleep(300_000)
        #expect(try Self.pixels(client, (60, 60, 130, 130)) != before, "the restarted client animates")
    }

    @Test func aClientFrozenThenContinuedStallsAndResumes() throws {
        let (daemon, client, pid) = try Self.animatingClient(watch: Self.fallback)
        defer { kill(pid, SIGCONT) }
        usleep(300_000)
        #expect(kill(pid, SIGSTOP) == 0)
        usleep(200_000)
        // The media clock alone has not moved: real time passing is not enough.
        usleep(2_500_000)
        #expect(try Self.events(client, "content.stalled").isEmpty)
        try client.ok(#"{"cmd": "clock.advance", "seconds": 3}"#)
        let stalled = try client.waitForEvent("content.stalled", timeout: 8)
        #expect(stalled["layer"] == .string("app") && stalled["actions"] == .array([.string("commands")]), "\(stalled)")
        #expect(try Self.sorryHidden(client) == false)
        let frozen = try Self.pixels(client, (60, 60, 130, 130))
        #expect(kill(pid, SIGCONT) == 0)
        let resumed = try client.waitForEvent("content.resumed", timeout: 8)
        #expect(resumed["layer"] == .string("app") && resumed["reason"] == .string("changed"), "\(resumed)")
        #expect((resumed["stalledSeconds"]?.number ?? 0) > 0, "\(resumed)")
        #expect(try Self.sorryHidden(client) == true)
        usleep(200_000)
        #expect(try Self.pixels(client, (60, 60, 130, 130)) != frozen, "the client draws again")
        #expect(try Self.events(client, "client.started").isEmpty, "no restart was configured: \(daemon.standardError)")
    }

    @Test func aVideoWhoseDecoderFreezesStallsAndIsReloaded() throws {
        let (daemon, client) = try Self.videoDaemon(watch: "reload = true", properties: #""loop": true"#)
        for step in 1...10 {
            try client.ok(#"{"cmd": "clock.set", "time": \#(Double(step) * 0.3)}"#)
            usleep(150_000)
        }
        #expect(try Self.events(client, "content.stalled").isEmpty, "a playing video is not stalled")
        let helper = try #require(VideoHelperTests.videoHelpers(of: daemon.pid).first, "the video's helper runs")
        #expect(kill(helper, SIGSTOP) == 0)
        defer {
            kill(helper, SIGCONT)
            kill(helper, SIGKILL)
        }
        try client.ok(#"{"cmd": "clock.advance", "seconds": 3}"#)
        let stalled = try client.waitForEvent("content.stalled", timeout: 8)
        #expect(stalled["layer"] == .string("clip") && stalled["actions"] == .array([.string("reload")]), "\(stalled)")
        // Reloaded: a new helper plays on from where the layer's time has got to (in its third loop).
        var resumed: JSON?
        for step in 1...20 where resumed == nil {
            try client.ok(#"{"cmd": "clock.advance", "seconds": 0.1}"#)
            resumed = try Self.events(client, "content.resumed").first
            if resumed == nil { usleep(100_000 * UInt32(min(step, 3))) }
        }
        #expect(resumed?["layer"] == .string("clip") && resumed?["reason"] == .string("changed"), "\(String(describing: resumed)) \(daemon.standardError)")
        let helpers = VideoHelperTests.videoHelpers(of: daemon.pid)
        #expect(helpers.contains { $0 != helper }, "a new helper decodes: \(helpers)")
    }

    @Test func stillScenesRaiseNothingButAnOutputThatMustChangeDoes() throws {
        // A paused video and a surface layer without a window are expected to stay as they are.
        let (stillDaemon, still) = try Self.videoDaemon(
            watch: "",
            properties: #""speed": 0"#,
            scene: """
                [[watch]]
                layer = "empty"
                must_change_every = 1

                [[scene.layers]]
                id = "empty"
                kind = "surface"
                properties = { bounds = [0, 0, 20, 20], position = [10, 10] }
                """)
        try still.ok(#"{"cmd": "clock.advance", "seconds": 5}"#)
        usleep(1_500_000)
        try still.ok(#"{"cmd": "clock.advance", "seconds": 5}"#)
        usleep(500_000)
        #expect(try Self.events(still, "content.stalled").isEmpty, "\(stillDaemon.standardError)")

        // An output that must change, and does not: stalled, and resumed by a change.
        let metricsSocket = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-watch-metrics-\(UUID().uuidString.prefix(8)).sock").path
        let (daemon, client) = try Self.daemon(
            """
            [output]
            headless_size = "320x260"

            [metrics]
            enabled = true
            socket = "\(metricsSocket)"

            [[watch]]
            output = "headless"
            must_change_every = 1

            \(Self.sorryLayer)
            """)
        try client.ok(#"{"cmd": "clock.advance", "seconds": 2}"#)
        usleep(1_200_000)
        let stalled = try client.waitForEvent("content.stalled", timeout: 5)
        #expect(stalled["output"] == .string("headless") && stalled["layer"] == nil, "\(stalled)")
        let labels = ["kind": "output", "name": "headless"]
        let whileStalled = try Self.metrics(metricsSocket)
        #expect(whileStalled["vitrine_content_stalled", labels] == 1 && whileStalled["vitrine_content_stalls_total", labels] == 1)
        try client.ok(#"{"cmd": "layer.set", "layer": "sorry", "properties": {"hidden": false}}"#)
        try client.ok(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
        let resumed = try client.waitForEvent("content.resumed", timeout: 5)
        #expect(resumed["output"] == .string("headless") && resumed["reason"] == .string("changed"), "\(resumed)")
        #expect(try Self.metrics(metricsSocket)["vitrine_content_stalled", labels] == 0)
        #expect(daemon.isRunning && !daemon.standardError.contains("failed"), "\(daemon.standardError)")
    }
}
