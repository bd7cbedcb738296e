import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol
import VitrineRaster

/// Real programs on a scaled output (`[[outputs]] scale`) and under the decoration manager:
/// foot at scale 2 draws sharp text twice as large and no title bar of its own; Chromium at
/// scale 1.5 lays its page out in logical pixels (its `devicePixelRatio` 1.5, through
/// `wp_fractional_scale_v1`) and draws no title bar above it. Each is shown by the 500×300
/// `surface` layer of `RealApplicationTests` at (70, 50).
@Suite(.serialized) struct HiDPIApplicationTests {
    typealias Apps = RealApplicationTests

    static func scaled(_ scale: String) -> String { "[[outputs]]\nconnector = \"Virtual-1\"\nscale = \(scale)\n" }

    /// foot's configuration: its colours, a font of 14 points, no padding; its title bar
    /// left to the compositor (foot's default).
    static func footConfig(_ setup: Apps.Setup) throws -> String {
        let ini = setup.directory + "/foot.ini"
        try "[main]\nfont=DejaVu Sans Mono:size=14\npad=0x0\n[colors]\nbackground=2040c0\nforeground=ffff00\n[cursor]\nblink=no\n"
            .write(toFile: ini, atomically: true, encoding: .utf8)
        return ini
    }

    static func yellow(_ p: UInt32) -> Bool { (p >> 16) & 0xFF > 0xC0 && (p >> 8) & 0xFF > 0xC0 && p & 0xFF < 0x60 }

    /// How sharp the layer's rows `rows` are: the sum of the squared steps of green between
    /// neighbouring pixels. A picture drawn at twice the resolution has steps as steep as
    /// the small one's; the small one enlarged spreads each step over two pixels, halving it
    /// (foot's line: about 3 times as sharp).
    static func sharpness(_ shot: Surface, rows: Range<Int>) -> Double {
        var sum = 0.0
        for y in rows {
            for x in 1..<Apps.width {
                let a = Double((Apps.rgb(shot, x, y) >> 8) & 0xFF), b = Double((Apps.rgb(shot, x - 1, y) >> 8) & 0xFF)
                sum += (a - b) * (a - b)
            }
        }
        return sum
    }

    /// foot with its text line, in a layer of `setup`; the screenshot once the text shows in
    /// the top `textRows` rows.
    static func footShot(_ setup: Apps.Setup, name: String, textRows: Int) throws -> (Surface, JSON, ChildProcess, String) {
        let (foot, log) = try setup.start(
            "/usr/bin/foot", ["--config", try footConfig(setup), "/bin/sh", "-c", "printf 'VITRINE VITRINE'; exec sleep 60"])
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 20)
        let shot = try setup.screenshot(name, timeout: 10) { Apps.count($0, rows: 0..<textRows, columns: 0..<Apps.width, yellow) > 300 }
        return (shot, mapped, foot, log)
    }

    @Test(.enabled(if: Apps.installed("/usr/bin/foot"), "foot is not installed: apt-get install foot"))
    func footAtScale2DrawsSharpTextTwiceAsLargeWithoutATitleBar() throws {
        let setup = try Apps.Setup(appID: "foot", outputs: Self.scaled("2"))
        let (shot, mapped, foot, log) = try Self.footShot(setup, name: "foot-scale-2", textRows: 44)
        defer { _ = foot.terminate() }
        #expect(mapped["width"] == .number(250) && mapped["height"] == .number(150), "configured at half the layer: \(mapped.text)")
        // The text line is 2× tall and starts at the top: no title bar above it.
        #expect(Apps.count(shot, rows: 0..<44, columns: 0..<Apps.width, Self.yellow) > 300, "no yellow text at the top: \(Apps.log(log))")
        let below = Apps.count(shot, rows: 48..<Apps.height, columns: 0..<Apps.width) { $0 != 0x20_40C0 }
        #expect(below == 0, "\(below) pixels below the first line are not foot's background #2040c0")
        let sharp = Self.sharpness(shot, rows: 0..<44)
        _ = foot.terminate()
        _ = setup.daemon.stop()

        // The same foot at scale 1 in a layer of half the size, enlarged 2× by the layer:
        // its text is as large, and blurred.
        let reference = try Apps.Setup(appID: "foot")
        try reference.control.ok(#"{"cmd": "layer.set", "layer": "app", "properties": {"bounds": [0, 0, 250, 150], "transform.scale": 2}, "actions": false}"#)
        let (enlarged, _, smallFoot, _) = try Self.footShot(reference, name: "foot-enlarged", textRows: 44)
        defer { _ = smallFoot.terminate() }
        #expect(Apps.count(enlarged, rows: 0..<44, columns: 0..<Apps.width, Self.yellow) > 300, "the enlarged text is as large")
        let blurred = Self.sharpness(enlarged, rows: 0..<44)
        #expect(sharp > blurred * 2, "the scale-2 text (sharpness \(sharp)) is not sharper than scale 1 enlarged (\(blurred))")
    }

    @Test(.enabled(if: Apps.installed("/usr/bin/chromium"), "chromium is not installed: apt-get install chromium"))
    func chromiumAtScale1Point5LaysItsPageOutInLogicalPixelsWithoutATitleBar() throws {
        let setup = try Apps.Setup(appID: nil, outputs: Self.scaled("1.5"))
        let page = setup.directory + "/page.html"
        try """
        <!doctype html><html><body style="margin:0;background:#10a040">
        <div style="position:fixed;left:0;top:0;width:100px;height:100px;background:#e02020"></div>
        <script>function tell() { document.title = innerWidth + 'x' + innerHeight + '@' + devicePixelRatio }
        tell(); addEventListener('resize', tell); matchMedia('(resolution: 1dppx)').addEventListener('change', tell)
        setInterval(tell, 200)</script></body></html>
        """.write(toFile: page, atomically: true, encoding: .utf8)
        let (chromium, log) = try setup.startChromium(page)
        defer { _ = chromium.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 30)
        let id = try #require(mapped["surface"]?.number, "\(mapped.text) \(Apps.log(log))")
        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(id)), "layer": "app"}"#)
        // The page is 500 / 1.5 × 300 / 1.5 CSS pixels at a device pixel ratio of 1.5.
        var title = ""
        let deadline = Date().addingTimeInterval(30)
        repeat {
            usleep(200_000)
            let list = try setup.control.request(#"{"cmd": "surface.list"}"#)
            title = list["result"]?["surfaces"]?.array?.first?["title"]?.string ?? ""
        } while title != "333x200@1.5" && Date() < deadline
        #expect(title == "333x200@1.5", "the page's innerWidth x innerHeight @ devicePixelRatio: \(title) \(Apps.log(log))")
        // Its 100 CSS pixel block is 150 pixels of the layer, from the layer's very top-left:
        // no title bar above the page.
        let probes: [(Int, Int, UInt32)] = [(2, 2, 0xE0_2020), (145, 145, 0xE0_2020), (155, 155, 0x10_A040), (300, 4, 0x10_A040), (490, 290, 0x10_A040)]
        let shows = { (shot: Surface) in probes.allSatisfy { Apps.near(Apps.rgb(shot, $0.0, $0.1), $0.2, 4) } }
        let shot = try setup.screenshot("chromium-scale-1.5", timeout: 30, until: shows)
        let seen = probes.map { String(Apps.rgb(shot, $0.0, $0.1), radix: 16) }.joined(separator: " ")
        #expect(shows(shot), "the page is not where it should be (\(seen)): \(Apps.log(log))")
        #expect(chromium.isRunning, "chromium stopped: \(Apps.log(log))")
    }
}
