import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Outputs plugged in and unplugged while the daemon runs, through the real daemon's
/// socket. The headless backend's emulated outputs follow the configuration's
/// `[[outputs]]` tables on `config.reload`, through the same path as DRM connectors: the
/// output's head goes or comes, scripts get `output.removed` / `output.added`, the
/// unplugged root is kept for `hotplug_grace`, and a returning output shows its state, or
/// its configured scene once the grace is over.
@Suite struct HotplugTests {
    /// A configuration with `hotplug_grace = grace`, HDMI-A-1 (root "root", left.json)
    /// and, when `second`, HDMI-A-2 (root "right", right.json).
    static func configuration(grace: Double, second: Bool) -> String {
        var text = """
            [output]
            hotplug_grace = \(grace)

            [[outputs]]
            connector = "HDMI-A-1"
            mode = "320x200@60"
            scene = "left.json"

            """
        if second {
            text += """

                [[outputs]]
                connector = "HDMI-A-2"
                mode = "200x320@30"
                root = "right"
                scene = "right.json"

                """
        }
        return text
    }

    static func start(grace: Double) throws -> (DaemonProcess, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-hotplug-\(UUID().uuidString.prefix(8))")
        return try DaemonProcess.twoOutputs(in: directory, config: configuration(grace: grace, second: true))
    }

    /// Rewrites the configuration and reloads it; returns the reply and the events that
    /// came with it (`output.*`, which is subscribed).
    static func reload(_ c: SocketClient, in directory: URL, grace: Double, second: Bool) throws -> (JSON, [JSON]) {
        try configuration(grace: grace, second: second).write(to: directory.appendingPathComponent("vitrine.toml"), atomically: true, encoding: .utf8)
        let reply = try c.request(#"{"cmd": "config.reload"}"#)
        _ = try c.request(#"{"cmd": "ping"}"#)
        return (reply, c.takeEvents().filter { $0["event"]?.string?.hasPrefix("output.") == true })
    }

    /// `start`, a client subscribed to `output.*`, and a white 40×20 "note" at (100, 300)
    /// on HDMI-A-2's root.
    static func startWithNote(grace: Double) throws -> (DaemonProcess, URL, SocketClient) {
        let (daemon, directory) = try start(grace: grace)
        let c = try daemon.connect()
        #expect(try c.request(#"{"cmd": "subscribe", "events": ["output.*"]}"#)["ok"] == .bool(true))
        let note =
            #"{"cmd": "layer.add", "layer": "note", "parent": "right", "properties": {"bounds": [0, 0, 40, 20], "position": [100, 300], "backgroundColor": "white"}}"#
        #expect(try c.request(note)["ok"] == .bool(true))
        return (daemon, directory, c)
    }

    static func pixel(_ surface: Surface, _ x: Int, _ y: Int) -> UInt32 { surface.pixel(x: x, y: y).argb }

    @Test func anOutputUnpluggedAndPluggedInAgainShowsItsSceneAsScriptsLeftIt() throws {
        let (daemon, directory, c) = try Self.startWithNote(grace: 60)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(Self.pixel(try MultiOutputTests.screenshot(c, "HDMI-A-2"), 100, 300) == 0xFFFF_FFFF)

        let (unplugged, removed) = try Self.reload(c, in: directory, grace: 60, second: false)
        #expect(unplugged["result"]?["restartNeeded"] == .array([]), "emulated outputs follow [[outputs]] without a restart: \(unplugged)")
        #expect(removed == [try JSON(parsing: Data(#"{"event": "output.removed", "output": "HDMI-A-2", "root": "right", "keptSeconds": 60}"#.utf8))])
        #expect(try MultiOutputTests.outputs(c).keys.sorted() == ["HDMI-A-1"])
        let gone = try c.request(#"{"cmd": "screenshot", "output": "HDMI-A-2", "path": "gone.png"}"#)
        #expect(gone["error"]?["code"] == .string("unknown_output"), "\(gone)")
        // The kept root takes changes while its screen is away.
        let set = try c.request(##"{"cmd": "layer.set", "layer": "note", "properties": {"backgroundColor": "#ffd700"}, "actions": false}"##)
        #expect(set["ok"] == .bool(true), "\(set)")

        let (_, added) = try Self.reload(c, in: directory, grace: 60, second: true)
        #expect(
            added == [
                try JSON(
                    parsing: Data(#"{"event": "output.added", "output": "HDMI-A-2", "root": "right", "size": [200, 320], "rate": 30, "kept": true}"#.utf8))
            ], "\(added)")
        let back = try MultiOutputTests.screenshot(c, "HDMI-A-2")
        #expect(Self.pixel(back, 100, 300) == 0xFFFF_D700, "the note as the script left it")
        #expect(
            Self.pixel(back, 100, 100)
                == Self.pixel(try MultiOutputTests.render(directory.appendingPathComponent("right.json"), size: "200x320", into: directory), 100, 100))
        #expect(try MultiOutputTests.outputs(c).keys.sorted() == ["HDMI-A-1", "HDMI-A-2"])
        #expect(daemon.stop() == 0)
    }

    @Test func afterTheGraceTheRootGoesAndAReturningOutputShowsItsConfiguredScene() throws {
        let (daemon, directory, c) = try Self.startWithNote(grace: 0.3)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, removed) = try Self.reload(c, in: directory, grace: 0.3, second: false)
        #expect(removed.first?["keptSeconds"] == .number(0.3))
        Thread.sleep(forTimeInterval: 0.6)
        for request in [
            #"{"cmd": "layer.set", "layer": "note", "properties": {"backgroundColor": "red"}}"#,
            #"{"cmd": "layer.get", "layer": "badge"}"#, #"{"cmd": "layer.get", "layer": "right"}"#,
        ] {
            let reply = try c.request(request)
            #expect(reply["error"]?["code"] == .string("unknown_layer"), "\(request) → \(reply)")
        }

        let (_, added) = try Self.reload(c, in: directory, grace: 0.3, second: true)
        #expect(added.first?["kept"] == .bool(false), "\(added)")
        let back = try MultiOutputTests.screenshot(c, "HDMI-A-2")
        #expect(back.pixelsEqual(try MultiOutputTests.render(directory.appendingPathComponent("right.json"), size: "200x320", into: directory)))
        #expect(daemon.stop() == 0)
    }

    @Test func thePrimaryOutputUnpluggedKeepsTakingLayersAndShowsThemOnItsReturn() throws {
        let (daemon, directory) = try Self.start(grace: 60)
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        try Self.configuration(grace: 60, second: true).replacingOccurrences(of: "HDMI-A-1", with: "DP-9")
            .write(to: directory.appendingPathComponent("vitrine.toml"), atomically: true, encoding: .utf8)
        #expect(try c.request(#"{"cmd": "config.reload"}"#)["ok"] == .bool(true))
        #expect(try MultiOutputTests.outputs(c).keys.sorted() == ["DP-9", "HDMI-A-2"])
        #expect(try MultiOutputTests.outputs(c)["DP-9"]?["root"] == .string("DP-9"), "a new connector's root is named after it")
        // With no parent, a layer goes under "root", whose screen is unplugged: it is kept.
        let add = try c.request(
            #"{"cmd": "layer.add", "layer": "late", "properties": {"bounds": [0, 0, 30, 30], "position": [15, 15], "backgroundColor": "white"}}"#)
        #expect(add["ok"] == .bool(true), "\(add)")
        try Self.configuration(grace: 60, second: true).write(to: directory.appendingPathComponent("vitrine.toml"), atomically: true, encoding: .utf8)
        #expect(try c.request(#"{"cmd": "config.reload"}"#)["ok"] == .bool(true))
        #expect(try MultiOutputTests.outputs(c)["HDMI-A-1"]?["root"] == .string("root"))
        #expect(Self.pixel(try MultiOutputTests.screenshot(c, "HDMI-A-1"), 10, 10) == 0xFFFF_FFFF)
        #expect(daemon.stop() == 0)
    }
}
