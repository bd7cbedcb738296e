import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Input through `input.inject` on the headless output with the manual clock: events for
/// scripts (touches, the pointer, keys through the keymap, taps, long presses, drags),
/// subscriptions filtered by layer, and bad input refused without harm.
@Suite struct InputEventTests {
    /// A 100 × 50 button turned 30°, moving right along y = 100 from x 80 to 240 in 2 s.
    static let movingButton = [
        ##"{"cmd": "layer.add", "layer": "button", "properties": {"bounds": [0, 0, 100, 50], "position": [80, 100], "backgroundColor": "#ff0000", "transform": {"rotation": "30deg"}}}"##,
        #"{"cmd": "animation.add", "layer": "button", "animation": {"keyPath": "position.x", "from": 80, "to": 240, "duration": 2}}"#,
    ]

    /// The output pixel of the button's point `local` at x position `x` (the animation's).
    static func screenPoint(of local: (Double, Double), buttonAt x: Double) -> (Double, Double) {
        let (dx, dy) = (local.0 - 50, local.1 - 25), angle = Double.pi / 6
        return (x + dx * cos(angle) - dy * sin(angle), 100 + dx * sin(angle) + dy * cos(angle))
    }

    @Test func aTapOnAMovingTurnedLayerGivesThePointInItsCoordinatesAndItsBindingShowsInTheNextFrame() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["layer.*", "transaction.completed"]}"#)
        for line in Self.movingButton { try c.ok(line) }
        try c.ok(
            ##"{"cmd": "binding.add", "layer": "button", "on": "tap", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "#00ff00"}}]}"##
        )
        try c.ok(#"{"cmd": "clock.set", "time": 1}"#)
        let (x, y) = Self.screenPoint(of: (70, 20), buttonAt: 160)
        let before = try c.screenshot("tap-before")
        ScreenshotTests.expectPixel(before, Int(x), Int(y), [255, 0, 0, 255], "the button before the tap")
        _ = c.takeEvents()
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [\#(x), \#(y)]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        let after = try c.screenshot("tap-after")
        let events = c.takeEvents()
        let tap = try #require(events.first { $0["event"] == .string("layer.tap") }, "\(events)")
        #expect(tap["layer"] == .string("button") && tap["time"] == .number(1) && tap["touch"] == .number(0), "\(tap)")
        let point = (tap["point"]?.array ?? []).compactMap(\.number)
        #expect(point.count == 2 && abs(point[0] - 70) < 1e-6 && abs(point[1] - 20) < 1e-6, "the tap in the button's coordinates: \(point)")
        #expect(events.map { $0["event"]?.string ?? "" }.prefix(3) == ["layer.press", "layer.release", "layer.tap"], "\(events)")
        ScreenshotTests.expectPixel(after, Int(x), Int(y), [0, 255, 0, 255], "the binding's green in the next frame")
        // A point of the unturned bounds that the turned button does not cover hits the root.
        let (ox, oy) = Self.screenPoint(of: (-12, 0), buttonAt: 160)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": 1, "point": [\#(ox), \#(oy)]}"#)
        #expect(try c.drain().first?["layer"] == .string("root"))
    }

    @Test func aLongPressFiresWhenTheClockPassesItsTimeAndNoTapFollows() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["layer.*"]}"#)
        try c.ok(#"{"cmd": "layer.add", "layer": "card", "properties": {"bounds": [0, 0, 100, 100], "position": [100, 100]}}"#)
        try c.ok(
            #"{"cmd": "binding.add", "layer": "card", "on": "longPress", "commands": [{"cmd": "layer.set", "layer": "card", "properties": {"opacity": 0.5}, "actions": false}]}"#
        )
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 100]}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.3}"#)
        #expect(try c.drain().map { $0["event"] } == [.string("layer.press")])
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.4}"#)
        let long = try c.drain()
        #expect(long.count == 1 && long.first?["event"] == .string("layer.longPress") && long.first?["time"] == .number(0.5), "\(long)")
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "card", "keys": ["opacity"]}"#)["result"]?["properties"]?["opacity"] == .number(0.5))
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        #expect(try c.drain().map { $0["event"] } == [.string("layer.release")], "no tap after a long press")
    }

    @Test func aDragCarriesTranslationAndVelocityAndMotionEventsAreCoalescedPerFrame() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["layer.drag", "input.touch"]}"#)
        try c.ok(#"{"cmd": "layer.add", "layer": "sheet", "properties": {"bounds": [0, 0, 200, 100], "position": [160, 100]}}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": 3, "point": [100, 100]}"#)
        for step in 1...5 {
            try c.ok(#"{"cmd": "clock.advance", "seconds": 0.02}"#)
            try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "motion", "touch": 3, "point": [\#(100 + 6 * step), 100]}"#)
        }
        // Two more moves in the same frame: one input.touch now, the latest when the clock moves.
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "motion", "touch": 3, "point": [131, 100]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "motion", "touch": 3, "point": [132, 100]}"#)
        let held = try c.drain()
        #expect(held.filter { $0["event"] == .string("input.touch") && $0["phase"] == .string("motion") }.count == 5, "one motion a frame: \(held)")
        #expect(held.filter { $0["event"] == .string("layer.drag") }.count == 5, "gestures are not coalesced: \(held)")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.02}"#)
        let released = try c.drain()
        #expect(released.count == 1 && released.first?["point"] == .array([.number(132), .number(100)]), "the latest held motion: \(released)")
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up", "touch": 3}"#)
        let drags = try c.drain().filter { $0["event"] == .string("layer.drag") }
        let ended = try #require(drags.last)
        #expect(ended["phase"] == .string("ended") && ended["layer"] == .string("sheet") && ended["touch"] == .number(3), "\(ended)")
        #expect(ended["translation"] == .array([.number(32), .number(0)]), "\(ended)")
        let velocity = (ended["velocity"]?.array ?? []).compactMap(\.number)
        try #require(velocity.count == 2, "\(ended)")
        #expect(velocity[0] > 200 && velocity[0] < 450 && abs(velocity[1]) < 1e-9, "about 300 px/s to the right: \(velocity)")
        // A fling: the velocity as a spring's initial velocity.
        try c.ok(
            #"{"cmd": "layer.set", "layer": "sheet", "properties": {"position.x": 260}, "animation": {"type": "spring", "initialVelocity": \#(velocity[0] / 100)}}"#
        )
    }

    @Test func keysComeThroughTheKeymap() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-keys-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let german = directory.appendingPathComponent("de.toml").path
        try "[input]\nxkb_layout = \"de\"\n".write(toFile: german, atomically: true, encoding: .utf8)
        for (arguments, y) in [([String](), "y"), (["--config", german], "z")] {
            let daemon = try DaemonProcess(arguments: arguments)
            let c = try daemon.connect()
            try c.ok(#"{"cmd": "subscribe", "events": ["input.key"]}"#)
            try c.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 21}"#)
            let keys = try c.drain()
            #expect(keys.count == 2 && keys[0]["keysym"] == .string(y) && keys[0]["text"] == .string(y) && keys[0]["pressed"] == .bool(true), "KEY_Y: \(keys)")
            #expect(keys.count == 2 && keys[1]["pressed"] == .bool(false) && keys[1]["text"] == .string(""), "\(keys)")
            try c.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 42, "pressed": true}"#)
            try c.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 30}"#)
            try c.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 42, "pressed": false}"#)
            let shifted = try c.drain().filter { $0["keycode"] == .number(30) && $0["pressed"] == .bool(true) }.first
            #expect(
                shifted?["keysym"] == .string("A") && shifted?["text"] == .string("A") && shifted?["modifiers"] == .array([.string("Shift")]),
                "\(String(describing: shifted))")
        }
        let daemon = try DaemonProcess()
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "layer.add", "layer": "screen", "properties": {"opacity": 1}}"#)
        try c.ok(
            #"{"cmd": "binding.add", "binding": "next", "on": "key", "key": "Return", "commands": [{"cmd": "layer.set", "layer": "screen", "properties": {"opacity": 0.25}}]}"#
        )
        try c.ok(#"{"cmd": "input.inject", "type": "key", "keysym": "Escape"}"#)
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "screen", "keys": ["opacity"]}"#)["result"]?["properties"]?["opacity"] == .number(1))
        try c.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 28}"#)
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "screen", "keys": ["opacity"]}"#)["result"]?["properties"]?["opacity"] == .number(0.25))
    }

    @Test func subscriptionsFilteredByLayerBringThoseLayersAndTheirSublayers() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let setup = try daemon.connect()
        for line in [
            #"{"cmd": "layer.add", "layer": "a", "properties": {"bounds": [0, 0, 100, 100], "position": [60, 60]}}"#,
            #"{"cmd": "layer.add", "layer": "a1", "parent": "a", "properties": {"bounds": [0, 0, 20, 20], "position": [50, 50]}}"#,
            #"{"cmd": "layer.add", "layer": "b", "properties": {"bounds": [0, 0, 100, 100], "position": [200, 60]}}"#,
        ] { try setup.ok(line) }
        let filtered = try daemon.connect(), everything = try daemon.connect()
        let reply = try filtered.request(#"{"cmd": "subscribe", "events": ["layer.tap"], "layers": ["a"]}"#)
        #expect(
            reply["result"] == .object(["subscriptions": .array([.string("layer.tap")]), "layers": .object(["layer.tap": .array([.string("a")])])]), "\(reply)")
        try filtered.ok(#"{"cmd": "subscribe", "events": ["input.touch"], "layers": ["b"]}"#)
        try everything.ok(#"{"cmd": "subscribe", "events": ["layer.tap"]}"#)
        for point in ["[60, 60]", "[200, 60]", "[20, 20]"] {
            try setup.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": \#(point)}"#)
            try setup.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        }
        _ = try filtered.request(#"{"cmd": "ping"}"#)
        _ = try everything.request(#"{"cmd": "ping"}"#)
        let seen = filtered.takeEvents()
        #expect(seen.filter { $0["event"] == .string("layer.tap") }.map { $0["layer"] } == [.string("a1"), .string("a")], "a's sublayer and a itself: \(seen)")
        #expect(seen.filter { $0["event"] == .string("input.touch") }.count == 6, "input.* events are not filtered: \(seen)")
        #expect(everything.takeEvents().map { $0["layer"] } == [.string("a1"), .string("b"), .string("a")])
        #expect(try filtered.request(#"{"cmd": "subscribe", "events": ["layer.*"], "layers": []}"#)["error"]?["code"] == .string("invalid_value"))
        #expect(try filtered.request(#"{"cmd": "subscribe", "events": ["layer.*"], "layers": ["no way"]}"#)["error"]?["code"] == .string("invalid_id"))
        try filtered.ok(#"{"cmd": "unsubscribe", "events": ["layer.tap"]}"#)
        #expect(
            try filtered.request(#"{"cmd": "subscribe", "events": ["layer.tap"]}"#)["result"]?["layers"] == .object(["input.touch": .array([.string("b")])]))
    }

    @Test func thePointerTapsWithItsLeftButtonAndScrollsAsAxisEvents() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["input.pointer", "layer.tap"]}"#)
        try c.ok(#"{"cmd": "layer.add", "layer": "b", "properties": {"bounds": [0, 0, 40, 40], "position": [100, 100]}}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [90, 95]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "pressed": true}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": 272, "pressed": false}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "axis", "delta": [0, 15]}"#)
        let events = try c.drain()
        #expect(events.map { $0["action"]?.string ?? $0["event"]?.string ?? "" } == ["motion", "button", "button", "layer.tap", "axis"], "\(events)")
        #expect(events[0]["layer"] == .string("b") && events[0]["layerPoint"] == .array([.number(10), .number(15)]), "\(events[0])")
        #expect(events[3]["touch"] == .number(-1) && events[3]["point"] == .array([.number(10), .number(15)]), "\(events[3])")
        #expect(events[4]["delta"] == .array([.number(0), .number(15)]))
    }

    @Test func inRealTimeALongPressFiresByTheLoopsTimerAndATapLeavesNoTimerBehind() throws {
        let daemon = try DaemonProcess(clock: "realtime", arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["layer.*"]}"#)
        try c.ok(#"{"cmd": "layer.add", "layer": "card", "properties": {"bounds": [0, 0, 100, 100], "position": [100, 100]}}"#)
        // An event 20 ms old happened 20 ms ago in media time too.
        let media = try #require(try c.request(#"{"cmd": "time"}"#)["result"]?["time"]?.number)
        let kernel = Self.monotonic()
        let stamped = try c.request(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 100], "time": \#(kernel - 0.02)}"#)
        let at = try #require(stamped["result"]?["time"]?.number)
        #expect(at > media - 0.025 && at < media + 0.5, "the event's media time \(at), media time before it \(media)")
        var events: [JSON] = c.takeEvents()
        let deadline = Date().addingTimeInterval(3)
        while !events.contains(where: { $0["event"] == .string("layer.longPress") }), Date() < deadline, let line = c.readLine(timeout: 3) {
            events.append(try JSON(parsing: Data(line.utf8)))
        }
        let press = try #require(events.first { $0["event"] == .string("layer.press") }?["time"]?.number, "\(events)")
        let long = try #require(events.first { $0["event"] == .string("layer.longPress") }?["time"]?.number, "\(events)")
        #expect(abs(long - press - 0.5) < 1e-9, "the long press is due 0.5 s after the press: \(press) → \(long)")
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        // A tap arms the long-press timer and disarms it: the idle daemon sleeps through its deadline.
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 100]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        #expect(try c.drain().map { $0["event"]?.string } == ["layer.release", "layer.press", "layer.release", "layer.tap"])
        usleep(100_000)  // the loop goes back to sleep after its last reply
        let before = try Self.wakeUps(of: daemon.pid)
        usleep(700_000)
        let after = try Self.wakeUps(of: daemon.pid)
        #expect(after == before, "the daemon's loop woke \(after - before) times in 0.7 s of nothing")
    }

    @Test func inRealTimeAFastPointerSendsAtMostOneMotionAFrameAndItsLatestPositionLast() throws {
        let daemon = try DaemonProcess(clock: "realtime", arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["input.pointer"]}"#)
        let count = 200
        let start = Date()
        c.write(Array((1...count).map { #"{"id": \#($0), "cmd": "input.inject", "type": "pointer", "point": [\#($0), 100]}"# + "\n" }.joined().utf8))
        var replies = 0, motion: [JSON] = []
        while replies < count || motion.last?["point"] != .array([.number(Double(count)), .number(100)]), let line = c.readLine(timeout: 2) {
            let json = try JSON(parsing: Data(line.utf8))
            if json["event"] != nil { motion.append(json) } else { replies += 1 }
        }
        let frames = Date().timeIntervalSince(start) * 60
        #expect(replies == count)
        #expect(motion.last?["point"] == .array([.number(Double(count)), .number(100)]), "the latest position last: \(String(describing: motion.last))")
        #expect(Double(motion.count) <= frames + 2, "\(motion.count) motion events in \(frames) frames")
        #expect(motion.count < count / 4, "\(motion.count) motion events for \(count) moves")
        let xs = motion.compactMap { $0["point"]?.array?.first?.number }
        #expect(xs == xs.sorted(), "a position held for the frame never follows a newer one: \(xs)")
    }

    /// CLOCK_MONOTONIC in seconds, as devices stamp events.
    static func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// How often the daemon's main thread (its event loop) went to sleep and woke.
    static func wakeUps(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
        return try #require(Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
    }

    @Test func badInjectedInputIsRefusedAndTheDaemonGoesOn() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        let refused: [(String, String)] = [
            (#"{"id": 1, "cmd": "input.inject", "type": "touch", "phase": "down", "point": ["NaN", 0]}"#, "wrong_type"),
            (#"{"id": 2, "cmd": "input.inject", "type": "touch", "phase": "down", "point": [1e999, 0]}"#, "invalid_value"),
            (#"{"id": 3, "cmd": "input.inject", "type": "touch", "phase": "motion", "touch": 7, "point": [1, 1]}"#, "invalid_value"),
            (#"{"id": 4, "cmd": "input.inject", "type": "touch", "phase": "up", "touch": 7}"#, "invalid_value"),
            (#"{"id": 5, "cmd": "input.inject", "type": "touch", "phase": "down", "touch": -1, "point": [1, 1]}"#, "invalid_value"),
            (#"{"id": 6, "cmd": "input.inject", "type": "touch", "phase": "down", "touch": 0.5, "point": [1, 1]}"#, "invalid_value"),
            (#"{"id": 7, "cmd": "input.inject", "type": "touch", "phase": "sideways", "point": [1, 1]}"#, "invalid_value"),
            (#"{"id": 8, "cmd": "input.inject", "type": "touch", "phase": "down"}"#, "missing_field"),
            (#"{"id": 9, "cmd": "input.inject", "type": "mouse"}"#, "invalid_value"),
            (#"{"id": 10, "cmd": "input.inject"}"#, "missing_field"),
            (#"{"id": 11, "cmd": "input.inject", "type": "key", "keycode": 0}"#, "invalid_value"),
            (#"{"id": 12, "cmd": "input.inject", "type": "key", "keycode": 30, "keysym": "a"}"#, "invalid_value"),
            (#"{"id": 13, "cmd": "input.inject", "type": "key", "pressed": true}"#, "missing_field"),
            (#"{"id": 14, "cmd": "input.inject", "type": "pointer", "action": "button", "button": "thumb", "pressed": true}"#, "invalid_value"),
            (#"{"id": 15, "cmd": "input.inject", "type": "pointer", "action": "axis"}"#, "missing_field"),
            (#"{"id": 16, "cmd": "input.inject", "type": "touch", "phase": "down", "point": [1, 1], "pressure": 1}"#, "unknown_field"),
            (#"{"id": 17, "cmd": "input.inject", "type": "touch", "phase": "down", "point": [1, 1], "time": -1}"#, "invalid_value"),
            (#"{"id": 18, "cmd": "input.inject", "type": "touch", "phase": "down", "point": [1, 1, 1]}"#, "wrong_type"),
        ]
        for (line, code) in refused {
            let reply = try #require(try c.exchange(line))
            #expect(reply["error"]?["code"] == .string(code), "\(line): \(reply)")
        }
        // Far off the screen and a second down: taken without harm.
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": 2, "point": [-900000000, 900000000]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "motion", "touch": 2, "point": [1e9, -1e9]}"#)
        #expect(
            try c.request(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": 2, "point": [1, 1]}"#)["error"]?["code"]
                == .string("invalid_value"))
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "cancel", "touch": 2}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": 2, "point": [1, 1], "time": 1000000}"#)
        let stats = try c.request(#"{"cmd": "stats"}"#)["result"]?["input"]
        #expect(stats?["events"] == .number(4) && stats?["devices"] != nil, "\(String(describing: stats))")
        #expect(daemon.isRunning)
    }
}
