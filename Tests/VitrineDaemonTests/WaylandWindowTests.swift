import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// `vitrined --backend wayland` in a window on a Weston the test starts: on headless Weston
/// (pixman renderer) its picture is in the compositor's screenshot exactly as
/// `vitrined render` draws the scene; on Weston in a window on Xvfb (whose pointer and
/// keyboard are the seat) a click (xdotool) reaches a layer as a binding and a `layers`
/// event, keys come through the compositor's keymap, and Weston's maximize (Super+Shift+M)
/// resizes the root layer and the picture; losing the compositor stops the daemon.
@Suite(.enabled(if: WestonServer.executable != nil, "weston is not installed: apt-get install weston (CI installs it)"))
struct WaylandWindowTests {
    static func open(on weston: WestonServer) throws -> (daemon: DaemonProcess, scenePath: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-wayland-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scenePath = directory.appendingPathComponent("scene.json").path
        try X11WindowTests.scene.write(toFile: scenePath, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            clock: "realtime", backend: "wayland", environment: weston.clientEnvironment,
            arguments: ["--mode", "240x160@60", "--scene", scenePath, "--log-level", "info"])
        return (daemon, scenePath)
    }

    /// Waits up to `timeout` seconds for `picture` to appear whole in what `look` shows;
    /// where it is.
    static func waitFor(_ picture: Surface, timeout: Double = 15, in look: () throws -> Surface) throws -> (x: Int, y: Int)? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let origin = try look().origin(of: picture) { return origin }
            usleep(100_000)
        } while Date() < deadline
        return nil
    }

    @Test func theCompositorShowsWhatTheHeadlessRenderOfTheSceneShows() throws {
        let weston = try WestonServer(width: 640, height: 480)
        let (daemon, scenePath) = try Self.open(on: weston)
        let expected = try X11WindowTests.reference(scenePath, size: "240x160")
        var last: Surface?
        let origin = try Self.waitFor(expected) {
            last = try weston.screenshot()
            return last!
        }
        if origin == nil, let last { try last.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("wayland-weston.actual.png").path) }
        #expect(
            origin != nil, "the scene's picture is not in Weston's screenshot (see .build/golden-failures/wayland-weston.actual.png): \(daemon.standardError)")
        #expect(daemon.standardError.contains("wayland: window on wayland-vitrine-test, 240x160"), "\(daemon.standardError)")
        let shot = try daemon.connect().request(#"{"cmd": "screenshot", "path": "shot.png"}"#)
        let path = try #require(shot["result"]?["path"]?.string, "\(shot)")
        #expect(try GoldenImage.mismatch(try Surface(contentsOfPNG: path), expected: expected, name: "wayland-screenshot") == nil)
    }

    @Test(.enabled(if: XServer.executable != nil, "Xvfb is not installed: apt-get install xvfb (CI installs it)"))
    func clicksKeysAndAMaximizeInWestonReachTheScene() throws {
        let x = try XServer()
        let weston = try WestonServer(width: 640, height: 480, on: x)
        let (daemon, scenePath) = try Self.open(on: weston)
        let deadline = Date().addingTimeInterval(15)
        var output: UInt32?
        while output == nil, Date() < deadline {
            output = x.viewableWindows().first
            if output == nil { usleep(50_000) }
        }
        let westonWindow = try #require(output, "Weston's window did not appear on \(x.display): \(weston.standardLog)")
        let expected = try X11WindowTests.reference(scenePath, size: "240x160")
        let found = try Self.waitFor(expected) { try x.image(of: westonWindow) }
        let origin = try #require(found, "the scene is not in Weston's window: \(daemon.standardError)")
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["layer.*", "input.key", "input.pointer"], "layers": ["button"]}"#)
        try c.ok(
            ##"{"cmd": "binding.add", "layer": "button", "on": "tap", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "#30d030"}}]}"##
        )
        // The pointer enters Weston's window from outside it (the X server's 800×600 screen):
        // Weston picks the surface under the pointer as it comes in.
        _ = try x.xdotool(["mousemove", "--sync", "790", "590"])
        let status = try x.xdotool(["mousemove", "--sync", "--window", String(westonWindow), String(origin.x + 40), String(origin.y + 45), "click", "1"])
        try #require(status != 127, "xdotool is not installed: apt-get install xdotool (CI installs it)")
        let tap = try c.waitForEvent("layer.tap")
        #expect(tap["layer"] == .string("button") && (tap["point"]?.array ?? []).compactMap(\.number) == [20, 20], "\(tap)")
        #expect(try x.xdotool(["key", "shift+a"]) == 0)
        let key = try c.waitForEvent("input.key") { $0["keysym"] == .string("A") }
        #expect(key["text"] == .string("A") && key["modifiers"] == .array([.string("Shift")]), "\(key)")
        // Weston's desktop shell maximizes the focused window on Super+Shift+M.
        #expect(try x.xdotool(["key", "super+shift+m"]) == 0)
        var bounds: [Double] = []
        let resized = Date().addingTimeInterval(10)
        while Date() < resized {
            bounds = (try c.request(#"{"cmd": "layer.get", "layer": "root", "keys": ["bounds"]}"#)["result"]?["properties"]?["bounds"]?.array ?? [])
                .compactMap(\.number)
            if bounds.count == 4, bounds[2] > 240 { break }
            usleep(50_000)
        }
        try #require(bounds.count == 4 && bounds[2] > 240 && bounds[3] > 160, "the root layer after maximizing: \(bounds) \(daemon.standardError)")
        let size = "\(Int(bounds[2]))x\(Int(bounds[3]))"
        #expect(daemon.standardError.contains("wayland:wayland-vitrine-test: now \(size)"), "\(daemon.standardError)")
        // (the button green: the tap's binding)
        let tapped = scenePath.replacingOccurrences(of: "scene.json", with: "tapped/scene.json")
        try FileManager.default.createDirectory(atPath: (tapped as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try X11WindowTests.scene.replacingOccurrences(of: "#d03030", with: "#30d030").write(toFile: tapped, atomically: true, encoding: .utf8)
        let maximized = try X11WindowTests.reference(tapped, size: size)
        #expect(try Self.waitFor(maximized) { try x.image(of: westonWindow) } != nil, "the \(size) picture is not in Weston's window")
    }

    @Test func losingTheCompositorStopsTheDaemon() throws {
        let weston = try WestonServer(width: 320, height: 240)
        let (daemon, _) = try Self.open(on: weston)
        weston.kill()
        #expect(daemon.waitForExit(timeout: 10) == 0, "\(daemon.standardError)")
        #expect(daemon.standardError.contains("was lost: stopping"), "\(daemon.standardError)")
    }

    @Test func aCompositorWithoutXDGShellIsNamedAsSuch() throws {
        let weston = try WestonServer(width: 320, height: 240, fullscreenShell: true)
        let run = try DaemonProcess.runToExit(
            ["--backend", "wayland", "--socket", weston.runtimeDirectory + "/v.sock"], environment: weston.clientEnvironment)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("lacks xdg_wm_base"), "\(run.stderr)")
    }

    @Test func withoutACompositorTheBackendSaysWhatIsMissing() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-no-wayland-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let run = try DaemonProcess.runToExit(
            ["--backend", "wayland", "--socket", empty + "/v.sock"], environment: ["XDG_RUNTIME_DIR": empty, "WAYLAND_DISPLAY": "wayland-none"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot connect to the Wayland compositor wayland-none in \(empty)"), "\(run.stderr)")
    }
}
