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

    /// With the real-time clock, a viewer that asks for the screen right after the greeting
    /// (a raw RFB client, faster than vncdotool) sees the screen as it is, not the picture
    /// the listener sent its previous viewer before the screen changed.
    @Test func aNewViewerOfARealTimeDaemonSeesTheScreenAsItIs() throws {
        let port = try RemoteViewTests.freePort()
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-vnc-\(UUID().uuidString.prefix(8)).toml").path
        try "[remote]\nvnc = \"127.0.0.1:\(port)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(clock: "realtime", arguments: ["--size", "320x200", "--config", config])
        let c = try daemon.connect()
        for line in RemoteViewTests.scene { try c.ok(line) }
        for colour in ["#0000ff", "#ffff00", "#00ffff"] {
            try c.ok(##"{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "\##(colour)"}, "actions": false}"##)
            usleep(200_000)
            let seen = try Self.firstPixel(port: port, x: 160, y: 100)
            let shown = try c.screenshot("screen").pixel(x: 160, y: 100).argb & 0xFF_FFFF
            #expect(seen == shown, "\(colour): the viewer saw \(String(seen, radix: 16)), the screen shows \(String(shown, radix: 16))")
        }
    }

    /// Connects to `port` as a raw RFB 3.8 viewer (security None, the server's pixel
    /// format, raw encoding), asks for the whole screen as soon as it is greeted and
    /// returns the pixel at (`x`, `y`) of the first update, as 0xRRGGBB.
    static func firstPixel(port: Int, x: Int, y: Int) throws -> UInt32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET), sin_port: UInt16(port).bigEndian, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
            sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        let connected = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(connected == 0)
        func read(_ count: Int) throws -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, count - done, 0) }
                try #require(n > 0, "the server closed the connection")
                done += n
            }
            return bytes
        }
        func number(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reduce(0) { $0 << 8 | Int($1) } }
        _ = try read(12)
        sendAll(fd, Array("RFB 003.008\n".utf8))
        let types = try read(Int(try read(1)[0]))
        try #require(types.contains(1), "no security None: \(types)")
        sendAll(fd, [1])
        try #require(number(try read(4)[...]) == 0)
        sendAll(fd, [1])
        let initial = try read(24)
        _ = try read(number(initial[20..<24]))
        let (width, height) = (number(initial[0..<2]), number(initial[2..<4]))
        sendAll(fd, [3, 0, 0, 0, 0, 0, UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF)])
        let header = try read(4)
        try #require(header[0] == 0, "not a FramebufferUpdate: \(header)")
        var pixel: UInt32?
        for _ in 0..<number(header[2..<4]) {
            let rect = try read(12)
            let (rx, ry, rw, rh) = (number(rect[0..<2]), number(rect[2..<4]), number(rect[4..<6]), number(rect[6..<8]))
            try #require(number(rect[8..<12]) == 0, "not raw: \(rect)")
            let data = try read(rw * rh * 4)
            if (rx..<rx + rw).contains(x), (ry..<ry + rh).contains(y) {
                let i = ((y - ry) * rw + (x - rx)) * 4
                pixel = UInt32(data[i]) | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2]) << 16
            }
        }
        return try #require(pixel, "the first update does not cover (\(x), \(y))")
    }
}
