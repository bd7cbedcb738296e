import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineJSON
import VitrineRaster
import VitrineTestSupport

/// The pointer's cursor (`[input] cursor`), idleness (`idle_after`, `input.idle` /
/// `input.active` and their bindings) and the touch that wakes a blanked screen, with the
/// real daemon driven over its socket and the manual clock.
@Suite struct CursorIdleTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")
    static let background =
        ##"{"cmd": "layer.add", "layer": "background", "properties": {"bounds": [0, 0, 200, 120], "position": [100, 60], "backgroundColor": "#3060a0"}}"##

    /// A daemon of 200×120 pixels with `input` as its `[input]` table (and `extra` after it).
    static func daemon(_ input: String, extra: String = "", clock: String = "manual", arguments: [String] = []) throws -> DaemonProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-cursor-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml").path
        try "[input]\n\(input)\n\(extra)".write(toFile: config, atomically: true, encoding: .utf8)
        return try DaemonProcess(clock: clock, arguments: ["--size", "200x120", "--config", config] + arguments)
    }

    static func shot(_ c: SocketClient, _ name: String) throws -> Surface {
        let reply = try c.request(#"{"cmd": "screenshot", "path": "\#(name).png", "cursor": true}"#)
        return try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
    }

    static func move(_ c: SocketClient, _ x: Int, _ y: Int) throws {
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "motion", "point": [\#(x), \#(y)]}"#)
    }

    /// The pixels of `surface` that are not the background's colour.
    static func cursorPixels(_ surface: Surface) -> Int {
        var count = 0
        for y in 0..<surface.height {
            for x in 0..<surface.width where ScreenshotTests.rgba(surface, x, y) != [48, 96, 160, 255] { count += 1 }
        }
        return count
    }

    @Test func theCursorShowsWhileThePointerMovesAndGoesAfterTheHideTimeOrAtATouch() throws {
        let daemon = try Self.daemon("cursor = \"auto\"\ncursor_hide_after = 2")
        let c = try daemon.connect()
        try c.ok(Self.background)
        #expect(Self.cursorPixels(try Self.shot(c, "before")) == 0, "no cursor before the pointer moves")
        try Self.move(c, 60, 40)
        let shown = try Self.shot(c, "shown")
        try GoldenImage.expectMatches(shown, named: "cursor-arrow", in: Self.references)
        ScreenshotTests.expectPixel(shown, 60, 46, [0, 0, 0, 255], "the arrow's outline, from the pointer down")
        ScreenshotTests.expectPixel(shown, 63, 50, [255, 255, 255, 255], "the arrow's inside")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1.5}"#)
        try Self.move(c, 120, 70)
        let moved = try Self.shot(c, "moved")
        ScreenshotTests.expectPixel(moved, 63, 50, [48, 96, 160, 255], "where it was")
        ScreenshotTests.expectPixel(moved, 123, 80, [255, 255, 255, 255], "where it went")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1.5}"#)
        #expect(Self.cursorPixels(try Self.shot(c, "still")) > 50, "1.5 s after the last motion it is still there")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.6}"#)
        #expect(Self.cursorPixels(try Self.shot(c, "hidden")) == 0, "gone 2 s after the last motion")
        try Self.move(c, 100, 60)
        #expect(Self.cursorPixels(try Self.shot(c, "again")) > 50)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [20, 20]}"#)
        #expect(Self.cursorPixels(try Self.shot(c, "touched")) == 0, "a touch hides it")
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
    }

    @Test func thePresentedFramesShowTheCursorAndRepaintOnlyWhereItWasAndWent() throws {
        let snapshots = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-cursor-frames-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: snapshots) }
        let daemon = try Self.daemon("cursor = \"auto\"", arguments: ["--snapshot-dir", snapshots.path])
        let c = try daemon.connect()
        try c.ok(Self.background)
        var tick = 0
        /// The frame last presented once it `matches`; other frames are drawn meanwhile
        /// (a pixel in the corner blinks), since one is written out at a time.
        func presented(_ matches: (Surface) -> Bool) throws -> Surface? {
            for _ in 0..<100 {
                if let frame = try? Surface(contentsOfPNG: snapshots.appendingPathComponent("latest.png").path), matches(frame) { return frame }
                tick += 1
                try c.ok(#"{"cmd": "layer.set", "layer": "tick", "actions": false, "properties": {"opacity": \#(tick % 2)}}"#)
                usleep(50_000)
            }
            return nil
        }
        try c.ok(##"{"cmd": "layer.add", "layer": "tick", "properties": {"bounds": [0, 0, 1, 1], "position": [0.5, 0.5], "backgroundColor": "#000000"}}"##)
        try Self.move(c, 60, 40)
        let first = try #require(try presented { ScreenshotTests.rgba($0, 63, 50) == [255, 255, 255, 255] }, "the frame shows the cursor")
        #expect(Self.cursorPixels(first) - 1 <= Self.cursorPixels(try Self.shot(c, "first")), "the screenshot shows what the screen does")
        let before = try #require(try c.request(#"{"cmd": "stats"}"#)["result"]?["pixels"]?.number)
        try Self.move(c, 120, 70)
        let after = try #require(try c.request(#"{"cmd": "stats"}"#)["result"]?["pixels"]?.number)
        #expect(
            after > before && after - before <= 2 * 2 * 14 * 22, "a move repaints the two cursor rectangles (of each buffer), not the screen: \(after - before)"
        )
        let second = try #require(try presented { ScreenshotTests.rgba($0, 123, 80) == [255, 255, 255, 255] }, "a later frame shows it moved")
        ScreenshotTests.expectPixel(second, 63, 50, [48, 96, 160, 255], "the old place repainted")
    }

    @Test func withTheRealClockLoopTimersHideTheCursorAndMakeTheDaemonIdle() throws {
        let daemon = try Self.daemon("cursor_hide_after = 0.3\nidle_after = 1", clock: "realtime")
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["input.idle", "input.active"]}"#)
        try c.ok(Self.background)
        let moved = Date()
        try Self.move(c, 60, 40)
        let shown = try Self.shot(c, "realtime-shown")
        let shotAfter = Date().timeIntervalSince(moved)
        var hidden = Self.cursorPixels(shown) == 0
        while !hidden, Date().timeIntervalSince(moved) < 5 {
            usleep(50_000)
            hidden = Self.cursorPixels(try Self.shot(c, "realtime-hidden")) == 0
        }
        let waited = Date().timeIntervalSince(moved)
        #expect(Self.cursorPixels(shown) > 50 || shotAfter >= 0.3, "shown at the motion")
        #expect(hidden && waited >= 0.29, "hidden by its timer after 0.3 s: \(waited) s")
        let idle = try c.waitForEvent("input.idle", timeout: 5)
        let since = try #require(idle["since"]?.number), time = try #require(idle["time"]?.number)
        #expect(abs(time - since - 1) < 1e-6, "\(idle)")
        #expect(Date().timeIntervalSince(moved) >= 0.99, "idle a second after the last input")
        try Self.move(c, 70, 40)
        _ = try c.waitForEvent("input.active", timeout: 5)
    }

    @Test func hiddenDrawsNothingAndAlwaysDrawsFromTheStart() throws {
        let hidden = try Self.daemon("cursor = \"hidden\"")
        let h = try hidden.connect()
        try h.ok(Self.background)
        try Self.move(h, 60, 40)
        #expect(Self.cursorPixels(try Self.shot(h, "hidden")) == 0)
        let always = try Self.daemon("cursor = \"always\"\ncursor_hide_after = 1")
        let a = try always.connect()
        try a.ok(Self.background)
        ScreenshotTests.expectPixel(try Self.shot(a, "start"), 103, 70, [255, 255, 255, 255], "at the screen's centre from the start")
        try a.ok(#"{"cmd": "clock.advance", "seconds": 5}"#)
        try a.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [20, 20]}"#)
        ScreenshotTests.expectPixel(try Self.shot(a, "later"), 103, 70, [255, 255, 255, 255], "still there after time and a touch")
    }

    @Test func idleAndActiveAreEventsThatFireTheirBindings() throws {
        let daemon = try Self.daemon(
            "idle_after = 5",
            extra: """
                [[scene.layers]]
                id = "home"
                properties = { bounds = [0, 0, 50, 50], position = [25, 25], backgroundColor = "#00ff00" }
                """)
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["input.idle", "input.active", "input.touch", "binding.failed"]}"#)
        try c.ok(#"{"cmd": "layer.add", "layer": "attract", "properties": {"bounds": [0, 0, 10, 10], "opacity": 0}}"#)
        try c.ok(
            #"{"cmd": "binding.add", "binding": "show", "on": "idle", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "attract", "properties": {"opacity": 1}}]}"#
        )
        try c.ok(
            #"{"cmd": "binding.add", "binding": "hide", "on": "active", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "attract", "properties": {"opacity": 0}}]}"#
        )
        func opacity() throws -> JSON? { try c.request(#"{"cmd": "layer.get", "layer": "attract", "keys": ["opacity"]}"#)["result"]?["properties"]?["opacity"] }
        try c.ok(#"{"cmd": "clock.advance", "seconds": 4}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 60]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 4.5}"#)
        #expect(try c.drain().map { $0["event"] } == [.string("input.touch"), .string("input.touch")], "not idle 4.5 s after the last touch")
        #expect(try opacity() == .number(0))
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        let idle = try c.drain()
        #expect(idle.map { $0["event"] } == [.string("input.idle")], "\(idle)")
        #expect(idle.first?["time"] == .number(9) && idle.first?["since"] == .number(4), "\(idle)")
        #expect(try opacity() == .number(1), "the idle binding showed the attract layer")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 20}"#)
        #expect(try c.drain().isEmpty, "idle once until input comes")
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "motion", "point": [10, 10]}"#)
        let active = try c.drain()
        #expect(active.map { $0["event"] } == [.string("input.active")], "\(active)")
        #expect(active.first?["idleSeconds"] == .number(20.5), "\(active)")
        #expect(try opacity() == .number(0), "the active binding hid it")

        // An idle binding that resets the scene: the script's layers and bindings go, the
        // configured scene comes back.
        try c.ok(#"{"cmd": "binding.remove", "binding": "show"}"#)
        try c.ok(#"{"cmd": "binding.add", "on": "idle", "reset": true}"#)
        try c.ok(#"{"cmd": "layer.remove", "layer": "home"}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 5}"#)
        let tree = "\(try c.request(#"{"cmd": "layer.tree"}"#))"
        #expect(tree.contains("home") && !tree.contains("attract"), "\(tree)")
        #expect(try c.request(#"{"cmd": "binding.list"}"#)["result"]?.array?.isEmpty == true)
        #expect(try c.drain().compactMap { $0["event"]?.string } == ["input.idle"], "the reset went without failures")
    }

    @Test func theTouchThatWakesABlankedScreenIsNotDelivered() throws {
        let daemon = try Self.daemon("cursor = \"hidden\"")
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "layer.add", "layer": "button", "properties": {"bounds": [0, 0, 100, 60], "position": [100, 60]}}"#)
        try c.ok(
            #"{"cmd": "binding.add", "layer": "button", "on": "tap", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"opacity": 0.5}}]}"#
        )
        try c.ok(#"{"cmd": "subscribe", "events": ["input.touch", "input.pointer", "layer.*", "output.power"]}"#)
        try c.ok(#"{"cmd": "output.power", "output": "headless", "on": false}"#)
        _ = try c.drain()
        for line in [
            #"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 60]}"#,
            #"{"cmd": "input.inject", "type": "touch", "phase": "motion", "point": [104, 62]}"#,
            #"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#,
        ] { try c.ok(line) }
        let woken = try c.drain()
        #expect(woken.map { $0["event"] } == [.string("output.power")], "only the wake: \(woken)")
        #expect(woken.first?["on"] == .bool(true) && woken.first?["reason"] == .string("touch"), "\(woken)")
        #expect(
            try c.request(#"{"cmd": "layer.get", "layer": "button", "keys": ["opacity"]}"#)["result"]?["properties"]?["opacity"] == .number(1),
            "no binding fired")
        try c.ok(#"{"cmd": "output.power", "output": "headless", "on": false}"#)
        _ = try c.drain()
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": 272, "pressed": true, "point": [100, 60]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": 272, "pressed": false, "point": [100, 60]}"#)
        #expect(try c.drain().map { $0["event"] } == [.string("output.power")], "a click wakes it too, unseen")
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 60]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        let delivered = try c.drain().compactMap { $0["event"]?.string }
        #expect(delivered.contains("input.touch") && delivered.contains("layer.tap"), "the next touch is delivered: \(delivered)")
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "button", "keys": ["opacity"]}"#)["result"]?["properties"]?["opacity"] == .number(0.5))
    }

    @Test func aScreenWokenAtNightByATouchSleepsAgainWhenIdle() throws {
        let minute = Int(time(nil)) % 86_400 / 60
        func hhmm(_ m: Int) -> String { String(format: "%02d:%02d", ((m + 1440) % 1440) / 60, ((m + 1440) % 1440) % 60) }
        let (daemon, directory) = try DaemonProcess.twoOutputs(
            config: """
                [input]
                idle_after = 2
                [[outputs]]
                connector = "HDMI-A-1"
                mode = "320x200@60"
                power_off = "\(hhmm(minute - 2))"
                power_on = "\(hhmm(minute + 3))"
                """, environment: ["TZ": "UTC0"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        #expect(try c.request(#"{"cmd": "output.list"}"#)["result"]?["outputs"]?.array?.first?["power"] == .bool(false), "blanked by its schedule")
        try c.ok(#"{"cmd": "subscribe", "events": ["input.*", "layer.*", "output.power"]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 60]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        let woken = try c.drain()
        #expect(woken.map { $0["event"] } == [.string("output.power")] && woken.first?["reason"] == .string("touch"), "\(woken)")
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 60]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        #expect(try c.drain().compactMap { $0["event"]?.string }.contains("layer.tap"), "the next touch is delivered")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 2.5}"#)
        let night = try c.drain()
        #expect(night.compactMap { $0["event"]?.string }.sorted() == ["input.idle", "output.power"], "\(night)")
        let power = night.first { $0["event"] == .string("output.power") }
        #expect(power?["on"] == .bool(false) && power?["reason"] == .string("schedule"), "blanked again: \(night)")
    }

    @Test func anIdleBindingRestartsAClient() throws {
        let daemon = try Self.daemon(
            "idle_after = 1",
            extra: """
                [[scene.bindings]]
                on = "idle"
                client = "napper"

                [[clients]]
                name = "napper"
                command = ["sleep", "600"]
                restart = "never"
                """)
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["client.*", "input.idle"]}"#)
        let before = try #require(try c.request(#"{"cmd": "client.list"}"#)["result"]?["clients"]?.array?.first?["pid"]?.number)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        let started = try c.waitForEvent("client.started")
        #expect(started["name"] == .string("napper") && started["pid"]?.number != before, "\(started)")
        let events = c.takeEvents().compactMap { $0["event"]?.string }
        #expect(!events.contains("client.failed"), "\(events)")
        #expect(try c.request(#"{"cmd": "client.list"}"#)["result"]?["clients"]?.array?.first?["state"] == .string("running"))
    }

    @Test func badSettingsAndBindingsAreRefusedWithWhatToDo() throws {
        for (input, words) in [
            ("cursor = \"sometimes\"", "\"hidden\""), ("cursor_hide_after = 0", "0.1…3600"), ("idle_after = 0.5", "1…86400"),
        ] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-cursor-bad-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let config = directory.appendingPathComponent("bad.toml").path
            try "[input]\n\(input)\n".write(toFile: config, atomically: true, encoding: .utf8)
            let run = try DaemonProcess.runToExit(["--backend", "headless", "--config", config, "--socket", directory.appendingPathComponent("s").path])
            #expect(run.status != 0 && run.stderr.contains(words), "\(input): \(run.stderr)")
        }
        let daemon = try Self.daemon("")
        let c = try daemon.connect()
        for (line, code) in [
            (#"{"cmd": "binding.add", "on": "idle"}"#, "missing_field"),
            (#"{"cmd": "binding.add", "on": "tap", "layer": "root", "reset": true}"#, "invalid_value"),
            (#"{"cmd": "binding.add", "on": "active", "client": ""}"#, "invalid_value"),
            (#"{"cmd": "screenshot", "cursor": "yes"}"#, "wrong_type"),
        ] {
            #expect(try c.request(line)["error"]?["code"] == .string(code), "\(line)")
        }
    }
}
