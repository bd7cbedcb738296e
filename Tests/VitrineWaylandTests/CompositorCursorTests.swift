import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineRaster
@testable import VitrineOutput

/// A client's own cursor (`wl_pointer.set_cursor`) against the real daemon, with the popup
/// tests' client and window (60 × 40 scaled 2× with its top-left at (40, 20) of the screen).
@Suite(.serialized) struct CompositorCursorTests {
    /// A screenshot with the cursor drawn.
    static func shot(_ s: CompositorPopupTests.Setup, _ name: String) throws -> Surface {
        let reply = try s.setup.control.request(#"{"cmd": "screenshot", "path": "\#(name).png", "cursor": true}"#)
        return try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
    }

    static func move(_ s: CompositorPopupTests.Setup, _ x: Int, _ y: Int) throws {
        try s.setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [\#(x), \#(y)]}"#)
    }

    /// `wl_pointer.set_cursor` with the serial of the pointer's last enter.
    static func setCursor(_ s: CompositorPopupTests.Setup, _ surface: OpaquePointer?, hotspot: (Int32, Int32)) throws {
        let enter = try #require(s.client.events("enter", of: s.client.pointer).last?.values.first)
        waylandRequest(s.client.pointer!, 0, [wl_argument(u: UInt32(enter)), wl_argument(o: surface), wl_argument(i: hotspot.0), wl_argument(i: hotspot.1)])
        s.client.roundtrip()
    }

    @Test func theClientsCursorReplacesTheArrowOverItsWindowAndANullOneHidesIt() throws {
        let s = try CompositorPopupTests.Setup()
        let magenta: [Int] = [255, 0, 255, 255]
        try Self.move(s, 60, 40)
        #expect(s.client.wait { !s.client.events("enter", of: s.client.pointer).isEmpty })
        let cursor = wlCompositorCreateSurface(s.client.compositor)
        s.client.show(cursor, 8, 8, 0xFFFF_00FF)
        try Self.setCursor(s, cursor, hotspot: (2, 3))
        #expect(
            s.client.wait {
                let shot = try? Self.shot(s, "client-cursor")
                return shot.map { ScreenshotPixels.rgba($0, 58, 37) == magenta && ScreenshotPixels.rgba($0, 65, 44) == magenta } ?? false
            }, "the client's 8 × 8 picture with its hotspot (2, 3) at the pointer")
        let shown = try Self.shot(s, "client-cursor")
        #expect(ScreenshotPixels.rgba(shown, 66, 40) != magenta && ScreenshotPixels.rgba(shown, 57, 40) != magenta, "no more than its picture")
        // A new picture on the cursor surface is shown.
        s.client.show(cursor, 8, 8, 0xFF00_FFFF)
        #expect(s.client.wait { (try? Self.shot(s, "recoloured")).map { ScreenshotPixels.rgba($0, 60, 40) == [0, 255, 255, 255] } ?? false })

        // Off the window, Vitrine's arrow: its inside is white.
        try Self.move(s, 10, 10)
        let off = try Self.shot(s, "off-window")
        #expect(ScreenshotPixels.rgba(off, 13, 20) == [255, 255, 255, 255], "the arrow off the window")

        // Back on the window, a null cursor hides it there.
        try Self.move(s, 100, 60)
        #expect(s.client.wait { s.client.events("enter", of: s.client.pointer).count == 2 })
        try Self.setCursor(s, nil, hotspot: (0, 0))
        #expect(
            s.client.wait {
                guard let withCursor = try? Self.shot(s, "hidden-cursor"), let plain = try? s.setup.control.screenshot("plain") else { return false }
                return withCursor.hasSamePixels(as: plain)
            }, "set_cursor(null): nothing drawn over the window")
    }

    @Test func aSurfaceWithAnotherRoleCannotBeTheCursor() throws {
        let s = try CompositorPopupTests.Setup()
        try Self.move(s, 60, 40)
        #expect(s.client.wait { !s.client.events("enter", of: s.client.pointer).isEmpty })
        try Self.setCursor(s, s.window.surface, hotspot: (0, 0))
        let error = s.client.protocolError()
        #expect(error?.interface == "wl_pointer" && error?.code == 0, "\(String(describing: error))")
    }
}

/// Reading screenshots' pixels.
enum ScreenshotPixels {
    static func rgba(_ surface: Surface, _ x: Int, _ y: Int) -> [Int] {
        let argb = surface.pixel(x: x, y: y).argb
        return [Int((argb >> 16) & 0xff), Int((argb >> 8) & 0xff), Int(argb & 0xff), Int(argb >> 24)]
    }
}
