import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// A 2×2 video wall of 200×100 screens on a 400×200 canvas, with a counter and a card
/// across both seams: each screen shows its rectangle of the one scene, and the four
/// screenshots put together are the whole canvas drawn by a daemon with one 400×200
/// screen at the same manual-clock time.
@Suite(.serialized) struct VideoWallTests {
    static let scene = """
        [[scene.layers]]
        id = "card"
        properties = { bounds = [0, 0, 260, 150], position = [200, 100], backgroundColor = "#1d3557", cornerRadius = 18, shadowOpacity = 0.6, shadowRadius = 8, shadowOffset = [0, 4] }
        [[scene.layers]]
        id = "count"
        kind = "rolling-number"
        properties = { bounds = [0, 0, 300, 110], position = [200, 100], value = 0, textColor = "#ffd166" }
        [[scene.layers]]
        id = "target"
        properties = { bounds = [0, 0, 30, 30], position = [225, 120], backgroundColor = "tomato" }

        """

    /// The four screens, by connector: their rectangles of the canvas. The first table is
    /// the primary output (input goes to it): the bottom-right screen.
    static let screens: [(name: String, rect: PixelRect)] = [
        ("BR", PixelRect(x: 200, y: 100, width: 200, height: 100)), ("TL", PixelRect(x: 0, y: 0, width: 200, height: 100)),
        ("TR", PixelRect(x: 200, y: 0, width: 200, height: 100)), ("BL", PixelRect(x: 0, y: 100, width: 200, height: 100)),
    ]

    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-wall-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        return directory
    }

    /// A daemon with `config` (and the scene) and its own state directory.
    static func daemon(_ config: String, in directory: URL, name: String) throws -> DaemonProcess {
        let path = directory.appendingPathComponent("\(name).toml").path
        try (config + "\n" + scene).write(toFile: path, atomically: true, encoding: .utf8)
        let state = directory.appendingPathComponent("state-\(name)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        return try DaemonProcess(arguments: ["--config", path, "--state-dir", state.path])
    }

    /// The whole canvas on one 400×200 screen: what the wall must show.
    static let wholeCanvas = "[output]\nheadless_size = \"400x200\"\n"

    /// One daemon driving the four screens as emulated outputs.
    static var fourOutputs: String {
        "[wall]\ncanvas = [400, 200]\n\n"
            + screens.map { s in
                "[[outputs]]\nconnector = \"\(s.name)\"\nmode = \"200x100@60\"\nviewport = [\(s.rect.x), \(s.rect.y), 200, 100]\n\n"
            }.joined()
    }

    static func screenshot(_ daemon: DaemonProcess, output: String? = nil) throws -> Surface {
        let request = output.map { #"{"id": 1, "cmd": "screenshot", "output": "\#($0)"}"# } ?? #"{"id": 1, "cmd": "screenshot"}"#
        let png = try #require(try daemon.connect().exchange(request)?["result"]?["png"]?.string)
        return try Surface(pngData: Array(try #require(Data(base64Encoded: png))), name: "screenshot")
    }

    /// The screens' pictures put side by side where their rectangles lie.
    static func stitched(_ parts: [(Surface, PixelRect)]) -> Surface {
        let canvas = Surface(width: 400, height: 200)
        for (part, rect) in parts {
            for y in 0..<rect.height {
                for x in 0..<rect.width { canvas.setPixel(x: rect.x + x, y: rect.y + y, part.pixel(x: x, y: y)) }
            }
        }
        return canvas
    }

    static func send(_ daemon: DaemonProcess, _ request: String) throws -> JSON? { try daemon.connect().exchange(request) }

    @Test func fourOutputsOfOneDaemonShowTheirQuartersOfOneCanvas() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let wall = try Self.daemon(Self.fourOutputs, in: directory, name: "wall")
        let whole = try Self.daemon(Self.wholeCanvas, in: directory, name: "whole")
        let listed = try #require(try Self.send(wall, #"{"id": 1, "cmd": "output.list"}"#)?["result"]?["outputs"]?.array)
        #expect(listed.map { $0["root"] } == Array(repeating: JSON.string("root"), count: 4), "one canvas, one root: \(listed)")
        #expect(listed.map { $0["viewport"] } == Self.screens.map { s in JSON.array([s.rect.x, s.rect.y, 200, 100].map { .number(Double($0)) }) })
        #expect(listed.allSatisfy { $0["size"] == .array([.number(200), .number(100)]) })
        let wallStats = try Self.send(wall, #"{"id": 1, "cmd": "stats"}"#)?["result"]?["wall"]
        #expect(wallStats?["canvas"] == .array([.number(400), .number(200)]) && wallStats?["viewports"]?["TR"] != nil, "\(String(describing: wallStats))")
        #expect(try Self.send(whole, #"{"id": 1, "cmd": "stats"}"#)?["result"]?["wall"] == nil)

        for daemon in [wall, whole] {
            #expect(try Self.send(daemon, #"{"id": 1, "cmd": "number.set", "layer": "count", "value": 4217}"#)?["ok"] == .bool(true))
            _ = try Self.send(daemon, #"{"id": 2, "cmd": "clock.advance", "seconds": 0.2}"#)
        }
        let reference = try Self.screenshot(whole)
        let parts = try Self.screens.map { (try Self.screenshot(wall, output: $0.name), $0.rect) }
        #expect(parts.allSatisfy { $0.0.width == 200 && $0.0.height == 100 })
        try GoldenImage.expectSamePixels(Self.stitched(parts), as: reference, name: "wall-four-outputs", "the four screens mid-roll")
        #expect(reference.pixel(x: 200, y: 100) != reference.pixel(x: 5, y: 5), "the counter and card lie across the seams")

        // A change inside one screen's rectangle presents a frame on that screen only.
        func frames() throws -> [Double] {
            _ = try Self.send(wall, #"{"id": 1, "cmd": "clock.advance", "seconds": 5}"#)
            return try #require(try Self.send(wall, #"{"id": 1, "cmd": "output.list"}"#)?["result"]?["outputs"]?.array).map { $0["frames"]?.number ?? -1 }
        }
        let settled = try frames()
        _ = try Self.send(
            wall, #"{"id": 1, "cmd": "layer.add", "layer": "dot", "properties": {"bounds": [0, 0, 10, 10], "position": [30, 30], "backgroundColor": "white"}}"#)
        let after = try frames()
        #expect(zip(after, settled).map { $0 - $1 } == [0, 1, 0, 0], "only TL shows the dot: \(settled) → \(after)")

        // Input arrives in the primary screen's pixels (BR) and hits the canvas there.
        _ = try Self.send(wall, #"{"id": 1, "cmd": "layer.set", "layer": "count", "properties": {"hidden": true}}"#)
        let c = try wall.connect()
        _ = try c.request(#"{"cmd": "subscribe", "events": ["input.pointer"]}"#)
        _ = try c.request(#"{"cmd": "input.inject", "type": "pointer", "point": [12, 8]}"#)
        let event = try c.waitForEvent("input.pointer")
        #expect(event["layer"] == .string("target") && event["layerPoint"] == .array([.number(2), .number(3)]), "\(event)")
    }

    @Test func anAnimatedPictureAcrossASeamPlaysOnBothScreens() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let gif = directory.appendingPathComponent("blink.gif").path
        let pictures = [0, 1].map { ImageFixtures.GIFFrame(rect: PixelRect(x: 0, y: 0, width: 4, height: 4), index: UInt8($0), delay: 10) }
        try Data(ImageFixtures.gif(width: 4, height: 4, palette: [0x00FF00, 0x0000FF], frames: pictures)).write(to: URL(fileURLWithPath: gif))
        let config = directory.appendingPathComponent("wall.toml").path
        try (Self.fourOutputs + "\n" + Self.scene).write(toFile: config, atomically: true, encoding: .utf8)
        let wall = try DaemonProcess(arguments: ["--config", config, "--content-root", directory.path])
        let add = try Self.send(
            wall, #"{"id": 1, "cmd": "layer.add", "layer": "blink", "properties": {"bounds": [0, 0, 100, 20], "position": [200, 30], "contents": "\#(gif)"}}"#)
        #expect(add?["ok"] == .bool(true), "\(String(describing: add))")
        func frames() throws -> [Double] {
            try #require(try Self.send(wall, #"{"id": 1, "cmd": "output.list"}"#)?["result"]?["outputs"]?.array).map { $0["frames"]?.number ?? -1 }
        }
        _ = try Self.send(wall, #"{"id": 1, "cmd": "clock.set", "time": 0.05}"#)
        let before = try frames()
        // The picture's next frame, due at 0.1 s, is drawn by both screens it lies on (BR, TL, TR, BL).
        _ = try Self.send(wall, #"{"id": 1, "cmd": "clock.set", "time": 0.12}"#)
        #expect(zip(try frames(), before).map { $0 - $1 } == [0, 1, 1, 0], "\(before)")
        let left = try Self.screenshot(wall, output: "TL"), right = try Self.screenshot(wall, output: "TR")
        #expect(left.pixel(x: 190, y: 30) == right.pixel(x: 5, y: 30), "both halves show the same frame")
    }

    @Test(.enabled(if: MosquittoBroker.isAvailable, "needs mosquitto, mosquitto-clients and openssl (CI installs them)"))
    func fourDaemonsThroughTheBrokerRollTheirQuartersInStep() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screens = try Self.screens.map { s in
            let config =
                "[output]\nheadless_size = \"200x100\"\n\n[wall]\ncanvas = [400, 200]\nviewport = [\(s.rect.x), \(s.rect.y), 200, 100]\n\n"
                + broker.fleetSection(device: s.name, groups: ["wall"])
            return try Self.daemon(config, in: directory, name: s.name)
        }
        let whole = try Self.daemon(Self.wholeCanvas + "\n" + broker.fleetSection(device: "whole", groups: ["wall"]), in: directory, name: "whole")
        let devices = Self.screens.map(\.name) + ["whole"]
        let bridges = try zip(devices, screens + [whole]).map { name, daemon in
            try FleetProcess(config: directory.appendingPathComponent("\(name).toml").path, socket: daemon.socketPath)
        }
        defer { withExtendedLifetime(bridges) {} }
        #expect(
            listener.wait { s in devices.allSatisfy { s.json(on: "vitrine/\($0)/status").last?["state"]?.string == "online" } }, "\(listener.messages)")
        let status = try #require(listener.json(on: "vitrine/TR/status").last)
        #expect(status["outputs"]?.array?.first?["viewport"] == .array([.number(200), .number(0), .number(200), .number(100)]), "\(status)")

        // One command to the group, due at media time 3 on every screen's manual clock.
        try broker.publish("vitrine/wall/cmd", #"{"id": "roll", "cmd": "number.set", "layer": "count", "value": 4217, "at": 3}"#)
        usleep(300_000)
        for daemon in screens + [whole] { _ = try Self.send(daemon, #"{"id": 1, "cmd": "clock.set", "time": 3.25}"#) }
        #expect(listener.wait { s in devices.allSatisfy { s.json(on: "vitrine/\($0)/reply").contains { $0["id"] == .string("roll") } } })
        let reference = try Self.screenshot(whole)
        let parts = try zip(screens, Self.screens).map { (try Self.screenshot($0), $1.rect) }
        try GoldenImage.expectSamePixels(Self.stitched(parts), as: reference, name: "wall-four-daemons", "the four daemons mid-roll")
    }

    @Test func aViewportThatIsNotTheOutputsSizeIsRefusedAtStart() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("bad.toml").path
        try "[output]\nheadless_size = \"320x200\"\n\n[wall]\ncanvas = [400, 200]\nviewport = [200, 100, 200, 100]\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let run = try DaemonProcess.runToExit(["--backend", "headless", "--config", path, "--socket", directory.appendingPathComponent("s").path])
        #expect(run.status != 0)
        #expect(run.stderr.contains("is 320x200 but its viewport [200, 100, 200, 100] is 200x100"), "\(run.stderr)")
    }
}
