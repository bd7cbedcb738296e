import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Playlists and `scene.load` through the real daemon on the manual clock: items switch
/// at their frames with their transition and never a frame of background between them,
/// an item that cannot be shown is passed over with `playlist.skipped`, a scene waits
/// for its image before it replaces the old one, and conflicts are refused.
@Suite struct SignageTests {
    static let red = [0xd0, 0x30, 0x30, 255], green = [0x30, 0xd0, 0x30, 255], blue = [0x30, 0x30, 0xd0, 255]

    static func scene(_ name: String, _ colour: String) -> String {
        """
        [scenes.\(name)]
        background = "#000000"
        [[scenes.\(name).layers]]
        id = "panel"
        properties = { bounds = [0, 0, 160, 100], position = [80, 50], backgroundColor = "\(colour)" }
        """
    }

    static let push = #"{ transition = "push", subtype = "fromRight", duration = 0.25, timing = "linear" }"#

    /// A daemon showing the playlist red, green, blue (a second each, pushed in from the
    /// right in a quarter second) on a magenta output, and a client subscribed to signage.
    static func start(arguments: [String] = [], in existing: URL? = nil, extra: String = "") throws -> (DaemonProcess, SocketClient, URL) {
        let directory = existing ?? FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-signage-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml")
        try """
        [output]
        background = "#ff00ff"
        [content]
        roots = ["\(directory.path)"]
        \(scene("red", "#d03030"))
        \(scene("green", "#30d030"))
        \(scene("blue", "#3030d0"))
        [[playlists]]
        name = "three"
        items = [
          { scene = "red", duration = 1, transition = \(push) },
          { scene = "green", duration = 1, transition = \(push) },
          { scene = "blue", duration = 1, transition = \(push) },
        ]
        [[schedules]]
        playlist = "three"
        \(extra)
        """.write(to: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--size", "160x100", "--config", config.path] + arguments)
        let c = try daemon.connect()
        try c.ok(#"{"id": "sub", "cmd": "subscribe", "events": ["playlist.*", "scene.loaded"]}"#)
        return (daemon, c, directory)
    }

    static func screenshot(_ c: SocketClient, at time: Double) throws -> Surface {
        try c.ok(#"{"id": "clock", "cmd": "clock.set", "time": \#(time)}"#)
        return try c.screenshot("frame-\(time)")
    }

    /// The columns of row `y` that show `incoming` (the rest `outgoing`, one column blended
    /// at most); records an issue for any other colour — the background, black, magenta.
    static func incomingColumns(_ shot: Surface, y: Int, outgoing: [Int], incoming: [Int], at time: Double) -> Int {
        var count = 0
        var blended = 0
        for x in 0..<shot.width {
            let got = ScreenshotTests.rgba(shot, x, y)
            let near = { (want: [Int]) in zip(got, want).allSatisfy { abs($0 - $1) <= 3 } }
            if near(incoming) {
                count += 1
            } else if !near(outgoing) {
                blended += 1
                // A column the boundary crosses is a mix of the two items, of nothing else.
                let channel = (0..<3).max { abs(incoming[$0] - outgoing[$0]) < abs(incoming[$1] - outgoing[$1]) }!
                let a = Double(got[channel] - outgoing[channel]) / Double(incoming[channel] - outgoing[channel])
                let mix = (0..<3).allSatisfy { abs(Double(got[$0]) - (Double(outgoing[$0]) * (1 - a) + Double(incoming[$0]) * a)) <= 4 }
                #expect((0...1).contains(a) && mix, "t=\(time), (\(x), \(y)): \(got) is not a mix of \(outgoing) and \(incoming)")
            }
        }
        #expect(blended <= 1, "t=\(time), row \(y): \(blended) columns are neither item: \((0..<shot.width).map { ScreenshotTests.rgba(shot, $0, y) })")
        return count
    }

    @Test func threeItemsSwitchAtTheirFramesWithTheTransitionAndNoBackground() throws {
        let (daemon, c, directory) = try Self.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = daemon
        let pairs = [(Self.red, Self.green), (Self.green, Self.blue), (Self.blue, Self.red)]
        for (switchAt, (outgoing, incoming)) in pairs.enumerated().map({ ($0.offset + 1, $0.element) }) {
            // Every frame of a 60 Hz output from 3 frames before the switch to 3 after the transition.
            for frame in (switchAt * 60 - 3)...(switchAt * 60 + 18) {
                let time = Double(frame) / 60
                let shot = try Self.screenshot(c, at: time)
                let progress = min(1, max(0, (time - Double(switchAt)) / 0.25))
                for y in [0, 50, 99] {
                    let columns = Self.incomingColumns(shot, y: y, outgoing: outgoing, incoming: incoming, at: time)
                    #expect(abs(Double(columns) - 160 * progress) <= 1, "t=\(time): \(columns) columns of the next item, expected \(160 * progress)")
                }
            }
            let event = try c.waitForEvent("playlist.item") { $0["index"]?.number == Double(switchAt % 3) }
            #expect(event["playlist"]?.string == "three" && event["output"]?.string != nil, "\(event)")
        }
        let listed = try #require(try c.request(#"{"id": 1, "cmd": "playlist.list"}"#)["result"])
        #expect(listed["outputs"]?.array?.first?["item"]?.string == "red", "\(listed)")
    }

    @Test func anItemThatCannotBeShownIsPassedOverWithAnEvent() throws {
        let (daemon, c, directory) = try Self.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = daemon
        let gone = directory.appendingPathComponent("gone.json").path
        try c.ok(
            #"{"id": 1, "cmd": "playlist.set", "playlist": {"name": "gappy", "items": [{"scene": "green", "duration": 1}, {"file": "\#(gone)", "duration": 1}, {"scene": "blue", "duration": 1, "transition": {"transition": "push", "subtype": "fromRight", "duration": 0.25, "timing": "linear"}}]}}"#
        )
        try c.ok(#"{"id": 2, "cmd": "clock.set", "time": 0.5}"#)
        try c.ok(#"{"id": 3, "cmd": "playlist.play", "playlist": "gappy"}"#)
        ScreenshotTests.expectPixel(try Self.screenshot(c, at: 0.5), 80, 50, Self.green, "the played playlist's first item, at once")
        for frame in 89...96 {
            let time = Double(frame) / 60
            let shot = try Self.screenshot(c, at: time)
            let columns = Self.incomingColumns(shot, y: 50, outgoing: Self.green, incoming: Self.blue, at: time)
            #expect(abs(Double(columns) - 160 * min(1, max(0, (time - 1.5) / 0.25))) <= 1, "t=\(time): \(columns)")
        }
        let events = try c.drain().filter { $0["event"]?.string?.hasPrefix("playlist.") ?? false }
        let skipped = try #require(events.first { $0["event"]?.string == "playlist.skipped" }, "\(events)")
        #expect(skipped["index"]?.number == 1 && skipped["item"]?.string == gone && (skipped["reason"]?.string ?? "").contains("gone.json"), "\(skipped)")
        let item = try #require(events.last, "\(events)")
        #expect(
            item["event"]?.string == "playlist.item" && item["playlist"]?.string == "gappy" && item["index"]?.number == 2 && item["item"]?.string == "blue",
            "\(events)")
        // Played once, the schedule takes over again when it ends.
        _ = try Self.screenshot(c, at: 2.5)
        _ = try c.waitForEvent("playlist.item") { $0["playlist"]?.string == "three" }
    }

    @Test func sceneLoadWaitsForItsImageAndKeepsTheOldSceneUntilThen() throws {
        let (daemon, c, directory) = try Self.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        try c.ok(#"{"id": 0, "cmd": "playlist.play", "playlist": "three", "item": 0}"#)
        let big = Surface(width: 3000, height: 3000)
        big.clear(PremultipliedColor(argb: 0xFF20_90E0)!)
        try Data(try big.pngData()).write(to: directory.appendingPathComponent("slow.png"))
        let scene = directory.appendingPathComponent("slow.json")
        try
            ##"{"background": "#000000", "layers": [{"id": "photo", "properties": {"bounds": [0, 0, 160, 100], "position": [80, 50], "contents": "slow.png"}}]}"##
            .write(to: scene, atomically: true, encoding: .utf8)
        let other = try daemon.connect()
        c.send(#"{"id": "load", "cmd": "scene.load", "file": "\#(scene.path)", "transition": {"transition": "fade", "duration": 0.5, "timing": "linear"}}"#)
        // Until the reply, and at the instant of it, the old scene is shown whole.
        let during = try other.screenshot("during")
        ScreenshotTests.expectPixel(during, 80, 50, Self.red, "the old scene while the image decodes")
        ScreenshotTests.expectPixel(during, 2, 2, Self.red, "the old scene while the image decodes")
        let reply = try #require(c.readLine(timeout: 30))
        #expect(reply.contains(#""ok":true"#) && reply.contains("\"load\""), "\(reply)")
        let halfway = try Self.screenshot(c, at: 0.25)
        ScreenshotTests.expectPixel(halfway, 80, 50, [(0xd0 + 0x20) / 2, (0x30 + 0x90) / 2, (0x30 + 0xe0) / 2, 255], "half faded to the image")
        ScreenshotTests.expectPixel(try Self.screenshot(c, at: 0.6), 80, 50, [0x20, 0x90, 0xe0, 255], "the image, decoded")
        _ = try c.waitForEvent("scene.loaded") { $0["scene"]?.string == scene.path && $0["transition"]?.string == "fade" }
    }

    @Test func aSceneThatCannotBeLoadedChangesNothing() throws {
        let (daemon, c, directory) = try Self.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = daemon
        try c.ok(#"{"id": 0, "cmd": "playlist.play", "playlist": "three", "item": 1}"#)
        let bad = directory.appendingPathComponent("bad.json")
        try #"{"layers": [{"id": "x", "kind": "teapot"}]}"#.write(to: bad, atomically: true, encoding: .utf8)
        for (line, code, words) in [
            (#"{"id": 1, "cmd": "scene.load", "file": "\#(directory.path)/none.json"}"#, "content_failed", "none.json"),
            (#"{"id": 2, "cmd": "scene.load", "file": "\#(bad.path)"}"#, "unknown_kind", "teapot"),
            (#"{"id": 3, "cmd": "scene.load", "scene": "purple"}"#, "invalid_value", "purple"),
            (#"{"id": 4, "cmd": "scene.load", "file": "/etc/hostname"}"#, "path_not_allowed", "content roots"),
            (#"{"id": 5, "cmd": "scene.load", "scene": "red", "transition": {"transition": "spin"}}"#, "invalid_value", "spin"),
        ] {
            let reply = try c.request(line)
            #expect(reply["error"]?["code"]?.string == code && (reply["error"]?["message"]?.string ?? "").contains(words), "\(line) → \(reply)")
        }
        ScreenshotTests.expectPixel(try Self.screenshot(c, at: 0.3), 80, 50, Self.green, "still the item shown before, pushed in")
        try c.ok(#"{"id": 6, "cmd": "scene.load", "scene": "blue"}"#)
        ScreenshotTests.expectPixel(try c.screenshot("cut"), 80, 50, Self.blue, "a named scene, cut in")
    }

    @Test func playlistsAndSchedulesSetOverTheSocketSurviveARestart() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-signage-state-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (first, c, directory) = try Self.start(arguments: ["--state-dir", state])
        defer { try? FileManager.default.removeItem(at: directory) }
        try c.ok(#"{"id": 1, "cmd": "playlist.set", "playlist": {"name": "blues", "items": [{"scene": "blue", "duration": 5}]}}"#)
        try c.ok(#"{"id": 2, "cmd": "schedule.set", "schedule": {"name": "urgent", "playlist": "blues", "priority": 5}}"#)
        ScreenshotTests.expectPixel(try c.screenshot("before"), 80, 50, SignageTests.blue, "the schedule set over the socket plays at once")
        #expect(first.stop() == 0)
        let (second, d, _) = try Self.start(arguments: ["--state-dir", state], in: directory)
        _ = second
        let schedules = try #require(try d.request(#"{"id": 1, "cmd": "schedule.list"}"#)["result"]?["schedules"]?.array)
        #expect(schedules.map { $0["name"]?.string } == ["three", "urgent"], "\(schedules)")
        ScreenshotTests.expectPixel(try d.screenshot("after"), 80, 50, SignageTests.blue, "and again after a restart")
        try d.ok(#"{"id": 2, "cmd": "schedule.remove", "schedule": "urgent"}"#)
        ScreenshotTests.expectPixel(try SignageTests.screenshot(d, at: 1), 80, 50, SignageTests.red, "the configured schedule once it is removed")
    }

    @Test func aKeyBindingPlaysAPlaylistThenTheScheduleAgain() throws {
        let (daemon, c, directory) = try Self.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = daemon
        try c.ok(#"{"id": 1, "cmd": "playlist.set", "playlist": {"name": "offer", "items": [{"scene": "blue", "duration": 0.5}]}}"#)
        try c.ok(#"{"id": 2, "cmd": "binding.add", "binding": "promo", "on": "key", "key": "p", "playlist": "offer"}"#)
        try c.ok(#"{"id": 3, "cmd": "clock.set", "time": 0.4}"#)
        try c.ok(#"{"id": 4, "cmd": "input.inject", "type": "key", "keysym": "p", "pressed": true}"#)
        ScreenshotTests.expectPixel(try c.screenshot("offer"), 80, 50, Self.blue, "the binding's playlist, at once")
        let events = try c.drain().filter { $0["event"]?.string == "playlist.item" }
        #expect(events.last?["playlist"]?.string == "offer", "\(events)")
        _ = try Self.screenshot(c, at: 0.9)
        ScreenshotTests.expectPixel(try Self.screenshot(c, at: 1.2), 80, 50, Self.green, "the schedule again once it ended, where it was")
        let listed = try #require(try c.request(#"{"id": 5, "cmd": "binding.list"}"#)["result"])
        #expect("\(listed)".contains(#""playlist":"offer""#), "\(listed)")
    }

    @Test func sceneLoadWithAtSwitchesAtThatTime() throws {
        let (daemon, c, directory) = try Self.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        try c.ok(#"{"id": 0, "cmd": "playlist.play", "playlist": "three", "item": 1}"#)
        _ = try Self.screenshot(c, at: 0.3)
        c.send(#"{"id": "later", "cmd": "scene.load", "scene": "blue", "at": 0.5}"#)
        // (the client that sent it waits for its reply; another moves the clock)
        let other = try daemon.connect()
        ScreenshotTests.expectPixel(try Self.screenshot(other, at: 0.45), 80, 50, Self.green, "before its time")
        ScreenshotTests.expectPixel(try Self.screenshot(other, at: 0.5), 80, 50, Self.blue, "at its time")
        var reply = ""
        while !reply.contains(#""id":"later""#), let line = c.readLine() { reply = line }
        #expect(reply.contains(#""applied":0.5"#) && reply.contains(#""scene":"blue""#), "\(reply)")
    }

    @Test func aWindowItemStartsItsClientAndShowsItsWindowInItsLayer() throws {
        let client = "[compositor]\nenabled = true\n[[clients]]\nname = \"shm\"\ncommand = [\"/usr/bin/weston-simple-shm\"]\nstart = false\n"
        let (daemon, c, directory) = try Self.start(extra: client)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = daemon
        let scene = directory.appendingPathComponent("app.json")
        try #"{"layers": [{"id": "app", "kind": "surface", "properties": {"bounds": [0, 0, 160, 100], "position": [80, 50]}}]}"#
            .write(to: scene, atomically: true, encoding: .utf8)
        try c.ok(
            #"{"id": 1, "cmd": "playlist.set", "playlist": {"name": "apps", "items": [{"file": "\#(scene.path)", "duration": 1}, {"client": "shm", "layer": "app", "duration": 5}]}}"#
        )
        try c.ok(#"{"id": 2, "cmd": "playlist.play", "playlist": "apps"}"#)
        // (the scene file is read by a worker: its item begins once it is, at time 0)
        _ = try c.waitForEvent("playlist.item") { $0["playlist"]?.string == "apps" && $0["index"]?.number == 0 }
        try c.ok(#"{"id": 3, "cmd": "clock.set", "time": 1}"#)
        let item = try c.waitForEvent("playlist.item", timeout: 20) { $0["playlist"]?.string == "apps" && $0["index"]?.number == 1 }
        #expect(item["item"]?.string == "shm")
        let surfaces = try #require(try c.request(#"{"id": 4, "cmd": "surface.list"}"#)["result"]?["surfaces"]?.array)
        #expect(surfaces.contains { $0["layer"]?.string == "app" && $0["mapped"] == .bool(true) }, "\(surfaces)")
        try c.ok(#"{"id": 5, "cmd": "client.stop", "name": "shm"}"#)
    }

    @Test func aConflictingScheduleIsRefusedAtLoadAndOverTheSocket() throws {
        let (daemon, c, directory) = try Self.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = daemon
        let reply = try c.request(#"{"id": 1, "cmd": "schedule.set", "schedule": {"name": "other", "playlist": "three", "from": "08:00", "to": "09:00"}}"#)
        #expect(reply["error"]?["code"]?.string == "invalid_value" && (reply["error"]?["message"]?.string ?? "").contains("overlaps"), "\(reply)")
        let listed = try #require(try c.request(#"{"id": 2, "cmd": "schedule.list"}"#)["result"]?["schedules"]?.array)
        #expect(listed.count == 1, "\(listed)")
        let config = directory.appendingPathComponent("conflict.toml")
        try """
        \(Self.scene("red", "#d03030"))
        [[playlists]]
        name = "one"
        items = [{ scene = "red", duration = 5 }]
        [[schedules]]
        playlist = "one"
        from = "07:00"
        to = "11:00"
        [[schedules]]
        name = "again"
        playlist = "one"
        from = "10:00"
        to = "12:00"
        """.write(to: config, atomically: true, encoding: .utf8)
        let run = try DaemonProcess.runToExit(["--backend", "headless", "--config", config.path, "--socket", directory.appendingPathComponent("x.sock").path])
        #expect(run.status != 0 && run.stderr.contains("conflict.toml:13: schedules[1]") && run.stderr.contains("overlaps"), "\(run)")
    }
}

/// Playlists with videos: an item lasting until its video ends, and a scene whose video
/// cannot play refused before anything changes.
@Suite(.serialized) struct SignageVideoTests {
    @Test func aVideoItemLastsUntilItsVideoEnds() throws {
        let (daemon, c, directory) = try SignageTests.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = daemon
        let made = try VideoTests().makeVideo()
        let video = directory.appendingPathComponent("count.avi")
        try FileManager.default.moveItem(at: URL(fileURLWithPath: made), to: video)
        let tv = directory.appendingPathComponent("tv.json")
        try ##"{"background": "#ff00ff", "layers": [{"id": "tv", "kind": "video", "properties": {"bounds": [0, 0, 160, 100], "position": [80, 50]}}]}"##
            .write(to: tv, atomically: true, encoding: .utf8)
        try c.ok(
            #"{"id": 1, "cmd": "playlist.set", "playlist": {"name": "tv", "items": [{"file": "\#(tv.path)", "duration": 0.5}, {"name": "clip", "video": "\#(video.path)", "layer": "tv", "duration": "video"}, {"scene": "red", "duration": 1}]}}"#
        )
        try c.ok(#"{"id": 2, "cmd": "subscribe", "events": ["video.*"]}"#)
        try c.ok(#"{"id": 3, "cmd": "playlist.play", "playlist": "tv"}"#)
        // The video's first frame is decoded before its item is due (prerolled).
        let deadline = Date().addingTimeInterval(10)
        while try c.request(#"{"id": 4, "cmd": "playlist.list"}"#)["result"]?["outputs"]?.array?.first?["nextReady"] != .bool(true), Date() < deadline {
            usleep(10_000)
        }
        _ = try SignageTests.screenshot(c, at: 0.25)
        for (time, frame) in [(0.5, 0), (1.0, 15), (2.0, 45)] {
            let shot = try SignageTests.screenshot(c, at: time)
            let shown = VideoTests.frame(ScreenshotTests.rgba(shot, 40, 50))
            #expect(abs(shown - frame) <= 1, "t=\(time): video frame \(shown), expected \(frame)")
        }
        var frame = 60, time = 2.0
        var events: [JSON] = []
        while time < 3, !events.contains(where: { $0["event"]?.string == "playlist.item" && $0["item"]?.string == "red" }) {
            frame += 1
            time = Double(frame) / 30
            _ = try SignageTests.screenshot(c, at: time)
            events += try c.drain()
        }
        let ended = try #require(events.first { $0["event"]?.string == "video.ended" }, "\(events)")
        #expect(ended["layer"]?.string == "tv")
        #expect(time >= 2.5 - 1e-3 && time < 2.6, "the next item came at \(time), when the two-second video played from 0.5 ended: \(events)")
        ScreenshotTests.expectPixel(try SignageTests.screenshot(c, at: time + 0.3), 80, 50, SignageTests.red, "the item after the video")
    }

    @Test func aSceneWhoseVideoCannotPlayIsRefused() throws {
        let (daemon, c, directory) = try SignageTests.start()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = daemon
        try c.ok(#"{"id": 0, "cmd": "playlist.play", "playlist": "three", "item": 1}"#)
        try "not a video".write(to: directory.appendingPathComponent("fake.avi"), atomically: true, encoding: .utf8)
        let scene = directory.appendingPathComponent("fake.json")
        try #"{"layers": [{"id": "tv", "kind": "video", "properties": {"bounds": [0, 0, 160, 100], "position": [80, 50], "src": "fake.avi"}}]}"#
            .write(to: scene, atomically: true, encoding: .utf8)
        let reply = try c.request(#"{"id": 1, "cmd": "scene.load", "file": "\#(scene.path)"}"#)
        #expect(reply["error"]?["code"]?.string == "content_failed" && (reply["error"]?["message"]?.string ?? "").contains("'tv'"), "\(reply)")
        ScreenshotTests.expectPixel(try SignageTests.screenshot(c, at: 0.5), 80, 50, SignageTests.green, "the scene shown before")
    }
}
