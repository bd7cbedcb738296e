import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// `contents` in every format the daemon reads, against the real daemon: a JPEG and an
/// animated GIF shown (the GIF playing in its layer's time), and broken or hostile files
/// refused with the decoding library's reason while the layer keeps its picture.
@Suite struct ImageFormatTests {
    let content: URL

    init() throws {
        content = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-formats-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = content.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A PNG of one colour.
    func solidPNG(_ name: String, _ argb: UInt32) throws -> String {
        try write(name, try ImageFixtures.solid(argb, width: 8, height: 8).pngData())
    }

    func start(clock: String = "manual") throws -> (DaemonProcess, SocketClient) {
        let daemon = try DaemonProcess(clock: clock, arguments: ["--size", "40x20", "--content-root", content.path])
        return (daemon, try daemon.connect())
    }

    /// Frames presented so far.
    func frames(_ c: SocketClient) throws -> Double {
        try #require(try request(c, #"{"id": 7, "cmd": "stats"}"#)["result"]?["frames"]?.number)
    }

    func request(_ c: SocketClient, _ line: String) throws -> JSON {
        try #require(try c.exchange(line), "no reply to \(line)")
    }

    func addLayer(_ c: SocketClient, _ id: String, _ contents: String, x: Int) throws -> JSON {
        try request(
            c,
            #"{"id": 1, "cmd": "layer.add", "layer": "\#(id)", "properties": {"bounds": [0, 0, 20, 20], "position": [\#(x), 10], "contents": "\#(contents)"}}"#)
    }

    /// The screen's pixel at (x, y) as [r, g, b, a].
    func pixel(_ c: SocketClient, x: Int, y: Int) throws -> [Int] {
        let reply = try request(c, #"{"id": 9, "cmd": "screenshot", "path": "shot.png"}"#)
        let shot = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
        return ScreenshotTests.rgba(shot, x, y)
    }

    func at(_ c: SocketClient, _ time: Double) throws {
        #expect(try request(c, #"{"id": 2, "cmd": "clock.set", "time": \#(time)}"#)["ok"] == .bool(true))
    }

    @Test func aJPEGAndAnAnimatedGIFAreShownTheGIFInItsLayersTime() throws {
        let jpeg = try write("photo.jpg", ImageFixtures.jpeg(ImageFixtures.solid(0xFFFF_0000, width: 32, height: 32)))
        // Green for 0.1 s, then blue for 0.1 s, for ever; named without an extension: the
        // format is told by the bytes.
        let gif = try write(
            "playing",
            ImageFixtures.gif(
                width: 4, height: 4, palette: [0x00FF00, 0x0000FF],
                frames: [0, 1].map { ImageFixtures.GIFFrame(rect: PixelRect(x: 0, y: 0, width: 4, height: 4), index: UInt8($0), delay: 10) }))
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        #expect(try addLayer(c, "photo", jpeg, x: 10)["ok"] == .bool(true))
        #expect(try addLayer(c, "anim", gif, x: 30)["ok"] == .bool(true))
        let red = try pixel(c, x: 10, y: 10)
        #expect(red[0] > 240 && red[1] < 16 && red[2] < 16, "\(red)")
        let green = [0, 255, 0, 255], blue = [0, 0, 255, 255]
        try at(c, 0.05)
        #expect(try pixel(c, x: 30, y: 10) == green)
        try at(c, 0.1)
        #expect(try pixel(c, x: 30, y: 10) == blue)
        try at(c, 0.25)
        #expect(try pixel(c, x: 30, y: 10) == green)
        // Paused, the GIF stays on the frame it showed.
        #expect(try request(c, #"{"id": 3, "cmd": "layer.pause", "layer": "anim"}"#)["ok"] == .bool(true))
        try at(c, 0.35)
        #expect(try pixel(c, x: 30, y: 10) == green)
        #expect(try request(c, #"{"id": 4, "cmd": "layer.resume", "layer": "anim"}"#)["ok"] == .bool(true))
        try at(c, 0.45)
        #expect(try pixel(c, x: 30, y: 10) == blue)
    }

    @Test func anSVGIsDrawnAgainOnAWorkerAtTheSizeItIsShown() throws {
        let svg = try write(
            "art.svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="blue"/></svg>"#.utf8))
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        func imageBytes(becoming expected: Double) throws -> Double {
            var bytes = 0.0
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                bytes = try #require(try request(c, #"{"id": 7, "cmd": "stats"}"#)["result"]?["imageBytes"]?.number)
                if bytes == expected { break }
                usleep(20_000)
            }
            return bytes
        }
        #expect(
            try request(
                c, #"{"id": 1, "cmd": "layer.add", "layer": "art", "properties": {"bounds": [0, 0, 20, 10], "position": [10, 5], "contents": "\#(svg)"}}"#)[
                    "ok"] == .bool(true))
        // Read at its own 100×50, then drawn again for the 20×10 it is shown at.
        #expect(try imageBytes(becoming: 20 * 10 * 4) == 20 * 10 * 4)
        #expect(try request(c, #"{"id": 2, "cmd": "layer.set", "layer": "art", "properties": {"transform": {"scale": 2}}}"#)["ok"] == .bool(true))
        try at(c, 1)  // past the implicit animation
        let scaled = try imageBytes(becoming: 40 * 20 * 4)
        #expect(scaled == 40 * 20 * 4, "\(scaled)")
        #expect(try pixel(c, x: 10, y: 5) == [0, 0, 255, 255])
    }

    @Test func inRealTimeAGIFAsksForAFrameWhenItsFrameChangesAndNoMore() throws {
        // Four frames of 0.1 s: about ten frames a second while it shows, not sixty.
        let gif = try write(
            "clock.gif",
            ImageFixtures.gif(
                width: 4, height: 4, palette: [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF],
                frames: (0..<4).map { ImageFixtures.GIFFrame(rect: PixelRect(x: 0, y: 0, width: 4, height: 4), index: UInt8($0), delay: 10) }))
        let (daemon, c) = try start(clock: "realtime")
        defer { withExtendedLifetime(daemon) {} }
        #expect(try addLayer(c, "anim", gif, x: 10)["ok"] == .bool(true))
        usleep(200_000)
        let before = try frames(c)
        usleep(1_000_000)
        let played = try frames(c) - before
        #expect(played >= 6 && played <= 14, "\(played) frames in a second of a 10 frames-a-second GIF")
        #expect(try request(c, #"{"id": 8, "cmd": "layer.remove", "layer": "anim"}"#)["ok"] == .bool(true))
        usleep(300_000)
        let still = try frames(c)
        usleep(500_000)
        #expect(try frames(c) == still, "a still screen draws no frames")
    }

    @Test func anotherImageFadesInOverTheImplicitDurationUnlessActionsSayNot() throws {
        let (red, blue) = (try solidPNG("red.png", 0xFFFF_0000), try solidPNG("blue.png", 0xFF00_00FF))
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        func set(_ contents: String, _ extra: String = "") throws {
            let reply = try request(c, #"{"id": 3, "cmd": "layer.set", "layer": "a", "properties": {"contents": "\#(contents)"}\#(extra)}"#)
            #expect(reply["ok"] == .bool(true), "\(reply)")
        }
        #expect(try addLayer(c, "a", red, x: 10)["ok"] == .bool(true))
        try set(blue)
        #expect(try pixel(c, x: 10, y: 10) == [255, 0, 0, 255])  // the fade begins at the old picture
        try at(c, 0.125)
        let half = try pixel(c, x: 10, y: 10)
        #expect(abs(half[0] - 128) <= 2 && half[1] == 0 && abs(half[2] - 128) <= 2, "\(half)")
        try at(c, 0.25)
        #expect(try pixel(c, x: 10, y: 10) == [0, 0, 255, 255])
        // Actions off: at once.
        try set(red, #", "actions": false"#)
        #expect(try pixel(c, x: 10, y: 10) == [255, 0, 0, 255])
        // A transaction's duration.
        #expect(
            try request(
                c, #"{"id": 4, "cmd": "transaction", "duration": 1, "commands": [{"cmd": "layer.set", "layer": "a", "properties": {"contents": "\#(blue)"}}]}"#)[
                    "ok"] == .bool(true))
        try at(c, 0.5)
        let quarter = try pixel(c, x: 10, y: 10)
        #expect(abs(quarter[0] - 191) <= 2 && abs(quarter[2] - 64) <= 2, "\(quarter)")
        try at(c, 1.25)
        #expect(try pixel(c, x: 10, y: 10) == [0, 0, 255, 255])
        // A layer whose rules say no action for contents.
        #expect(try request(c, #"{"id": 5, "cmd": "layer.actions", "layer": "a", "actions": {"contents": null}}"#)["ok"] == .bool(true))
        try set(red)
        #expect(try pixel(c, x: 10, y: 10) == [255, 0, 0, 255])
    }

    @Test func inRealTimeAFadeDrawsFramesUntilItEnds() throws {
        let (red, blue) = (try solidPNG("red.png", 0xFFFF_0000), try solidPNG("blue.png", 0xFF00_00FF))
        let (daemon, c) = try start(clock: "realtime")
        defer { withExtendedLifetime(daemon) {} }
        #expect(try addLayer(c, "a", red, x: 10)["ok"] == .bool(true))
        usleep(100_000)
        let before = try frames(c)
        #expect(try request(c, #"{"id": 3, "cmd": "layer.set", "layer": "a", "properties": {"contents": "\#(blue)"}}"#)["ok"] == .bool(true))
        usleep(600_000)
        let after = try frames(c)
        #expect(after - before >= 5, "\(after - before) frames for a 0.25 s fade")
        #expect(try pixel(c, x: 10, y: 10) == [0, 0, 255, 255])
        usleep(300_000)
        #expect(try frames(c) == after, "the fade is over: no more frames")
    }

    @Test func brokenAndHostileFilesAreRefusedWithTheLibrarysReason() throws {
        let good = try solidPNG("good.png", 0xFF00_FF00)
        let jpeg = ImageFixtures.jpeg(ImageFixtures.quadrants(width: 64, height: 64))
        let gif = ImageFixtures.gif(
            width: 8, height: 8, palette: [0, 0xFF0000], frames: [.init(rect: PixelRect(x: 0, y: 0, width: 8, height: 8), index: 1, delay: 10)])
        let cases: [(String, [UInt8], String, String)] = [
            ("truncated.jpg", Array(jpeg.prefix(jpeg.count / 2)), "content_failed", "JPEG: Premature end of JPEG file"),
            ("truncated.gif", Array(gif.prefix(gif.count - 6)), "content_failed", "GIF: giflib says"),
            (
                "broken.svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><rect "#.utf8), "content_failed",
                "SVG: librsvg cannot read the document"
            ),
            ("notes.png", Array("just some text\n".utf8), "content_failed", "contents takes PNG, JPEG, WebP, GIF and SVG files"),
            ("bomb.png", ImageFixtures.hugePNGHeader(), "limit_exceeded", "100000×100000"),
        ]
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        #expect(try addLayer(c, "a", good, x: 10)["ok"] == .bool(true))
        for (name, bytes, code, reason) in cases {
            let path = try write(name, bytes)
            let reply = try request(c, #"{"id": 5, "cmd": "layer.set", "layer": "a", "properties": {"contents": "\#(path)"}}"#)
            #expect(reply["error"]?["code"] == .string(code), "\(name): \(reply)")
            let message = reply["error"]?["message"]?.string ?? ""
            #expect(message.contains(reason), "\(name): \(message)")
            if code == "limit_exceeded" { #expect(message.contains("limits.memory_mb") && message.contains("nothing was decoded"), "\(message)") }
        }
        // Nothing changed: the layer shows what it showed.
        let model = try request(c, #"{"id": 6, "cmd": "layer.get", "layer": "a", "keys": ["contents"]}"#)
        #expect(model["result"]?["properties"]?["contents"] == .string(good))
        #expect(try pixel(c, x: 10, y: 10) == [0, 255, 0, 255])
    }
}
