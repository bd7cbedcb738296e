import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// `config.reload` applies every key that can change while running, and names those that
/// need a restart.
@Suite struct ReloadTests {
    static let before = """
        [output]
        background = "#000000"
        headless_size = "64x32"
        [animation]
        implicit_duration = 0.25
        [animation.spring]
        damping = 17
        [rolling_number]
        font_size = 40
        [limits]
        line_bytes = 65536
        """

    static let after = """
        [output]
        background = "#0000ff"
        headless_size = "128x64"
        [animation]
        implicit_duration = 2
        [animation.spring]
        damping = 2
        [rolling_number]
        font_size = 24
        [limits]
        line_bytes = 2048
        """

    @Test func aReloadAppliesEveryRunTimeKeyAndNamesTheOthers() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml").path
        try Self.before.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config])
        let c = try daemon.connect()
        try Self.after.write(toFile: config, atomically: true, encoding: .utf8)
        let reply = try #require(try c.exchange(#"{"id": 1, "cmd": "config.reload"}"#))
        #expect(reply["result"]?["reloaded"] == .bool(true), "\(reply)")
        #expect(reply["result"]?["restartNeeded"] == .array([.string("output.headless_size")]), "\(reply)")

        // The background.
        let shot = try #require(try c.exchange(#"{"id": 2, "cmd": "screenshot", "path": "bg.png"}"#)?["result"]?["path"]?.string)
        #expect(ScreenshotTests.rgba(try Surface(contentsOfPNG: shot), 4, 4) == [0, 0, 255, 255], "the background")

        // The implicit duration.
        _ = try c.exchange(#"{"id": 3, "cmd": "layer.add", "layer": "a", "properties": {"bounds": [0, 0, 10, 10]}}"#)
        _ = try c.exchange(#"{"id": 4, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 0.5}}"#)
        let animations = try #require(try c.exchange(#"{"id": 5, "cmd": "animation.list", "layer": "a"}"#)?["result"]?.array)
        #expect(animations.first?["duration"] == .number(2), "\(animations)")

        // The spring a script asks for without parameters: damping 2 overshoots far.
        _ = try c.exchange(#"{"id": 6, "cmd": "layer.add", "layer": "s", "properties": {"position": [0, 0]}}"#)
        _ = try c.exchange(#"{"id": 7, "cmd": "animation.add", "layer": "s", "animation": {"type": "spring", "keyPath": "position.x", "from": 0, "to": 100, "duration": 5}}"#)
        _ = try c.exchange(#"{"id": 8, "cmd": "clock.advance", "seconds": 0.32}"#)
        let x = try #require(try c.exchange(#"{"id": 9, "cmd": "layer.get", "layer": "s", "keys": ["position.x"], "presentation": true}"#)?["result"]?["properties"]?["position.x"]?.number)
        #expect(x > 150, "a damping-2 spring is at \(x) at 0.32 s")

        // A new rolling number's font size.
        _ = try c.exchange(#"{"id": 10, "cmd": "layer.add", "layer": "n", "kind": "rolling-number"}"#)
        let size = try #require(try c.exchange(#"{"id": 11, "cmd": "layer.get", "layer": "n", "keys": ["fontSize"]}"#))
        #expect(size["result"]?["properties"]?["fontSize"] == .number(24), "\(size)")

        // The line limit.
        let long = try #require(try c.exchange(#"{"id": 12, "cmd": "ping", "pad": "\#(String(repeating: "x", count: 3000))"}"#))
        #expect(long["error"]?["code"] == .string("line_too_long"), "\(long)")
    }
}

/// The configuration's initial scene is checked whole when the file is read, every layer
/// kind the daemon draws included.
@Suite struct InitialSceneCheckTests {
    @Test func aMistakeInARollingNumberOfTheConfigsSceneNamesTheFileAndLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-scene-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        try """
            [[scene.layers]]
            id = "count"
            kind = "rolling-number"
            [scene.layers.properties]
            animationType = "sideways"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = try DaemonProcess.runToExit(["--backend", "headless", "--config", config, "--socket", directory.appendingPathComponent("v.sock").path])
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("\(config):"), "the error names the file: \(run.stderr)")
        #expect(run.stderr.contains("sideways"), "\(run.stderr)")
        #expect(!run.stderr.contains("cannot be shown"), "refused when the file is read, not when the scene is shown: \(run.stderr)")
    }
}
