import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Several outputs on the headless backend, through the real daemon's socket: one per
/// `[[outputs]]` table, each with its own root, scene, screenshot, pacing and power.
@Suite struct MultiOutputTests {
    /// `vitrined render` of a scene file at `size`.
    static func render(_ scene: URL, size: String, into directory: URL) throws -> Surface {
        let out = directory.appendingPathComponent(scene.deletingPathExtension().lastPathComponent + "-render.png").path
        let run = try DaemonProcess.runToExit(["render", "--scene", scene.path, "--size", size, "--out", out])
        try #require(run.status == 0, "\(run.stderr)")
        return try Surface(contentsOfPNG: out)
    }

    static func screenshot(_ c: SocketClient, _ output: String) throws -> Surface {
        let reply = try c.request(#"{"cmd": "screenshot", "output": "\#(output)", "path": "\#(output).png"}"#)
        return try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
    }

    static func outputs(_ c: SocketClient) throws -> [String: JSON] {
        let list = try c.request(#"{"cmd": "output.list"}"#)["result"]?["outputs"]?.array ?? []
        return Dictionary(uniqueKeysWithValues: list.compactMap { o in o["name"]?.string.map { ($0, o) } })
    }

    @Test func eachOutputShowsItsOwnRootAndScene() throws {
        let (daemon, directory) = try DaemonProcess.twoOutputs()
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        let hello = try c.request(#"{"cmd": "hello"}"#)
        let listed = hello["result"]?["outputs"]?.array ?? []
        #expect(listed.map { $0["name"] } == [JSON.string("HDMI-A-1"), .string("HDMI-A-2")], "\(hello)")
        #expect(listed.map { $0["root"] } == [JSON.string("root"), .string("right")])
        #expect(listed.map { $0["size"] } == [JSON.array([.number(320), .number(200)]), .array([.number(200), .number(320)])])
        #expect(listed.map { $0["rate"] } == [JSON.number(60), .number(30)])

        let first = try Self.screenshot(c, "HDMI-A-1")
        let second = try Self.screenshot(c, "HDMI-A-2")
        #expect(first.width == 320 && first.height == 200)
        #expect(second.width == 200 && second.height == 320)
        #expect(first.pixelsEqual(try Self.render(directory.appendingPathComponent("left.json"), size: "320x200", into: directory)))
        #expect(second.pixelsEqual(try Self.render(directory.appendingPathComponent("right.json"), size: "200x320", into: directory)))
        #expect(try Self.screenshot(c, "right").pixelsEqual(second), "an output is also named by its root")

        // A layer under one root shows on that output only.
        let add = try c.request(
            #"{"cmd": "layer.add", "layer": "note", "parent": "right", "properties": {"bounds": [0, 0, 40, 20], "position": [100, 300], "backgroundColor": "white"}}"#
        )
        #expect(add["ok"] == .bool(true), "\(add)")
        #expect(try Self.screenshot(c, "HDMI-A-1").pixelsEqual(first))
        let changed = try Self.screenshot(c, "HDMI-A-2")
        #expect(changed.pixel(x: 100, y: 300).argb == 0xffff_ffff)
        #expect(changed.pixel(x: 100, y: 100) == second.pixel(x: 100, y: 100))

        // scene.reset shows each output's configured scene again.
        #expect(try c.request(#"{"cmd": "scene.reset"}"#)["ok"] == .bool(true))
        #expect(try Self.screenshot(c, "HDMI-A-2").pixelsEqual(second), "scene.reset puts right.json back on its output")
        #expect(try Self.screenshot(c, "HDMI-A-1").pixelsEqual(first))

        let unknown = try c.request(#"{"cmd": "screenshot", "output": "DP-9"}"#)
        #expect(unknown["error"]?["code"] == .string("unknown_output"), "\(unknown)")
        #expect(unknown["error"]?["message"]?.string?.contains("'HDMI-A-2'") == true, "the error lists the outputs")
    }

    @Test func scriptsBlankAndWakeAnOutput() throws {
        let (daemon, directory) = try DaemonProcess.twoOutputs()
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        #expect(try c.request(#"{"cmd": "subscribe", "events": ["output.*"]}"#)["ok"] == .bool(true))
        let off = try c.request(#"{"cmd": "output.power", "output": "HDMI-A-2", "on": false}"#)
        #expect(off["result"]?["power"] == .bool(false), "\(off)")
        _ = try c.request(#"{"cmd": "ping"}"#)
        #expect(
            c.takeEvents() == [
                try JSON(parsing: Data(#"{"event": "output.power", "output": "HDMI-A-2", "root": "right", "on": false, "reason": "command"}"#.utf8))
            ])
        let framesOff = try Self.outputs(c)["HDMI-A-2"]?["frames"]

        // Changes on both roots: only the awake output draws them.
        for (layer, parent) in [("a", "root"), ("b", "right")] {
            let add = try c.request(
                #"{"cmd": "layer.add", "layer": "\#(layer)", "parent": "\#(parent)", "properties": {"bounds": [0, 0, 10, 10], "backgroundColor": "white"}}"#)
            #expect(add["ok"] == .bool(true), "\(add)")
            #expect(try c.request(#"{"cmd": "clock.advance", "seconds": 0.1}"#)["ok"] == .bool(true))
        }
        let blanked = try Self.outputs(c)
        #expect(blanked["HDMI-A-2"]?["frames"] == framesOff, "no frame is drawn to a blanked output: \(blanked)")
        #expect(blanked["HDMI-A-2"]?["power"] == .bool(false))
        #expect(blanked["HDMI-A-1"]?["frames"] == .number(2), "its first frame and layer a: \(blanked)")
        #expect(try c.request(#"{"cmd": "output.power", "output": "HDMI-A-2", "on": false}"#)["ok"] == .bool(true), "blanking twice is no change")
        #expect(c.takeEvents().isEmpty)

        let on = try c.request(#"{"cmd": "output.power", "output": "right", "on": true}"#)
        #expect(on["result"]?["power"] == .bool(true), "\(on)")
        _ = try c.request(#"{"cmd": "ping"}"#)
        #expect(
            c.takeEvents() == [
                try JSON(parsing: Data(#"{"event": "output.power", "output": "HDMI-A-2", "root": "right", "on": true, "reason": "command"}"#.utf8))
            ])
        #expect((try Self.outputs(c)["HDMI-A-2"]?["frames"]?.number ?? 0) == (framesOff?.number ?? 0) + 1, "waking draws the frame it missed")
        #expect(!daemon.standardError.contains("blanked"), "\(daemon.standardError)")

        for (line, code) in [
            (#"{"id": 1, "cmd": "output.power", "output": "HDMI-A-2"}"#, "missing_field"),
            (#"{"id": 2, "cmd": "output.power", "on": true}"#, "missing_field"),
            (#"{"id": 3, "cmd": "output.power", "output": "VGA-1", "on": false}"#, "unknown_output"),
            (#"{"id": 4, "cmd": "output.power", "output": "HDMI-A-2", "on": "off"}"#, "wrong_type"),
        ] {
            #expect(try c.exchange(line)?["error"]?["code"] == .string(code), "\(line)")
        }
        #expect(try Self.outputs(c)["HDMI-A-2"]?["power"] == .bool(true), "bad requests change nothing")
    }

    @Test func everyOutputsLayersSurviveARestart() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-outputs-state-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (daemon, directory) = try DaemonProcess.twoOutputs(arguments: ["--state-dir", state])
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        let add = try c.request(
            #"{"cmd": "layer.add", "layer": "note", "parent": "right", "properties": {"bounds": [0, 0, 40, 20], "position": [100, 300], "backgroundColor": "white"}}"#
        )
        #expect(add["ok"] == .bool(true), "\(add)")
        let before = try Self.screenshot(c, "HDMI-A-2")
        #expect(daemon.stop() == 0)
        let (again, _) = try DaemonProcess.twoOutputs(in: directory, arguments: ["--state-dir", state])
        let d = try again.connect()
        #expect(try d.request(#"{"cmd": "layer.get", "layer": "note"}"#)["result"]?["parent"] == .string("right"))
        #expect(try Self.screenshot(d, "HDMI-A-2").pixelsEqual(before), "the journal keeps the second output's layers")
    }

    @Test func eachOutputIsPacedAtItsOwnRate() throws {
        let (daemon, directory) = try DaemonProcess.twoOutputs(clock: "realtime", rightRate: 20)
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        let before = try Self.outputs(c)
        for (layer, parent) in [("spin-left", "root"), ("spin-right", "right")] {
            let add = try c.request(
                #"{"cmd": "layer.add", "layer": "\#(layer)", "parent": "\#(parent)", "properties": {"bounds": [0, 0, 30, 30], "backgroundColor": "white"}}"#)
            #expect(add["ok"] == .bool(true))
            let spin = try c.request(
                #"{"cmd": "animation.add", "layer": "\#(layer)", "animation": {"keyPath": "position.x", "from": 20, "to": 180, "duration": 100}}"#)
            #expect(spin["ok"] == .bool(true), "\(spin)")
        }
        Thread.sleep(forTimeInterval: 1)
        let after = try Self.outputs(c)
        let left = (after["HDMI-A-1"]?["frames"]?.number ?? 0) - (before["HDMI-A-1"]?["frames"]?.number ?? 0)
        let right = (after["HDMI-A-2"]?["frames"]?.number ?? 0) - (before["HDMI-A-2"]?["frames"]?.number ?? 0)
        #expect((15...23).contains(right), "the 20 Hz output drew \(right) frames in a second")
        #expect((40...63).contains(left), "the 60 Hz output drew \(left) frames in a second")
    }

    /// A POSIX `TZ` value under which the local clock reads `hour`:`minute`:`second` now.
    static func timeZone(readingNow hour: Int, _ minute: Int, _ second: Int) -> String {
        let utc = Int(time(nil)) % 86_400
        var ahead = ((hour * 3600 + minute * 60 + second - utc) % 86_400 + 86_400) % 86_400
        if ahead > 43_200 { ahead -= 86_400 }
        let size = abs(ahead)
        return String(format: "VIT%@%02d:%02d:%02d", ahead > 0 ? "-" : "+", size / 3600, size / 60 % 60, size % 60)
    }

    /// A daemon whose second output sleeps from 22:00 to 06:00, its clock reading
    /// `hour`:`minute`:`second` at start; subscribed to `output.*`.
    static func startNight(at hour: Int, _ minute: Int, _ second: Int) throws -> (DaemonProcess, URL, SocketClient) {
        let zone = timeZone(readingNow: hour, minute, second)
        let (daemon, directory) = try DaemonProcess.twoOutputs(extra: "power_off = \"22:00\"\npower_on = \"06:00\"\n", environment: ["TZ": zone])
        let c = try daemon.connect()
        #expect(try c.request(#"{"cmd": "subscribe", "events": ["output.*"]}"#)["ok"] == .bool(true))
        return (daemon, directory, c)
    }

    /// The `output.power` events of HDMI-A-2 within `seconds`.
    static func powerEvents(_ c: SocketClient, within seconds: Double) throws -> [Bool] {
        var seen: [Bool] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && seen.isEmpty {
            _ = try c.request(#"{"cmd": "ping"}"#)
            for event in c.takeEvents() where event["event"] == .string("output.power") && event["reason"] == .string("schedule") {
                if let on = event["on"], case .bool(let value) = on { seen.append(value) }
            }
            usleep(100_000)
        }
        return seen
    }

    @Test func aNightScheduleBlanksAt22AndWakesAt06() throws {
        let (evening, eveningDirectory, e) = try Self.startNight(at: 21, 59, 55)
        defer { try? FileManager.default.removeItem(at: eveningDirectory) }
        #expect(try Self.outputs(e)["HDMI-A-2"]?["power"] == .bool(true), "awake at 21:59:55")
        #expect(try Self.powerEvents(e, within: 10) == [false], "blanked at 22:00")
        _ = evening

        let (morning, morningDirectory, m) = try Self.startNight(at: 5, 59, 55)
        defer { try? FileManager.default.removeItem(at: morningDirectory) }
        #expect(try Self.outputs(m)["HDMI-A-2"]?["power"] == .bool(false), "asleep at 05:59:55")
        #expect(try Self.powerEvents(m, within: 10) == [true], "woken at 06:00")
        #expect(try Self.outputs(m)["HDMI-A-2"]?["frames"] == .number(1), "waking draws the frame it missed")
        _ = morning
    }

    @Test func aDaemonStartedAt02IsBlankedUntil06() throws {
        for (hour, minute) in [(0, 30), (2, 0)] {
            let (daemon, directory, c) = try Self.startNight(at: hour, minute, 0)
            defer { try? FileManager.default.removeItem(at: directory) }
            let listed = try Self.outputs(c)
            #expect(listed["HDMI-A-2"]?["power"] == .bool(false), "asleep at \(hour):\(minute): \(listed)")
            #expect(listed["HDMI-A-2"]?["frames"] == .number(0))
            #expect(listed["HDMI-A-1"]?["power"] == .bool(true))
            _ = daemon
        }
    }

    @Test func theScheduleBlanksAnOutputAtStart() throws {
        let minute = Int(time(nil)) % 86_400 / 60
        func hhmm(_ m: Int) -> String { String(format: "%02d:%02d", ((m + 1440) % 1440) / 60, ((m + 1440) % 1440) % 60) }
        let (daemon, directory) = try DaemonProcess.twoOutputs(
            extra: "power_off = \"\(hhmm(minute - 2))\"\npower_on = \"\(hhmm(minute + 3))\"\n", environment: ["TZ": "UTC0"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let c = try daemon.connect()
        let listed = try Self.outputs(c)
        #expect(listed["HDMI-A-2"]?["power"] == .bool(false), "asleep from \(hhmm(minute - 2)) to \(hhmm(minute + 3)): \(listed)")
        #expect(listed["HDMI-A-2"]?["frames"] == .number(0))
        #expect(listed["HDMI-A-1"]?["power"] == .bool(true))
        #expect(
            try c.request(#"{"cmd": "output.power", "output": "HDMI-A-2", "on": true}"#)["result"]?["power"] == .bool(true), "a command overrides the schedule")
    }
}

extension Surface {
    /// Every pixel the same as `other`'s, at the same size.
    func pixelsEqual(_ other: Surface) -> Bool {
        guard width == other.width, height == other.height else { return false }
        for y in 0..<height {
            for x in 0..<width where pixel(x: x, y: y) != other.pixel(x: x, y: y) { return false }
        }
        return true
    }
}
