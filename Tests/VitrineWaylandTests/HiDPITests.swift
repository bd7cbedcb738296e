import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineOutput
import VitrineRaster
import WaylandDescription

/// `[[outputs]] scale` and `zxdg_decoration_manager_v1`, with a client written here
/// (`HiDPIClient`) that speaks `wl_surface` version 6 and `wp_fractional_scale_v1`: it is
/// told its output's scale, configured at its layer's size divided by it, and its buffer
/// drawn at that scale is shown pixel for pixel.
@Suite(.serialized) struct HiDPITests {
    struct Setup {
        let daemon: DaemonProcess
        let control: SocketClient
        let waylandPath: String

        /// The compositor (one 200×120 output, `Virtual-1`, at `scale`) with the surface
        /// layer `win`, `width` × `height` with its corner at (20, 20), for toplevels of app
        /// id "hidpi-test".
        init(scale: String, width: Int, height: Int) throws {
            (daemon, control, waylandPath) = try CompositorTests.start(
                config: """
                    [output]
                    headless_size = "200x120"
                    [[outputs]]
                    connector = "Virtual-1"
                    scale = \(scale)
                    [compositor]
                    enabled = true
                    socket = "wl"
                    [[compositor.rules]]
                    app_id = "hidpi-test"
                    layer = "win"

                    """,
                win: #"{"bounds": [0, 0, \#(width), \#(height)], "position": [\#(20 + Double(width) / 2), \#(20 + Double(height) / 2)]}"#)
        }

        /// The pixels of the layer on a screenshot that are not `expected(x, y)` (0xRRGGBB).
        func mismatches(_ shot: Surface, width: Int, height: Int, _ expected: (Int, Int) -> UInt32) -> Int {
            var count = 0
            for y in 0..<height { for x in 0..<width where shot.pixel(x: 20 + x, y: 20 + y).argb & 0xFF_FFFF != expected(x, y) { count += 1 } }
            return count
        }
    }

    /// A checkerboard of single pixels, black and white, with a red pixel in the top-left
    /// corner: any scaling of it shows.
    static func checker(_ x: Int, _ y: Int) -> UInt32 {
        (x, y) == (0, 0) ? 0xFF_0000 : (x + y) % 2 == 0 ? 0xFF_FFFF : 0x00_0000
    }

    /// Screenshots until the layer shows the checkerboard (at most 5 s); how many of its
    /// pixels did not on the last one.
    static func checkerMismatches(_ setup: Setup, width: Int, height: Int, name: String) throws -> Int {
        let deadline = Date().addingTimeInterval(5)
        var wrong = 0
        repeat {
            let shot = try setup.control.screenshot(name)
            wrong = setup.mismatches(shot, width: width, height: height, checker)
            if wrong == 0 { return 0 }
            try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("hidpi-\(name).png").path)
            usleep(100_000)
        } while Date() < deadline
        return wrong
    }

    /// The compositor and a client's toplevel with a `wp_fractional_scale_v1`, configured:
    /// the client, the toplevel's surface and its fractional scale object.
    static func window(scale: String, width: Int, height: Int) throws -> (Setup, HiDPIClient, OpaquePointer, OpaquePointer) {
        let setup = try Setup(scale: scale, width: width, height: height)
        let client = try HiDPIClient(setup.waylandPath)
        let root = try client.surface()
        let fractional = try client.fractionalScale(of: root)
        try client.makeToplevel(root)
        return (setup, client, root, fractional)
    }

    @Test func aClientAtScale2IsToldItsScaleConfiguredAtHalfTheLayerAndDrawnPixelForPixel() throws {
        let (setup, client, root, fractional) = try Self.window(scale: "2", width: 80, height: 48)
        #expect(client.outputScale == 2, "wl_output.scale")
        #expect(client.configured == [40, 24], "the first configure: \(client.configured)")
        try client.dispatch(until: { client.preferredBufferScale[root] != nil && client.preferredScale[fractional] != nil }, what: "the preferred scales")
        #expect(client.preferredBufferScale[root] == 2 && client.preferredScale[fractional] == 240)
        #expect(client.preferredBufferTransform[root] == 0, "the normal transform: the output's rotation turns the composed frame")
        // A subsurface (a version-6 surface too) with the same picture at scale 2 over the
        // root's right half: what libwayland's wl_subcompositor takes as a wl_surface.
        let (child, sub) = try client.subsurface(of: root)
        wlSubsurfaceSetPosition(sub, 20, 0)
        try client.show(width: 40, height: 48, scale: 2, on: child, commit: false)
        wlSurfaceCommit(child)
        let feedback = try client.feedback(for: root)
        try client.show(width: 80, height: 48, scale: 2, on: root)
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["width"] == .number(40) && mapped["height"] == .number(24), "the window in logical pixels: \(mapped.text)")
        let wrong = try Self.checkerMismatches(setup, width: 40, height: 48, name: "scale-2")
        #expect(wrong == 0, "\(wrong) of the layer's left pixels are not the 2× buffer's, one to one")
        let right = try setup.control.screenshot("scale-2-right")
        let offset = setup.mismatches(right, width: 80, height: 48) { x, y in x < 40 ? Self.checker(x, y) : Self.checker(x - 40, y) }
        #expect(offset == 0, "\(offset) pixels: the subsurface is not at 20 logical pixels, 40 output pixels, one to one")
        try client.dispatch(until: { client.presented.contains(feedback) }, what: "presentation feedback")
        // Touch at the layer's pixel (30, 20) reaches the surface at its logical (15, 10).
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [50, 40]}"#)
        try client.dispatch(until: { !client.touches.isEmpty }, what: "a touch")
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        #expect(client.touches.first?.x == 15 && client.touches.first?.y == 10, "touch in surface coordinates: \(client.touches)")
        // The pointer too; and a version-6 surface is taken as the cursor (libwayland's
        // wl_pointer.set_cursor names wl_surface).
        try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [50, 40]}"#)
        try client.dispatch(until: { client.pointerEnter != nil }, what: "the pointer's enter")
        let enter = try #require(client.pointerEnter)
        #expect(enter.x == 15 && enter.y == 10, "pointer in surface coordinates: \(enter)")
        let cursor = try client.surface()
        let picture = try client.buffer(8, 8, name: "cursor") { $0.update(repeating: 0xFFFF_00FF) }
        wlSurfaceAttach(cursor, picture, 0, 0)
        wlSurfaceDamageBuffer(cursor, 0, 0, 8, 8)
        wlSurfaceCommit(cursor)
        waylandRequest(try #require(client.pointer), 0, [wl_argument(u: enter.serial), wl_argument(o: cursor), wl_argument(i: 0), wl_argument(i: 0)])
        client.roundtrip()
        let deadline = Date().addingTimeInterval(5)
        var pixel: UInt32 = 0
        repeat {
            let reply = try setup.control.request(#"{"cmd": "screenshot", "path": "hidpi-cursor.png", "cursor": true}"#)
            pixel = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string)).pixel(x: 53, y: 43).argb & 0xFF_FFFF
        } while pixel != 0xFF_00FF && Date() < deadline
        #expect(pixel == 0xFF_00FF, "the version-6 cursor surface is drawn at the pointer")
        #expect(client.protocolError() == nil)
    }

    @Test func aFractionalClientAt1Point5DrawsItsBufferThroughAViewportPixelForPixel() throws {
        let (setup, client, root, fractional) = try Self.window(scale: "1.5", width: 60, height: 36)
        try client.dispatch(until: { client.preferredScale[fractional] != nil }, what: "the preferred scale")
        #expect(client.outputScale == 2 && client.preferredScale[fractional] == 180 && client.configured == [40, 24])
        #expect(client.preferredBufferScale[root] == 2, "wl_surface.preferred_buffer_scale is whole: rounded up")
        let viewport = try #require(
            waylandRequest(
                client.global("wp_viewporter")!, 1, [wl_argument(n: 0), wl_argument(o: root)], creating: TestWaylandClient.viewporter["wp_viewport"]))
        waylandRequest(viewport, 2, [wl_argument(i: 40), wl_argument(i: 24)])
        try client.show(width: 60, height: 36, scale: 1, on: root)
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["width"] == .number(40) && mapped["height"] == .number(24), "\(mapped.text)")
        let wrong = try Self.checkerMismatches(setup, width: 60, height: 36, name: "scale-1.5")
        #expect(wrong == 0, "\(wrong) of the layer's pixels are not the 1.5× buffer's, one to one")
    }

    @Test func atScale1NothingIsToldButTheFractionalScale() throws {
        let (setup, client, root, fractional) = try Self.window(scale: "1", width: 40, height: 24)
        try client.show(width: 40, height: 24, scale: 1, on: root)
        _ = try setup.control.waitForEvent("surface.mapped")
        client.roundtrip()
        #expect(client.outputScale == 1 && client.configured == [40, 24] && client.preferredScale[fractional] == 120)
        #expect(client.preferredBufferScale[root] == nil, "scale 1 is what a surface assumes: not sent")
        #expect(try Self.checkerMismatches(setup, width: 40, height: 24, name: "scale-1") == 0)
    }

    @Test func theDecorationIsServerSideWhateverTheClientAsks() throws {
        let setup = try Setup(scale: "1", width: 40, height: 24)
        let client = try HiDPIClient(setup.waylandPath)
        let root = try client.surface()
        let toplevel = try client.makeToplevel(root)
        let decoration = try client.decoration(of: toplevel)
        client.roundtrip()
        #expect(client.decorationModes == [2], "the mode told when made: server_side")
        let configures = client.configureCount
        waylandRequest(decoration, 1, [wl_argument(u: 1)])  // set_mode client_side
        client.roundtrip()
        #expect(client.decorationModes == [2, 2] && client.configureCount == configures + 1, "answered server_side, with a new configure")
        waylandRequest(decoration, 2)  // unset_mode
        client.roundtrip()
        #expect(client.decorationModes == [2, 2, 2] && client.configureCount == configures + 2)
        waylandRequest(decoration, 0, destroying: true)
        try client.show(width: 40, height: 24, scale: 1, on: root)
        _ = try setup.control.waitForEvent("surface.mapped")
        #expect(client.protocolError() == nil)
    }

    /// What the protocols make errors, each on a fresh connection: the interface and code sent.
    @Test(arguments: [
        ("already_constructed", "zxdg_toplevel_decoration_v1", 1), ("unconfigured_buffer", "zxdg_toplevel_decoration_v1", 0),
        ("orphaned", "zxdg_toplevel_decoration_v1", 2), ("fractional_scale_exists", "wp_fractional_scale_manager_v1", 0),
    ])
    func protocolErrors(_ error: String, _ interface: String, _ code: UInt32) throws {
        let setup = try Setup(scale: "2", width: 40, height: 24)
        let client = try HiDPIClient(setup.waylandPath)
        let root = try client.surface()
        switch error {
        case "fractional_scale_exists":
            _ = try client.fractionalScale(of: root)
            _ = try client.fractionalScale(of: root)
        case "unconfigured_buffer":
            let toplevel = try client.makeToplevel(root)
            try client.show(width: 80, height: 48, scale: 2, on: root)
            _ = try client.decoration(of: toplevel)
        default:
            let toplevel = try client.makeToplevel(root)
            _ = try client.decoration(of: toplevel)
            if error == "orphaned" {
                waylandRequest(toplevel, 0)  // destroy, its decoration alive
            } else {
                _ = try client.decoration(of: toplevel)
            }
        }
        let sent = client.protocolError()
        #expect(sent?.interface == interface && sent?.code == code, "\(error): \(String(describing: sent))")
    }
}

/// A client of `wl_compositor` version 6 (its tables described here: libwayland-client
/// 1.21's stop at 5), `wp_fractional_scale_manager_v1`, `zxdg_decoration_manager_v1`,
/// `wl_output`, `wp_viewporter`, `wp_presentation` and a touch screen.
final class HiDPIClient: TestWaylandClient {
    static let version6 = WaylandInterfaceTable(
        WaylandProtocol(interfaces: [
            .init(
                name: "wl_compositor", version: 6,
                requests: [.init(name: "create_surface", signature: "n", types: ["wl_surface"]), .init(name: "create_region", signature: "n", types: [nil])],
                events: []),
            .init(
                name: "wl_surface", version: 6,
                requests: [
                    .init(name: "destroy", signature: "", types: []), .init(name: "attach", signature: "?oii", types: [nil, nil, nil]),
                    .init(name: "damage", signature: "iiii", types: [nil, nil, nil, nil]), .init(name: "frame", signature: "n", types: [nil]),
                    .init(name: "set_opaque_region", signature: "?o", types: [nil]), .init(name: "set_input_region", signature: "?o", types: [nil]),
                    .init(name: "commit", signature: "", types: []), .init(name: "set_buffer_transform", signature: "2i", types: [nil]),
                    .init(name: "set_buffer_scale", signature: "3i", types: [nil]),
                    .init(name: "damage_buffer", signature: "4iiii", types: [nil, nil, nil, nil]), .init(name: "offset", signature: "5ii", types: [nil, nil]),
                ],
                events: [
                    .init(name: "enter", signature: "o", types: ["wl_output"]), .init(name: "leave", signature: "o", types: ["wl_output"]),
                    .init(name: "preferred_buffer_scale", signature: "6i", types: [nil]),
                    .init(name: "preferred_buffer_transform", signature: "6u", types: [nil]),
                ]),
        ]))

    private(set) var compositor: OpaquePointer!
    private(set) var outputScale: Int32?
    private(set) var preferredBufferScale: [OpaquePointer: Int32] = [:]
    private(set) var preferredBufferTransform: [OpaquePointer: UInt32] = [:]
    private(set) var preferredScale: [OpaquePointer: UInt32] = [:]
    private(set) var configured: [Int32] = []
    private(set) var configureCount = 0
    private(set) var decorationModes: [UInt32] = []
    private(set) var touches: [(x: Double, y: Double)] = []
    private(set) var pointer: OpaquePointer?
    private(set) var pointerEnter: (serial: UInt32, x: Double, y: Double)?
    private(set) var presented: Set<OpaquePointer> = []

    init(_ path: String) throws {
        try super.init(
            path,
            binding: [
                "wl_shm": 1, "wl_subcompositor": 1, "xdg_wm_base": 1, "wl_output": 2, "wl_seat": 5, "wp_viewporter": 1, "wp_presentation": 1,
                "wp_fractional_scale_manager_v1": 1, "zxdg_decoration_manager_v1": 1,
            ])
        compositor = try bind("wl_compositor", version: 6, interface: Self.version6["wl_compositor"])
        answerPings()
        listen(global("wl_output")!) { [unowned self] opcode, args in
            if opcode == 3 { outputScale = args[0].i }
        }
        pointer = wlSeatGetPointer(global("wl_seat"))
        if let pointer {
            listen(pointer) { [unowned self] opcode, args in
                if opcode == 0 { pointerEnter = (args[0].u, wl_fixed_to_double(args[2].f), wl_fixed_to_double(args[3].f)) }
            }
        }
        if let touch = wlSeatGetTouch(global("wl_seat")) {
            listen(touch) { [unowned self] opcode, args in
                if opcode == 0 { touches.append((wl_fixed_to_double(args[4].f), wl_fixed_to_double(args[5].f))) }
            }
        }
        roundtrip()
    }

    /// Sends request `opcode` of `proxy`, which makes an object of `interface` (its id first,
    /// then `object`), and hears the new object's events (each opcode with its first
    /// argument) with `handle`.
    private func make(
        _ proxy: OpaquePointer, _ opcode: UInt32, _ object: OpaquePointer?, _ interface: UnsafePointer<wl_interface>,
        _ handle: @escaping (OpaquePointer, UInt32, wl_argument) -> Void
    ) throws -> OpaquePointer {
        let made = try #require(waylandRequest(proxy, opcode, [wl_argument(n: 0)] + (object.map { [wl_argument(o: $0)] } ?? []), creating: interface))
        listen(made) { opcode, args in handle(made, opcode, args[0]) }
        return made
    }

    /// A new version-6 surface, its preferred buffer scales heard.
    func surface() throws -> OpaquePointer {
        try make(compositor, 0, nil, Self.version6["wl_surface"]) { [unowned self] surface, event, argument in
            if event == 2 { preferredBufferScale[surface] = argument.i }
            if event == 3 { preferredBufferTransform[surface] = argument.u }
        }
    }

    /// `surface`'s `wp_fractional_scale_v1`, its preferred scale heard.
    func fractionalScale(of surface: OpaquePointer) throws -> OpaquePointer {
        try make(global("wp_fractional_scale_manager_v1")!, 1, surface, Self.fractionalScale["wp_fractional_scale_v1"]) { [unowned self] in
            if $1 == 0 { preferredScale[$0] = $2.u }
        }
    }

    /// Makes `surface` a toplevel of app id "hidpi-test", configures acknowledged and their
    /// sizes kept; waits for the first.
    @discardableResult
    func makeToplevel(_ surface: OpaquePointer) throws -> OpaquePointer {
        let xdgSurface = try #require(
            waylandRequest(global("xdg_wm_base")!, 2, [wl_argument(n: 0), wl_argument(o: surface)], creating: Self.xdg["xdg_surface"]))
        let toplevel = try #require(waylandRequest(xdgSurface, 1, [wl_argument(n: 0)], creating: Self.xdg["xdg_toplevel"]))
        listen(xdgSurface) { [unowned self] opcode, args in
            guard opcode == 0 else { return }
            waylandRequest(xdgSurface, 4, [wl_argument(u: args[0].u)])
            configureCount += 1
        }
        listen(toplevel) { [unowned self] opcode, args in
            if opcode == 0 { configured = [args[0].i, args[1].i] }
        }
        _ = "hidpi-test".withCString { waylandRequest(toplevel, 3, [wl_argument(s: $0)]) }
        wlSurfaceCommit(surface)
        try dispatch(until: { configureCount > 0 }, what: "the first configure")
        return toplevel
    }

    /// `toplevel`'s decoration, its modes heard.
    func decoration(of toplevel: OpaquePointer) throws -> OpaquePointer {
        try make(global("zxdg_decoration_manager_v1")!, 1, toplevel, Self.decoration["zxdg_toplevel_decoration_v1"]) { [unowned self] in
            if $1 == 0 { decorationModes.append($2.u) }
        }
    }

    /// A new version-6 surface made a subsurface of `parent`, and its `wl_subsurface`.
    func subsurface(of parent: OpaquePointer) throws -> (OpaquePointer, OpaquePointer) {
        let surface = try self.surface()
        return (surface, try #require(wlSubcompositorGetSubsurface(global("wl_subcompositor"), surface, parent)))
    }

    /// Asks for `wp_presentation_feedback` of `surface`'s next commit; its `presented` heard.
    func feedback(for surface: OpaquePointer) throws -> OpaquePointer {
        let feedback = try #require(
            waylandRequest(
                global("wp_presentation")!, 1, [wl_argument(o: surface), wl_argument(n: 0)], creating: Self.timing["wp_presentation_feedback"]))
        listen(feedback) { [unowned self] opcode, _ in
            if opcode == 1 { presented.insert(feedback) }
        }
        return feedback
    }

    /// Attaches a `width` × `height` buffer of the checkerboard at buffer `scale` to
    /// `surface`, damaged, and commits it (unless not `commit`).
    func show(width: Int, height: Int, scale: Int32, on surface: OpaquePointer, commit: Bool = true) throws {
        let buffer = try buffer(width, height, name: "hidpi") { pixels in
            for y in 0..<height { for x in 0..<width { pixels[y * width + x] = 0xFF00_0000 | HiDPITests.checker(x, y) } }
        }
        wlSurfaceSetBufferScale(surface, scale)
        wlSurfaceAttach(surface, buffer, 0, 0)
        wlSurfaceDamageBuffer(surface, 0, 0, Int32.max, Int32.max)
        if commit {
            wlSurfaceCommit(surface)
            roundtrip()
        }
    }
}
