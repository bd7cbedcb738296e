import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineRaster

/// An X11 program's cursor: Xwayland sets the X window's cursor on its own `wl_pointer`,
/// and the daemon draws it in place of its arrow while the pointer is over the window.
@Suite(.serialized, .enabled(if: XWaylandSetup.installed, "Xwayland is not installed: apt-get install xwayland"))
struct XWaylandCursorTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xterm"), "xterm is not installed: apt-get install xterm"))
    func xtermsTextCursorIsDrawnOverItsWindowAndTheArrowOffIt() throws {
        let command = ##"["xterm", "-bg", "#2040c0", "-e", "sh", "-c", "sleep 60"]"##
        let setup = try XWaylandSetup(
            rules: "[[compositor.rules]]\ninstance = \"xterm\"\nlayer = \"x11\"\n",
            extra: "[[clients]]\nname = \"term\"\ncommand = \(command)\nrestart = \"never\"\n")
        _ = try setup.control.waitForEvent("surface.mapped", timeout: 30)
        _ = try setup.screenshot("xterm-shown", pumping: nil) { rgb($0, 160, 100) == 0x20_40C0 }
        /// The pixels a screenshot with the cursor has that one without has not, left of
        /// the pointer at `x` and right of it.
        func drawn(_ x: Int, _ y: Int) throws -> (left: Int, right: Int) {
            let reply = try setup.control.request(#"{"cmd": "screenshot", "path": "cursor.png", "cursor": true}"#)
            let with = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
            let plain = try setup.control.screenshot("plain")
            try with.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("xwayland-cursor-\(x)-\(y).png").path)
            var counts = (left: 0, right: 0)
            for py in max(0, y - 32)..<min(200, y + 32) {
                for px in max(0, x - 32)..<min(320, x + 32) where rgb(with, px, py) != rgb(plain, px, py) {
                    if px < x - 1 { counts.left += 1 } else { counts.right += 1 }
                }
            }
            return counts
        }
        // Off the window (the layer is 240 × 160 around the centre): the arrow, which
        // draws nothing left of the pointer.
        try setup.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [20, 10]}"#)
        let arrow = try drawn(20, 10)
        #expect(arrow.left == 0 && arrow.right > 50, "\(arrow)")
        // Over xterm: its I-beam, centred on the pointer.
        try setup.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [160, 100]}"#)
        var beam = try drawn(160, 100)
        let deadline = Date().addingTimeInterval(10)
        while beam.left == 0, Date() < deadline {
            usleep(100_000)
            beam = try drawn(160, 100)
        }
        #expect(beam.left > 0 && beam.right > 0, "Xwayland's cursor for xterm, drawn around the pointer: \(beam)")
    }
}
