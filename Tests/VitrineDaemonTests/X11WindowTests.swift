import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// `vitrined --backend x11` in a window on an Xvfb the test starts: the window's pixels
/// (GetImage) equal `vitrined render` of the same scene, with MIT-SHM and without it; a
/// click (XTest, through xdotool) reaches a layer as a binding and a `layers` event; resizing
/// the window resizes the root layer and the picture; closing it (WM_DELETE_WINDOW) or
/// losing the display stops the daemon cleanly.
@Suite(.enabled(if: XServer.executable != nil, "Xvfb is not installed: apt-get install xvfb (CI installs it)"))
struct X11WindowTests {
    static let scene = """
        {"size": [240, 160], "background": "#20303f",
         "layers": [
          {"id": "button", "properties": {"bounds": [0, 0, 100, 50], "position": [70, 50], "backgroundColor": "#d03030", "cornerRadius": 12}},
          {"id": "ring", "properties": {"bounds": [0, 0, 60, 60], "position": [180, 60], "borderWidth": 5, "borderColor": "#ffd166", "cornerRadius": 30}},
          {"id": "label", "kind": "text", "properties": {"bounds": [0, 0, 220, 40], "position": [120, 125], "string": "Vitrine 26", "fontSize": 28, "alignmentMode": "center", "foregroundColor": "white"}}]}
        """

    /// A daemon showing `scene` in a window on `server`, and the window's id.
    struct Window {
        let daemon: DaemonProcess
        let id: UInt32
        let scenePath: String
    }

    static func open(on server: XServer, arguments: [String] = []) throws -> Window {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-x11-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scenePath = directory.appendingPathComponent("scene.json").path
        try scene.write(toFile: scenePath, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            clock: "realtime", backend: "x11", environment: ["DISPLAY": server.display],
            arguments: ["--mode", "240x160@60", "--scene", scenePath, "--log-level", "info"] + arguments)
        return Window(daemon: daemon, id: try server.window(titled: "Vitrine"), scenePath: scenePath)
    }

    /// `vitrined render` of the scene at `size`.
    static func reference(_ scenePath: String, size: String) throws -> Surface {
        let out = scenePath.replacingOccurrences(of: "scene.json", with: "reference-\(size).png")
        let run = try DaemonProcess.runToExit(["render", "--scene", scenePath, "--size", size, "--out", out])
        try #require(run.status == 0, "vitrined render: \(run.stderr)")
        return try Surface(contentsOfPNG: out)
    }

    /// Waits up to `timeout` seconds for the window to show `expected`; nil when it does,
    /// else the mismatch.
    static func waitForPicture(_ expected: Surface, in window: UInt32, on server: XServer, name: String, timeout: Double = 15) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var shown = try server.image(of: window)
        while Date() < deadline {
            if shown.width == expected.width, shown.height == expected.height, shown.hasSamePixels(as: expected) { return nil }
            usleep(50_000)
            shown = try server.image(of: window)
        }
        return try GoldenImage.mismatch(shown, expected: expected, name: name)
    }

    @Test(arguments: [true, false])
    func theWindowShowsWhatTheHeadlessRenderOfTheSceneShows(sharedMemory: Bool) throws {
        let server = try XServer(sharedMemory: sharedMemory)
        let window = try Self.open(on: server)
        #expect(server.size(of: window.id)! == (240, 160))
        let expected = try Self.reference(window.scenePath, size: "240x160")
        let mismatch = try Self.waitForPicture(expected, in: window.id, on: server, name: "x11-window-\(sharedMemory ? "shm" : "put-image")")
        #expect(mismatch == nil, "\(mismatch ?? "")")
        let log = window.daemon.standardError
        #expect(log.contains(sharedMemory ? "MIT-SHM" : "pixels in requests (no MIT-SHM)"), "\(log)")
        // The daemon's own screenshot is the same picture.
        let shot = try window.daemon.connect().request(#"{"cmd": "screenshot", "path": "shot.png"}"#)
        let path = try #require(shot["result"]?["path"]?.string, "\(shot)")
        #expect(try GoldenImage.mismatch(try Surface(contentsOfPNG: path), expected: expected, name: "x11-screenshot") == nil)
    }

    @Test func aClickInTheWindowFiresTheLayersBindingAndReachesItsSubscribers() throws {
        let server = try XServer()
        let window = try Self.open(on: server)
        let c = try window.daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["layer.tap", "layer.press"], "layers": ["button"]}"#)
        try c.ok(
            ##"{"cmd": "binding.add", "layer": "button", "on": "tap", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "#30d030"}}]}"##
        )
        let status = try server.xdotool(["mousemove", "--sync", "--window", String(window.id), "40", "45", "click", "1"])
        try #require(status != 127, "xdotool is not installed: apt-get install xdotool (CI installs it)")
        #expect(status == 0)
        var events: [JSON] = []
        let deadline = Date().addingTimeInterval(10)
        while !events.contains(where: { $0["event"] == .string("layer.tap") }), Date() < deadline {
            if let line = c.readLine(timeout: 1), let event = try? JSON(parsing: Data(line.utf8)) { events.append(event) }
        }
        let tap = try #require(events.first { $0["event"] == .string("layer.tap") }, "no layer.tap: \(events) \(window.daemon.standardError)")
        #expect(tap["layer"] == .string("button"), "\(tap)")
        let point = (tap["point"]?.array ?? []).compactMap(\.number)
        #expect(point == [20, 20], "the click at (40, 45) is (20, 20) in the button: \(tap)")
        #expect(events.first?["event"] == .string("layer.press"), "\(events)")
        // The binding's green shows in the window.
        let deadline2 = Date().addingTimeInterval(10)
        var pixel: UInt32 = 0
        while Date() < deadline2 {
            let image = try server.image(of: window.id)
            pixel = image.pixels[45 * image.stride + 40] & 0xFF_FFFF
            if pixel == 0x30_D030 { break }
            usleep(50_000)
        }
        #expect(pixel == 0x30_D030, "the button's pixel: \(String(pixel, radix: 16))")
    }

    @Test func keysInTheWindowAreReadWithTheServersKeymapAndFireKeyBindings() throws {
        let server = try XServer()
        let window = try Self.open(on: server)
        let c = try window.daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["input.key"]}"#)
        try c.ok(
            ##"{"cmd": "binding.add", "on": "key", "key": "A", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "ring", "properties": {"borderColor": "#00ffff"}}]}"##
        )
        // Xvfb's focus follows the pointer (no window manager): the keys go to the window under it.
        let status = try server.xdotool(["mousemove", "--sync", "--window", String(window.id), "5", "5", "key", "shift+a"])
        try #require(status != 127, "xdotool is not installed: apt-get install xdotool (CI installs it)")
        var keys: [JSON] = []
        let deadline = Date().addingTimeInterval(10)
        while keys.count < 4, Date() < deadline {
            if let line = c.readLine(timeout: 1), let event = try? JSON(parsing: Data(line.utf8)), event["event"] == .string("input.key") { keys.append(event) }
        }
        let a = try #require(keys.first { $0["keysym"] == .string("A") && $0["pressed"] == .bool(true) }, "no press of A: \(keys)")
        #expect(a["text"] == .string("A") && a["modifiers"] == .array([.string("Shift")]), "\(a)")
        #expect(keys.first?["keysym"] == .string("Shift_L"), "\(keys)")
        let ring = try c.request(#"{"cmd": "layer.get", "layer": "ring", "keys": ["borderColor"]}"#)
        #expect(ring["result"]?["properties"]?["borderColor"] == .string("#00ffff"), "\(ring)")
    }

    @Test func resizingTheWindowResizesTheRootLayerAndThePicture() throws {
        let server = try XServer()
        let window = try Self.open(on: server)
        let c = try window.daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["output.resized"]}"#)
        #expect(try server.xdotool(["windowsize", "--sync", String(window.id), "320", "200"]) == 0)
        let resized = try c.waitForEvent("output.resized")
        #expect(resized["size"] == .array([.number(320), .number(200)]) && resized["root"] == .string("root"), "\(resized)")
        var bounds: JSON?
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            bounds = try c.request(#"{"cmd": "layer.get", "layer": "root", "keys": ["bounds"]}"#)["result"]?["properties"]?["bounds"]
            if bounds == .array([0, 0, 320, 200].map { .number($0) }) { break }
            usleep(50_000)
        }
        #expect(bounds == .array([0, 0, 320, 200].map { .number($0) }), "\(window.daemon.standardError)")
        let expected = try Self.reference(window.scenePath, size: "320x200")
        let mismatch = try Self.waitForPicture(expected, in: window.id, on: server, name: "x11-window-resized")
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }

    @Test func closingTheWindowStopsTheDaemonCleanly() throws {
        let server = try XServer()
        let window = try Self.open(on: server)
        server.close(window.id)
        let status = window.daemon.waitForExit(timeout: 10)
        #expect(status == 0, "\(window.daemon.standardError)")
        #expect(window.daemon.standardError.contains("the window was closed: stopping"), "\(window.daemon.standardError)")
        #expect(window.daemon.standardError.contains("stopped"))
        #expect(server.windows(titled: "Vitrine").isEmpty, "the window is gone")
    }

    @Test func losingTheDisplayStopsTheDaemon() throws {
        let server = try XServer()
        let window = try Self.open(on: server)
        server.kill()
        let status = window.daemon.waitForExit(timeout: 10)
        #expect(status == 0, "\(window.daemon.standardError)")
        #expect(window.daemon.standardError.contains("was lost: stopping"), "\(window.daemon.standardError)")
    }

    @Test func withoutADisplayTheBackendSaysWhatIsMissing() throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-no-display-\(getpid()).sock").path
        let run = try DaemonProcess.runToExit(["--backend", "x11", "--socket", socket], environment: ["DISPLAY": ""])
        #expect(run.status == 1)
        #expect(run.stderr.contains("x11 output: the x11 backend needs an X display: DISPLAY is not set"), "\(run.stderr)")
        let unreachable = try DaemonProcess.runToExit(["--backend", "x11", "--socket", socket], environment: ["DISPLAY": ":9999"])
        #expect(unreachable.status == 1)
        #expect(unreachable.stderr.contains("cannot connect to the X server on display :9999"), "\(unreachable.stderr)")
    }
}
