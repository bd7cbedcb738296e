import CWaylandClient
import Foundation
import Testing
@testable import VitrineOutput
import VitrineDaemonTestSupport
import VitrineProtocol
import VitrineRaster
import WaylandDescription

/// Buffer transforms, scales and viewports, synchronized subsurfaces and the protocol
/// errors, with a client written here (`ScaleClient`): it draws a known picture the way
/// the protocols say a client must (turned and enlarged in its buffer), and the window
/// must show it the right way round.
@Suite(.serialized) struct CompositorViewportTests {
    /// The window's picture, 40×24 surface units: red, green, blue and white quadrants
    /// (top-left, top-right, bottom-left, bottom-right), which tell every turn and flip.
    static func canonical(_ x: Int, _ y: Int, width: Int = 40, height: Int = 24) -> UInt32 {
        switch (x < width / 2, y < height / 2) {
        case (true, true): 0xFFFF_0000
        case (false, true): 0xFF00_FF00
        case (true, false): 0xFF00_00FF
        case (false, false): 0xFFFF_FFFF
        }
    }

    /// A picture (`width` × `height`, rows of ARGB) as the client puts it in its buffer
    /// for `transform` (wl_output.transform) and `scale`: enlarged, mirrored around the
    /// vertical axis for the flipped ones, then turned counter-clockwise by quarter turns.
    static func buffer(for transform: Int, scale: Int, width: Int = 40, height: Int = 24) -> (pixels: [UInt32], width: Int, height: Int) {
        var (w, h) = (width * scale, height * scale)
        var image = (0..<h).flatMap { y in (0..<w).map { x in canonical(x / scale, y / scale, width: width, height: height) } }
        if transform >= 4 { image = (0..<h).flatMap { y in (0..<w).map { x in image[y * w + (w - 1 - x)] } } }
        for _ in 0..<(transform % 4) {
            // Counter-clockwise: the new row y' is the old column w-1-y', read downwards.
            let turned = (0..<w).flatMap { ny in (0..<h).map { nx in image[nx * w + (w - 1 - ny)] } }
            (image, w, h) = (turned, h, w)
        }
        return (image, w, h)
    }

    struct Setup {
        let daemon: DaemonProcess
        let control: SocketClient
        let waylandPath: String

        /// The compositor (200×120) with the surface layer `win` (40×24, its centre at
        /// `position`: its corner at (20, 20)) for toplevels of app id "scale-test".
        init(position: String = "[40, 32]") throws {
            (daemon, control, waylandPath) = try CompositorTests.start(
                config:
                    "[output]\nheadless_size = \"200x120\"\n[compositor]\nenabled = true\nsocket = \"wl\"\n[[compositor.rules]]\napp_id = \"scale-test\"\nlayer = \"win\"\n",
                win: #"{"bounds": [0, 0, 40, 24], "position": \#(position)}"#)
        }

        /// The window's pixel (x, y) on a screenshot, as 0xRRGGBB.
        func window(_ shot: Surface, _ x: Int, _ y: Int) -> UInt32 { shot.pixel(x: 20 + x, y: 20 + y).argb & 0xFF_FFFF }
    }

    /// The quadrants' colours, each read at its middle, top-left first.
    static func quadrants(_ setup: Setup, _ shot: Surface) -> [UInt32] {
        [setup.window(shot, 10, 6), setup.window(shot, 30, 6), setup.window(shot, 10, 18), setup.window(shot, 30, 18)]
    }

    static let expected: [UInt32] = [0xFF_0000, 0x00_FF00, 0x00_00FF, 0xFF_FFFF]

    /// The compositor and a client whose window shows the canonical picture, mapped.
    static func mappedWindow() throws -> (Setup, ScaleClient) {
        let setup = try Setup()
        let client = try ScaleClient(setup.waylandPath)
        try client.show(buffer(for: 0, scale: 1), on: client.root)
        _ = try setup.control.waitForEvent("surface.mapped")
        return (setup, client)
    }

    @Test(arguments: 0..<8, [1, 2, 3])
    func everyBufferTransformAndScaleShowsThePictureTheRightWayRound(transform: Int, scale: Int) throws {
        let setup = try Setup()
        let client = try ScaleClient(setup.waylandPath)
        let buffer = Self.buffer(for: transform, scale: scale)
        try client.show(buffer, on: client.root, transform: transform, scale: scale)
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["width"] == .number(40) && mapped["height"] == .number(24), "\(mapped.text)")
        let shot = try setup.control.screenshot("transform-\(transform)-\(scale)")
        #expect(Self.quadrants(setup, shot) == Self.expected, "transform \(transform), scale \(scale)")
        // The edges too: the window's corners are its quadrants' colours.
        #expect(setup.window(shot, 0, 0) == 0xFF_0000 && setup.window(shot, 39, 23) == 0xFF_FFFF && setup.window(shot, 39, 0) == 0x00_FF00)
    }

    /// Damage lands where the picture it covers is shown. The window is on the screen's
    /// corner with only its white quadrant on the screen: damage of the buffer's white
    /// corner pixel (found in the buffer the client made) is repainted, damage of its red
    /// one is off the screen; surface damage is in surface coordinates whatever the buffer transform.
    @Test(arguments: 0..<8, [1, 2])
    func damageLandsWhereTheBufferTransformAndScalePutIt(transform: Int, scale: Int) throws {
        let setup = try Setup(position: "[0, 0]")
        let client = try ScaleClient(setup.waylandPath)
        let buffer = Self.buffer(for: transform, scale: scale)
        try client.show(buffer, on: client.root, transform: transform, scale: scale)
        _ = try setup.control.waitForEvent("surface.mapped")
        func repainted(after damage: () -> Void) throws -> Double {
            usleep(150_000)
            let before = try setup.control.request(#"{"cmd": "stats"}"#)["result"]?["pixels"]?.number ?? 0
            damage()
            client.commit(client.root)
            usleep(150_000)
            return (try setup.control.request(#"{"cmd": "stats"}"#)["result"]?["pixels"]?.number ?? 0) - before
        }
        // The buffer's corner of that colour: the window's corner of that quadrant.
        func bufferPixel(_ colour: UInt32) throws -> (Int32, Int32) {
            let (w, h) = (buffer.width, buffer.height)
            let corner = try #require([(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)].first { buffer.pixels[$0.1 * w + $0.0] == colour })
            return (Int32(corner.0), Int32(corner.1))
        }
        let white = try bufferPixel(0xFFFF_FFFF), red = try bufferPixel(0xFFFF_0000)
        let shown = try repainted { wlSurfaceDamageBuffer(client.root, white.0, white.1, 1, 1) }
        let hidden = try repainted { wlSurfaceDamageBuffer(client.root, red.0, red.1, 1, 1) }
        #expect(shown > 0 && shown <= 9, "damage of buffer pixel \(white) repainted \(shown) pixels")
        #expect(hidden == 0, "damage of buffer pixel \(red), off the screen, repainted \(hidden) pixels")
        let surfaceShown = try repainted { wlSurfaceDamage(client.root, 30, 18, 1, 1) }
        let surfaceHidden = try repainted { wlSurfaceDamage(client.root, 10, 6, 1, 1) }
        #expect(surfaceShown > 0 && surfaceShown <= 9 && surfaceHidden == 0, "surface damage repainted \(surfaceShown) and \(surfaceHidden) pixels")
    }

    /// A viewport's source is in the coordinates after the buffer transform and scale: the
    /// middle 20×12 of the picture, stretched to 40×24, shows the four quadrants again,
    /// each 20×12.
    @Test(arguments: [0, 1, 5, 6], [1, 2])
    func aViewportCropsAfterTheTransformAndScale(transform: Int, scale: Int) throws {
        let setup = try Setup()
        let client = try ScaleClient(setup.waylandPath)
        let viewport = try client.viewport(for: client.root)
        client.send(viewport, 1, [wl_argument(f: 10 * 256), wl_argument(f: 6 * 256), wl_argument(f: 20 * 256), wl_argument(f: 12 * 256)])
        client.send(viewport, 2, [wl_argument(i: 40), wl_argument(i: 24)])
        try client.show(Self.buffer(for: transform, scale: scale), on: client.root, transform: transform, scale: scale)
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["width"] == .number(40) && mapped["height"] == .number(24), "\(mapped.text)")
        let shot = try setup.control.screenshot("viewport-\(transform)-\(scale)")
        #expect(Self.quadrants(setup, shot) == Self.expected, "transform \(transform), scale \(scale)")
    }

    /// A synchronized subsurface's commits wait for its parent's, and so do its moves; a
    /// desynchronized one shows at once, unless its own parent is synchronized.
    @Test func synchronizedSubsurfacesWaitForTheirParentsCommit() throws {
        let (setup, client) = try Self.mappedWindow()
        let (child, childSub) = try client.subsurface(of: client.root)
        wlSubsurfaceSetPosition(childSub, 4, 4)
        let magenta = (pixels: [UInt32](repeating: 0xFFFF_00FF, count: 64), width: 8, height: 8)
        try client.show(magenta, on: child, wait: false)
        func at(_ x: Int, _ y: Int) throws -> UInt32 {
            client.roundtrip()
            return setup.window(try setup.control.screenshot("sync"), x, y)
        }
        #expect(try at(6, 6) == 0xFF_0000, "the child's commit waits for its parent's")
        client.commit(client.root)
        #expect(try at(6, 6) == 0xFF_00FF, "the parent's commit shows it")
        wlSubsurfaceSetPosition(childSub, 24, 4)
        client.commit(child)
        #expect(try at(6, 6) == 0xFF_00FF && at(26, 6) == 0x00_FF00, "a move waits for the parent's commit")
        client.commit(client.root)
        #expect(try at(6, 6) == 0xFF_0000 && at(26, 6) == 0xFF_00FF, "the parent's commit moves it")
        // A desynchronized grandchild of the synchronized child waits as well.
        let (grandchild, grandchildSub) = try client.subsurface(of: child)
        wlSubsurfaceSetDesync(grandchildSub)
        let cyan = (pixels: [UInt32](repeating: 0xFF00_FFFF, count: 4), width: 2, height: 2)
        try client.show(cyan, on: grandchild, wait: false)
        client.commit(child)
        #expect(try at(24, 4) == 0xFF_00FF, "the grandchild waits: its parent is synchronized")
        client.commit(client.root)
        #expect(try at(24, 4) == 0x00_FFFF, "the root's commit applies both")
        // Desynchronized, the child's commits show at once.
        wlSubsurfaceSetDesync(childSub)
        try client.show((pixels: [UInt32](repeating: 0xFFFF_FF00, count: 64), width: 8, height: 8), on: child, wait: false)
        #expect(try at(28, 8) == 0xFF_FF00, "a desynchronized child's commit shows at once")
    }

    /// `place_below` the parent puts a subsurface under it (hidden by an opaque parent),
    /// `place_above` over it, each on the parent's next commit; siblings stack as placed.
    @Test func subsurfacesStackUnderAndOverTheirParent() throws {
        let (setup, client) = try Self.mappedWindow()
        let (first, firstSub) = try client.subsurface(of: client.root)
        let (second, secondSub) = try client.subsurface(of: client.root)
        wlSubsurfaceSetPosition(firstSub, 4, 4)
        wlSubsurfaceSetPosition(secondSub, 8, 4)
        try client.show((pixels: [UInt32](repeating: 0xFFFF_00FF, count: 64), width: 8, height: 8), on: first, wait: false)
        try client.show((pixels: [UInt32](repeating: 0xFF00_FFFF, count: 64), width: 8, height: 8), on: second, wait: false)
        client.commit(client.root)
        func at(_ x: Int, _ y: Int) throws -> UInt32 { setup.window(try setup.control.screenshot("stack"), x, y) }
        #expect(try at(6, 6) == 0xFF_00FF && at(10, 6) == 0x00_FFFF, "both over the parent, the second over the first")
        wlSubsurfacePlaceBelow(secondSub, client.root)
        client.commit(client.root)
        #expect(try at(10, 6) == 0xFF_00FF && at(14, 6) == 0xFF_0000, "the second under the parent: the first and the parent over it")
        wlSubsurfacePlaceBelow(firstSub, second)
        client.commit(client.root)
        #expect(try at(6, 6) == 0xFF_0000, "the first under the second, both under the parent")
        wlSubsurfacePlaceAbove(secondSub, client.root)
        wlSubsurfacePlaceAbove(firstSub, second)
        client.commit(client.root)
        #expect(try at(6, 6) == 0xFF_00FF && at(14, 6) == 0x00_FFFF, "both over the parent again, the first on top")
    }

    /// Touches reach the surface under them in its own coordinates: a 2× buffer turned a
    /// quarter and stretched by a viewport to 80×48 in the layer's 40×24, and a 2×
    /// subsurface of 20×12 at (40, 24) of it.
    @Test func touchesAreInSurfaceCoordinates() throws {
        let setup = try Setup()
        let client = try ScaleClient(setup.waylandPath)
        client.send(try client.viewport(for: client.root), 2, [wl_argument(i: 80), wl_argument(i: 48)])
        try client.show(Self.buffer(for: 1, scale: 2), on: client.root, transform: 1, scale: 2)
        _ = try setup.control.waitForEvent("surface.mapped")
        let (child, childSub) = try client.subsurface(of: client.root)
        try client.show((pixels: [UInt32](repeating: 0xFFFF_FF00, count: 40 * 24), width: 40, height: 24), on: child, scale: 2, wait: false)
        client.commit(client.root)
        wlSubsurfaceSetPosition(childSub, 40, 24)
        client.commit(client.root)
        for (point, surface, expected) in [((30, 26), client.root!, (20.0, 12.0)), ((45, 35), child, (10.0, 6.0))] {
            try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [\#(point.0), \#(point.1)]}"#)
            let down = try client.waitForTouch()
            try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
            #expect(down.surface == surface && down.x == expected.0 && down.y == expected.1, "touch at \(point): \(down)")
        }
    }

    /// What the protocols make errors, each on a fresh connection: the object and code sent.
    @Test(arguments: [
        "viewport_exists", "bad_value_source", "bad_value_destination", "bad_size", "out_of_buffer", "out_of_buffer_turned", "no_surface",
        "invalid_size", "invalid_scale", "invalid_transform",
    ])
    func protocolErrors(_ error: String) throws {
        let setup = try Setup()
        let client = try ScaleClient(setup.waylandPath)
        let surface = try #require(wlCompositorCreateSurface(client.compositor))
        let picture = (pixels: [UInt32](repeating: 0xFF80_8080, count: 41 * 24), width: 41, height: 24)
        let expected: (interface: String, code: UInt32)
        switch error {
        case "viewport_exists":
            _ = try client.viewport(for: surface)
            _ = try client.viewport(for: surface)
            expected = ("wp_viewporter", 0)
        case "bad_value_source":
            client.send(try client.viewport(for: surface), 1, [wl_argument(f: -256), wl_argument(f: 0), wl_argument(f: 2560), wl_argument(f: 2560)])
            expected = ("wp_viewport", 0)
        case "bad_value_destination":
            client.send(try client.viewport(for: surface), 2, [wl_argument(i: 0), wl_argument(i: 5)])
            expected = ("wp_viewport", 0)
        case "bad_size":
            client.send(try client.viewport(for: surface), 1, [wl_argument(f: 0), wl_argument(f: 0), wl_argument(f: 2688), wl_argument(f: 2560)])
            try client.show(picture, on: surface, wait: false)
            expected = ("wp_viewport", 1)
        case "out_of_buffer", "out_of_buffer_turned":
            // 41 wide, but 24 once turned.
            let width: Int32 = error == "out_of_buffer" ? 42 : 30
            client.send(try client.viewport(for: surface), 1, [wl_argument(f: 0), wl_argument(f: 0), wl_argument(f: width * 256), wl_argument(f: 2560)])
            try client.show(picture, on: surface, transform: error == "out_of_buffer" ? 0 : 1, wait: false)
            expected = ("wp_viewport", 2)
        case "no_surface":
            let viewport = try client.viewport(for: surface)
            wlSurfaceDestroy(surface)
            client.send(viewport, 2, [wl_argument(i: 10), wl_argument(i: 10)])
            expected = ("wp_viewport", 3)
        case "invalid_size":
            try client.show(picture, on: surface, scale: 2, wait: false)
            expected = ("wl_surface", 2)
        case "invalid_scale":
            wlSurfaceSetBufferScale(surface, 0)
            expected = ("wl_surface", 0)
        default:
            wlSurfaceSetBufferTransform(surface, 8)
            expected = ("wl_surface", 1)
        }
        let sent = client.protocolError()
        #expect(sent?.interface == expected.interface && sent?.code == expected.code, "\(error): \(String(describing: sent))")
        #expect(try setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
    }
}

/// A Wayland client written here: an xdg toplevel (app id "scale-test") whose surfaces it
/// fills with given pictures, with buffer transforms, scales, viewports and subsurfaces.
final class ScaleClient: TestWaylandClient {
    var compositor: OpaquePointer? { global("wl_compositor") }
    /// Touch downs heard: the surface and the point.
    private var touches: [(surface: OpaquePointer?, x: Double, y: Double)] = []
    /// The toplevel's surface.
    private(set) var root: OpaquePointer!

    init(_ path: String) throws {
        try super.init(
            path, binding: ["wl_compositor": 4, "wl_shm": 1, "wl_subcompositor": 1, "wp_viewporter": 1, "wl_seat": 5, "xdg_wm_base": 1],
            optional: ["wl_seat"])
        answerPings()
        if let seat = global("wl_seat"), let touch = wlSeatGetTouch(seat) {
            listen(touch) { [unowned self] opcode, args in
                if opcode == 0 { touches.append((args[2].o, wl_fixed_to_double(args[4].f), wl_fixed_to_double(args[5].f))) }
            }
        }
        root = wlCompositorCreateSurface(compositor)
        _ = try makeToplevel(root, appID: "scale-test")
    }

    /// Attaches a fresh buffer holding `picture` to `surface` with `transform` and `scale`,
    /// damages all of it and commits; with `wait`, waits for the daemon to have handled it.
    func show(
        _ picture: (pixels: [UInt32], width: Int, height: Int), on surface: OpaquePointer, transform: Int = 0, scale: Int = 1, wait: Bool = true
    ) throws {
        let buffer = try buffer(picture.width, picture.height, name: "scale-test") { _ = $0.update(fromContentsOf: picture.pixels) }
        if transform != 0 { wlSurfaceSetBufferTransform(surface, Int32(transform)) }
        if scale != 1 { wlSurfaceSetBufferScale(surface, Int32(scale)) }
        wlSurfaceAttach(surface, buffer, 0, 0)
        wlSurfaceDamageBuffer(surface, 0, 0, Int32.max, Int32.max)
        wlSurfaceCommit(surface)
        if wait { roundtrip() } else { wl_display_flush(display) }
    }

    /// Commits `surface` and waits for the daemon to have handled it.
    func commit(_ surface: OpaquePointer) {
        wlSurfaceCommit(surface)
        roundtrip()
    }

    /// The next touch down heard (within 5 s).
    func waitForTouch() throws -> (surface: OpaquePointer?, x: Double, y: Double) {
        try dispatch(until: { !touches.isEmpty }, what: "touch")
        return touches.removeFirst()
    }

    /// A `wp_viewport` for `surface`.
    func viewport(for surface: OpaquePointer) throws -> OpaquePointer {
        try #require(send(global("wp_viewporter")!, 1, [wl_argument(n: 0), wl_argument(o: surface)], Self.viewporter["wp_viewport"]))
    }

    /// A new surface made a subsurface of `parent`, and its `wl_subsurface`.
    func subsurface(of parent: OpaquePointer) throws -> (OpaquePointer, OpaquePointer) {
        let surface = try #require(wlCompositorCreateSurface(compositor))
        return (surface, try #require(wlSubcompositorGetSubsurface(global("wl_subcompositor"), surface, parent)))
    }

    /// Sends request `opcode` of `proxy` (a new object of `interface` when it makes one).
    @discardableResult
    func send(_ proxy: OpaquePointer, _ opcode: UInt32, _ arguments: [wl_argument], _ interface: UnsafePointer<wl_interface>? = nil) -> OpaquePointer? {
        waylandRequest(proxy, opcode, arguments, creating: interface)
    }
}
