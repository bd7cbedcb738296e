import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol
import VitrineRaster

/// X11 programs through Xwayland (`[compositor] xwayland`): the real daemon, the real
/// Xwayland it starts, and X11 clients — one of the tests' own (`X11TestClient`), xterm and
/// xeyes. The `x11` layer is 120 × 80, scaled 2× around (160, 100): the window's (x, y) is
/// on the screen at (40 + 2x, 20 + 2y).
@Suite(.serialized, .enabled(if: XWaylandSetup.installed, "Xwayland is not installed: apt-get install xwayland (CI installs it)"))
struct XWaylandTests {
    @Test func anX11ClientStartsXwaylandAndItsWindowIsShownThroughTheLayersTransform() throws {
        let setup = try XWaylandSetup(layer: #"{"bounds": [0, 0, 120, 80], "position": [160, 100], "transform.scale": 1.5, "transform.rotation.z": 0.3}"#)
        // On demand: nothing runs until an X11 program connects.
        #expect(setup.xwaylandPID == nil, "Xwayland runs before any X11 program connected")
        let client = try setup.client()
        try client.waitUntilExposed()
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        #expect(
            mapped["kind"] == .string("x11") && mapped["appId"] == .string("VitrineTest") && mapped["instance"] == .string("vitrine-test"), "\(mapped.text)")
        #expect(mapped["layer"] == .string("x11") && mapped["pid"] == .number(Double(getpid())), "\(mapped.text)")
        #expect(setup.xwaylandPID != nil)
        // The layer gives the window its size.
        let layerSize = X11TestClient.Event.configured(window: client.window, width: 120, height: 80)
        #expect(client.events.contains(layerSize) || client.wait(for: { $0 == layerSize }) != nil, "\(client.events)")
        #expect(try setup.expectPicture("xwayland-client-rotated", pumping: client) == nil)
        let listed = try #require(setup.control.request(#"{"cmd": "surface.list"}"#)["result"]?["surfaces"]?.array?.first)
        #expect(listed["width"] == .number(120) && listed["height"] == .number(80) && listed["title"] == .string("vitrine test"), "\(listed.text)")
    }

    @Test func alwaysStartsXwaylandWithTheCompositor() throws {
        let setup = try XWaylandSetup(mode: "always")
        let deadline = Date().addingTimeInterval(10)
        while setup.xwaylandPID == nil, Date() < deadline { usleep(50_000) }
        #expect(setup.xwaylandPID != nil, "\(setup.daemon.standardError.suffix(1500))")
    }

    /// An override-redirect window (a menu) is drawn over the window it belongs to, where
    /// X11 put it relative to that window, cut at the layer's bounds; a click on it reaches
    /// it at its own coordinates.
    @Test func anOverrideRedirectMenuIsShownOverItsWindowAndTakesAClick() throws {
        let setup = try XWaylandSetup()
        let client = try setup.client()
        try client.waitUntilExposed()
        _ = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        // A right click at the window's (20, 30) opens a menu 10 pixels down and right of it.
        try setup.click(40 + 2 * 20, 20 + 2 * 30, button: "right")
        let press = client.wait { if case .buttonPress = $0 { true } else { false } }
        #expect(press == .buttonPress(window: client.window, x: 20, y: 30, button: 3), "\(client.events)")
        let menu = client.openMenu(x: 30, y: 40, width: 50, height: 30, color: 0xC0_30C0)
        // And one near the right edge, reaching 30 pixels past the window.
        client.openMenu(x: 100, y: 5, width: 50, height: 20, color: 0x30_C0C0)
        let magenta = { (p: UInt32) in p == 0xC0_30C0 }, cyan = { (p: UInt32) in p == 0x30_C0C0 }
        let shot = try setup.screenshot("menu", pumping: client) { magenta(rgb($0, 40 + 2 * 40, 20 + 2 * 50)) && cyan(rgb($0, 40 + 2 * 110, 20 + 2 * 10)) }
        #expect(
            magenta(rgb(shot, 40 + 2 * 31, 20 + 2 * 41)) && magenta(rgb(shot, 40 + 2 * 79 - 1, 20 + 2 * 69 - 1)), "the menu is not at the window's (30, 40)")
        #expect(!magenta(rgb(shot, 40 + 2 * 29, 20 + 2 * 39)) && !magenta(rgb(shot, 40 + 2 * 81, 20 + 2 * 71)), "the menu is larger than 50 × 30")
        #expect(cyan(rgb(shot, 40 + 2 * 119, 20 + 2 * 10)), "the second menu is not drawn up to the layer's edge")
        #expect(rgb(shot, 40 + 2 * 120 + 2, 20 + 2 * 10) == XWaylandSetup.background, "the second menu is not cut at the layer's edge")
        // A click on the menu reaches it at its own (10, 10).
        try setup.click(40 + 2 * 40, 20 + 2 * 50)
        let chosen = client.wait { if case .buttonPress(let window, _, _, _) = $0 { window == menu } else { false } }
        #expect(chosen == .buttonPress(window: menu, x: 10, y: 10, button: 1), "\(client.events)")
        // Closed, it is gone from the picture.
        client.closeMenu(menu)
        let after = try setup.screenshot("menu-closed", pumping: client) { !magenta(rgb($0, 40 + 2 * 40, 20 + 2 * 50)) }
        #expect(!magenta(rgb(after, 40 + 2 * 40, 20 + 2 * 50)), "the closed menu is still drawn")
    }

    /// A window that asks to be fullscreen is told it is (`_NET_WM_STATE`, as programs
    /// expect), and keeps the size its layer gives; ICCCM's and EWMH's properties are set.
    @Test func fullscreenIsTakenAsAskedAndTheLayerKeepsTheSize() throws {
        let setup = try XWaylandSetup()
        let client = try setup.client()
        try client.waitUntilExposed()
        _ = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        #expect(client.property("WM_STATE").first == 1, "WM_STATE is not NormalState")
        #expect(client.property("_NET_FRAME_EXTENTS") == [0, 0, 0, 0])
        let fullscreen = client.atom("_NET_WM_STATE_FULLSCREEN")
        client.requestState("_NET_WM_STATE_FULLSCREEN", on: true)
        let deadline = Date().addingTimeInterval(5)
        while !client.property("_NET_WM_STATE").contains(fullscreen), Date() < deadline { client.pump(for: 0.05) }
        #expect(client.property("_NET_WM_STATE").contains(fullscreen))
        client.pump(for: 0.3)
        #expect(client.size == (width: 120, height: 80), "\(client.size)")
        client.requestState("_NET_WM_STATE_FULLSCREEN", on: false)
        let until = Date().addingTimeInterval(5)
        while client.property("_NET_WM_STATE").contains(fullscreen), Date() < until { client.pump(for: 0.05) }
        #expect(!client.property("_NET_WM_STATE").contains(fullscreen))
    }

    /// Keys reach the X11 window last clicked, through the seat's keymap (X11's keycodes
    /// are evdev's plus 8).
    @Test func keysReachTheClickedX11Window() throws {
        let setup = try XWaylandSetup()
        let client = try setup.client()
        try client.waitUntilExposed()
        _ = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        try setup.click(100, 100)
        #expect(client.wait { if case .buttonPress = $0 { true } else { false } } != nil)
        try setup.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 30, "pressed": true}"#)
        try setup.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 30, "pressed": false}"#)
        let key = client.wait { if case .keyPress = $0 { true } else { false } }
        #expect(key == .keyPress(window: client.window, keycode: 38), "\(client.events)")
    }

    /// Two X11 windows in two layers are both at X's (0, 0): the one under the pointer or a
    /// touch is raised before the input reaches Xwayland, which picks the window by X's
    /// stacking, so each press reaches the window its layer shows.
    @Test func pressesReachTheWindowOfTheLayerUnderThemWhenX11WindowsOverlap() throws {
        let setup = try XWaylandSetup(
            rules: "[[compositor.rules]]\ninstance = \"vitrine-test\"\nlayer = \"x11\"\n[[compositor.rules]]\ninstance = \"second\"\nlayer = \"other\"\n",
            layer: #"{"bounds": [0, 0, 120, 80], "position": [80, 100]}"#)
        try setup.ok(#"{"cmd": "layer.add", "layer": "other", "kind": "surface", "properties": {"bounds": [0, 0, 120, 80], "position": [240, 100]}}"#)
        let first = try setup.client()
        try first.waitUntilExposed()
        _ = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        let second = try setup.client(instance: "second")
        try second.waitUntilExposed()
        _ = try setup.control.waitForEvent("surface.mapped", timeout: 20) { $0["instance"] == .string("second") }
        // (the layers' top-left corners are at (20, 60) and (180, 60))
        for round in 0..<3 {
            try setup.click(20 + 30 + round, 60 + 40)
            let a = first.wait(timeout: 5) { if case .buttonPress = $0 { true } else { false } }
            #expect(a == .buttonPress(window: first.window, x: 30 + round, y: 40, button: 1), "round \(round): \(first.events.suffix(3))")
            try setup.click(180 + 70 + round, 60 + 20)
            let b = second.wait(timeout: 5) { if case .buttonPress = $0 { true } else { false } }
            #expect(b == .buttonPress(window: second.window, x: 70 + round, y: 20, button: 1), "round \(round): \(second.events.suffix(3))")
            first.pump(for: 0.05)
        }
        #expect(!first.events.contains { if case .buttonPress(_, let x, _, _) = $0 { x >= 70 } else { false } }, "the first window had the second's press")
        // A touch raises and presses in one event (X11 sees it as the pointer's first button;
        // Xwayland scales touches by (size - 1) / size, a pixel less here).
        for round in 0..<3 {
            for (client, x) in [(second, 180 + 60 + round), (first, 20 + 60 + round)] {
                try setup.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [\#(x), 90]}"#)
                try setup.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
                let press = client.wait(timeout: 5) { if case .buttonPress = $0 { true } else { false } }
                guard case .buttonPress(let window, let px, let py, _) = press else {
                    Issue.record("touch round \(round): no press, \(client.events.suffix(3))")
                    continue
                }
                #expect(window == client.window && (59 + round...60 + round).contains(px) && (29...30).contains(py), "touch round \(round): \(press!)")
            }
        }
        // A menu of the first window, opened while the second is on top, stays over the
        // first when the pointer comes back to it and raises it.
        try setup.click(180 + 10, 60 + 10)
        _ = second.wait(timeout: 5) { if case .buttonPress = $0 { true } else { false } }
        let menu = first.openMenu(x: 10, y: 10, width: 40, height: 20, color: 0xC0_30C0)
        first.pump(for: 0.3)
        try setup.click(20 + 20, 60 + 20)
        let chosen = first.wait(timeout: 5) { if case .buttonPress = $0 { true } else { false } }
        #expect(chosen == .buttonPress(window: menu, x: 10, y: 10, button: 1), "\(first.events.suffix(3))")
    }

    /// A real terminal, started by the daemon (`[[clients]]` get DISPLAY): shown in its
    /// layer in its colours, and what is typed on the daemon's seat reaches its shell.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xterm"), "xterm is not installed: apt-get install xterm"))
    func xtermIsShownAndTypedInto() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-xterm-\(UUID().uuidString.prefix(8)).txt").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let command = ##"["xterm", "-bg", "#2040c0", "-fg", "#ffff00", "-e", "sh", "-c", "read line && echo \"$line\" > \##(out)"]"##
        let setup = try XWaylandSetup(
            rules: "[[compositor.rules]]\ninstance = \"xterm\"\nlayer = \"x11\"\n",
            extra: "[[clients]]\nname = \"term\"\ncommand = \(command)\nrestart = \"never\"\n")
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 30)
        #expect(mapped["appId"] == .string("XTerm") && mapped["layer"] == .string("x11"), "\(mapped.text)")
        let blue = { (p: UInt32) in p == 0x20_40C0 }
        let shot = try setup.screenshot("xterm", pumping: nil) { shot in (0..<40).allSatisfy { blue(rgb(shot, 60 + 5 * $0, 150)) } }
        #expect((0..<40).allSatisfy { blue(rgb(shot, 60 + 5 * $0, 150)) }, "xterm's background is not in its layer")
        try setup.click(160, 100)
        for code in [35, 23, 28] {  // h, i, Enter
            try setup.ok(#"{"cmd": "input.inject", "type": "key", "keycode": \#(code), "pressed": true}"#)
            try setup.ok(#"{"cmd": "input.inject", "type": "key", "keycode": \#(code), "pressed": false}"#)
        }
        let deadline = Date().addingTimeInterval(10)
        var typed = ""
        repeat {
            typed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if typed.isEmpty { usleep(50_000) }
        } while typed.isEmpty && Date() < deadline
        #expect(typed == "hi\n", "xterm's shell read '\(typed)': \(setup.daemon.standardError.suffix(1500))")
    }

    /// Chromium as an X11 program (`--ozone-platform=x11`, software rendering) showing a
    /// local page in a 300 × 180 layer: its two blocks where the page puts them, and keys
    /// typed on the daemon's seat into the page's focused field, which copies its value
    /// into the title that `surface.list` shows.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium is not installed: apt-get install chromium"))
    func chromiumOnX11ShowsALocalPageAndTakesKeys() throws {
        let setup = try XWaylandSetup(
            rules: "[[compositor.rules]]\napp_id = \"Chromium\"\nlayer = \"x11\"\n", layer: #"{"bounds": [0, 0, 300, 180], "position": [160, 100]}"#)
        let directory = setup.daemon.directory.path
        let page = directory + "/page.html"
        try #"""
        <!doctype html><html><head><title>start</title></head><body style="margin:0;background:#10a040">
        <div style="position:fixed;left:0;top:0;width:50%;height:50%;background:#e02020"></div>
        <input id="f" autofocus style="position:fixed;left:160px;top:130px;width:120px" oninput="document.title = 'typed ' + this.value">
        </body></html>
        """#.write(toFile: page, atomically: true, encoding: .utf8)
        let log = directory + "/chromium.stderr"
        let chromium = try ChildProcess(
            "/usr/bin/chromium",
            [
                "--ozone-platform=x11", "--disable-gpu", "--no-sandbox", "--test-type", "--user-data-dir=\(directory)/profile", "--no-first-run",
                "--disable-features=Translate", "--app=file://\(page)",
            ], stderrPath: log, environment: ["DISPLAY": setup.display, "WAYLAND_DISPLAY": "", "HOME": directory])
        defer { _ = chromium.terminate() }
        let chromiumLog = { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(1500) }
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 40)
        #expect(mapped["kind"] == .string("x11") && mapped["layer"] == .string("x11"), "\(mapped.text)")
        // The layer's (0, 0) is the screen's (10, 10). Probed away from the block's edges.
        let probes: [(Int, Int, UInt32)] = [(40, 40, 0xE0_2020), (130, 70, 0xE0_2020), (250, 40, 0x10_A040), (40, 160, 0x10_A040)]
        let shows: (Surface) -> Bool = { shot in probes.allSatisfy { close(rgb(shot, 10 + $0.0, 10 + $0.1), $0.2) } }
        let shot = try setup.screenshot("chromium-x11", pumping: nil, timeout: 40, until: shows)
        #expect(shows(shot), "the page's blocks are not where they should be: \(chromiumLog())")
        try setup.click(10 + 200, 10 + 140)
        for code in [35, 23] {  // h, i
            try setup.ok(#"{"cmd": "input.inject", "type": "key", "keycode": \#(code), "pressed": true}"#)
            try setup.ok(#"{"cmd": "input.inject", "type": "key", "keycode": \#(code), "pressed": false}"#)
        }
        let deadline = Date().addingTimeInterval(20)
        var title = ""
        repeat {
            title = (try setup.control.request(#"{"cmd": "surface.list"}"#))["result"]?["surfaces"]?.array?.first?["title"]?.string ?? ""
            if title != "typed hi" { usleep(100_000) }
        } while title != "typed hi" && Date() < deadline
        #expect(title == "typed hi", "the page's title is '\(title)': \(chromiumLog())")
        #expect(chromium.isRunning, "chromium stopped: \(chromiumLog())")
    }

    /// `surface.close`: WM_DELETE_WINDOW to a window that takes it (which closes itself);
    /// a window that does not take it has its client killed.
    @Test func surfaceCloseAsksOrKills() throws {
        let setup = try XWaylandSetup(rules: "")
        let polite = try setup.client(instance: "polite")
        try polite.waitUntilExposed()
        let first = try #require(try setup.control.waitForEvent("surface.mapped", timeout: 20)["surface"]?.number)
        try setup.ok(#"{"cmd": "surface.close", "surface": \#(Int(first))}"#)
        #expect(polite.wait { $0 == .protocolMessage("WM_DELETE_WINDOW") } != nil, "\(polite.events)")
        polite.destroyWindow()
        _ = try setup.control.waitForEvent("surface.unmapped") { $0["surface"] == .number(first) }
        #expect(polite.isConnected)

        let rude = try setup.client(instance: "rude", protocols: [])
        try rude.waitUntilExposed()
        let second = try #require(try setup.control.waitForEvent("surface.mapped", timeout: 20)["surface"]?.number)
        try setup.ok(#"{"cmd": "surface.close", "surface": \#(Int(second))}"#)
        _ = try setup.control.waitForEvent("surface.unmapped") { $0["surface"] == .number(second) }
        rude.pump(for: 0.5)
        #expect(!rude.isConnected, "the client of a window without WM_DELETE_WINDOW was not killed")
        #expect(setup.daemon.standardError.contains("it does not take WM_DELETE_WINDOW"))
    }

    /// A window asked to close that neither closes nor answers pings is killed after the
    /// grace (`ping_timeout`); one that answers pings is left open, as a program that asks
    /// its user first.
    @Test func aWindowThatIgnoresWMDeleteWindowIsKilledUnlessItAnswersPings() throws {
        let setup = try XWaylandSetup(rules: "", pingTimeout: 1)
        let answering = try setup.client(instance: "answering")
        try answering.waitUntilExposed()
        let first = try #require(try setup.control.waitForEvent("surface.mapped", timeout: 20)["surface"]?.number)
        let silent = try setup.client(instance: "silent", protocols: ["WM_DELETE_WINDOW"])
        try silent.waitUntilExposed()
        let second = try #require(try setup.control.waitForEvent("surface.mapped", timeout: 20)["surface"]?.number)
        try setup.ok(#"{"cmd": "surface.close", "surface": \#(Int(first))}"#)
        try setup.ok(#"{"cmd": "surface.close", "surface": \#(Int(second))}"#)
        answering.pump(for: 2.5)
        silent.pump(for: 0.5)
        #expect(answering.isConnected && answering.events.contains(.protocolMessage("WM_DELETE_WINDOW")), "\(answering.events)")
        #expect(!silent.isConnected, "a window that ignored WM_DELETE_WINDOW was not killed after the grace")
        _ = try setup.control.waitForEvent("surface.unmapped") { $0["surface"] == .number(second) }
    }

    /// `_NET_WM_PING` feeds the unresponsive reporting as `xdg_wm_base.ping` does.
    @Test func aWindowThatStopsAnsweringPingsIsUnresponsiveUntilItAnswers() throws {
        let setup = try XWaylandSetup(pingTimeout: 0.5)
        let client = try setup.client()
        try client.waitUntilExposed()
        let id = try #require(try setup.control.waitForEvent("surface.mapped", timeout: 20)["surface"]?.number)
        client.answersPings = false
        let unresponsive = try setup.control.waitForEvent("surface.unresponsive", timeout: 5)
        #expect(unresponsive["surface"] == .number(id) && unresponsive["kind"] == .string("x11"), "\(unresponsive.text)")
        client.answersPings = true
        client.pump(for: 0.5)
        let responsive = try setup.control.waitForEvent("surface.responsive", timeout: 5)
        #expect(responsive["surface"] == .number(id))
        #expect(setup.daemon.standardError.contains("X11 client pid \(getpid())"), "\(setup.daemon.standardError.suffix(1500))")
    }

    /// A client that dies (xeyes, SIGKILL) has its window unmapped; one that floods the
    /// window manager with titles and windows does not hold the daemon, whose last word on
    /// its title is the client's last.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xeyes"), "xeyes is not installed: apt-get install x11-apps"))
    func clientsThatDieOrFloodLeaveTheDaemonServing() throws {
        let setup = try XWaylandSetup(rules: "[[compositor.rules]]\napp_id = \"XEyes\"\nlayer = \"x11\"\n")
        let log = setup.daemon.directory.appendingPathComponent("xeyes.stderr").path
        let eyes = try ChildProcess("/usr/bin/xeyes", [], stderrPath: log, environment: ["DISPLAY": setup.display])
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        #expect(mapped["appId"] == .string("XEyes") && mapped["layer"] == .string("x11"), "\(mapped.text)")
        kill(eyes.pid, SIGKILL)
        let unmapped = try setup.control.waitForEvent("surface.unmapped", timeout: 10)
        #expect(unmapped["surface"] == mapped["surface"])
        #expect(try setup.control.request(#"{"cmd": "surface.list"}"#)["result"]?["surfaces"] == .array([]))

        let flood = try setup.client(instance: "flood")
        try flood.waitUntilExposed()
        let id = try #require(try setup.control.waitForEvent("surface.mapped", timeout: 20)["surface"]?.number)
        for i in 0..<20000 { flood.setTitle("title \(i)") }
        flood.churnWindows(3000)
        flood.setTitle("the last title", flush: true)
        // The daemon answers while it reads the flood.
        let start = Date()
        _ = try setup.control.request(#"{"cmd": "stats"}"#)
        #expect(Date().timeIntervalSince(start) < 2, "a request waited \(Date().timeIntervalSince(start)) s behind the flood")
        let deadline = Date().addingTimeInterval(20)
        var title: JSON?
        repeat {
            flood.pump(for: 0.1)
            title = try setup.control.request(#"{"cmd": "surface.list"}"#)["result"]?["surfaces"]?.array?.first { $0["surface"] == .number(id) }?["title"]
        } while title != .string("the last title") && Date() < deadline
        #expect(title == .string("the last title"))
        #expect(setup.daemon.isRunning)
    }

    /// Xwayland killed: the log says so, its windows are unmapped, and the next X11
    /// program starts it again.
    @Test func xwaylandEndingIsLoggedAndItStartsAgainOnTheNextConnection() throws {
        let setup = try XWaylandSetup()
        let client = try setup.client()
        try client.waitUntilExposed()
        _ = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        let first = try #require(setup.xwaylandPID)
        kill(first, SIGKILL)
        _ = try setup.control.waitForEvent("surface.unmapped", timeout: 10)
        client.pump(for: 0.2)
        #expect(!client.isConnected)
        let said = "Xwayland (pid \(first)) ended: signal SIGKILL"
        let deadline = Date().addingTimeInterval(5)
        while !setup.daemon.standardError.contains(said), Date() < deadline { usleep(50_000) }
        #expect(setup.daemon.standardError.contains(said), "\(setup.daemon.standardError.suffix(2000))")
        let again = try setup.client()
        try again.waitUntilExposed(timeout: 30)
        _ = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        let second = try #require(setup.xwaylandPID)
        #expect(second != first)
        #expect(setup.daemon.isRunning)
    }
}

/// Whether the colours `a` and `b` (0xRRGGBB) are within 4 of each other in every channel.
func close(_ a: UInt32, _ b: UInt32) -> Bool {
    (0..<3).allSatisfy { channel in
        let shift = UInt32(channel * 8)
        return abs(Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF)) <= 4
    }
}
