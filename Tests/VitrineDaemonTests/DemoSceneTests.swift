import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// The first-run demo's scene (config/demo.toml) with its media as docs/examples/demo.sh
/// makes them (demo-media.sh), in the real daemon: the counter, the photo, the banner and
/// the video are all on screen, and none of them failed.
@Suite struct DemoSceneTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theDemoShowsItsPhotoBannerAndVideoBesideTheCounter() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let media = Process()
        media.executableURL = URL(fileURLWithPath: "/bin/bash")
        media.arguments = [Self.root.appendingPathComponent("docs/examples/demo-media.sh").path, directory.path]
        try media.run()
        media.waitUntilExit()
        try #require(media.terminationStatus == 0, "demo-media.sh failed")
        let demo = try String(contentsOf: Self.root.appendingPathComponent("config/demo.toml"), encoding: .utf8)
        let config = directory.appendingPathComponent("demo.toml")
        try demo.replacingOccurrences(of: "/tmp/vitrine-demo", with: directory.path).write(to: config, atomically: true, encoding: .utf8)

        let daemon = try DaemonProcess(arguments: ["--config", config.path])
        defer { withExtendedLifetime(daemon) {} }
        let c = try daemon.connect()
        #expect(try c.request(#"{"cmd": "subscribe", "events": ["video.*", "content.failed"]}"#)["ok"] == .bool(true))
        #expect(try c.request(#"{"cmd": "clock.set", "time": 1}"#)["ok"] == .bool(true))
        // The pictures are decoded on the workers after the first frame asks for them: on a
        // busy machine that can take a few frames, so screenshots are taken until they show
        // (or 20 s pass and the last one is judged).
        let checks: [(x: Int, y: Int, want: [Int], tolerance: Int, what: String)] = [
            // The photo's sun (the JPEG's 600 × 400 drawn at 400 × 267), the banner's first
            // message on its orange, the video's blue beside its ball.
            (1100, 534, [255, 226, 154], 24, "the photo's sun"),
            (60, 598, [231, 111, 81], 16, "the banner's first colour"),
            (860, 300, [27, 73, 101], 20, "the video's background"),
        ]
        func misses(_ shot: Surface) -> [String] {
            checks.compactMap { check in
                let got = ScreenshotTests.rgba(shot, check.x, check.y)
                let near = zip(got, check.want).allSatisfy { abs($0 - $1) <= check.tolerance }
                return near ? nil : "\(check.what) at (\(check.x), \(check.y)): \(got), expected about \(check.want)"
            }
        }
        var shot: Surface
        let deadline = Date().addingTimeInterval(20)
        repeat {
            let reply = try c.request(#"{"cmd": "screenshot", "path": "demo.png"}"#)
            shot = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
            if misses(shot).isEmpty { break }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        #expect(shot.width == 1280 && shot.height == 720)
        #expect(misses(shot).isEmpty, "\(misses(shot))")
        _ = try c.request(#"{"cmd": "ping"}"#)
        let failures = c.takeEvents().filter { $0["event"] != .string("video.started") }
        #expect(failures.isEmpty, "\(failures)")

        // The counter's digits, in its text colour, across the card's middle.
        let digits = (100..<740).filter { x in
            let p = ScreenshotTests.rgba(shot, x, 262)
            return abs(p[0] - 255) <= 12 && abs(p[1] - 209) <= 12 && abs(p[2] - 102) <= 12
        }
        #expect(digits.count > 40, "\(digits.count) pixels of the digits' yellow across the counter")
    }
}
