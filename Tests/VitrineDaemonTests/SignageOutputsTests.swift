import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// The signage host follows the outputs and the wall clock, through the real daemon on the
/// manual clock: an output plugged in while running (an emulated output added on
/// `config.reload`) plays the playlist its schedule names and stops when it is unplugged,
/// its item logged as cut short; a step of the wall clock (`clock.set`'s `wall`, as NTP
/// steps it) over a schedule's boundary, forwards and back, switches the playlist at the
/// next frame, and the play log's entries are on the clock as it reads after the step.
@Suite struct SignageOutputsTests {
    /// A daemon on `directory`'s vitrine.toml (written by `write`) with a play log, and a
    /// client subscribed to signage and outputs.
    static func start(in directory: URL, environment: [String: String] = [:], write: () throws -> Void) throws -> (DaemonProcess, SocketClient) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try write()
        let daemon = try DaemonProcess(
            environment: environment,
            arguments: ["--config", directory.appendingPathComponent("vitrine.toml").path, "--state-dir", directory.appendingPathComponent("state").path])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["playlist.*", "output.*"]}"#)
        return (daemon, c)
    }

    /// Signage on HDMI-A-1 and, when `second`, HDMI-A-2 (root "right"): the playlist
    /// "side" (red, then green, a second each) is scheduled on HDMI-A-2 only.
    static func hotplugConfiguration(second: Bool) -> String {
        var text = """
            [output]
            hotplug_grace = 60
            \(SignageTests.scene("red", "#d03030"))
            \(SignageTests.scene("green", "#30d030"))
            [[playlists]]
            name = "side"
            items = [{ scene = "red", duration = 1 }, { scene = "green", duration = 1 }]
            [[schedules]]
            playlist = "side"
            output = "HDMI-A-2"
            [[outputs]]
            connector = "HDMI-A-1"
            mode = "320x200@60"

            """
        if second { text += "[[outputs]]\nconnector = \"HDMI-A-2\"\nmode = \"200x320@60\"\nroot = \"right\"\n" }
        return text
    }

    static func reload(_ c: SocketClient, _ directory: URL, second: Bool) throws {
        try hotplugConfiguration(second: second).write(to: directory.appendingPathComponent("vitrine.toml"), atomically: true, encoding: .utf8)
        try c.ok(#"{"cmd": "config.reload"}"#)
    }

    static func entries(_ c: SocketClient, output: String, until done: ([JSON]) -> Bool) throws -> [JSON] {
        try PlayLogPlaylistTests.entries(c) { done($0.filter { $0["output"]?.string == output }) }.filter { $0["output"]?.string == output }
    }

    @Test func anOutputPluggedInLaterPlaysItsScheduleAndStopsWhenUnplugged() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-signage-hotplug-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (daemon, c) = try Self.start(in: directory) {
            try Self.hotplugConfiguration(second: false).write(to: directory.appendingPathComponent("vitrine.toml"), atomically: true, encoding: .utf8)
        }
        try c.ok(#"{"cmd": "clock.set", "time": 10}"#)
        #expect(try c.drain().filter { $0["event"]?.string == "playlist.item" }.isEmpty, "nothing is scheduled on HDMI-A-1")

        try Self.reload(c, directory, second: true)
        let first = try c.waitForEvent("playlist.item") { $0["output"]?.string == "HDMI-A-2" }
        #expect(first["item"]?.string == "red" && first["playlist"]?.string == "side", "\(first)")
        ScreenshotTests.expectPixel(try MultiOutputTests.screenshot(c, "HDMI-A-2"), 80, 50, SignageTests.red, "the new output's scheduled item")
        try c.ok(#"{"cmd": "clock.set", "time": 11}"#)
        _ = try c.waitForEvent("playlist.item") { $0["output"]?.string == "HDMI-A-2" && $0["item"]?.string == "green" }
        ScreenshotTests.expectPixel(try MultiOutputTests.screenshot(c, "HDMI-A-2"), 80, 50, SignageTests.green, "its next item at its time")

        try c.ok(#"{"cmd": "clock.set", "time": 11.5}"#)
        try Self.reload(c, directory, second: false)
        _ = try c.waitForEvent("output.removed") { $0["output"]?.string == "HDMI-A-2" }
        let logged = try Self.entries(c, output: "HDMI-A-2") { $0.count == 2 && $0.allSatisfy { $0["end"]?.number != nil } }
        #expect(logged.map { $0["item"]?.string } == ["red", "green"], "\(logged)")
        #expect(logged.map { $0["start"]?.number } == [10, 11] && logged.map { $0["end"]?.number } == [11, 11.5], "\(logged)")
        #expect(logged.map { $0["completed"] } == [.bool(true), .bool(false)], "the item on screen when unplugged is cut short: \(logged)")
        let listed = try #require(try c.request(#"{"cmd": "playlist.list"}"#)["result"]?["outputs"]?.array)
        #expect(!listed.contains { $0["output"]?.string == "HDMI-A-2" }, "\(listed)")
        try c.ok(#"{"cmd": "clock.set", "time": 13}"#)
        #expect(try c.drain().filter { $0["event"]?.string == "playlist.item" }.isEmpty, "nothing plays on the unplugged output")

        try Self.reload(c, directory, second: true)
        let again = try c.waitForEvent("playlist.item") { $0["output"]?.string == "HDMI-A-2" }
        #expect(again["item"]?.string == "red", "\(again)")
        ScreenshotTests.expectPixel(try MultiOutputTests.screenshot(c, "HDMI-A-2"), 80, 50, SignageTests.red, "plugged in again, it plays again")
        let third = try Self.entries(c, output: "HDMI-A-2") { $0.count == 3 }
        #expect(third.last?["start"]?.number == 13, "\(third)")
        #expect(daemon.stop() == 0)
    }

    /// Monday 7 December 2026, 10:59:00 UTC.
    static let beforeLunch = 1_796_641_140.0

    @Test func aStepOfTheWallClockOverABoundarySwitchesAtTheNextFrameBothWays() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-signage-step-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (daemon, c) = try Self.start(in: directory, environment: ["TZ": "UTC"]) {
            try """
            [output]
            background = "#ff00ff"
            \(SignageTests.scene("red", "#d03030"))
            \(SignageTests.scene("green", "#30d030"))
            [[playlists]]
            name = "breakfast"
            items = [{ scene = "red", duration = 100 }]
            [[playlists]]
            name = "lunch"
            items = [{ scene = "green", duration = 100 }]
            [[schedules]]
            playlist = "breakfast"
            from = "06:00"
            to = "11:00"
            [[schedules]]
            playlist = "lunch"
            from = "11:00"
            to = "15:00"
            [[outputs]]
            connector = "HDMI-A-1"
            mode = "160x100@60"
            """.write(to: directory.appendingPathComponent("vitrine.toml"), atomically: true, encoding: .utf8)
        }
        let wall = Self.beforeLunch
        try c.ok(#"{"cmd": "clock.set", "time": 100, "wall": \#(wall)}"#)
        _ = try c.waitForEvent("playlist.item") { $0["item"]?.string == "red" }
        ScreenshotTests.expectPixel(try c.screenshot("breakfast"), 80, 50, SignageTests.red, "10:59: breakfast")
        // A step within the window changes nothing.
        try c.ok(#"{"cmd": "clock.set", "time": 100.5, "wall": \#(wall + 20)}"#)
        #expect(try c.drain().filter { $0["event"]?.string == "playlist.item" }.isEmpty)

        // Forwards over 11:00: lunch at the frame of the step, not when the item ends.
        try c.ok(#"{"cmd": "clock.set", "time": 101, "wall": \#(wall + 90)}"#)
        ScreenshotTests.expectPixel(try c.screenshot("lunch"), 80, 50, SignageTests.green, "11:00:30: lunch")
        #expect(try c.drain().filter { $0["event"]?.string == "playlist.item" }.map { $0["item"]?.string } == ["green"])
        // And back over it.
        try c.ok(#"{"cmd": "clock.set", "time": 102, "wall": \#(wall + 30)}"#)
        ScreenshotTests.expectPixel(try c.screenshot("back"), 80, 50, SignageTests.red, "10:59:30 again: breakfast")
        #expect(try c.drain().filter { $0["event"]?.string == "playlist.item" }.map { $0["item"]?.string } == ["red"])
        // The next boundary is 11:00 again, on the stepped clock.
        try c.ok(#"{"cmd": "clock.set", "time": 131.5, "wall": \#(wall + 59.5)}"#)
        ScreenshotTests.expectPixel(try c.screenshot("before"), 80, 50, SignageTests.red, "10:59:59.5")
        try c.ok(#"{"cmd": "clock.set", "time": 132}"#)
        ScreenshotTests.expectPixel(try c.screenshot("boundary"), 80, 50, SignageTests.green, "11:00:00")

        // Each entry is on the clock as it read when the entry ended: the media clock
        // gives its length.
        // (listed by start; in the order they played by id)
        let logged = try PlayLogPlaylistTests.entries(c) { $0.filter { $0["end"]?.number != nil }.count == 3 && $0.count == 4 }
            .sorted { Int($0["id"]?.string?.split(separator: "-").last ?? "") ?? 0 < Int($1["id"]?.string?.split(separator: "-").last ?? "") ?? 0 }
        #expect(logged.map { $0["item"]?.string } == ["red", "green", "red", "green"], "\(logged)")
        #expect(logged.map { ($0["start"]?.number ?? 0) - wall } == [89, 29, 30, 60], "\(logged)")
        #expect(logged.prefix(3).map { ($0["end"]?.number ?? 0) - wall } == [90, 30, 60], "\(logged)")
        #expect(logged.prefix(3).map { $0["completed"] } == [.bool(false), .bool(false), .bool(false)], "\(logged)")
        #expect(daemon.stop() == 0)
    }
}
