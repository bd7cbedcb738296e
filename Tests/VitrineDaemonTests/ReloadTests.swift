import Foundation
import Testing
import VitrineCore
import VitrineConfig
import VitrineProtocol
import VitrineRaster

/// `config.reload` applies every key that can change while running, and names those that
/// need a restart: each run-time key is changed and seen to take effect.
@Suite struct ReloadTests {
    /// The run-time keys this test changes; `everyKeyIsCoveredOrNeedsARestart` checks that
    /// it is every key the configuration has but those read at start.
    static let changedKeys: Set<String> = [
        "output.background", "socket.screenshot_dir", "animation.implicit_duration", "animation.implicit_timing",
        "animation.spring.duration", "animation.spring.speed", "animation.spring.damping", "animation.spring.initial_velocity",
        "animation.spring.mass", "animation.spring.stiffness", "rolling_number.animation_type", "rolling_number.direction",
        "rolling_number.character_spacing", "rolling_number.font", "rolling_number.font_size", "fonts.default_family",
        "limits.layers", "limits.line_bytes", "limits.clients", "limits.subscriptions_per_client", "limits.animations_per_layer",
        "limits.outbound_bytes", "limits.idle_seconds", "limits.memory_mb", "limits.scene_mb", "scene.background", "scene.layers",
        "scene.bindings", "launcher.allow_commands", "output.hotplug_grace",
    ]
    /// The run-time keys CompositorLifecycleTests, InputMethodTests and ScreenCaptureTests
    /// change by reload, with Wayland clients.
    static let changedWithWindows: Set<String> = [
        "compositor.rules", "compositor.ping_timeout", "compositor.input_method_clients", "compositor.screencopy_clients",
    ]
    /// The run-time key IdentificationScreenTests changes by reload.
    static let changedByIdentification: Set<String> = ["scene.identify"]

    static func before(_ shots: String) -> String {
        """
        [output]
        background = "#000000"
        headless_size = "64x32"
        hotplug_grace = 600
        [socket]
        screenshot_dir = "\(shots)/before"
        [animation]
        implicit_duration = 0.25
        implicit_timing = "linear"
        [animation.spring]
        duration = 1
        speed = 0.3
        damping = 17
        initial_velocity = 1
        mass = 1
        stiffness = 100
        [rolling_number]
        animation_type = "allAfterFirstChangedNumber"
        direction = "auto"
        character_spacing = 1
        font_size = 40
        [fonts]
        default_family = "DejaVu Sans"
        [limits]
        layers = 1000
        line_bytes = 2048
        clients = 16
        subscriptions_per_client = 8
        animations_per_layer = 100
        idle_seconds = 0
        [[scene.layers]]
        id = "first"
        """
    }

    static func after(_ shots: String) -> String {
        """
        [output]
        background = "#0000ff"
        headless_size = "128x64"
        hotplug_grace = 5
        [socket]
        screenshot_dir = "\(shots)/after"
        [animation]
        implicit_duration = 2
        implicit_timing = "easeIn"
        [animation.spring]
        duration = 3
        speed = 0.5
        damping = 2
        initial_velocity = 0
        mass = 2
        stiffness = 50
        [rolling_number]
        animation_type = "onlyChangedNumbers"
        direction = "down"
        character_spacing = 1.5
        font = "DejaVu Serif"
        font_size = 24
        [fonts]
        default_family = "DejaVu Sans Mono"
        [limits]
        layers = 40
        line_bytes = 1048576
        clients = 3
        subscriptions_per_client = 1
        animations_per_layer = 1
        outbound_bytes = 65536
        idle_seconds = 2
        memory_mb = 16
        scene_mb = 1
        [launcher]
        allow_commands = true
        [[scene.layers]]
        id = "second"
        [[scene.bindings]]
        binding = "second-tap"
        layer = "second"
        on = "tap"
        commands = [{ cmd = "layer.set", layer = "second", properties = { opacity = 0.5 } }]
        """
    }

    @Test func everyKeyIsCoveredOrNeedsARestart() {
        let restart = Set(Configuration.restartKeys)
        for key in Configuration.allKeys where !restart.contains(key) {
            #expect(
                Self.changedKeys.union(Self.changedWithWindows).union(Self.changedByIdentification).contains(key),
                "\(key) changes on reload but the reload test does not change it")
        }
        #expect(Self.changedKeys.union(Self.changedWithWindows).union(Self.changedByIdentification).isDisjoint(with: restart))
    }

    @Test func aReloadAppliesEveryRunTimeKeyAndNamesTheOthers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("after"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("before"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        // 2100 × 2100 decoded is 17.6 MB: within 256 MB, over 16 MB.
        try Surface(width: 2100, height: 2100).writePNG(to: directory.appendingPathComponent("big.png").path)
        try Self.before(directory.path).write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(screenshotDirectory: "", arguments: ["--config", config, "--content-root", directory.path])
        let long = #"{"id": "long", \#(String(repeating: " ", count: 3000))"cmd": "ping"}"#
        #expect(try daemon.connect().exchange(long)?["error"]?["code"] == .string("line_too_long"), "line_bytes before the reload")
        let c2 = try daemon.connect()
        let command = #"{"id": "run", "cmd": "client.start", "name": "t", "command": ["true"], "restart": "never"}"#
        #expect(try c2.exchange(command)?["error"]?["code"] == .string("not_allowed"), "launcher.allow_commands before the reload")
        try Self.after(directory.path).write(toFile: config, atomically: true, encoding: .utf8)
        let reply = try #require(try c2.exchange(#"{"id": 1, "cmd": "config.reload"}"#))
        #expect(reply["result"]?["reloaded"] == .bool(true), "\(reply)")
        #expect(reply["result"]?["restartNeeded"] == .array([.string("output.headless_size")]), "\(reply)")
        let silent = try daemon.connect()
        let silentSince = Date()

        // output.background, and socket.screenshot_dir (a relative path lands in the new one).
        let shot = try #require(try c2.exchange(#"{"id": 2, "cmd": "screenshot", "path": "bg.png"}"#)?["result"]?["path"]?.string)
        #expect(shot == directory.appendingPathComponent("after/bg.png").path, "socket.screenshot_dir: \(shot)")
        #expect(ScreenshotTests.rgba(try Surface(contentsOfPNG: shot), 4, 4) == [0, 0, 255, 255], "output.background")

        // limits.line_bytes.
        #expect(try c2.exchange(long)?["result"]?["pong"] == .bool(true), "limits.line_bytes")

        // launcher.allow_commands.
        #expect(try c2.exchange(command)?["result"]?["state"] == .string("running"), "launcher.allow_commands")

        // animation.implicit_duration and implicit_timing: halfway through 2 s, easeIn has
        // moved less than half way.
        try Self.expectOK(c2, #"{"id": 3, "cmd": "layer.add", "layer": "a", "properties": {"bounds": [0, 0, 10, 10]}}"#)
        try Self.expectOK(c2, #"{"id": 4, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 0.5}}"#)
        let animations = try #require(try c2.exchange(#"{"id": 5, "cmd": "animation.list", "layer": "a"}"#)?["result"]?.array)
        #expect(animations.first?["duration"] == .number(2), "animation.implicit_duration: \(animations)")
        try Self.expectOK(c2, #"{"id": 6, "cmd": "clock.advance", "seconds": 1}"#)
        let opacity = try #require(try Self.presentation(c2, "a", "opacity"))
        #expect(opacity > 0.8 && opacity < 0.95, "animation.implicit_timing: easeIn at half time shows \(opacity), linear would show 0.75")

        // [animation.spring] for a script's spring: the position follows the configured
        // oscillator exactly.
        try Self.expectOK(c2, #"{"id": 7, "cmd": "layer.add", "layer": "s", "properties": {"position": [0, 0]}}"#)
        try Self.expectOK(
            c2,
            #"{"id": 8, "cmd": "animation.add", "layer": "s", "animation": {"type": "spring", "keyPath": "position.x", "from": 0, "to": 100, "duration": 50}}"#)
        try Self.expectOK(c2, #"{"id": 9, "cmd": "clock.advance", "seconds": 0.5}"#)
        let x = try #require(try Self.presentation(c2, "s", "position.x"))
        let expected = 100 * (try Spring(mass: 2, stiffness: 50, damping: 2, initialVelocity: 0)).progress(at: 0.5)
        #expect(abs(x - expected) < 1e-6, "animation.spring: a script's spring is at \(x), the configured one at \(expected)")

        // [animation.spring] and [rolling_number] for a new rolling number; fonts.default_family
        // for a new text layer.
        try Self.expectOK(c2, #"{"id": 10, "cmd": "layer.add", "layer": "n", "kind": "rolling-number"}"#)
        let number = try #require(
            try c2.exchange(
                #"{"id": 11, "cmd": "layer.get", "layer": "n", "keys": ["fontSize", "font", "animationType", "direction", "characterSpacing", "springDuration", "springSpeed", "damping", "initialVelocity", "mass", "stiffness"]}"#
            )?["result"]?["properties"])
        let expectedNumber: [String: JSON] = [
            "fontSize": .number(24), "font": .string("DejaVu Serif"), "animationType": .string("onlyChangedNumbers"),
            "direction": .string("down"), "characterSpacing": .number(1.5), "springDuration": .number(3), "springSpeed": .number(0.5),
            "damping": .number(2), "initialVelocity": .number(0), "mass": .number(2), "stiffness": .number(50),
        ]
        for (key, value) in expectedNumber { #expect(number[key] == value, "a new rolling number's \(key): \(number)") }
        try Self.expectOK(c2, #"{"id": 12, "cmd": "layer.add", "layer": "t", "kind": "text"}"#)
        let font = try c2.exchange(#"{"id": 13, "cmd": "layer.get", "layer": "t", "keys": ["font"]}"#)?["result"]?["properties"]?["font"]
        #expect(font == .string("DejaVu Sans Mono"), "fonts.default_family: \(String(describing: font))")

        // limits.animations_per_layer and limits.subscriptions_per_client.
        let second = try c2.exchange(
            #"{"id": 14, "cmd": "animation.add", "layer": "s", "key": "b", "animation": {"keyPath": "opacity", "from": 0, "to": 1, "duration": 9}}"#)
        #expect(second?["error"]?["code"] == .string("limit_exceeded"), "limits.animations_per_layer: \(String(describing: second))")
        let subscriptions = try c2.exchange(#"{"id": 15, "cmd": "subscribe", "events": ["animation.*", "transaction.completed"]}"#)
        #expect(subscriptions?["error"]?["code"] == .string("limit_exceeded"), "limits.subscriptions_per_client: \(String(describing: subscriptions))")

        // limits.memory_mb: an image over 16 MB decoded is refused.
        let image = try c2.exchange(#"{"id": 16, "cmd": "layer.set", "layer": "a", "properties": {"contents": "\#(directory.path)/big.png"}}"#)
        #expect(image?["error"]?["code"] == .string("limit_exceeded"), "limits.memory_mb: \(String(describing: image))")

        // limits.scene_mb: values over 1 MB together are refused.
        let half = String(repeating: "v", count: 600_000)
        var sceneReply: JSON?
        for i in 0..<3 where sceneReply?["ok"] != .bool(false) {
            sceneReply = try c2.exchange(#"{"id": "v\#(i)", "cmd": "layer.set", "layer": "a", "properties": {"_v\#(i)": "\#(half)"}}"#)
        }
        #expect(sceneReply?["error"]?["code"] == .string("limit_exceeded"), "limits.scene_mb: \(String(describing: sceneReply))")

        // limits.layers: 40 in all.
        var layerReply: JSON?
        for i in 0..<50 where layerReply?["ok"] != .bool(false) {
            layerReply = try c2.exchange(#"{"id": "l\#(i)", "cmd": "layer.add", "layer": "l\#(i)"}"#)
        }
        #expect(layerReply?["error"]?["code"] == .string("limit_exceeded"), "limits.layers: \(String(describing: layerReply))")
        #expect(layerReply?["error"]?["message"]?.string?.contains("40") == true, "limits.layers: \(String(describing: layerReply))")

        // limits.idle_seconds: the connection made after the reload that never spoke.
        let (idleCode, _) = try FairnessTests.lastWords(silent, timeout: 5)
        #expect(idleCode == "idle_timeout" && Date().timeIntervalSince(silentSince) >= 1.9, "limits.idle_seconds")

        // limits.outbound_bytes: a subscriber that stops reading is cut off after 64 KiB.
        let listener = try SocketClient(path: daemon.socketPath, receiveBuffer: 4096)
        #expect(try listener.exchange(#"{"id": 17, "cmd": "subscribe", "events": ["animation.*"]}"#)?["ok"] == .bool(true))
        let padding = String(repeating: "k", count: 1000)
        for round in 0..<10 where !listener.peerClosed {
            let commands = (0..<30).map { i in
                #"{"cmd": "animation.add", "layer": "l\#(i)", "key": "\#(padding)-\#(round)", "animation": {"keyPath": "opacity", "from": 0, "to": 1, "duration": 0.5}}"#
            }
            try Self.expectOK(c2, #"{"id": "t\#(round)", "cmd": "transaction", "commands": [\#(commands.joined(separator: ","))]}"#)
            try Self.expectOK(c2, #"{"id": "a\#(round)", "cmd": "clock.advance", "seconds": 1}"#)
        }
        #expect(
            listener.drain(timeout: 5).closed, "limits.outbound_bytes: the silent subscriber was not cut off after ~650 KB of events (the old limit was 4 MiB)")

        // limits.clients: 3, and the operator's place.
        let admitted = try (0..<2).map { _ in try BoundaryTests.admittedClient(daemon.connect) }
        let operatorClient = try daemon.connect()
        #expect(try operatorClient.exchange(#"{"id": "op", "cmd": "ping"}"#)?["ok"] == .bool(true), "the operator's place")
        let (refused, message) = try FairnessTests.lastWords(try daemon.connect())
        #expect(refused == "limit_exceeded" && message.contains("3 clients"), "limits.clients: \(message)")
        _ = admitted

        // [scene]: what scene.reset shows.
        try Self.expectOK(c2, #"{"id": 18, "cmd": "scene.reset"}"#)
        let tree = try #require(try c2.exchange(#"{"id": 19, "cmd": "layer.tree"}"#))
        #expect("\(tree)".contains("second") && !"\(tree)".contains("first"), "scene.layers: \(tree)")
        let bindings = try #require(try c2.exchange(#"{"id": "b", "cmd": "binding.list"}"#))
        #expect(bindings["result"]?.array?.map { $0["binding"] } == [.string("second-tap")], "scene.bindings: \(bindings)")

        // scene.background, which overrides output.background, in a second reload.
        try (Self.after(directory.path) + "\n[scene]\nbackground = \"#00ff00\"\n").write(toFile: config, atomically: true, encoding: .utf8)
        try Self.expectOK(c2, #"{"id": 20, "cmd": "config.reload"}"#)
        let reset = try #require(try c2.exchange(#"{"id": 21, "cmd": "screenshot", "path": "reset.png"}"#)?["result"]?["path"]?.string)
        #expect(ScreenshotTests.rgba(try Surface(contentsOfPNG: reset), 4, 4) == [0, 255, 0, 255], "scene.background")
    }

    static func expectOK(_ client: SocketClient, _ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reply = try client.exchange(line)
        #expect(reply?["ok"] == .bool(true), "\(line.prefix(120)): \(String(describing: reply))", sourceLocation: sourceLocation)
    }

    static func presentation(_ client: SocketClient, _ layer: String, _ key: String) throws -> Double? {
        let line = #"{"id": "p", "cmd": "layer.get", "layer": "\#(layer)", "keys": ["\#(key)"], "presentation": true}"#
        return try client.exchange(line)?["result"]?["properties"]?[key]?.number
    }
}

/// The configuration's initial scene is checked whole when the file is read, every layer
/// kind the daemon draws included.
@Suite struct InitialSceneCheckTests {
    @Test func aMistakeInARollingNumberOfTheConfigsSceneNamesTheFileAndLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-scene-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        try """
        [[scene.layers]]
        id = "count"
        kind = "rolling-number"
        [scene.layers.properties]
        animationType = "sideways"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = try DaemonProcess.runToExit(["--backend", "headless", "--config", config, "--socket", directory.appendingPathComponent("v.sock").path])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("\(config):"), "the error names the file: \(run.stderr)")
        #expect(run.stderr.contains("sideways"), "\(run.stderr)")
        #expect(!run.stderr.contains("cannot be shown"), "refused when the file is read, not when the scene is shown: \(run.stderr)")
    }
}
