import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// The built-in VNC server's rate limit (`max_rate`) and its cost without a viewer: a
/// viewer that stays connected (vncdotool's client) through a burst of frames gets at
/// most `max_rate` updates a second, and after the burst its picture is the screen's last;
/// no picture is sent while nobody watches, and the next viewer sees the screen as it is.
@Suite struct RemoteViewRateTests {
    /// Changes the square's colour and draws a frame, as fast as the socket takes it, for
    /// `seconds`; returns how many frames were drawn.
    static func burst(_ c: SocketClient, seconds: Double, layer: String = "button") throws -> Int {
        let end = RemoteViewer.now + seconds
        var frames = 0
        while RemoteViewer.now < end {
            frames += 1
            let colour = String(format: "#%02x%02x%02x", (frames * 37) % 256, (frames * 91) % 256, (frames * 13) % 256)
            try c.ok(#"{"cmd": "layer.set", "layer": "\#(layer)", "properties": {"backgroundColor": "\#(colour)"}}"#)
            try c.ok(#"{"cmd": "clock.advance", "seconds": 0.0167}"#)
        }
        return frames
    }

    static func updates(_ metrics: MetricsTests) throws -> Double {
        let (_, exposition) = try metrics.scrape(path: metrics.socketPath)
        return exposition.samples.first { $0.key.name == "vitrine_remote_updates_total" }?.value ?? -1
    }

    @Test(.enabled(if: RemoteViewTests.hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func aBurstIsSentAtMostMaxRateTimesASecondAndItsLastPictureArrives() throws {
        let (daemon, port) = try RemoteViewTests.daemon("max_rate = 5\n")
        let c = try daemon.connect()
        for line in RemoteViewTests.scene { try c.ok(line) }
        try c.ok(#"{"cmd": "subscribe", "events": ["remote.connected"]}"#)
        let viewer = try RemoteViewer(String(port), seconds: 5, in: daemon.directory)
        _ = try c.waitForEvent("remote.connected", timeout: 20)
        usleep(500_000)
        let start = RemoteViewer.now
        let frames = try Self.burst(c, seconds: 2)
        let end = RemoteViewer.now
        let screen = try c.screenshot("screen")
        let (picture, updates) = try viewer.finish()
        let during = updates.filter { $0 > start + 0.05 && $0 <= end + 0.05 }
        #expect(frames > 40, "the burst drew \(frames) frames in 2 s")
        #expect(during.count >= 3 && Double(during.count) <= 5 * (end - start) + 2, "\(during.count) updates during \(end - start) s of \(frames) frames")
        let difference = GoldenImage.difference(picture, screen, tolerance: 2)
        #expect(difference.differing == 0, "the viewer's picture after the burst: \(difference.differing) pixels differ, by up to \(difference.worst)")
    }

    @Test(.enabled(if: RemoteViewTests.hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func nothingIsSentWithoutAViewerAndTheNextViewerSeesTheScreenAsItIs() throws {
        let metrics = try MetricsTests()
        defer { try? FileManager.default.removeItem(at: metrics.directory) }
        let port = try RemoteViewTests.freePort()
        let (screen, _) = try metrics.start(extra: "[remote]\nvnc = \"127.0.0.1:\(port)\"\n")
        let c = try screen.connect()
        try c.ok(##"{"cmd": "layer.add", "layer": "dot", "properties": {"bounds": [0, 0, 20, 20], "position": [32, 24], "backgroundColor": "#ff0000"}}"##)
        try c.ok(#"{"cmd": "subscribe", "events": ["remote.disconnected"]}"#)
        let idle = try Self.updates(metrics)
        _ = try Self.burst(c, seconds: 0.5, layer: "dot")
        #expect(try Self.updates(metrics) == idle, "pictures sent with no viewer")
        let captured = metrics.directory.appendingPathComponent("vnc.png").path
        try RemoteViewTests.vncdo(port, ["capture", captured])
        _ = try c.waitForEvent("remote.disconnected")
        #expect(GoldenImage.difference(try Surface(contentsOfPNG: captured), try c.screenshot("screen"), tolerance: 2).differing == 0)
        let watched = try Self.updates(metrics)
        #expect(watched > idle)
        // The viewer left: changes are not sent, and the next viewer sees the latest.
        _ = try Self.burst(c, seconds: 0.5, layer: "dot")
        #expect(try Self.updates(metrics) == watched)
        try RemoteViewTests.vncdo(port, ["capture", captured])
        #expect(GoldenImage.difference(try Surface(contentsOfPNG: captured), try c.screenshot("screen2"), tolerance: 2).differing == 0)
    }
}
