import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Video layers against the real daemon with a manual clock: a video made at test time by
/// GStreamer (60 frames at 30 fps, frame i one solid colour that names i) is checked frame
/// by frame at clock times, paused, at half speed, looping, at its end, and a file that is
/// no video fails with GStreamer's message.
@Suite(.serialized) struct VideoTests {
    let content: URL
    static let fps = 30.0, frames = 60

    init() throws {
        content = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-video-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true)
    }

    /// Frame i's colour: each channel one of four levels, so 64 frames are told apart
    /// through a lossy codec.
    static func color(_ i: Int) -> [Int] { [(i % 4) * 80, (i / 4 % 4) * 80, (i / 16 % 4) * 80] }

    /// The frame whose colour is nearest to `rgb`.
    static func frame(_ rgb: [Int]) -> Int {
        func level(_ v: Int) -> Int { min(3, max(0, Int((Double(v) / 80).rounded()))) }
        return level(rgb[0]) + 4 * level(rgb[1]) + 16 * level(rgb[2])
    }

    /// Writes the raw frames and encodes them (MPEG-4 part 2 in AVI, whose frames are timed by their index) with
    /// gst-launch-1.0; returns the video's path.
    /// With `checkered`, each frame's right half is a black and white checkerboard of
    /// 8-pixel squares, which shows at what size it was decoded.
    func makeVideo(sound: Bool = false, reversed: Bool = false, checkered: Bool = false) throws -> String {
        let (w, h) = (64, 48)
        var raw = [UInt8]()
        raw.reserveCapacity(Self.frames * w * h * 4)
        for i in 0..<Self.frames {
            let c = Self.color(reversed ? Self.frames - 1 - i : i)
            for p in 0..<(w * h) {
                let (x, y) = (p % w, p / w)
                if checkered, x >= w / 2 {
                    let v: UInt8 = (x / 8 + y / 8) % 2 == 0 ? 255 : 0
                    raw += [v, v, v, 255]
                } else {
                    raw += [UInt8(c[2]), UInt8(c[1]), UInt8(c[0]), 255]
                }
            }
        }
        let rawPath = content.appendingPathComponent("frames.bgrx").path
        try Data(raw).write(to: URL(fileURLWithPath: rawPath))
        let path = content.appendingPathComponent(sound ? "sound.avi" : reversed ? "down.avi" : checkered ? "checkered.avi" : "count.avi").path
        let launch = Process()
        launch.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        launch.arguments = [
            "-q", "filesrc", "location=\(rawPath)", "!", "rawvideoparse", "width=\(w)", "height=\(h)", "format=bgrx", "framerate=30/1",
            "!", "videoconvert", "!", "avenc_mpeg4", "bitrate=2000000", "!", "avimux", "name=mux", "!", "filesink", "location=\(path)",
        ]
        // Two seconds of a tone beside the pictures.
        if sound {
            launch.arguments! += [
                "audiotestsrc", "num-buffers=20", "samplesperbuffer=4410", "!", "audio/x-raw,format=S16LE,rate=44100,channels=1", "!", "mux.",
            ]
        }
        try launch.run()
        launch.waitUntilExit()
        try #require(launch.terminationStatus == 0, "gst-launch-1.0 failed")
        return path
    }

    func start(_ arguments: [String] = []) throws -> (DaemonProcess, SocketClient) {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48", "--content-root", content.path] + arguments)
        let c = try daemon.connect()
        #expect(try c.request(#"{"cmd": "subscribe", "events": ["video.*"]}"#)["ok"] == .bool(true))
        return (daemon, c)
    }

    /// A daemon whose `limits.memory_mb` is 16.
    func startWithSixteenMegabytes() throws -> (DaemonProcess, SocketClient) {
        let config = content.appendingPathComponent("small.toml").path
        try Data("[limits]\nmemory_mb = 16\n".utf8).write(to: URL(fileURLWithPath: config))
        return try start(["--config", config])
    }

    func addVideo(_ c: SocketClient, _ src: String, _ extra: String = "") throws {
        let reply = try c.request(
            #"{"cmd": "layer.add", "layer": "v", "kind": "video", "properties": {"bounds": [0, 0, 64, 48], "position": [32, 24], "src": "\#(src)"\#(extra)}}"#)
        try #require(reply["ok"] == .bool(true), "\(reply)")
    }

    /// The frame the screen shows at clock time `t`.
    func frame(at t: Double, _ c: SocketClient) throws -> Int {
        #expect(try c.request(#"{"cmd": "clock.set", "time": \#(t)}"#)["ok"] == .bool(true))
        let reply = try c.request(#"{"cmd": "screenshot", "path": "shot.png"}"#)
        let shot = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
        return Self.frame(ScreenshotTests.rgba(shot, 32, 24))
    }

    func events(_ c: SocketClient) throws -> [String] {
        _ = try c.request(#"{"cmd": "ping"}"#)
        return c.takeEvents().compactMap { $0["event"]?.string }
    }

    @Test func eachClockTimeShowsTheFrameDueForwardsAndBack() throws {
        let video = try makeVideo()
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, video)
        for t in [0.01, 0.2, 0.51, 1.0 + 1.0 / 60, 0.77, 0.05, 1.62, 1.95] {
            #expect(try frame(at: t, c) == Int(t * Self.fps), "at \(t) s")
        }
        let started = c.takeEvents().filter { $0["event"] == .string("video.started") }
        #expect(started.count == 1)
        #expect(started.first?["duration"]?.number.map { abs($0 - 2) < 0.05 } == true, "\(started)")
    }

    @Test func aPausedLayerFreezesAndHalfSpeedShowsHalfTheFrames() throws {
        let video = try makeVideo()
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, video)
        #expect(try frame(at: 0.51, c) == 15)
        #expect(try c.request(#"{"cmd": "layer.pause", "layer": "v"}"#)["ok"] == .bool(true))
        #expect(try frame(at: 1.2, c) == 15)
        #expect(try frame(at: 5, c) == 15)
        #expect(try c.request(#"{"cmd": "layer.resume", "layer": "v"}"#)["ok"] == .bool(true))
        #expect(try frame(at: 5.2, c) == 21)
        // From here at half speed: 0.71 + (t − 5.2) / 2 seconds into the video.
        #expect(try c.request(#"{"cmd": "layer.speed", "layer": "v", "speed": 0.5}"#)["ok"] == .bool(true))
        for t in [5.3, 5.6, 6.0, 6.41] {
            #expect(try frame(at: t, c) == Int((0.71 + (t - 5.2) / 2) * Self.fps), "at \(t) s")
        }
    }

    @Test func aLayerAtHalfSpeedFromItsStart() throws {
        let video = try makeVideo()
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, video, #", "speed": 0.5"#)
        for t in [0.1, 0.5, 1.01, 2.5, 3.9] {
            #expect(try frame(at: t, c) == Int(t * Self.fps / 2), "at \(t) s")
        }
    }

    @Test func theEndIsToldAndALoopStartsAgain() throws {
        let video = try makeVideo()
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, video)
        #expect(try frame(at: 1.9, c) == 57)
        #expect(try frame(at: 2.5, c) == 59)
        #expect(try events(c).filter { $0 == "video.ended" }.count == 1)
        // Past its end it stays at its last frame, and the end is told once.
        #expect(try frame(at: 3.5, c) == 59)
        #expect(try !events(c).contains("video.ended"))
        #expect(try c.request(#"{"cmd": "layer.remove", "layer": "v"}"#)["ok"] == .bool(true))
        try addVideo(c, video, #", "loop": true"#)
        // Added at 3.5 s: the video starts at its beginning then.
        for t in [3.62, 5.0, 5.55, 6.9, 8.01, 3600.51, 3600.52 + 1.0 / 30] {
            #expect(try frame(at: t, c) == Int(((t - 3.5).truncatingRemainder(dividingBy: 2)) * Self.fps), "at \(t) s")
        }
        #expect(try !events(c).contains("video.ended"))
    }

    @Test func aVideoLoopingInRealTimeRaisesNoWarnings() throws {
        let video = try makeVideo()
        let daemon = try DaemonProcess(clock: "realtime", arguments: ["--size", "64x48", "--content-root", content.path])
        let c = try daemon.connect()
        try addVideo(c, video, #", "loop": true"#)
        // Two seconds a loop: past its second loop's start.
        Thread.sleep(forTimeInterval: 4.6)
        #expect(try c.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        #expect(daemon.stop() == 0)
        #expect(!daemon.standardError.contains("CRITICAL") && !daemon.standardError.contains("-WARNING"), "\(daemon.standardError)")
    }

    @Test func aMutedVideoWithSoundShowsTheSameFrames() throws {
        let video = try makeVideo(sound: true)
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, video, #", "audio": "muted""#)
        for t in [0.2, 1.01, 0.51, 1.62] {
            #expect(try frame(at: t, c) == Int(t * Self.fps), "at \(t) s")
        }
        #expect(try frame(at: 2.5, c) == 59)
        #expect(try events(c).filter { $0.hasPrefix("video.") } == ["video.started", "video.ended"])
    }

    @Test func aFileThatIsNoVideoFailsWithGStreamersMessage() throws {
        let bad = content.appendingPathComponent("bad.mkv").path
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: bad))
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, bad)
        _ = try frame(at: 0.1, c)
        let errors = c.takeEvents().filter { $0["event"] == .string("video.error") }
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?["message"]?.string?.isEmpty == false, "\(errors)")
        #expect(try c.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        // Outside the content roots: the same event, with the content loader's reason.
        try #require(try c.request(#"{"cmd": "layer.remove", "layer": "v"}"#)["ok"] == .bool(true))
        try addVideo(c, "/etc/passwd")
        _ = try frame(at: 0.2, c)
        let outside = c.takeEvents().filter { $0["event"] == .string("video.error") }
        #expect(outside.first?["message"]?.string?.contains("outside the content roots") == true, "\(outside)")
    }

    @Test func streamsArePlayedOnlyWhereTheConfigurationAllowsThem() throws {
        let (daemon, c) = try start()
        try addVideo(c, "http://127.0.0.1:9/clip.mp4")
        _ = try frame(at: 0.1, c)
        let refused = c.takeEvents().filter { $0["event"] == .string("video.error") }
        #expect(refused.first?["message"]?.string?.contains("network_video") == true, "\(refused)")
        withExtendedLifetime(daemon) {}
        // Allowed: GStreamer opens it, and says why it cannot (nothing listens on port 9).
        let config = content.appendingPathComponent("network.toml").path
        try Data("[content]\nnetwork_video = true\n".utf8).write(to: URL(fileURLWithPath: config))
        let (allowing, d) = try start(["--config", config])
        defer { withExtendedLifetime(allowing) {} }
        try addVideo(d, "http://127.0.0.1:9/clip.mp4")
        var failed: [JSON] = []
        for t in 1...50 where failed.isEmpty {
            _ = try frame(at: Double(t) / 10, d)
            failed = d.takeEvents().filter { $0["event"] == .string("video.error") }
        }
        #expect(failed.count == 1, "\(failed)")
        #expect(failed.first?["message"]?.string?.contains("network_video") == false, "\(failed)")
        #expect(failed.first?["debug"]?.string?.isEmpty == false, "\(failed)")
    }

    @Test func framesThatDoNotFitTheMemoryLimitAreRefused() throws {
        let video = try makeVideo()
        let (daemon, c) = try startWithSixteenMegabytes()
        defer { withExtendedLifetime(daemon) {} }
        // 2000 × 2000 pixels, five frames: 80 MB.
        let reply = try c.request(
            #"{"cmd": "layer.add", "layer": "big", "kind": "video", "properties": {"bounds": [0, 0, 2000, 2000], "position": [32, 24], "src": "\#(video)"}}"#)
        #expect(reply["ok"] == .bool(true), "\(reply)")
        _ = try frame(at: 0.1, c)
        let errors = c.takeEvents().filter { $0["event"] == .string("video.error") }
        #expect(errors.first?["message"]?.string?.contains("limits.memory_mb") == true, "\(errors)")
        // A small one fits, and plays (from 0.1 s, when it was added).
        try addVideo(c, video)
        #expect(try frame(at: 0.61, c) == 15)
    }

    @Test func opacityCornersAndMasksApplyAsToAnyLayer() throws {
        let video = try makeVideo()
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, video, #", "opacity": 0.5, "cornerRadius": 16, "masksToBounds": true"#)
        #expect(try c.request(#"{"cmd": "clock.set", "time": 0.51}"#)["ok"] == .bool(true))
        let reply = try c.request(#"{"cmd": "screenshot", "path": "shot.png"}"#)
        let shot = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
        // Frame 15 is (240, 240, 0): half of it over the black root in the middle, the
        // root's black in the rounded-off corner.
        let middle = ScreenshotTests.rgba(shot, 32, 24)
        #expect(abs(middle[0] - 120) <= 12 && abs(middle[1] - 120) <= 12 && middle[2] <= 12, "\(middle)")
        #expect(ScreenshotTests.rgba(shot, 1, 1) == [0, 0, 0, 255])
    }

    @Test func aLayerResizedWhilePlayingDecodesAtItsNewSize() throws {
        let video = try makeVideo(checkered: true)
        let (daemon, c) = try start(["--size", "128x48"])
        defer { withExtendedLifetime(daemon) {} }
        // "a" is made at 64 × 48; "b" at 16 × 12, then given the same size.
        try addVideo(c, video)
        let small = try c.request(
            #"{"cmd": "layer.add", "layer": "b", "kind": "video", "properties": {"bounds": [0, 0, 16, 12], "position": [96, 24], "src": "\#(video)"}}"#)
        try #require(small["ok"] == .bool(true), "\(small)")
        _ = try frame(at: 0.2, c)
        let resized = try c.request(#"{"cmd": "layer.set", "layer": "b", "properties": {"bounds": [0, 0, 64, 48]}, "actions": false}"#)
        try #require(resized["ok"] == .bool(true), "\(resized)")
        #expect(try c.request(#"{"cmd": "clock.set", "time": 1.01}"#)["ok"] == .bool(true))
        let reply = try c.request(#"{"cmd": "screenshot", "path": "shot.png"}"#)
        let shot = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
        // Both show frame 30 (the resize did not restart it), the checkerboard as sharp in
        // both: decoded at 16 × 12 and drawn four times as large, its squares would blur.
        #expect(Self.frame(ScreenshotTests.rgba(shot, 16, 24)) == 30)
        #expect(Self.frame(ScreenshotTests.rgba(shot, 64 + 16, 24)) == 30)
        var worst = 0
        for y in 0..<48 {
            for x in 0..<64 {
                let a = ScreenshotTests.rgba(shot, x, y), b = ScreenshotTests.rgba(shot, 64 + x, y)
                worst = max(worst, zip(a, b).map { abs($0 - $1) }.max()!)
            }
        }
        #expect(worst <= 8, "the resized layer differs from the one made at that size by \(worst) in a channel")
        let white = ScreenshotTests.rgba(shot, 64 + 32 + 4, 4), black = ScreenshotTests.rgba(shot, 64 + 32 + 12, 4)
        #expect(white[0] > 220 && black[0] < 35, "squares: \(white) and \(black)")
    }

    @Test func aResizeWhoseFramesDoNotFitKeepsPlayingAtTheOldSize() throws {
        let video = try makeVideo()
        let (daemon, c) = try startWithSixteenMegabytes()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, video)
        #expect(try frame(at: 0.2, c) == 6)
        // 2000 × 2000 pixels, five frames: 80 MB, more than the limit.
        let resized = try c.request(#"{"cmd": "layer.set", "layer": "v", "properties": {"bounds": [0, 0, 2000, 2000]}, "actions": false}"#)
        try #require(resized["ok"] == .bool(true), "\(resized)")
        #expect(try frame(at: 0.51, c) == 15)
        #expect(try frame(at: 1.01, c) == 30)
        #expect(try !events(c).contains("video.error"))
    }

    @Test func aRestartRestoresTheLayerAndPlaysItFromItsStart() throws {
        let video = try makeVideo()
        let state = try SceneJournalTests.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (first, c) = try start(["--state-dir", state])
        try addVideo(c, video, #", "loop": true"#)
        #expect(try frame(at: 0.51, c) == 15)
        try SceneJournalTests.waitForJournal(in: state, mediaTime: 0.51, layers: 2)
        #expect(first.stop() == 0)
        let (second, d) = try start(["--state-dir", state])
        defer { withExtendedLifetime(second) {} }
        #expect(try d.request(#"{"cmd": "layer.get", "layer": "v"}"#)["result"]?["kind"] == .string("video"))
        // Its player starts again at its start when the restored scene is first drawn.
        #expect(try frame(at: 0.71, d) == 6)
    }

    @Test func aPlaylistPlaysItsItemsOneAfterAnotherAndLoops() throws {
        let up = try makeVideo(), down = try makeVideo(reversed: true)
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        try addVideo(c, "", #", "playlist": ["\#(up)", "\#(down)"]"#)
        #expect(try frame(at: 0.51, c) == 15)
        // The second takes over at 2 s: its frame 15 is the colour of frame 44.
        #expect(try frame(at: 2.51, c) == 44)
        #expect(try frame(at: 3.95, c) == 1)
        #expect(try frame(at: 4.5, c) == 0)
        let names = try events(c)
        #expect(names.filter { $0 == "video.started" }.count == 2 && names.filter { $0 == "video.ended" }.count == 1, "\(names)")
        try #require(try c.request(#"{"cmd": "layer.set", "layer": "v", "properties": {"loop": true}}"#)["ok"] == .bool(true))
        try #require(try c.request(#"{"cmd": "layer.remove", "layer": "v"}"#)["ok"] == .bool(true))
        try addVideo(c, "", #", "loop": true, "playlist": ["\#(up)", "\#(down)"]"#)
        // Added at 4.5 s: the first again from 8.5 s.
        for (t, shown) in [(5.01, 15), (7.01, 44), (9.01, 15), (11.01, 44)] {
            #expect(try frame(at: t, c) == shown, "at \(t) s")
        }
        #expect(try !events(c).contains("video.ended"))
    }
}

/// Each video is decoded by a helper process of its own: one that is killed mid-video
/// leaves its layer's last frame on screen, says why in `video.error`, and plays on from
/// where the layer's time has got to in a new helper; the other video never stops.
@Suite(.serialized) struct VideoHelperTests {
    /// The video helpers the daemon `parent` runs (`vitrine-decoder --video`).
    static func videoHelpers(of parent: Int32) -> Set<Int32> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return Set(
            entries.compactMap { entry -> Int32? in
                guard let pid = Int32(entry), let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                    status.contains("\nPPid:\t\(parent)\n"),
                    let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8), command.contains("--video")
                else { return nil }
                return pid
            })
    }

    /// The frames the left and right halves show at clock time `t`.
    static func frames(at t: Double, _ c: SocketClient) throws -> (left: Int, right: Int) {
        #expect(try c.request(#"{"cmd": "clock.set", "time": \#(t)}"#)["ok"] == .bool(true))
        let reply = try c.request(#"{"cmd": "screenshot", "path": "shot.png"}"#)
        let shot = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
        return (VideoTests.frame(ScreenshotTests.rgba(shot, 16, 24)), VideoTests.frame(ScreenshotTests.rgba(shot, 48, 24)))
    }

    @Test func aHelperKilledMidVideoLeavesItsFrameAndPlaysOnWhileTheOtherVideoNeverStops() throws {
        let videos = try VideoTests()
        let video = try videos.makeVideo()
        let (daemon, c) = try videos.start()
        defer { withExtendedLifetime(daemon) {} }
        var leftHelper: Int32 = 0
        for (layer, x) in [("left", 16), ("right", 48)] {
            let reply = try c.request(
                #"{"cmd": "layer.add", "layer": "\#(layer)", "kind": "video", "properties": {"bounds": [0, 0, 32, 48], "position": [\#(x), 24], "src": "\#(video)"}}"#
            )
            try #require(reply["ok"] == .bool(true), "\(reply)")
            guard layer == "left" else { continue }
            _ = try Self.frames(at: 0.01, c)
            leftHelper = try #require(Self.videoHelpers(of: daemon.pid).first, "the left video's helper runs")
        }
        #expect(try Self.frames(at: 0.51, c) == (15, 15))
        let helpers = Self.videoHelpers(of: daemon.pid)
        #expect(helpers.count == 2, "one helper per video: \(helpers)")
        #expect(kill(leftHelper, SIGKILL) == 0)
        usleep(100_000)
        // Killed: the left keeps the frame it showed; the right plays on.
        let after = try Self.frames(at: 1.01, c)
        #expect(after.left == 15 && after.right == 30, "\(after)")
        let told = c.takeEvents().filter { $0["event"] == .string("video.error") }
        #expect(told.count == 1 && told.first?["layer"] == .string("left"), "\(told)")
        let message = told.first?["message"]?.string ?? ""
        #expect(message.contains("the video decoder was killed (SIGKILL"), "\(message)")
        // A new helper takes over where the layer's time has got to.
        usleep(400_000)
        _ = try Self.frames(at: 1.11, c)
        #expect(try Self.frames(at: 1.21, c) == (36, 36))
        #expect(try Self.frames(at: 1.51, c) == (45, 45))
        let now = Self.videoHelpers(of: daemon.pid)
        #expect(now.count == 2 && !now.contains(leftHelper), "\(now)")
        #expect(try videos.events(c).filter { $0 == "video.started" }.count >= 1)
    }
}

/// GStreamer's first initialization (a registry scan, which a fresh registry makes cold)
/// against the real-time daemon's frame times.
@Suite struct VideoColdStartTests {
    @Test func aVideoLayerOnAColdRegistryHoldsNoFrame() throws {
        let videos = try VideoTests()
        let video = try videos.makeVideo()
        let registry = videos.content.appendingPathComponent("registry.bin").path
        let config = videos.content.appendingPathComponent("metrics.toml").path
        let metricsSocket = videos.content.appendingPathComponent("metrics.sock").path
        try "[metrics]\nenabled = true\nport = 0\nsocket = \"\(metricsSocket)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            clock: "realtime", environment: ["GST_REGISTRY": registry],
            arguments: ["--size", "64x48", "--content-root", videos.content.path, "--config", config])
        let c = try daemon.connect()
        #expect(try c.request(#"{"cmd": "subscribe", "events": ["video.*"]}"#)["ok"] == .bool(true))
        // Frames all along: a square slides to and fro while the video layer starts.
        _ = try c.request(#"{"cmd": "layer.add", "layer": "dot", "properties": {"bounds": [0, 0, 4, 4], "position": [2, 2], "backgroundColor": "red"}}"#)
        _ = try c.request(
            #"{"cmd": "animation.add", "layer": "dot", "animation": {"keyPath": "position.x", "from": 2, "to": 60, "duration": 0.5, "autoreverses": true, "repeatCount": "infinity"}}"#
        )
        try videos.addVideo(c, video, #", "loop": true"#)
        let deadline = Date().addingTimeInterval(30)
        while !c.events.contains(where: { $0["event"] == .string("video.started") }), Date() < deadline {
            _ = try c.request(#"{"cmd": "ping"}"#)
            usleep(50_000)
        }
        #expect(c.events.contains { $0["event"] == .string("video.started") }, "\(c.events)")
        #expect(FileManager.default.fileExists(atPath: registry), "the video helper scanned GStreamer's plugins into the fresh registry")
        let connection = try HTTPConnection(path: metricsSocket)
        connection.write("GET /metrics HTTP/1.1\r\n\r\n")
        let metrics = try Exposition(try #require(connection.answer()).body)
        let longest = try #require(metrics["vitrine_frame_time_seconds", ["quantile": "1"]])
        #expect(longest < 0.15, "the longest frame took \(longest) s")
        #expect((metrics["vitrine_frames_presented_total"] ?? 0) > 10)
    }
}
