import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// A screenshot taken through the socket at an exact manual-clock time, compared with
/// `References/<name>.png` by `GoldenImage` (within ±2/255 per channel, as every golden
/// image). A missing reference is written and the test fails until it is looked at and
/// committed; `VITRINE_UPDATE_REFERENCES=1` rewrites.
@Suite struct ScreenshotTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")

    /// Straight RGBA bytes of a pixel.
    static func rgba(_ surface: Surface, _ x: Int, _ y: Int) -> [Int] {
        let argb = surface.pixel(x: x, y: y).argb
        let a = Int(argb >> 24), r = Int((argb >> 16) & 0xff), g = Int((argb >> 8) & 0xff), b = Int(argb & 0xff)
        guard a > 0 else { return [0, 0, 0, 0] }
        return [r * 255 / a, g * 255 / a, b * 255 / a, a]
    }

    static func expectPixel(_ surface: Surface, _ x: Int, _ y: Int, _ want: [Int], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let got = rgba(surface, x, y)
        #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 2 }, "\(what) at (\(x), \(y)): \(got), expected \(want)", sourceLocation: sourceLocation)
    }

    @Test func screenshotMidAnimationMatchesTheReference() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "160x100"])
        let c = try daemon.connect()
        for line in [
            ##"{"id": 1, "cmd": "layer.add", "layer": "panel", "properties": {"bounds": [0, 0, 120, 60], "position": [80, 50], "backgroundColor": "#2050a0", "cornerRadius": 10}}"##,
            ##"{"id": 2, "cmd": "layer.add", "layer": "dot", "parent": "panel", "properties": {"bounds": [0, 0, 20, 20], "position": [20, 30], "backgroundColor": "#ffcc00"}}"##,
            #"{"id": 3, "cmd": "layer.add", "layer": "bar", "properties": {"bounds": [0, 0, 160, 6], "position": [80, 94], "backgroundColor": "tomato"}}"#,
            #"{"id": 4, "cmd": "layer.add", "layer": "tilt", "properties": {"bounds": [0, 0, 16, 16], "position": [140, 14], "backgroundColor": "white"}}"#,
            #"{"id": 5, "cmd": "animation.add", "layer": "dot", "animation": {"keyPath": "position.x", "from": 20, "to": 100, "duration": 2}}"#,
            #"{"id": 6, "cmd": "layer.set", "layer": "tilt", "properties": {"transform.rotation.z": "45deg"}, "animation": {"duration": 4}}"#,
            #"{"id": 7, "cmd": "layer.set", "layer": "panel", "properties": {"opacity": 0.5}, "animation": {"duration": 2}}"#,
            #"{"id": 8, "cmd": "clock.set", "time": 1}"#,
        ] {
            let reply = try #require(try c.exchange(line))
            try #require(reply["ok"] == .bool(true), "\(line) → \(reply)")
        }
        let reply = try #require(try c.exchange(#"{"id": 9, "cmd": "screenshot", "path": "midflight.png"}"#))
        let path = try #require(reply["result"]?["path"]?.string, "\(reply)")
        #expect(reply["result"]?["size"] == .array([.number(160), .number(100)]))
        let shot = try Surface(contentsOfPNG: path)

        // What the commands drew at t = 1, checked without the reference: the panel at
        // 3/4 opacity over black, the dot half-way (x 70…90 on screen), the bar, the
        // background.
        let panel = [0x20, 0x50, 0xa0].map { Int((Double($0) * 0.75).rounded()) } + [255]
        let dot = [0xff, 0xcc, 0x00].map { Int((Double($0) * 0.75).rounded()) } + [255]
        Self.expectPixel(shot, 5, 5, [0, 0, 0, 255], "background")
        Self.expectPixel(shot, 30, 30, panel, "panel")
        Self.expectPixel(shot, 45, 50, panel, "panel where the dot was at t = 0")
        Self.expectPixel(shot, 80, 50, dot, "dot at t = 1")
        Self.expectPixel(shot, 72, 42, dot, "dot's corner")
        Self.expectPixel(shot, 68, 50, panel, "left of the dot")
        Self.expectPixel(shot, 92, 50, panel, "right of the dot")
        Self.expectPixel(shot, 80, 94, [255, 99, 71, 255], "bar")
        Self.expectPixel(shot, 140, 14, [255, 255, 255, 255], "tilted square's centre")
        Self.expectPixel(shot, 21, 21, [0, 0, 0, 255], "panel's rounded corner")

        try GoldenImage.expectMatches(shot, named: "midflight", in: Self.references)

        // The same time gives the same picture; another time another one.
        let again = try #require(try c.exchange(#"{"id": 10, "cmd": "screenshot", "path": "again.png"}"#)?["result"]?["path"]?.string)
        try GoldenImage.expectMatches(try Surface(contentsOfPNG: again), named: "midflight", in: Self.references)
        _ = try c.exchange(#"{"id": 11, "cmd": "clock.set", "time": 1.5}"#)
        let later = try Surface(
            contentsOfPNG: try #require(try c.exchange(#"{"id": 12, "cmd": "screenshot", "path": "later.png"}"#)?["result"]?["path"]?.string))
        Self.expectPixel(later, 72, 42, Self.rgba(later, 30, 30), "the dot has moved on at t = 1.5")
    }

    @Test func screenshotWithoutPathReturnsThePNG() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "32x24"])
        let c = try daemon.connect()
        _ = try c.exchange(
            #"{"id": 1, "cmd": "layer.add", "layer": "a", "properties": {"bounds": [0, 0, 32, 12], "position": [16, 6], "backgroundColor": "lime"}}"#)
        let reply = try #require(try c.exchange(#"{"id": 2, "cmd": "screenshot"}"#))
        let base64 = try #require(reply["result"]?["png"]?.string, "\(reply)")
        let data = try #require(Data(base64Encoded: base64))
        let file = daemon.directory.appendingPathComponent("inline.png")
        try data.write(to: file)
        let shot = try Surface(contentsOfPNG: file.path)
        #expect(shot.width == 32 && shot.height == 24)
        Self.expectPixel(shot, 16, 3, [0, 255, 0, 255], "lime half")
        Self.expectPixel(shot, 16, 20, [0, 0, 0, 255], "black half")
    }
}
