import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Bindings: reactions applied by the daemon with no script in the loop — a pressed
/// state that animates, the kiosk that answers touches after its script died, failures
/// told as events, the bindings' life with their layers, the journal and `scene.reset`.
@Suite struct BindingTests {
    static let button =
        ##"{"cmd": "layer.add", "layer": "button", "properties": {"bounds": [0, 0, 100, 50], "position": [160, 100], "backgroundColor": "#ff0000"}}"##

    @Test func aButtonDimsWhileHeldAndComesBackWhenReleasedOutsideOrCancelled() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        try c.ok(Self.button)
        try c.ok(
            #"{"cmd": "binding.add", "binding": "dim", "layer": "button", "on": "press", "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"opacity": 0.6}}]}"#
        )
        try c.ok(
            #"{"cmd": "binding.add", "binding": "undim", "layer": "button", "on": "release", "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"opacity": 1}}]}"#
        )
        for ending in ["up outside", "cancel"] {
            try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [160, 100]}"#)
            #expect(try opacity(c, presentation: false) == 0.6)
            try c.ok(#"{"cmd": "clock.advance", "seconds": 0.125}"#)
            let midway = try #require(try opacity(c, presentation: true))
            #expect(midway > 0.6 && midway < 1, "dimming implicitly: \(midway)")
            try c.ok(#"{"cmd": "clock.advance", "seconds": 0.25}"#)
            #expect(try opacity(c, presentation: true) == 0.6)
            if ending == "cancel" {
                try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "cancel"}"#)
            } else {
                try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "motion", "point": [10, 10]}"#)
                try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
            }
            #expect(try opacity(c, presentation: false) == 1, "\(ending)")
            try c.ok(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
        }
        let list = try c.request(#"{"cmd": "binding.list", "layer": "button"}"#)["result"]?.array ?? []
        #expect(list.map { $0["binding"] } == [.string("dim"), .string("undim")] && list.first?["on"] == .string("press"), "\(list)")
    }

    @Test func aBindingFiresAfterItsClientHasGoneAndOneWhoseCommandsFailIsToldAsAnEvent() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        do {
            let script = try daemon.connect()
            try script.ok(Self.button)
            try script.ok(
                #"{"cmd": "layer.add", "layer": "label", "parent": "button", "kind": "text", "properties": {"bounds": [0, 0, 80, 30], "position": [50, 25], "string": "Go"}}"#
            )
            try script.ok(
                ##"{"cmd": "binding.add", "layer": "button", "on": "tap", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "#00ff00"}}]}"##
            )
            try script.ok(
                #"{"cmd": "binding.add", "binding": "ghostly", "layer": "button", "on": "longPress", "commands": [{"cmd": "layer.set", "layer": "ghost", "properties": {"opacity": 0}}]}"#
            )
        }
        usleep(100_000)
        let watcher = try daemon.connect()
        try watcher.ok(#"{"cmd": "subscribe", "events": ["binding.failed"]}"#)
        // The tap lands on the label: the button's binding answers it.
        let status = try Self.run(
            daemon,
            [
                #"{"id": 1, "cmd": "input.inject", "type": "touch", "phase": "down", "point": [160, 100]}"#,
                #"{"id": 2, "cmd": "input.inject", "type": "touch", "phase": "up"}"#,
            ])
        #expect(status.allSatisfy { $0 })
        let shot = try watcher.screenshot("answered")
        ScreenshotTests.expectPixel(shot, 120, 80, [0, 255, 0, 255], "the binding answered with no script connected")
        try watcher.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [160, 100]}"#)
        try watcher.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        let failed = try watcher.drain()
        #expect(failed.count == 1, "\(failed)")
        #expect(
            failed.first?["binding"] == .string("ghostly") && failed.first?["code"] == .string("unknown_layer") && failed.first?["on"] == .string("longPress"),
            "\(failed)")
        #expect(failed.first?["layer"] == .string("button") && failed.first?["time"] == .number(0.5), "\(failed)")
        try watcher.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        let stats = try watcher.request(#"{"cmd": "stats"}"#)["result"]?["input"]
        #expect(stats?["fired"] == .number(1) && stats?["failed"] == .number(1) && stats?["bindings"] == .number(2), "\(String(describing: stats))")
    }

    @Test func bindingsGoWithTheirLayerAndKeepToTheLimits() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-bindings-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("limits.toml").path
        try "[limits]\nlayers = 3\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "layer.add", "layer": "a"}"#)
        try c.ok(#"{"cmd": "layer.add", "layer": "b", "parent": "a"}"#)
        let tap = #"[{"cmd": "layer.set", "layer": "a", "properties": {"opacity": 0.5}}]"#
        #expect(
            try c.request(#"{"cmd": "binding.add", "layer": "b", "on": "tap", "commands": \#(tap)}"#)["result"] == .object(["binding": .string("binding-1")]))
        try c.ok(#"{"cmd": "binding.add", "binding": "k", "layer": "a", "on": "key", "key": "F5", "commands": \#(tap)}"#)
        try c.ok(#"{"cmd": "binding.add", "on": "key", "key": "F6", "commands": \#(tap)}"#)
        let refusals: [(String, String)] = [
            (#"{"cmd": "binding.add", "layer": "a", "on": "tap", "commands": \#(tap)}"#, "limit_exceeded"),
            (#"{"cmd": "binding.add", "binding": "k", "on": "key", "key": "F7", "commands": \#(tap)}"#, "duplicate_id"),
            (#"{"cmd": "binding.add", "layer": "nowhere", "on": "tap", "commands": \#(tap)}"#, "unknown_layer"),
            (#"{"cmd": "binding.add", "layer": "a", "on": "doubleTap", "commands": \#(tap)}"#, "invalid_value"),
            (#"{"cmd": "binding.add", "layer": "a", "on": "tap", "commands": []}"#, "missing_field"),
            (#"{"cmd": "binding.add", "on": "tap", "commands": \#(tap)}"#, "missing_field"),
            (#"{"cmd": "binding.add", "on": "key", "layer": "a", "commands": \#(tap)}"#, "missing_field"),
            (#"{"cmd": "binding.add", "layer": "a", "on": "tap", "commands": [{"cmd": "ping"}]}"#, "invalid_value"),
            (#"{"cmd": "binding.add", "layer": "a", "on": "tap", "commands": [{"cmd": "layer.set"}]}"#, "missing_field"),
            (#"{"cmd": "binding.add", "binding": "a b", "layer": "a", "on": "tap", "commands": \#(tap)}"#, "invalid_id"),
            (#"{"cmd": "binding.add", "layer": "a", "on": "tap", "commands": \#(tap), "when": "now"}"#, "unknown_field"),
            (#"{"cmd": "binding.remove", "binding": "nothing"}"#, "invalid_value"),
            (#"{"cmd": "binding.remove"}"#, "missing_field"),
        ]
        for (line, code) in refusals {
            #expect(try c.request(line)["error"]?["code"] == .string(code), "\(line)")
        }
        try c.ok(#"{"cmd": "layer.remove", "layer": "a"}"#)
        #expect(try c.request(#"{"cmd": "binding.list"}"#)["result"]?.array?.map { $0["binding"] } == [.string("binding-2")], "removed with their layers")
        #expect(try c.request(#"{"cmd": "binding.remove", "binding": "binding-2"}"#)["result"] == .object(["removed": .array([.string("binding-2")])]))
        #expect(try c.request(#"{"cmd": "binding.remove", "layer": "a"}"#)["error"]?["code"] == .string("unknown_layer"))
    }

    @Test func bindingsAreJournaledAndScenesResetToTheConfiguredOnes() throws {
        let state = try SceneJournalTests.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = state + "/vitrine.toml"
        try """
        [[scene.layers]]
        id = "welcome"
        properties = { bounds = [0, 0, 50, 50], position = [25, 25] }
        [[scene.bindings]]
        binding = "hello"
        layer = "welcome"
        on = "tap"
        commands = [{ cmd = "layer.set", layer = "welcome", properties = { opacity = 0.5 }, actions = false }]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let arguments = ["--size", "100x100", "--state-dir", state, "--config", config]
        let first = try DaemonProcess(arguments: arguments)
        let c = try first.connect()
        #expect(try c.request(#"{"cmd": "binding.list"}"#)["result"]?.array?.map { $0["binding"] } == [.string("hello")])
        try c.ok(#"{"cmd": "layer.add", "layer": "extra", "properties": {"bounds": [0, 0, 50, 50], "position": [75, 75]}}"#)
        try c.ok(
            #"{"cmd": "binding.add", "binding": "more", "layer": "extra", "on": "press", "duration": 2, "commands": [{"cmd": "layer.set", "layer": "extra", "properties": {"opacity": 0.25}}]}"#
        )
        let expected = try c.request(#"{"cmd": "binding.list"}"#)["result"]
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try SceneJournalTests.journal(in: state))?["bindings"]?.array?.count != 2 { usleep(20_000) }
        kill(first.pid, SIGKILL)
        _ = first.waitForExit()

        let second = try DaemonProcess(arguments: arguments)
        let d = try second.connect()
        #expect(try d.request(#"{"cmd": "binding.list"}"#)["result"] == expected, "restored as they were")
        try d.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [75, 75]}"#)
        #expect(try d.request(#"{"cmd": "layer.get", "layer": "extra", "keys": ["opacity"]}"#)["result"]?["properties"]?["opacity"] == .number(0.25))
        try d.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        try d.ok(#"{"cmd": "scene.reset"}"#)
        #expect(try d.request(#"{"cmd": "binding.list"}"#)["result"]?.array?.map { $0["binding"] } == [.string("hello")], "the configured one again")
        try d.ok(#"{"cmd": "binding.remove", "layer": "welcome"}"#)
        #expect(try d.request(#"{"cmd": "binding.list"}"#)["result"] == .array([]))
        #expect(second.stop() == 0)
        #expect((try SceneJournalTests.journal(in: state))?["bindings"] == nil, "no bindings, none journaled")
        let third = try DaemonProcess(arguments: arguments)
        #expect(try third.connect().request(#"{"cmd": "binding.list"}"#)["result"] == .array([]), "removed stays removed")
    }

    @Test func aConfiguredBindingOfALayerTheSceneLacksNamesTheTable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-bindings-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        for (body, words) in [
            (
                "[[scene.layers]]\nid = \"a\"\n[[scene.bindings]]\nlayer = \"b\"\non = \"tap\"\ncommands = [{ cmd = \"layer.remove\", layer = \"a\" }]\n",
                ["scene.bindings[0]", "no layer 'b'"]
            ),
            ("[[scene.bindings]]\nlayer = \"root\"\non = \"tapp\"\ncommands = [{ cmd = \"layer.remove\", layer = \"a\" }]\n", ["scene.bindings[0]", "tapp"]),
        ] {
            try body.write(toFile: config, atomically: true, encoding: .utf8)
            let run = try DaemonProcess.runToExit(["--backend", "headless", "--config", config, "--socket", directory.appendingPathComponent("v.sock").path])
            #expect(run.status == 1, "\(run)")
            for word in words { #expect(run.stderr.contains(word), "\(word): \(run.stderr)") }
            #expect(run.stderr.contains("\(config):"), "\(run.stderr)")
        }
    }

    // MARK: Helpers

    func opacity(_ c: SocketClient, presentation: Bool) throws -> Double? {
        try c.request(#"{"cmd": "layer.get", "layer": "button", "keys": ["opacity"], "presentation": \#(presentation)}"#)["result"]?["properties"]?["opacity"]?
            .number
    }

    /// Sends `lines` on a connection of its own that then goes away; whether each was answered ok.
    static func run(_ daemon: DaemonProcess, _ lines: [String]) throws -> [Bool] {
        let client = try daemon.connect()
        return try lines.map { line in try client.exchange(line)?["ok"] == .bool(true) }
    }
}
