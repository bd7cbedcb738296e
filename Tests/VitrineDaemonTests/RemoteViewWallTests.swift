import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// One VNC listener for a wall (`output = "*"`): two headless outputs side by side on a
/// 400×100 canvas; the viewer (vncdotool) sees both screens in one picture, and its clicks
/// land on the canvas where it points, on either screen.
@Suite struct RemoteViewWallTests {
    /// The right screen is the primary output (the first table), so that a point on the
    /// left screen is left of the primary's pixels.
    static func config(port: Int, output: String = "*") -> String {
        """
        [wall]
        canvas = [400, 100]

        [[outputs]]
        connector = "R"
        mode = "200x100@60"
        viewport = [200, 0, 200, 100]

        [[outputs]]
        connector = "L"
        mode = "200x100@60"
        viewport = [0, 0, 200, 100]

        [remote]
        vnc = "127.0.0.1:\(port)"
        output = "\(output)"

        [[scene.layers]]
        id = "left"
        properties = { bounds = [0, 0, 60, 40], position = [50, 50], backgroundColor = "#e63946" }

        [[scene.layers]]
        id = "seam"
        properties = { bounds = [0, 0, 120, 30], position = [200, 80], backgroundColor = "#457b9d" }

        [[scene.layers]]
        id = "right"
        properties = { bounds = [0, 0, 60, 40], position = [330, 40], backgroundColor = "#2a9d8f" }

        """
    }

    static func daemon(_ config: String) throws -> DaemonProcess {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-vnc-wall-\(UUID().uuidString.prefix(8)).toml").path
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try DaemonProcess(arguments: ["--config", path])
    }

    @Test(.enabled(if: RemoteViewTests.hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func aViewerOfTheWallSeesBothScreensAndClicksOnEither() throws {
        let port = try RemoteViewTests.freePort()
        let daemon = try Self.daemon(Self.config(port: port))
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["remote.connected", "layer.tap"]}"#)
        let captured = daemon.directory.appendingPathComponent("wall.png").path
        try RemoteViewTests.vncdo(port, ["capture", captured])
        #expect(try c.waitForEvent("remote.connected")["output"] == .string("*"))
        let wall = Surface(width: 400, height: 100)
        wall.copyPixels(from: try VideoWallTests.screenshot(daemon, output: "L"), x: 0, y: 0)
        wall.copyPixels(from: try VideoWallTests.screenshot(daemon, output: "R"), x: 200, y: 0)
        let viewer = try Surface(contentsOfPNG: captured)
        #expect(viewer.width == 400 && viewer.height == 100)
        try GoldenImage.expectSamePixels(viewer, as: wall, name: "vnc-wall", "the wall through VNC")
        #expect(viewer.pixel(x: 50, y: 50) != viewer.pixel(x: 330, y: 40), "both screens' layers are there")

        try RemoteViewTests.vncdo(port, ["move", "330", "40", "click", "1", "move", "50", "50", "click", "1"])
        var taps: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while taps.count < 2, Date() < deadline {
            taps += try c.drain().filter { $0["event"] == .string("layer.tap") }.compactMap { $0["layer"]?.string }
            usleep(50_000)
        }
        #expect(taps == ["right", "left"], "\(taps)")
    }

    @Test func aWallListenerWithoutAWallIsRefused() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-vnc-\(UUID().uuidString.prefix(8)).toml").path
        try "[remote]\nvnc = \"127.0.0.1:\(try RemoteViewTests.freePort())\"\noutput = \"wall\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(arguments: ["--config", config])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "ping"}"#)
        #expect(daemon.isRunning && daemon.standardError.contains("shows the wall, and there is none"), "\(daemon.standardError)")
    }
}
