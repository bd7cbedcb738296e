import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineOutput

/// A subsurface's damage becomes screen damage where the subsurface is: the 40×24 window
/// (1092 screen pixels with the pixel of filtering around it) is not repainted whole for
/// a change of a 10×10 subsurface. Uses `ScaleClient` and the setup of
/// `CompositorViewportTests` (the window at (20, 20), drawn pixel for pixel), and for a
/// popup's subsurface `PopupClient` and the setup of `CompositorPopupTests`.
@Suite(.serialized) struct CompositorSubsurfaceDamageTests {
    typealias Setup = CompositorViewportTests.Setup

    static func solid(_ argb: UInt32) -> (pixels: [UInt32], width: Int, height: Int) { ([UInt32](repeating: argb, count: 100), 10, 10) }

    /// The window (the canonical picture) with a 10×10 magenta subsurface at (4, 4).
    static func window(desync: Bool) throws -> (Setup, ScaleClient, child: OpaquePointer, sub: OpaquePointer) {
        let (setup, client) = try CompositorViewportTests.mappedWindow()
        let (child, sub) = try client.subsurface(of: client.root)
        wlSubsurfaceSetPosition(sub, 4, 4)
        if desync { wlSubsurfaceSetDesync(sub) }
        try client.show(solid(0xFFFF_00FF), on: child)
        client.commit(client.root)
        return (setup, client, child, sub)
    }

    /// The screen pixels the daemon repainted while `change` was made (on `display`'s
    /// connection) and shown.
    static func repainted(_ control: SocketClient, _ display: OpaquePointer, after change: () throws -> Void) throws -> Double {
        func pixels() throws -> Double { try control.request(#"{"cmd": "stats"}"#)["result"]?["pixels"]?.number ?? 0 }
        usleep(150_000)
        let before = try pixels()
        try change()
        wl_display_roundtrip(display)
        usleep(150_000)
        return try pixels() - before
    }

    static func repainted(_ setup: Setup, _ client: ScaleClient, after change: () throws -> Void) throws -> Double {
        try repainted(setup.control, client.display, after: change)
    }

    @Test func aSubsurfacesDamageRepaintsOnlyWhereItIs() throws {
        let (setup, client, child, _) = try Self.window(desync: true)
        let surfaceDamage = try Self.repainted(setup, client) {
            wlSurfaceDamage(child, 1, 1, 1, 1)
            wlSurfaceCommit(child)
        }
        #expect(surfaceDamage > 0 && surfaceDamage <= 9, "a pixel of surface damage repainted \(surfaceDamage) pixels")
        let bufferDamage = try Self.repainted(setup, client) {
            wlSurfaceDamageBuffer(child, 2, 2, 2, 2)
            wlSurfaceCommit(child)
        }
        #expect(bufferDamage > 0 && bufferDamage <= 16, "2×2 buffer pixels of damage repainted \(bufferDamage) pixels")
        let newPicture = try Self.repainted(setup, client) { try client.show(Self.solid(0xFF00_FFFF), on: child, wait: false) }
        #expect(newPicture > 0 && newPicture <= 12 * 12, "a new 10×10 picture repainted \(newPicture) pixels")
        let shot = try setup.control.screenshot("subsurface-damage")
        #expect(setup.window(shot, 6, 6) == 0x00_FFFF && setup.window(shot, 2, 2) == 0xFF_0000 && setup.window(shot, 16, 6) == 0xFF_0000)
    }

    @Test func aMovedSubsurfaceRepaintsItsOldAndNewPlace() throws {
        let (setup, client, _, sub) = try Self.window(desync: false)
        let moved = try Self.repainted(setup, client) {
            wlSubsurfaceSetPosition(sub, 24, 10)
            wlSurfaceCommit(client.root)
        }
        #expect(moved > 0 && moved <= 2 * 12 * 12, "a move of the 10×10 subsurface repainted \(moved) pixels")
        let shot = try setup.control.screenshot("subsurface-moved")
        #expect(setup.window(shot, 6, 6) == 0xFF_0000 && setup.window(shot, 26, 12) == 0xFF_00FF && setup.window(shot, 30, 18) == 0xFF_00FF)
        #expect(setup.window(shot, 36, 6) == 0x00_FF00 && setup.window(shot, 30, 22) == 0xFF_FFFF)
        let restacked = try Self.repainted(setup, client) {
            wlSubsurfacePlaceBelow(sub, client.root)
            wlSurfaceCommit(client.root)
        }
        #expect(restacked > 0 && restacked <= 12 * 12, "restacking the subsurface repainted \(restacked) pixels")
        #expect(setup.window(try setup.control.screenshot("subsurface-under"), 26, 12) == 0xFF_FFFF)
    }

    /// A synchronized subsurface's damage waits for its parent's commit, accumulated over
    /// its own commits meanwhile.
    @Test func aSynchronizedSubsurfacesDamageIsAppliedWithItsParentsCommit() throws {
        let (setup, client, child, _) = try Self.window(desync: false)
        let cached = try Self.repainted(setup, client) {
            try client.show(Self.solid(0xFF00_FFFF), on: child, wait: false)
            wlSurfaceDamage(child, 0, 0, 1, 1)
            wlSurfaceCommit(child)
        }
        #expect(cached == 0, "the child's commits repainted \(cached) pixels before its parent's")
        #expect(setup.window(try setup.control.screenshot("subsurface-cached"), 6, 6) == 0xFF_00FF)
        let applied = try Self.repainted(setup, client) { wlSurfaceCommit(client.root) }
        #expect(applied > 0 && applied <= 12 * 12, "the parent's commit repainted \(applied) pixels")
        #expect(setup.window(try setup.control.screenshot("subsurface-applied"), 6, 6) == 0x00_FFFF)
        // Two commits of a pixel's damage each, then the parent's: both pixels.
        let both = try Self.repainted(setup, client) {
            wlSurfaceDamage(child, 0, 0, 1, 1)
            wlSurfaceCommit(child)
            wlSurfaceDamage(child, 8, 8, 1, 1)
            wlSurfaceCommit(child)
            wlSurfaceCommit(client.root)
        }
        #expect(both > 9 && both <= 12 * 12, "two cached pixels of damage repainted \(both) pixels")
    }

    /// A buffer a synchronized subsurface commits over another it cached (never shown) is
    /// released at once; the newer one is shown with its parent's commit and held.
    @Test func aCachedBufferReplacedBeforeItsParentsCommitIsReleased() throws {
        let (setup, client, child, _) = try Self.window(desync: false)
        var released: [OpaquePointer] = []
        func attach(_ argb: UInt32) throws -> OpaquePointer {
            let buffer = try client.buffer(10, 10, name: "cached") { $0.update(repeating: argb) }
            client.listen(buffer) { opcode, _ in if opcode == 0 { released.append(buffer) } }
            wlSurfaceAttach(child, buffer, 0, 0)
            wlSurfaceDamageBuffer(child, 0, 0, 10, 10)
            wlSurfaceCommit(child)
            return buffer
        }
        let green = try attach(0xFF00_FF00)
        _ = try attach(0xFF00_00FF)
        client.roundtrip()
        #expect(released == [green], "the replaced cached buffer was not released")
        client.commit(client.root)
        #expect(setup.window(try setup.control.screenshot("subsurface-replaced"), 6, 6) == 0x00_00FF)
        client.roundtrip()
        #expect(released == [green], "the buffer shown was released")
    }

    /// A popup's subsurface (synchronized) is shown with the popup's commit, and only its
    /// part of the screen is repainted: the layer is 2×, the subsurface 4×4 (8×8 on the
    /// screen), the window 60×40 (120×80).
    @Test func aPopupsSubsurfaceRepaintsOnlyWhereItIs() throws {
        let s = try CompositorPopupTests.Setup()
        let control = s.setup.control
        let popup = s.client.popup(parent: s.window.xdg, positioner: s.client.positioner(size: (20, 20), anchorRect: (30, 20, 0, 0), gravity: 8))
        let child = wlCompositorCreateSurface(s.client.compositor)
        let sub = wlSubcompositorGetSubsurface(s.client.subcompositor, child, popup.surface)
        wlSubsurfaceSetPosition(sub, 2, 2)
        s.client.show(child, 4, 4, 0xFFFF_FF00)
        s.client.show(popup.surface, 20, 20, 0xFFFF_FFFF)
        /// The screen's pixel at the window's (x, y), as 0xRRGGBB.
        func window(_ x: Int, _ y: Int) throws -> UInt32 {
            let shot = try control.screenshot("popup-subsurface")
            return shot.pixel(x: 40 + 2 * x + 1, y: 20 + 2 * y + 1).argb & 0xFF_FFFF
        }
        #expect(s.client.wait { (try? window(33, 23)) == 0xFF_FF00 })
        let cached = try Self.repainted(control, s.client.display) { s.client.show(child, 4, 4, 0xFF00_FFFF) }
        #expect(cached == 0, "the child's commit repainted \(cached) pixels before the popup's")
        let applied = try Self.repainted(control, s.client.display) { wlSurfaceCommit(popup.surface) }
        #expect(applied > 0 && applied <= 10 * 10, "the popup's commit repainted \(applied) pixels")
        #expect(try window(33, 23) == 0x00_FFFF && window(37, 23) == 0xFF_FFFF)
        let moved = try Self.repainted(control, s.client.display) {
            wlSubsurfaceSetPosition(sub, 10, 10)
            wlSurfaceCommit(popup.surface)
        }
        #expect(moved > 0 && moved <= 2 * 10 * 10, "the subsurface's move repainted \(moved) pixels")
        #expect(try window(33, 23) == 0xFF_FFFF && window(41, 31) == 0x00_FFFF)
    }
}
