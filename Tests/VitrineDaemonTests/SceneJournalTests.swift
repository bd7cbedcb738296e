import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// The scene survives the daemon: journaled to the state directory, restored at start
/// after SIGKILL with the same pixels at the same manual-clock time; a bad journal is
/// moved aside and the initial scene shown; `--fresh` and `scene.reset` start over.
@Suite(.serialized) struct SceneJournalTests {
    /// A rolling number mid-roll, a card moving, a label fading in, a spinning custom-
    /// timed layer.
    static let build: [String] = [
        #"{"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, 300, 80], "position": [160, 50], "fontSize": 56, "alignment": "center", "value": 1234}}"#,
        #"{"cmd": "number.set", "layer": "n", "value": 1294, "animationType": "allNumbers"}"#,
        ##"{"cmd": "layer.add", "layer": "card", "properties": {"bounds": [0, 0, 80, 50], "position": [40, 150], "backgroundColor": "#ff6b6b", "cornerRadius": 8}}"##,
        #"{"cmd": "animation.add", "layer": "card", "animation": {"keyPath": "position.x", "from": 40, "to": 280, "duration": 3, "timing": "easeInEaseOut"}}"#,
        ##"{"cmd": "layer.add", "layer": "spin", "properties": {"bounds": [0, 0, 30, 30], "position": [160, 150], "backgroundColor": "#4ecdc4", "speed": 0.5}}"##,
        #"{"cmd": "animation.add", "layer": "spin", "animation": {"keyPath": "transform.rotation.z", "from": 0, "to": "1turn", "duration": 1, "repeatCount": "infinity"}}"#,
        #"{"cmd": "layer.set", "layer": "spin", "properties": {"opacity": 0.5}, "animation": {"duration": 2}}"#,
    ]

    @Test func afterSIGKILLTheSameTimeShowsTheSamePixels() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try DaemonProcess(arguments: ["--size", "320x200", "--state-dir", state])
        let c = try first.connect()
        for request in Self.build { try Self.ok(c.request(request)) }
        try Self.ok(c.request(#"{"cmd": "clock.advance", "seconds": 0.6}"#))
        let before = try Self.screenshot(c, first, "before")
        try Self.waitForJournal(in: state, mediaTime: 0.6, layers: 4)
        kill(first.pid, SIGKILL)
        #expect(first.waitForExit() == 128 + SIGKILL)

        let second = try DaemonProcess(arguments: ["--size", "320x200", "--state-dir", state])
        let d = try second.connect()
        #expect(try d.request(#"{"cmd": "time"}"#)["result"]?["time"] == .number(0.6))
        let after = try Self.screenshot(d, second, "after")
        try Self.expectSame(after, before, "restored-at-0.6")

        // The reference: the same requests on a daemon that never stopped.
        let reference = try DaemonProcess(arguments: ["--size", "320x200"])
        let r = try reference.connect()
        for request in Self.build { try Self.ok(r.request(request)) }
        try Self.ok(r.request(#"{"cmd": "clock.advance", "seconds": 0.6}"#))
        for client in [d, r] { try Self.ok(client.request(#"{"cmd": "clock.advance", "seconds": 1.3}"#)) }
        try Self.expectSame(try Self.screenshot(d, second, "later"), try Self.screenshot(r, reference, "reference-later"), "restored-at-1.9")
        for client in [d, r] { try Self.ok(client.request(#"{"cmd": "clock.advance", "seconds": 10}"#)) }
        try Self.expectSame(try Self.screenshot(d, second, "settled"), try Self.screenshot(r, reference, "reference-settled"), "restored-settled")
        // The number arrived at its target: no column rolls, the columns rest on "1,294".
        #expect(try d.request(#"{"cmd": "animation.list", "layer": "n"}"#)["result"] == .array([]))
        let roll = try d.request(#"{"cmd": "layer.get", "layer": "n", "keys": ["roll", "value"], "presentation": true}"#)["result"]?["properties"]
        #expect(roll?["value"] == .number(1294))
        let strips = roll?["roll"]?["strips"]?.array ?? [], positions = roll?["roll"]?["pos"]?.array ?? []
        let resting = zip(strips, positions).reversed().map { strip, pos -> Character in
            let chars = Array(strip.string ?? "?")
            return chars[min(max(Int(pos.number ?? 0), 0), chars.count - 1)]
        }
        #expect(String(resting) == "1,294")
    }

    @Test func withTheRealTimeClockTheSceneGoesOnWhereWallClockTimeSaysItIs() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try DaemonProcess(clock: "realtime", arguments: ["--size", "64x48", "--state-dir", state])
        let c = try first.connect()
        try Self.ok(c.request(#"{"cmd": "layer.add", "layer": "a", "properties": {"bounds": [0, 0, 10, 10]}}"#))
        // The animation begins when it is added, between these two times.
        let before = try #require(try c.request(#"{"cmd": "time"}"#)["result"]?["time"]?.number)
        try Self.ok(
            c.request(
                #"{"cmd": "animation.add", "layer": "a", "key": "slow", "animation": {"keyPath": "position.x", "from": 0, "to": 1000, "duration": 1000}}"#))
        let after = try #require(try c.request(#"{"cmd": "time"}"#)["result"]?["time"]?.number)
        let deadline = Date().addingTimeInterval(10)
        var record: JSON?
        while Date() < deadline, record?["scene"]?["layers"]?.array?.last?["animations"] == nil { record = try Self.journal(in: state); usleep(20_000) }
        let saved = try #require(record?["mediaTime"]?.number), wall = try #require(record?["wallClock"]?.number)
        kill(first.pid, SIGKILL)
        _ = first.waitForExit()
        usleep(400_000)
        let second = try DaemonProcess(clock: "realtime", arguments: ["--size", "64x48", "--state-dir", state])
        let expected = saved + Date().timeIntervalSince1970 - wall
        let time = try #require(try second.connect().request(#"{"cmd": "time"}"#)["result"]?["time"]?.number)
        #expect(time >= expected - 0.05 && time < expected + 2, "time \(time), expected about \(expected) (saved \(saved))")
        let x = try #require(
            try second.connect().request(#"{"cmd": "layer.get", "layer": "a", "keys": ["position.x"], "presentation": true}"#)["result"]?["properties"]?[
                "position.x"]?.number)
        #expect(x >= expected - after - 0.05 && x < expected - before + 3, "the animation is where the time says: \(x), begun at \(before)…\(after)")
    }

    @Test func aSIGTERMWritesTheSceneAsItIsAtStop() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try DaemonProcess(arguments: ["--state-dir", state])
        let c = try first.connect()
        try Self.ok(c.request(#"{"cmd": "layer.add", "layer": "a", "properties": {"bounds": [0, 0, 10, 10]}}"#))
        try Self.ok(c.request(#"{"cmd": "layer.add", "layer": "b", "properties": {"bounds": [0, 0, 10, 10]}}"#))
        try Self.ok(c.request(#"{"cmd": "clock.set", "time": 42}"#))
        #expect(first.stop() == 0)
        let record = try Self.journal(in: state)
        #expect(record?["mediaTime"] == .number(42))
        #expect(record?["scene"]?["layers"]?.array?.count == 3)
        let second = try DaemonProcess(arguments: ["--state-dir", state])
        #expect(try second.connect().request(#"{"cmd": "layer.tree"}"#)["result"]?["sublayers"]?.array?.count == 2)
    }

    @Test func aScreenGoneSinceTheJournalLeavesOutOnlyItsTree() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (first, directory) = try DaemonProcess.twoOutputs(arguments: ["--state-dir", state])
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try first.connect()
        try Self.ok(c.request(#"{"cmd": "layer.add", "layer": "mine", "parent": "root", "properties": {"bounds": [0, 0, 10, 10]}}"#))
        try Self.ok(c.request(#"{"cmd": "layer.add", "layer": "theirs", "parent": "right", "properties": {"bounds": [0, 0, 10, 10]}}"#))
        #expect(first.stop() == 0)

        let oneOutput = """
            [[outputs]]
            connector = "HDMI-A-1"
            mode = "320x200@60"

            """
        let (second, _) = try DaemonProcess.twoOutputs(in: directory, config: oneOutput, arguments: ["--state-dir", state, "--log-level", "warning"])
        let d = try second.connect()
        #expect(try Self.layers(d).contains("mine"))
        #expect(try d.request(#"{"cmd": "layer.get", "layer": "theirs"}"#)["error"]?["code"] == .string("unknown_layer"))
        #expect(
            second.standardError.contains("the journal's root 'right' has no output now: 2 layers under it not restored"), "\(second.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).allSatisfy { !$0.contains("corrupt") })
    }

    @Test(arguments: ["garbage", "truncated", "nul", "directory", "fifo", "wrong-kind"])
    func aBadJournalIsMovedAsideAndTheInitialSceneShown(_ bad: String) throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let path = state + "/scene.json"
        let scene = state + "/initial.json"
        try Data(#"{"layers": [{"id": "welcome", "properties": {"bounds": [0, 0, 50, 50]}}]}"#.utf8).write(to: URL(fileURLWithPath: scene))
        let valid =
            #"{"format": 1, "mediaTime": 3, "wallClock": 0, "animationKeys": 0, "scene": {"nextAnimation": 1, "nextTransaction": 1, "layers": [{"id": "root", "kind": "layer"}, {"id": "x", "kind": "KIND", "parent": "root"}]}}"#
        switch bad {
        case "garbage": try Data("not json at all {".utf8).write(to: URL(fileURLWithPath: path))
        case "truncated": try Data(valid.replacingOccurrences(of: "KIND", with: "layer").prefix(90).utf8).write(to: URL(fileURLWithPath: path))
        case "nul": try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: path))
        case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case "fifo": #expect(mkfifo(path, 0o600) == 0)
        default: try Data(valid.replacingOccurrences(of: "KIND", with: "hologram").utf8).write(to: URL(fileURLWithPath: path))
        }
        let daemon = try DaemonProcess(arguments: ["--state-dir", state, "--scene", scene, "--log-level", "warning"])
        let c = try daemon.connect()
        let tree = try c.request(#"{"cmd": "layer.tree"}"#)["result"]?["sublayers"]?.array ?? []
        #expect(tree.map { $0["layer"] } == [.string("welcome")], "\(bad)")
        #expect(try c.request(#"{"cmd": "time"}"#)["result"]?["time"] == .number(0))
        let aside = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasPrefix("scene.json.corrupt-") }
        #expect(aside.count == 1, "\(bad): \(aside)")
        #expect(daemon.standardError.contains("scene journal") && daemon.standardError.contains("moved aside"), "\(bad): \(daemon.standardError)")
        // The daemon journals afresh: the next change writes a good file in its place.
        try Self.ok(c.request(#"{"cmd": "layer.set", "layer": "welcome", "properties": {"opacity": 0.5}}"#))
        try Self.waitForJournal(in: state, mediaTime: 0, layers: 2)
    }

    @Test func freshAndResetStartOverWithTheInitialScene() throws {
        let state = try Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let scene = state + "/initial.json"
        try Data(#"{"layers": [{"id": "welcome", "properties": {"bounds": [0, 0, 50, 50]}}]}"#.utf8).write(to: URL(fileURLWithPath: scene))
        let arguments = ["--state-dir", state, "--scene", scene]
        let first = try DaemonProcess(arguments: arguments)
        let c = try first.connect()
        try Self.ok(c.request(#"{"cmd": "layer.add", "layer": "extra"}"#))
        try Self.ok(c.request(#"{"cmd": "animation.add", "layer": "welcome", "animation": {"keyPath": "opacity", "from": 0, "to": 1, "duration": 100}}"#))
        try Self.ok(c.request(#"{"cmd": "layer.set", "layer": "root", "properties": {"marker": 7}}"#))
        try Self.ok(c.request(#"{"cmd": "clock.set", "time": 5}"#))
        let reset = try c.request(#"{"cmd": "scene.reset"}"#)
        #expect(reset["result"] == .object(["removed": .number(2), "layers": .number(1)]), "\(reset)")
        #expect(try Self.layers(c) == ["welcome"])
        #expect(try c.request(#"{"cmd": "animation.list", "layer": "welcome"}"#)["result"] == .array([]))
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "root", "keys": ["marker"]}"#)["ok"] == .bool(false))
        #expect(try c.request(#"{"cmd": "time"}"#)["result"]?["time"] == .number(5))
        try Self.waitForJournal(in: state, mediaTime: 5, layers: 2)
        try Self.ok(c.request(#"{"cmd": "layer.add", "layer": "later"}"#))
        #expect(first.stop() == 0)

        let restored = try DaemonProcess(arguments: arguments)
        #expect(try Self.layers(restored.connect()) == ["welcome", "later"])
        #expect(restored.stop() == 0)
        let fresh = try DaemonProcess(arguments: arguments + ["--fresh"])
        #expect(try Self.layers(fresh.connect()) == ["welcome"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: state).contains { $0.hasPrefix("scene.json.fresh-") })
    }

    // MARK: Helpers

    /// A fresh directory only its owner can write (the journal refuses others).
    static func stateDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-state-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    static func ok(_ reply: JSON, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(reply["ok"] == .bool(true), "\(reply)", sourceLocation: sourceLocation)
    }

    static func layers(_ c: SocketClient) throws -> [String] {
        (try c.request(#"{"cmd": "layer.tree"}"#)["result"]?["sublayers"]?.array ?? []).compactMap { $0["layer"]?.string }
    }

    static func screenshot(_ c: SocketClient, _ daemon: DaemonProcess, _ name: String) throws -> Surface {
        let reply = try c.request(#"{"cmd": "screenshot", "path": "\#(name).png"}"#)
        return try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
    }

    static func journal(in state: String) throws -> JSON? {
        guard let data = FileManager.default.contents(atPath: state + "/scene.json") else { return nil }
        return try? JSON(parsing: data)
    }

    /// Waits until the journal holds `layers` layers (the root included) at `mediaTime`.
    static func waitForJournal(in state: String, mediaTime: Double, layers: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let record = try journal(in: state), record["mediaTime"] == .number(mediaTime), record["scene"]?["layers"]?.array?.count == layers { return }
            usleep(20_000)
        }
        Issue.record(
            "the journal never showed \(layers) layers at \(mediaTime): \(try journal(in: state)?.text.prefix(300) ?? "none")", sourceLocation: sourceLocation)
    }

    /// Records an issue unless the two images agree within the golden images' tolerance.
    static func expectSame(_ actual: Surface, _ expected: Surface, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try GoldenImage.expectSamePixels(actual, as: expected, name: "journal-" + name, tolerance: GoldenImage.tolerance, name, sourceLocation: sourceLocation)
    }
}
