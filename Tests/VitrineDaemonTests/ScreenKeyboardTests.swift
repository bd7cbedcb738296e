import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// The on-screen keyboard (`[osk]`) in the real daemon: headless 800×480 with the manual
/// clock, over a full-screen page. Its pictures per layout are compared with references;
/// typing goes through `input.inject` touches and comes out as `osk.text` / `osk.key`.
@Suite struct ScreenKeyboardTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")
    /// The keyboard's height on the 800×480 output: 40 % of it.
    static let top = 480.0 - 192

    /// The daemon with `[osk]` of `osk` (after `enabled = true`), a page covering the
    /// screen, subscribed to the keyboard's events.
    static func start(_ osk: String = "", size: String = "800x480") throws -> (DaemonProcess, SocketClient) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-osk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml").path
        try "[osk]\nenabled = true\n\(osk)".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--size", size, "--config", config])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["osk.*", "input.touch", "layer.tap"]}"#)
        try c.ok(##"{"cmd": "layer.add", "layer": "page", "properties": {"bounds": [0, 0, 800, 480], "position": [400, 240], "backgroundColor": "#e8e4d8"}}"##)
        try c.ok(
            ##"{"cmd": "layer.add", "layer": "field", "parent": "page", "properties": {"bounds": [0, 0, 600, 60], "position": [400, 360], "backgroundColor": "#ffffff", "borderWidth": 2, "borderColor": "#3060c0"}}"##
        )
        return (daemon, c)
    }

    /// `start`, with the keyboard slid in and the events so far read.
    static func shown(_ osk: String = "") throws -> (DaemonProcess, SocketClient) {
        let (daemon, c) = try start(osk)
        try c.ok(#"{"cmd": "osk.show"}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        _ = try c.drain()
        return (daemon, c)
    }

    static func down(_ point: (x: Double, y: Double), _ c: SocketClient) throws {
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [\#(point.x), \#(point.y)]}"#)
    }

    /// The centre on screen of the key labelled `label`, with the keyboard shown.
    static func key(_ label: String, _ c: SocketClient) throws -> (x: Double, y: Double) {
        for index in 0..<80 {
            let reply = try c.request(#"{"cmd": "layer.get", "layer": "osk:label:\#(index)", "keys": ["string"]}"#)
            guard reply["result"]?["properties"]?["string"] == .string(label) else { continue }
            let key = try c.request(#"{"cmd": "layer.get", "layer": "osk:key:\#(index)", "keys": ["position"]}"#)
            let point = (key["result"]?["properties"]?["position"]?.array ?? []).compactMap(\.number)
            return (point[0], top + point[1])
        }
        throw DaemonError("no key is labelled '\(label)'")
    }

    static func tap(_ point: (x: Double, y: Double), _ c: SocketClient, touch: Int = 0) throws {
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": \#(touch), "point": [\#(point.x), \#(point.y)]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up", "touch": \#(touch)}"#)
    }

    /// The `osk.text` and `osk.key` events sent so far, as "text" and "<key>".
    static func typed(_ c: SocketClient) throws -> [String] {
        try c.drain().compactMap { event in
            if event["event"] == .string("osk.text") { return event["text"]?.string }
            if event["event"] == .string("osk.key") { return "<\(event["key"]?.string ?? "")>" }
            return nil
        }
    }

    @Test func eachLayoutIsDrawnFromXkeyboardConfig() throws {
        let (daemon, c) = try Self.start(#"layouts = ["us", "de", "numeric", "ru"]"# + "\n")
        let shown = try c.request(#"{"cmd": "osk.show"}"#)
        #expect(shown["result"]?["state"] == .string("shown") && shown["result"]?["layout"] == .string("us"), "\(shown)")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        for name in ["us", "de", "numeric", "ru"] {
            try c.ok(#"{"cmd": "osk.layout", "layout": "\#(name)"}"#)
            try GoldenImage.expectMatches(try c.screenshot("osk-\(name)"), named: "osk-\(name)", in: Self.references)
        }
        // What xkeyboard-config gives: QWERTZ, the keypad's digits, ЙЦУКЕН.
        try c.ok(#"{"cmd": "osk.layout", "layout": "de"}"#)
        #expect(try Self.key("z", c).x < Self.key("u", c).x)
        try c.ok(#"{"cmd": "osk.layout", "layout": "ru"}"#)
        #expect(try Self.key("й", c).x < Self.key("ц", c).x)
        #expect(daemon.isRunning)
    }

    @Test func itSlidesInAndOutWithTheConfiguredDurationAndCurve() throws {
        let (daemon, c) = try Self.start("duration = 0.5\ncurve = \"linear\"\n")
        try c.ok(#"{"cmd": "osk.show"}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.25}"#)
        try GoldenImage.expectMatches(try c.screenshot("osk-sliding-in"), named: "osk-sliding-in", in: Self.references)
        let half = try c.request(#"{"cmd": "layer.get", "layer": "osk", "keys": ["position"], "presentation": true}"#)
        #expect(half["result"]?["properties"]?["position"] == .array([.number(400), .number(480)]), "half-way in: \(half)")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.25}"#)
        let hidden = try c.request(#"{"cmd": "osk.hide"}"#)
        #expect(hidden["result"]?["state"] == .string("hiding"), "\(hidden)")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.4}"#)
        let late = try c.request(#"{"cmd": "layer.get", "layer": "osk", "keys": ["position"], "presentation": true}"#)
        let y = late["result"]?["properties"]?["position"]?.array?.last?.number ?? 0
        #expect(abs(y - (384 + 0.8 * 192)) < 0.01, "80 % out: \(late)")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.1}"#)
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "osk"}"#)["ok"] == .bool(false), "the layers are gone once out")
        #expect(try c.request(#"{"cmd": "osk.hide"}"#)["result"]?["state"] == .string("hidden"))
        // Hidden, touches go to the scene again.
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [400, 460]}"#)
        #expect(try c.drain().contains { $0["event"] == .string("input.touch") })
        #expect(daemon.isRunning)
    }

    @Test func touchesTypeHighlightTheKeyInTheNextFrameAndNeverReachTheScene() throws {
        let (daemon, c) = try Self.shown()
        let q = try Self.key("q", c)
        try Self.down(q, c)
        let pressed = try c.screenshot("osk-pressed")
        ScreenshotTests.expectPixel(pressed, Int(q.x) - 15, Int(q.y) - 12, [89, 140, 230, 255], "the pressed colour on q")
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        ScreenshotTests.expectPixel(try c.screenshot("osk-released"), Int(q.x) - 15, Int(q.y) - 12, [69, 74, 84, 255], "q's own colour again")
        for label in ["⇧", "W", "⌫", "⏎"] { try Self.tap(try Self.key(label, c), c) }
        // The space bar, three rows (of 186 / 5 pixels) below q.
        try Self.tap((400, q.y + 3 * (192 - 6) / 5), c)
        let events = try c.drain()
        #expect(!events.contains { $0["event"] == .string("input.touch") || $0["event"] == .string("layer.tap") }, "\(events)")
        let typed = events.compactMap { $0["text"]?.string ?? $0["key"]?.string.map { "<\($0)>" } }
        #expect(typed == ["q", "W", "<backspace>", "<enter>", " "], "\(events)")
        #expect(daemon.isRunning)
    }

    @Test func aClickTypesAndSceneResetTakesTheKeyboardAway() throws {
        let (daemon, c) = try Self.shown()
        let k = try Self.key("k", c)
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [\#(k.x), \#(k.y)]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "left", "pressed": true}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "left", "pressed": false}"#)
        #expect(try Self.typed(c) == ["k"])
        try c.ok(#"{"cmd": "scene.reset"}"#)
        #expect(try c.request(#"{"cmd": "osk.hide"}"#)["result"]?["state"] == .string("hidden"))
        try c.ok(#"{"cmd": "osk.show"}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        try Self.tap(try Self.key("k", c), c)
        #expect(try Self.typed(c) == ["k"])
        #expect(daemon.isRunning)
    }

    @Test func aHeldKeyRepeatsUntilItLifts() throws {
        let (daemon, c) = try Self.shown()
        try Self.down(try Self.key("⌫", c), c)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
        #expect(try Self.typed(c) == ["<backspace>"], "typed once before the repeat delay (600 ms)")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.2}"#)
        #expect(try Self.typed(c) == Array(repeating: "<backspace>", count: 3), "600, 640 and 680 ms: 25 a second")
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        #expect(try Self.typed(c).isEmpty)
        #expect(daemon.isRunning)
    }

    @Test func aLongPressShowsAccentsAndTypesTheOneUnderTheTouch() throws {
        let (daemon, c) = try Self.shown()
        let e = try Self.key("e", c)
        try Self.tap(e, c)
        #expect(try Self.typed(c) == ["e"], "a short press types the letter when it lifts")
        try Self.down(e, c)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.6}"#)
        try GoldenImage.expectMatches(try c.screenshot("osk-accents"), named: "osk-accents", in: Self.references)
        let accent = try c.request(#"{"cmd": "layer.get", "layer": "osk:accent:2", "keys": ["position"]}"#)
        let point = (accent["result"]?["properties"]?["position"]?.array ?? []).compactMap(\.number)
        try #require(point.count == 2, "\(accent)")
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "motion", "point": [\#(point[0]), \#(Self.top + point[1])]}"#)
        try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        #expect(try Self.typed(c) == ["é"])
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "osk:popup"}"#)["ok"] == .bool(false), "the popup closes")
        #expect(daemon.isRunning)
    }

    @Test func theLayoutKeyAndOskLayoutSwitchLayouts() throws {
        let (daemon, c) = try Self.shown(#"layouts = ["us", "fr", "numeric"]"# + "\n")
        try Self.tap(try Self.key("fr", c), c)
        try Self.tap(try Self.key("a", c), c)
        let a = try Self.key("a", c), z = try Self.key("z", c)
        #expect(a.y == z.y && a.x < z.x, "AZERTY: a, then z, on the top row")
        #expect(try Self.typed(c) == ["a"])
        let numeric = try c.request(#"{"cmd": "osk.layout"}"#)
        #expect(numeric["result"]?["layout"] == .string("numeric"), "the next layout: \(numeric)")
        try Self.tap(try Self.key("7", c), c)
        #expect(try Self.typed(c) == ["7"])
        let wrong = try c.request(#"{"cmd": "osk.layout", "layout": "dvorak"}"#)
        #expect(wrong["error"]?["code"] == .string("invalid_value") && (wrong["error"]?["message"]?.string ?? "").contains("us, fr, numeric"), "\(wrong)")
        #expect(try c.request(#"{"cmd": "osk.show", "layout": "us"}"#)["result"]?["layout"] == .string("us"))
        #expect(daemon.isRunning)
    }

    /// The page's field (y 330…390) would be under the keyboard (from y 288): the page moves
    /// up, or gets shorter, by 108 pixels (to 6 above the keyboard) with the slide, and back.
    /// (Shorter bounds resize a window shown in a surface layer, which lays itself out again;
    /// this page's sublayers stay where they are.)
    @Test(arguments: [("move", [400.0, 132.0], [0.0, 0.0, 800.0, 480.0]), ("resize", [400.0, 186.0], [0.0, 0.0, 800.0, 372.0])])
    func aTextFieldTheKeyboardWouldCoverIsKeptInSight(avoid: String, position: [Double], bounds: [Double]) throws {
        let (daemon, c) = try Self.start("avoid = \"\(avoid)\"\nduration = 0.5\n")
        try c.ok(#"{"cmd": "osk.show", "field": [100, 330, 600, 60]}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
        let page = try c.request(#"{"cmd": "layer.get", "layer": "page", "keys": ["position", "bounds"], "presentation": true}"#)
        #expect(page["result"]?["properties"]?["position"] == .array(position.map(JSON.number)), "\(page)")
        #expect(page["result"]?["properties"]?["bounds"] == .array(bounds.map(JSON.number)), "\(page)")
        if avoid == "move" {
            let shot = try c.screenshot("osk-avoid-move")
            ScreenshotTests.expectPixel(shot, 400, 330 - 108, [48, 96, 192, 255], "the field's top border, moved up")
            ScreenshotTests.expectPixel(shot, 400, 330 - 108 + 30, [255, 255, 255, 255], "the field, above the keyboard")
        }
        // The same field again (the next text field focused): the page is where it was.
        try c.ok(#"{"cmd": "osk.show", "field": [100, 330, 600, 60]}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
        let again = try c.request(#"{"cmd": "layer.get", "layer": "page", "keys": ["position"], "presentation": true}"#)
        #expect(again["result"]?["properties"]?["position"] == .array(position.map(JSON.number)), "\(again)")
        try c.ok(#"{"cmd": "osk.hide"}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
        let back = try c.request(#"{"cmd": "layer.get", "layer": "page", "keys": ["position", "bounds"], "presentation": true}"#)
        #expect(back["result"]?["properties"]?["position"] == .array([.number(400), .number(240)]), "\(back)")
        #expect(back["result"]?["properties"]?["bounds"] == .array([.number(0), .number(0), .number(800), .number(480)]), "\(back)")
        #expect(daemon.isRunning)
    }

    @Test func aKeyboardLeftInTheSceneJournalIsNotRestored() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-osk-\(UUID().uuidString.prefix(8))")
        let state = directory.appendingPathComponent("state").path
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        try "[osk]\nenabled = true\n".write(toFile: config, atomically: true, encoding: .utf8)
        let arguments = ["--size", "320x200", "--state-dir", state, "--config", config]
        let first = try DaemonProcess(arguments: arguments)
        let c = try first.connect()
        try c.ok(#"{"cmd": "osk.show"}"#)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !(try SceneJournalTests.journal(in: state)?.text.contains("osk:key:0") ?? false) { usleep(20_000) }
        kill(first.pid, SIGKILL)
        _ = first.waitForExit()
        let second = try DaemonProcess(arguments: arguments)
        let d = try second.connect()
        #expect(try d.request(#"{"cmd": "layer.get", "layer": "osk"}"#)["ok"] == .bool(false), "no keyboard without its state")
        #expect(try d.request(#"{"cmd": "osk.show"}"#)["result"]?["state"] == .string("shown"))
        #expect(try d.request(#"{"cmd": "layer.get", "layer": "osk:key:0"}"#)["ok"] == .bool(true))
    }

    @Test func theCommandsNeedTheKeyboardEnabled() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        let reply = try c.request(#"{"cmd": "osk.show"}"#)
        #expect(reply["error"]?["code"] == .string("not_allowed") && (reply["error"]?["message"]?.string ?? "").contains("[osk]"), "\(reply)")
        #expect(try c.request(#"{"cmd": "osk.hide", "now": true}"#)["error"]?["code"] == .string("unknown_field"))
    }

    @Test func badKeyboardSettingsStopTheDaemonWithTheKeyAndWhatToDo() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-osk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        for (body, words) in [
            ("layouts = [\"us\", \"xx\"]\n", ["osk.layouts", "no layout \"xx\"", "localectl"]),
            ("layouts = []\n", ["osk.layouts", "non-empty array"]),
            ("avoid = \"jump\"\n", ["osk.avoid", "\"move\""]),
            ("height = 5\n", ["osk.height", "40…4096"]),
            ("key_color = \"blurple\"\n", ["osk.key_color", "colour"]),
            ("curve = \"wobbly\"\n", ["osk.curve", "linear"]),
            ("heigth = 200\n", ["did you mean 'height'"]),
        ] {
            try "[osk]\nenabled = true\n\(body)".write(toFile: config, atomically: true, encoding: .utf8)
            let run = try DaemonProcess.runToExit(["--backend", "headless", "--config", config, "--socket", directory.appendingPathComponent("v.sock").path])
            #expect(run.status == 1, "\(body): \(run)")
            for word in words { #expect(run.stderr.contains(word), "\(word): \(run.stderr)") }
        }
    }
}
