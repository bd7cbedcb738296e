import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// Screen capture for other tools (`zwlr_screencopy_manager_v1`) with the programs users
/// have: Debian's `grim` capturing the output and a region of it, `wayvnc` started by the
/// daemon serving the screen to a VNC client (vncdotool) whose click reaches a layer's
/// binding through `zwlr_virtual_pointer_v1`; the policy that keeps capture from other
/// clients; and a client of the tests' that gives a wrong buffer.
@Suite(.serialized) struct ScreenCaptureTests {
    /// The compositor (headless, 320×200, manual clock, no cursor) showing a red box and a
    /// label, with `extra` in `[compositor]` and `clients` after it.
    struct Setup {
        let daemon: DaemonProcess
        let control: SocketClient
        let directory: String
        let environment: [String: String]

        init(extra: String = "", clients: String = "") throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-capture-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            directory = base.path
            let config = base.appendingPathComponent("vitrine.toml").path
            try """
            [output]
            headless_size = "320x200"
            background = "#203040"
            [input]
            cursor = "hidden"
            [compositor]
            enabled = true
            socket = "wl"
            \(extra)
            \(clients)
            """.write(toFile: config, atomically: true, encoding: .utf8)
            daemon = try DaemonProcess(arguments: ["--config", config, "--log-level", "info"])
            control = try daemon.connect()
            try control.ok(
                ##"{"cmd": "layer.add", "layer": "box", "properties": {"bounds": [0, 0, 100, 50], "position": [160, 100], "backgroundColor": "#ff0000"}}"##)
            try control.ok(
                ##"{"cmd": "layer.add", "layer": "label", "kind": "text", "properties": {"bounds": [0, 0, 200, 30], "position": [100, 30], "string": "Vitrine", "fontSize": 20, "foregroundColor": "#ffffff"}}"##
            )
            environment = [
                "WAYLAND_DISPLAY": daemon.directory.appendingPathComponent("wl").path, "XDG_RUNTIME_DIR": directory, "HOME": directory, "DISPLAY": "",
            ]
        }

        var waylandPath: String { environment["WAYLAND_DISPLAY"]! }

        /// Runs grim with `arguments` to its end; its status and standard error.
        func grim(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
            try ChildProcess.runToExit("/usr/bin/grim", arguments, environment: environment)
        }
    }

    static func installed(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// `vncdo`, from vncdotool (PyPI), wherever pip put it.
    static let vncdo: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/vncdo" }.first(where: installed)

    @Test(.enabled(if: installed("/usr/bin/grim"), "apt-get install grim"))
    func grimCapturesTheOutputAndARegionAsTheScreenshotShowsThem() throws {
        let setup = try Setup(extra: "screencopy_clients = \"all\"")
        let screenshot = try setup.control.screenshot("capture-expected")
        let whole = setup.directory + "/whole.png"
        let run = try setup.grim([whole])
        try #require(run.status == 0, "grim: \(run.stderr)")
        let captured = try Surface(contentsOfPNG: whole)
        #expect(try GoldenImage.mismatch(captured, expected: screenshot, name: "grim-whole", tolerance: 2) == nil)
        let part = setup.directory + "/part.png"
        let region = try setup.grim(["-g", "120,80 100x50", part])
        try #require(region.status == 0, "grim -g: \(region.stderr)")
        let expected = screenshot.copy(PixelRect(x: 120, y: 80, width: 100, height: 50))
        #expect(try GoldenImage.mismatch(try Surface(contentsOfPNG: part), expected: expected, name: "grim-region", tolerance: 2) == nil)
    }

    /// Two outputs side by side (`zxdg_output_v1` places them): grim's picture holds each
    /// output's screenshot where xdg-output puts it, and `-o` captures one.
    @Test(.enabled(if: installed("/usr/bin/grim"), "apt-get install grim"))
    func grimCapturesTwoOutputsWhereXDGOutputPlacesThem() throws {
        let (daemon, directory) = try DaemonProcess.twoOutputs(extra: "\n[compositor]\nenabled = true\nsocket = \"wl\"\nscreencopy_clients = \"all\"\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let control = try daemon.connect()
        func screenshot(_ output: String) throws -> Surface {
            let reply = try control.request(#"{"cmd": "screenshot", "output": "\#(output)", "path": "\#(output).png"}"#)
            return try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
        }
        let (left, right) = (try screenshot("HDMI-A-1"), try screenshot("HDMI-A-2"))
        let environment = ["WAYLAND_DISPLAY": daemon.directory.appendingPathComponent("wl").path, "XDG_RUNTIME_DIR": directory.path]
        let both = directory.appendingPathComponent("both.png").path
        let run = try ChildProcess.runToExit("/usr/bin/grim", [both], environment: environment)
        try #require(run.status == 0, "grim: \(run.stderr)")
        let picture = try Surface(contentsOfPNG: both)
        try #require(picture.width == 520 && picture.height == 320, "\(picture.width)×\(picture.height)")
        #expect(try GoldenImage.mismatch(picture.copy(PixelRect(x: 0, y: 0, width: 320, height: 200)), expected: left, name: "grim-left", tolerance: 2) == nil)
        #expect(
            try GoldenImage.mismatch(picture.copy(PixelRect(x: 320, y: 0, width: 200, height: 320)), expected: right, name: "grim-right", tolerance: 2) == nil)
        let one = directory.appendingPathComponent("one.png").path
        let only = try ChildProcess.runToExit("/usr/bin/grim", ["-o", "HDMI-A-2", one], environment: environment)
        try #require(only.status == 0, "grim -o: \(only.stderr)")
        #expect(try GoldenImage.mismatch(try Surface(contentsOfPNG: one), expected: right, name: "grim-output", tolerance: 2) == nil)
    }

    @Test(.enabled(if: installed("/usr/bin/grim"), "apt-get install grim"))
    func byDefaultNoClientMayCaptureAndTheDaemonCarriesOn() throws {
        let setup = try Setup()
        let run = try setup.grim([setup.directory + "/refused.png"])
        #expect(run.status != 0 && run.stderr.contains("wlr-screencopy"), "grim: \(run.status) \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: setup.directory + "/refused.png"))
        try setup.control.ok(
            ##"{"cmd": "transaction", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "box", "properties": {"backgroundColor": "#00ff00"}}]}"##
        )
        #expect(try setup.control.screenshot("after-refusal").pixel(x: 160, y: 100).argb == 0xFF00_FF00, "the daemon draws on")
    }

    /// `screencopy_clients` is taken by `config.reload`: grim, refused, captures once the
    /// policy says "all".
    @Test(.enabled(if: installed("/usr/bin/grim"), "apt-get install grim"))
    func theCapturePolicyChangesOnReload() throws {
        let setup = try Setup()
        #expect(try setup.grim([setup.directory + "/before.png"]).status != 0, "grim was not refused")
        let config = setup.directory + "/vitrine.toml"
        try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
            of: "socket = \"wl\"\n", with: "socket = \"wl\"\nscreencopy_clients = \"all\"\n"
        )
        .write(toFile: config, atomically: true, encoding: .utf8)
        let reloaded = try setup.control.request(#"{"cmd": "config.reload"}"#)
        #expect(reloaded["ok"] == .bool(true) && reloaded["result"]?["restartNeeded"] == .array([]), "\(reloaded.text)")
        let after = try setup.grim([setup.directory + "/after.png"])
        #expect(after.status == 0, "grim: \(after.stderr)")
    }

    /// A capture client of the tests' copies the output (and a region), is told the
    /// damage since its last copy, and a buffer of the wrong size is the protocol error
    /// `invalid_buffer` for that client only.
    @Test func aCaptureTellsItsDamageAndAWrongBufferIsAProtocolError() throws {
        let setup = try Setup(extra: "screencopy_clients = \"all\"")
        let screenshot = try setup.control.screenshot("client-expected")
        let client = try ScreencopyClient(setup.waylandPath)
        let first = try client.capture()
        #expect(first.buffer?.width == 320 && first.buffer?.height == 200 && first.buffer?.stride == 1280 && first.buffer?.format == 1)
        try client.copy(first, withDamage: true)
        try #require(first.ready && first.flags == 0, "ready: \(first.ready), failed: \(first.failed)")
        #expect(try GoldenImage.mismatch(try #require(first.picture), expected: screenshot, name: "client-whole", tolerance: 0) == nil)
        #expect(first.damage == [PixelRect(x: 0, y: 0, width: 320, height: 200)], "a first copy is damaged whole: \(first.damage)")
        let second = try client.capture()
        try client.copy(second, withDamage: true, wait: false)
        client.roundtrip()
        #expect(!second.ready, "copy_with_damage waits for damage")
        try setup.control.ok(
            ##"{"cmd": "transaction", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "box", "properties": {"backgroundColor": "#0000ff"}}]}"##
        )
        try client.dispatch(until: { second.ready || second.failed }, what: "ready after damage")
        // The box, within the pixel around it that the renderer's damage takes in.
        let (box, around) = (PixelRect(x: 110, y: 75, width: 100, height: 50), PixelRect(x: 109, y: 74, width: 102, height: 52))
        let damaged = second.damage.reduce(PixelRect.empty) { $0.union($1) }
        #expect(damaged.union(box) == damaged && around.union(damaged) == around, "the box's damage: \(second.damage)")
        let region = try client.capture(region: PixelRect(x: 150, y: 90, width: 40, height: 20))
        #expect(region.buffer?.width == 40 && region.buffer?.height == 20)
        try client.copy(region)
        let blue = try #require(region.picture)
        #expect(blue.pixel(x: 20, y: 10).argb == 0xFF00_00FF, "the box's blue: \(String(blue.pixel(x: 20, y: 10).argb, radix: 16))")
        let unchanged = try client.capture(region: PixelRect(x: 150, y: 90, width: 40, height: 20))
        try client.copy(unchanged, withDamage: true, wait: false)
        try setup.control.ok(
            ##"{"cmd": "transaction", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "label", "properties": {"foregroundColor": "#ffff00"}}]}"##
        )
        client.roundtrip()
        #expect(!unchanged.ready, "a change outside the region it copied last is no damage to it")
        let wrong = try client.capture()
        try client.copy(wrong, width: 319, wait: false)
        let error = client.protocolError()
        #expect(error?.code == 1 && error?.interface == "zwlr_screencopy_frame_v1", "\(String(describing: error))")
        let again = try ScreencopyClient(setup.waylandPath)
        let later = try again.capture()
        try again.copy(later)
        #expect(later.ready, "another client captures on")
    }

    /// wayvnc started by the daemon (`[[clients]]`, the default "launched" policy for its
    /// virtual pointer and keyboard, capture allowed to launched clients) serves the screen:
    /// vncdotool's picture is the screenshot, and its click taps the box's binding, which
    /// its next picture shows.
    @Test(.enabled(if: installed("/usr/bin/wayvnc") && vncdo != nil, "apt-get install wayvnc; pip install vncdotool"))
    func wayvncStartedByTheDaemonServesTheScreenAndItsClickTapsABinding() throws {
        let port = try HTTPConnection.freePort()
        let setup = try Setup(
            extra: "screencopy_clients = \"launched\"",
            clients: "[[clients]]\nname = \"vnc\"\ncommand = [\"wayvnc\", \"127.0.0.1\", \"\(port)\"]\nrestart = \"never\"\n")
        try setup.control.ok(
            ##"{"cmd": "binding.add", "layer": "box", "on": "tap", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "box", "properties": {"backgroundColor": "#00ff00"}}]}"##
        )
        try setup.control.ok(#"{"cmd": "subscribe", "events": ["layer.tap"]}"#)
        let vncdo = try #require(Self.vncdo)
        let server = "127.0.0.1::\(port)"
        var captured: Surface?
        let deadline = Date().addingTimeInterval(20)
        let picture = setup.directory + "/vnc.png"
        while captured == nil, Date() < deadline {
            if try ChildProcess.runToExit(vncdo, ["-s", server, "-t", "5", "capture", picture]).status == 0 { captured = try? Surface(contentsOfPNG: picture) }
            if captured == nil { usleep(200_000) }
        }
        let screenshot = try setup.control.screenshot("vnc-expected")
        #expect(try GoldenImage.mismatch(try #require(captured, "no picture from wayvnc"), expected: screenshot, name: "wayvnc", tolerance: 2) == nil)
        let click = try ChildProcess.runToExit(vncdo, ["-s", server, "-t", "5", "move", "160", "100", "click", "1"])
        #expect(click.status == 0, "vncdo: \(click.stderr)")
        let tap = try setup.control.waitForEvent("layer.tap")
        #expect(tap["layer"] == .string("box"), "\(tap)")
        let after = setup.directory + "/after.png"
        #expect(try ChildProcess.runToExit(vncdo, ["-s", server, "-t", "5", "capture", after]).status == 0)
        #expect(try Surface(contentsOfPNG: after).pixel(x: 160, y: 100).argb == 0xFF00_FF00, "the binding's green through VNC")
    }
}
