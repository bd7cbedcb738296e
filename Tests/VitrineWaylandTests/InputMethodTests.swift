import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineRaster
import VitrineTestSupport

/// On-screen keyboards and virtual keyboards as clients of the compositor: Debian's `wvkbd`
/// (a layer surface at the bottom of the screen, keys sent through
/// `zwp_virtual_keyboard_v1`) started by the daemon as a `[[clients]]` entry, and `wtype`
/// (a virtual keyboard with a keymap of its own), typing into foot, whose shell writes what
/// it reads to a file; and the policy that keeps the keyboard globals from other clients.
@Suite(.serialized) struct InputMethodTests {
    static let screenWidth = 640, screenHeight = 400

    /// The compositor (headless, 640×400) with foot's window in the surface layer `app`
    /// (the top 200 rows), `extra` configuration, and a directory for the clients.
    struct Setup {
        let daemon: DaemonProcess
        let control: SocketClient
        let directory: String
        let environment: [String: String]

        init(extra: String = "") throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-im-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            directory = base.path
            let config = base.appendingPathComponent("vitrine.toml").path
            try """
            [output]
            headless_size = "640x400"
            background = "#203040"
            [compositor]
            enabled = true
            socket = "wl"
            \(extra)
            [[compositor.rules]]
            app_id = "foot"
            layer = "app"
            """.write(toFile: config, atomically: true, encoding: .utf8)
            daemon = try DaemonProcess(arguments: ["--config", config, "--log-level", "info"])
            control = try daemon.connect()
            try control.ok(#"{"cmd": "subscribe", "events": ["surface.*"]}"#)
            try control.ok(#"{"cmd": "layer.add", "layer": "app", "kind": "surface", "properties": {"bounds": [0, 0, 640, 200], "position": [320, 100]}}"#)
            environment = [
                "WAYLAND_DISPLAY": daemon.directory.appendingPathComponent("wl").path, "XDG_RUNTIME_DIR": directory, "HOME": directory, "DISPLAY": "",
            ]
        }

        /// foot running a shell that writes each byte it reads (no line editing) to `typed`.
        func startFoot() throws -> (ChildProcess, String) {
            let ini = directory + "/foot.ini"
            try "[main]\nfont=DejaVu Sans Mono:size=10\n[csd]\npreferred=none\n".write(toFile: ini, atomically: true, encoding: .utf8)
            let typed = directory + "/typed"
            let foot = try ChildProcess(
                "/usr/bin/foot", ["--config", ini, "/bin/sh", "-c", "stty -icanon -echo; exec cat > \(typed)"], stderrPath: directory + "/foot.stderr",
                environment: environment)
            _ = try control.waitForEvent("surface.mapped", timeout: 20) { $0["appId"] == .string("foot") }
            return (foot, typed)
        }

        func tap(_ x: Int, _ y: Int) throws {
            try control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": 1, "point": [\#(x), \#(y)]}"#)
            usleep(50_000)
            try control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up", "touch": 1, "point": [\#(x), \#(y)]}"#)
        }

        /// The file's text once it holds `count` bytes, or what it holds after `timeout` seconds.
        func read(_ path: String, count: Int, timeout: Double = 10) -> String {
            let deadline = Date().addingTimeInterval(timeout)
            var text = ""
            repeat {
                text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                if text.utf8.count >= count { break }
                usleep(100_000)
            } while Date() < deadline
            return text
        }
    }

    static func installed(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    static func log(_ path: String) -> String { ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").suffix(1500).description }

    @Test(.enabled(if: installed("/usr/bin/wtype") && installed("/usr/bin/foot"), "apt-get install wtype foot"))
    func wtypesKeymapAndKeysReachTheFocusedWindow() throws {
        let setup = try Setup(extra: "input_method_clients = \"all\"")
        let (foot, typed) = try setup.startFoot()
        defer { _ = foot.terminate() }
        try setup.tap(320, 100)
        let wtype = try ChildProcess("/usr/bin/wtype", ["Vitrine ß€"], stderrPath: setup.directory + "/wtype.stderr", environment: setup.environment)
        #expect(wtype.wait(timeout: 10) == 0, "wtype: \(Self.log(setup.directory + "/wtype.stderr"))")
        let text = setup.read(typed, count: "Vitrine ß€".utf8.count)
        #expect(text == "Vitrine ß€", "foot's shell read '\(text)': \(Self.log(setup.directory + "/foot.stderr"))")
    }

    @Test(.enabled(if: installed("/usr/bin/wtype"), "apt-get install wtype"))
    func aClientTheDaemonDidNotStartSeesNoVirtualKeyboard() throws {
        let setup = try Setup()
        let wtype = try ChildProcess("/usr/bin/wtype", ["x"], stderrPath: setup.directory + "/wtype.stderr", environment: setup.environment)
        let status = wtype.wait(timeout: 10)
        #expect(status != nil && status != 0)
        #expect(Self.log(setup.directory + "/wtype.stderr").contains("virtual keyboard"), "\(Self.log(setup.directory + "/wtype.stderr"))")
    }

    /// `input_method_clients` is taken by `config.reload`: a client the daemon did not start
    /// is refused the virtual keyboard, then given it once the policy says "all".
    @Test(.enabled(if: installed("/usr/bin/wtype"), "apt-get install wtype"))
    func theInputMethodPolicyChangesOnReload() throws {
        let setup = try Setup()
        let refused = try ChildProcess("/usr/bin/wtype", ["x"], stderrPath: setup.directory + "/refused.stderr", environment: setup.environment)
        let before = refused.wait(timeout: 10)
        #expect(before != nil && before != 0, "wtype was not refused")
        let config = setup.directory + "/vitrine.toml"
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(of: "socket = \"wl\"\n", with: "socket = \"wl\"\ninput_method_clients = \"all\"\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        let reloaded = try setup.control.request(#"{"cmd": "config.reload"}"#)
        #expect(reloaded["ok"] == .bool(true) && reloaded["result"]?["restartNeeded"] == .array([]), "\(reloaded.text)")
        let allowed = try ChildProcess("/usr/bin/wtype", ["x"], stderrPath: setup.directory + "/allowed.stderr", environment: setup.environment)
        #expect(allowed.wait(timeout: 10) == 0, "\(Self.log(setup.directory + "/allowed.stderr"))")
    }

    @Test(.enabled(if: installed("/usr/bin/wvkbd-mobintl") && installed("/usr/bin/foot"), "apt-get install wvkbd foot"))
    func wvkbdStartedByTheDaemonIsAtTheBottomAndTypesIntoFoot() throws {
        let setup = try Setup(
            extra: """
                [[clients]]
                name = "keyboard"
                command = ["wvkbd-mobintl", "-L", "160", "-H", "160", "--fn", "DejaVu Sans 12"]
                """)
        let (foot, typed) = try setup.startFoot()
        defer { _ = foot.terminate() }
        let background: UInt32 = 0x20_3040
        var shot = try setup.control.screenshot("wvkbd")
        let deadline = Date().addingTimeInterval(15)
        func rgb(_ x: Int, _ y: Int) -> UInt32 { shot.pixels[y * shot.stride + x] & 0xFF_FFFF }
        while rgb(320, 390) == background, Date() < deadline {
            usleep(200_000)
            shot = try setup.control.screenshot("wvkbd")
        }
        try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("wvkbd.png").path)
        #expect(rgb(5, 395) != background && rgb(635, 245) != background, "wvkbd's 160 rows at the bottom are not drawn")
        #expect(rgb(5, 230) == background && rgb(635, 230) == background, "rows above wvkbd (and below foot's layer) are not the background")
        try setup.tap(320, 100)
        // wvkbd's full layout: Esc … / in its first of six rows, 1 … = in the second, q … p
        // in the third (from x = 32 to 608, each key 58 wide).
        try setup.tap(61, 305)
        try setup.tap(61 + 58 * 2, 305)
        let text = setup.read(typed, count: 2)
        #expect(text == "qe", "foot read '\(text)'")
    }

    /// squeekboard (Phosh's keyboard, an input method over input-method-v2, virtual keyboard
    /// and layer shell) started by the daemon in a D-Bus session of its own with GNOME's
    /// screen-keyboard setting on: it comes up when foot's text input is enabled (its
    /// terminal layout) and its keys type into foot.
    @Test(.enabled(if: installed("/usr/bin/squeekboard") && installed("/usr/bin/foot"), "apt-get install squeekboard foot"))
    func squeekboardStartedByTheDaemonComesUpForFootAndTypesIntoIt() throws {
        let setup = try Setup(
            extra: """
                [[clients]]
                name = "keyboard"
                command = ["dbus-run-session", "--", "sh", "-c", "gsettings set org.gnome.desktop.a11y.applications screen-keyboard-enabled true && exec squeekboard"]
                """)
        let (foot, typed) = try setup.startFoot()
        defer { _ = foot.terminate() }
        let background: UInt32 = 0x20_3040
        var shot = try setup.control.screenshot("squeekboard")
        func rgb(_ x: Int, _ y: Int) -> UInt32 { shot.pixels[y * shot.stride + x] & 0xFF_FFFF }
        let deadline = Date().addingTimeInterval(30)
        while rgb(320, 390) == background, Date() < deadline {
            try setup.tap(320, 100)
            usleep(500_000)
            shot = try setup.control.screenshot("squeekboard")
        }
        try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("squeekboard.png").path)
        #expect(rgb(5, 395) != background && rgb(635, 205) != background, "squeekboard is not drawn in the bottom half")
        // Its terminal layout on 640 × 200: q … p from y 230 to 265, a … l at y 292 (k at
        // x 512, s at 128).
        try setup.tap(512, 292)
        try setup.tap(128, 292)
        let text = setup.read(typed, count: 2)
        #expect(text == "ks", "foot read '\(text)'")
    }

    @Test(.enabled(if: installed("/usr/bin/foot"), "apt-get install foot"))
    func anInputMethodIsActivatedForFootsTextInputAndItsTextArrives() throws {
        let setup = try Setup(extra: "input_method_clients = \"all\"")
        let (foot, typed) = try setup.startFoot()
        defer { _ = foot.terminate() }
        let method = try InputMethodClient(setup.environment["WAYLAND_DISPLAY"]!)
        #expect(!method.active)
        try setup.tap(320, 100)
        try method.dispatch(until: { method.active }, what: "activate for foot's text input", timeout: 10)
        #expect(method.purpose == 13, "foot's content purpose is terminal (13), got \(method.purpose)")
        method.commit("héllo")
        let text = setup.read(typed, count: "héllo".utf8.count)
        #expect(text == "héllo", "foot's shell read '\(text)': \(Self.log(setup.directory + "/foot.stderr"))")
        let second = try InputMethodClient(setup.environment["WAYLAND_DISPLAY"]!)
        try second.dispatch(until: { second.unavailable }, what: "unavailable for a second input method")
        #expect(second.events == ["unavailable"])
        _ = foot.terminate()
        try method.dispatch(until: { !method.active }, what: "deactivate once foot is gone", timeout: 10)
    }

    @Test(.enabled(if: installed("/usr/bin/chromium"), "apt-get install chromium"))
    func chromiumsFocusedFieldActivatesTheInputMethodAndTakesItsText() throws {
        let setup = try Setup(extra: "input_method_clients = \"all\"")
        let page = setup.directory + "/form.html"
        try """
        <html><body style="margin:0;background:#fff">
        <input id="f" style="position:absolute;left:20px;top:20px;width:400px;height:60px;font-size:30px"
          oninput="document.title='typed:'+this.value">
        <script>document.title='ready'</script></body></html>
        """.write(toFile: page, atomically: true, encoding: .utf8)
        let chromium = try ChildProcess(
            "/usr/bin/chromium",
            [
                "--ozone-platform=wayland", "--enable-wayland-ime", "--wayland-text-input-version=3", "--disable-gpu", "--no-sandbox", "--test-type",
                "--user-data-dir=\(setup.directory)/profile", "--no-first-run", "--disable-features=Translate", "--app=file://\(page)",
            ], stderrPath: setup.directory + "/chromium.stderr", environment: setup.environment)
        defer { _ = chromium.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 60)
        guard case .number(let id) = mapped["surface"] else { throw DaemonError("no surface id in \(mapped.text)") }
        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(id)), "layer": "app"}"#)
        let method = try InputMethodClient(setup.environment["WAYLAND_DISPLAY"]!)
        let deadline = Date().addingTimeInterval(30)
        while !method.active, Date() < deadline {
            try setup.tap(100, 80)
            try? method.dispatch(until: { method.active }, what: "activate", timeout: 2)
        }
        #expect(method.active, "Chromium's text field did not enable its text input: \(Self.log(setup.directory + "/chromium.stderr"))")
        method.commit("kiosk")
        var title = ""
        let typedBy = Date().addingTimeInterval(15)
        repeat {
            let list = try setup.control.request(#"{"cmd": "surface.list"}"#)
            if case .array(let surfaces) = list["result"]?["surfaces"], case .string(let t) = surfaces.first?["title"] { title = t }
            if title == "typed:kiosk" { break }
            usleep(200_000)
        } while Date() < typedBy
        #expect(title == "typed:kiosk", "the page's title is '\(title)'")
    }

    /// Two wvkbd, each anchored to the bottom edge with an exclusive zone of its height: the
    /// second is placed above the first, not over it.
    @Test(.enabled(if: installed("/usr/bin/wvkbd-mobintl"), "apt-get install wvkbd"))
    func exclusiveZonesStackTwoKeyboardsAtTheBottom() throws {
        func keyboard(_ name: String, _ height: Int, _ colour: String) -> String {
            let colours = ["--bg", "--fg", "--fg-sp", "--text", "--text-sp"].map { "\"\($0)\", \"\(colour)\"" }.joined(separator: ", ")
            return "[[clients]]\nname = \"\(name)\"\ncommand = [\"wvkbd-mobintl\", \"-L\", \"\(height)\", \"-H\", \"\(height)\", \(colours)]\n"
        }
        let setup = try Setup(extra: keyboard("red", 100, "ff0000") + keyboard("green", 60, "00ff00"))
        let background: UInt32 = 0x20_3040
        var shot = try setup.control.screenshot("wvkbd-zones")
        func rgb(_ y: Int) -> UInt32 { shot.pixels[y * shot.stride + 1] & 0xFF_FFFF }
        // (wvkbd shades its colours a little: red and green are the channel that dominates)
        let red = { (c: UInt32) in c >> 16 > 0xA0 && (c >> 8) & 0xFF < 0x40 }
        let green = { (c: UInt32) in (c >> 8) & 0xFF > 0xA0 && c >> 16 < 0x40 }
        func rows(_ matches: (UInt32) -> Bool) -> [Int] { (0..<Self.screenHeight).filter { matches(rgb($0)) } }
        let deadline = Date().addingTimeInterval(15)
        while rows(red).count + rows(green).count < 160, Date() < deadline {
            usleep(200_000)
            shot = try setup.control.screenshot("wvkbd-zones")
        }
        try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("wvkbd-zones.png").path)
        let (r, g) = (rows(red), rows(green))
        #expect(r.count == 100 && g.count == 60, "red rows \(r.count), green rows \(g.count)")
        let bands = [(r.first ?? 0, r.last ?? 0), (g.first ?? 0, g.last ?? 0)].sorted { $0.0 < $1.0 }
        #expect(bands[0].0 == 240 && bands[0].1 + 1 == bands[1].0 && bands[1].1 == 399, "the two keyboards' rows: \(bands)")
        #expect(rgb(239) == background)
    }
}
