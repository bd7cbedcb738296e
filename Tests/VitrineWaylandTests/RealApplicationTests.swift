import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineRaster

/// Programs Debian ships, as clients of the daemon's compositor: foot (a terminal), mpv
/// (`--vo=wlshm`, a generated video) and Chromium (`--ozone-platform=wayland`, software
/// rendering, a local page). Each is shown by a `surface` layer at (`left`, `top`) and
/// checked on the screenshot by what it must draw: its configured colours, text, the
/// video's colour, the page's two blocks.
@Suite(.serialized) struct RealApplicationTests {
    /// The layer's place on the 640 × 400 screen and its size.
    static let left = 70, top = 50, width = 500, height = 300
    static let screen: UInt32 = 0x20_3040

    /// The compositor (headless, 640×400) with a 500×300 surface layer `app` that takes the
    /// toplevels of `appID` (none: `surface.assign` places them), and a runtime directory for the client.
    struct Setup {
        let daemon: DaemonProcess
        let control: SocketClient
        let environment: [String: String]

        /// `outputs`: `[[outputs]]` tables for the one headless output (its scale).
        init(appID: String?, outputs: String = "") throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-apps-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let config = directory.appendingPathComponent("vitrine.toml").path
            let rule = appID.map { "[[compositor.rules]]\napp_id = \"\($0)\"\nlayer = \"app\"\n" } ?? ""
            try "[output]\nheadless_size = \"640x400\"\nbackground = \"#203040\"\n\(outputs)[compositor]\nenabled = true\nsocket = \"wl\"\n\(rule)"
                .write(toFile: config, atomically: true, encoding: .utf8)
            daemon = try DaemonProcess(arguments: ["--config", config, "--log-level", "info"])
            control = try daemon.connect()
            try control.ok(#"{"cmd": "subscribe", "events": ["surface.*"]}"#)
            let (x, y) = (RealApplicationTests.left + RealApplicationTests.width / 2, RealApplicationTests.top + RealApplicationTests.height / 2)
            try control.ok(
                #"{"cmd": "layer.add", "layer": "app", "kind": "surface", "properties": {"bounds": [0, 0, \#(RealApplicationTests.width), \#(RealApplicationTests.height)], "position": [\#(x), \#(y)]}}"#
            )
            environment = [
                "WAYLAND_DISPLAY": daemon.directory.appendingPathComponent("wl").path, "XDG_RUNTIME_DIR": directory.path, "HOME": directory.path,
                "DISPLAY": "",
            ]
        }

        var directory: String { environment["XDG_RUNTIME_DIR"]! }

        /// Starts `executable`; its standard error goes to NAME.stderr in the directory.
        func start(_ executable: String, _ arguments: [String]) throws -> (ChildProcess, String) {
            let log = directory + "/" + URL(fileURLWithPath: executable).lastPathComponent + ".stderr"
            return (try ChildProcess(executable, arguments, stderrPath: log, environment: environment), log)
        }

        /// Chromium showing the file `page` as an app window (a profile of its own in the
        /// directory; `--test-type` leaves out the bar over the page that `--no-sandbox` brings).
        func startChromium(_ page: String) throws -> (ChildProcess, String) {
            try start(
                "/usr/bin/chromium",
                [
                    "--ozone-platform=wayland", "--disable-gpu", "--no-sandbox", "--user-data-dir=\(directory)/profile", "--no-first-run",
                    "--disable-features=Translate", "--test-type", "--app=file://\(page)",
                ])
        }

        /// Screenshots until `accept` takes one (a client's first frames take a while), at
        /// most `timeout` seconds; the last one, written to the failures directory.
        func screenshot(_ name: String, timeout: Double, until accept: (Surface) -> Bool) throws -> Surface {
            let deadline = Date().addingTimeInterval(timeout)
            var shot = try control.screenshot(name)
            while !accept(shot), Date() < deadline {
                usleep(200_000)
                shot = try control.screenshot(name)
            }
            try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("apps-\(name).png").path)
            return shot
        }
    }

    /// The pixel at (`x`, `y`) of the layer, as 0xRRGGBB.
    static func rgb(_ shot: Surface, _ x: Int, _ y: Int) -> UInt32 {
        shot.pixels[(top + y) * shot.stride + left + x] & 0xFF_FFFF
    }

    /// How many of the layer's pixels in `rows` × `columns` satisfy `test`.
    static func count(_ shot: Surface, rows: Range<Int>, columns: Range<Int>, _ test: (UInt32) -> Bool) -> Int {
        var n = 0
        for y in rows { for x in columns where test(rgb(shot, x, y)) { n += 1 } }
        return n
    }

    /// True when each channel of `a` is within `tolerance` of `b`'s.
    static func near(_ a: UInt32, _ b: UInt32, _ tolerance: Int32) -> Bool {
        [UInt32(16), 8, 0].allSatisfy { (shift: UInt32) -> Bool in
            let x = Int32((a >> shift) & 0xFF), y = Int32((b >> shift) & 0xFF)
            return abs(x - y) <= tolerance
        }
    }

    static func log(_ path: String) -> String { String((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").suffix(2000).description }

    static func installed(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    @Test(
        .enabled(if: installed("/usr/bin/foot"), "foot is not installed: apt-get install foot"))
    func footShowsItsColoursAndText() throws {
        let setup = try Setup(appID: "foot")
        let ini = setup.directory + "/foot.ini"
        try "[main]\nfont=DejaVu Sans Mono:size=14\npad=0x0\n[csd]\npreferred=none\n[colors]\nbackground=2040c0\nforeground=ffff00\n[cursor]\nblink=no\n"
            .write(toFile: ini, atomically: true, encoding: .utf8)
        let (foot, log) = try setup.start("/usr/bin/foot", ["--config", ini, "/bin/sh", "-c", "printf 'VITRINE VITRINE VITRINE'; exec sleep 60"])
        defer { _ = foot.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        #expect(mapped["appId"] == .string("foot") && mapped["layer"] == .string("app"), "\(mapped.text) \(Self.log(log))")
        let yellow = { (p: UInt32) in (p >> 16) & 0xFF > 0xC0 && (p >> 8) & 0xFF > 0xC0 && p & 0xFF < 0x60 }
        let shot = try setup.screenshot("foot", timeout: 10) { Self.count($0, rows: 0..<30, columns: 0..<Self.width, yellow) > 150 }
        // The first line holds the text in the foreground colour; the rest of the window is
        // the background, exactly.
        #expect(Self.count(shot, rows: 0..<30, columns: 0..<Self.width, yellow) > 150, "no yellow text on the first line: \(Self.log(log))")
        let below = Self.count(shot, rows: 40..<Self.height, columns: 0..<Self.width) { $0 != 0x20_40C0 }
        #expect(below == 0, "\(below) pixels below the first line are not foot's background #2040c0")
        #expect(Self.rgb(shot, -1, 100) == Self.screen && Self.rgb(shot, Self.width, 100) == Self.screen, "the window spills out of its layer")
        #expect(foot.isRunning, "foot stopped: \(Self.log(log))")
    }

    @Test(
        .enabled(
            if: installed("/usr/bin/mpv") && installed("/usr/bin/gst-launch-1.0"),
            "mpv or gst-launch-1.0 is not installed: apt-get install mpv gstreamer1.0-tools"))
    func mpvPlaysAGeneratedVideo() throws {
        let setup = try Setup(appID: "mpv")
        let video = setup.directory + "/orange.avi"
        let made = try ChildProcess(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "videotestsrc", "num-buffers=90", "pattern=solid-color", "foreground-color=0xffe08020", "!",
                "video/x-raw,width=200,height=120,framerate=30/1", "!", "jpegenc", "!", "avimux", "!", "filesink", "location=\(video)",
            ], stderrPath: setup.directory + "/gst.stderr")
        #expect(made.wait(timeout: 30) == 0, "gst-launch-1.0 failed: \(Self.log(setup.directory + "/gst.stderr"))")
        let (mpv, log) = try setup.start("/usr/bin/mpv", ["--no-config", "--vo=wlshm", "--no-audio", "--loop=inf", "--really-quiet", video])
        defer { _ = mpv.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        #expect(mapped["appId"] == .string("mpv") && mapped["layer"] == .string("app"), "\(mapped.text) \(Self.log(log))")
        // The 5:3 video fills the 5:3 layer: orange (through JPEG and YUV) from edge to edge.
        let orange = { (p: UInt32) in Self.near(p, 0xE0_8020, 24) }
        let shot = try setup.screenshot("mpv", timeout: 10) {
            Self.count($0, rows: 0..<Self.height, columns: 0..<Self.width, orange) == Self.width * Self.height
        }
        let off = Self.count(shot, rows: 0..<Self.height, columns: 0..<Self.width) { !orange($0) }
        #expect(off == 0, "\(off) pixels of the layer are not the video's orange (centre \(String(Self.rgb(shot, 250, 150), radix: 16))): \(Self.log(log))")
        #expect(Self.rgb(shot, 250, -1) == Self.screen && Self.rgb(shot, 250, Self.height) == Self.screen, "the video spills out of its layer")
        #expect(mpv.isRunning, "mpv stopped: \(Self.log(log))")
        // Stopping the daemon with the player connected disconnects it and exits cleanly.
        #expect(setup.daemon.stop() == 0, "\(setup.daemon.standardError.suffix(2000))")
    }

    @Test(.enabled(if: installed("/usr/bin/chromium"), "chromium is not installed: apt-get install chromium"))
    func chromiumShowsALocalPage() throws {
        let setup = try Setup(appID: nil)
        let page = setup.directory + "/page.html"
        try
            #"<!doctype html><html><body style="margin:0;background:#10a040"><div style="position:fixed;left:0;top:0;width:50%;height:50%;background:#e02020"></div></body></html>"#
            .write(toFile: page, atomically: true, encoding: .utf8)
        let (chromium, log) = try setup.startChromium(page)
        defer { _ = chromium.terminate() }
        // An --app window's app id names the page (chrome-<url>-Default): it is given its
        // layer by surface.assign, and resized to it.
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 30)
        let id = try #require(mapped["surface"]?.number, "\(mapped.text) \(Self.log(log))")
        #expect(mapped["appId"]?.string?.hasPrefix("chrome-") == true, "\(mapped.text)")
        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(id)), "layer": "app"}"#)
        // The page: red over its top-left quarter, green elsewhere. Probed away from the
        // block's edges and from a title bar Chromium may draw at the top.
        let probes: [(Int, Int, UInt32)] = [(60, 120, 0xE0_2020), (200, 130, 0xE0_2020), (440, 100, 0x10_A040), (100, 260, 0x10_A040), (440, 260, 0x10_A040)]
        let shows = { (shot: Surface) in probes.allSatisfy { Self.near(Self.rgb(shot, $0.0, $0.1), $0.2, 4) } }
        let shot = try setup.screenshot("chromium", timeout: 30, until: shows)
        let seen = probes.map { String(Self.rgb(shot, $0.0, $0.1), radix: 16) }.joined(separator: " ")
        #expect(shows(shot), "the page's blocks are not where they should be (\(seen)): \(Self.log(log))")
        #expect(chromium.isRunning, "chromium stopped: \(Self.log(log))")
    }
}
