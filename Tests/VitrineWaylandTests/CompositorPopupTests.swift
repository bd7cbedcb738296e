import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol
import VitrineRaster
@testable import VitrineOutput

/// Popups and input targeting against the real daemon, with a client written here
/// (`PopupClient`): the compositor of CompositorTests (200 × 120, the layer `win` showing
/// a 60 × 40 window scaled 2× around (100, 60), so the window's (x, y) is on the screen
/// at (40 + 2x, 20 + 2y)).
@Suite(.serialized) struct CompositorPopupTests {
    static let rules = "[[compositor.rules]]\napp_id = \"popup-test\"\nlayer = \"win\"\n"

    /// The daemon, and a client whose 60 × 40 dark blue toplevel is mapped on `win`.
    struct Setup {
        let setup: CompositorTests.Setup
        let client: PopupClient
        let window: (surface: OpaquePointer?, xdg: OpaquePointer?)

        init() throws {
            setup = try CompositorTests.Setup(rules: CompositorPopupTests.rules)
            client = try PopupClient(setup.waylandPath)
            window = client.toplevel(appID: "popup-test", 60, 40, 0xFF00_0060)
            _ = try setup.control.waitForEvent("surface.mapped")
        }

        /// Injects a click (left button) at the window's point (x, y).
        func click(_ x: Double, _ y: Double) throws {
            try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [\#(40 + 2 * x), \#(20 + 2 * y)]}"#)
            try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "left", "pressed": true}"#)
            try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "left", "pressed": false}"#)
        }

        func touch(_ x: Double, _ y: Double) throws {
            try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [\#(40 + 2 * x), \#(20 + 2 * y)]}"#)
            try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        }

        /// A positioner for a 30 × 20 popup at the rectangle (50, 30, 4, 4), anchored and
        /// extending bottom-right, with `adjustment`.
        func corner(_ adjustment: UInt32) -> OpaquePointer? {
            client.positioner(size: (30, 20), anchorRect: (50, 30, 4, 4), anchor: 8, gravity: 8, adjustment: adjustment)
        }
    }

    @Test func eachConstraintAdjustmentPlacesThePopupWithinTheLayer() throws {
        let s = try Setup()
        // none, flip x|y, slide x|y, resize x|y: the places PositionerRulesTests works out.
        let expected: [(UInt32, [Double])] = [(0, [54, 34, 30, 20]), (12, [20, 10, 30, 20]), (3, [30, 20, 30, 20]), (48, [54, 34, 6, 6])]
        for (adjustment, place) in expected {
            let popup = s.client.popup(parent: s.window.xdg, positioner: s.corner(adjustment))
            #expect(s.client.place(of: popup.popup) == place, "adjustment \(adjustment): \(s.client.events.map(\.description))")
            #expect(!s.client.events("configure", of: popup.xdg).isEmpty, "xdg_surface.configure follows")
            s.client.destroy(popup: popup.popup, xdg: popup.xdg, surface: popup.surface)
        }
        #expect(s.client.protocolError() == nil)
    }

    /// A flipped popup (yellow) and one that overflows unadjusted (magenta, clipped to the
    /// layer's bounds at its bottom-right corner), drawn through the layer's 2× scale.
    @Test func popupsAreDrawnOverTheWindowThroughTheLayerAndClippedToIt() throws {
        let s = try Setup()
        let flipped = s.client.popup(parent: s.window.xdg, positioner: s.corner(12))
        s.client.show(flipped.surface, 30, 20, 0xFFFF_FF00)
        let clipped = s.client.popup(parent: s.window.xdg, positioner: s.corner(0))
        s.client.show(clipped.surface, 30, 20, 0xFFFF_00FF)
        wl_display_roundtrip(s.client.display)
        #expect(try s.setup.expectPicture("compositor-popups") == nil)
        // Dismissed (destroyed), the popups leave the window as it was.
        s.client.destroy(popup: clipped.popup, xdg: clipped.xdg, surface: clipped.surface)
        s.client.destroy(popup: flipped.popup, xdg: flipped.xdg, surface: flipped.surface)
        #expect(try s.setup.expectPicture("compositor-popups-gone") == nil)
    }

    /// A 10 × 10 popup appearing and going repaints its part of the screen only: 20 × 20
    /// at the layer's 2× and a pixel of filtering around it, far below the layer's 120 × 80.
    @Test func aPopupsAppearanceAndDismissalRepaintOnlyWhereItIs() throws {
        let s = try Setup()
        func pixels() throws -> Double { try s.setup.control.request(#"{"cmd": "stats"}"#)["result"]?["pixels"]?.number ?? 0 }
        /// Waits until the screen's pixel at the popup's middle, the window's (35, 25), is `argb`.
        func waitForMiddle(_ argb: UInt32) throws -> Bool {
            let deadline = Date().addingTimeInterval(5)
            repeat {
                let shot = try s.setup.control.screenshot("popup-damage")
                if shot.pixels[70 * shot.stride + 110] == argb { return true }
                usleep(30_000)
                if Date() >= deadline {
                    try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("popup-damage.png").path)
                    Issue.record("the pixel at (110, 70) is \(String(shot.pixels[70 * shot.stride + 110], radix: 16))")
                }
            } while Date() < deadline
            return false
        }
        #expect(try waitForMiddle(0xFF00_0060))
        let start = try pixels()
        let popup = s.client.popup(parent: s.window.xdg, positioner: s.client.positioner(size: (10, 10), anchorRect: (30, 20, 0, 0), gravity: 8))
        s.client.show(popup.surface, 10, 10, 0xFFFF_FFFF)
        #expect(try waitForMiddle(0xFFFF_FFFF))
        let shown = try pixels()
        #expect(shown - start > 0 && shown - start <= 24 * 24, "repainted \(shown - start) pixels")
        s.client.destroy(popup: popup.popup, xdg: popup.xdg, surface: popup.surface)
        #expect(try waitForMiddle(0xFF00_0060))
        let gone = try pixels()
        #expect(gone - shown > 0 && gone - shown <= 24 * 24, "repainted \(gone - shown) pixels")
    }

    @Test func aGrabbingPopupTakesTheKeysAndAPressOutsideDismissesTheChain() throws {
        let s = try Setup()
        try s.click(10, 10)
        #expect(s.client.wait { !s.client.events("button", of: s.client.pointer).isEmpty })
        let serial = try #require(s.client.events("button", of: s.client.pointer).first?.values.first)
        let menu = s.client.popup(
            parent: s.window.xdg, positioner: s.client.positioner(size: (20, 10), anchorRect: (10, 10, 1, 1), gravity: 8), grab: UInt32(serial))
        s.client.show(menu.surface, 20, 10, 0xFFFF_FFFF)
        let nested = s.client.popup(
            parent: menu.xdg, positioner: s.client.positioner(size: (10, 10), anchorRect: (20, 0, 1, 1), gravity: 8), grab: UInt32(serial))
        s.client.show(nested.surface, 10, 10, 0xFF80_8080)
        // Keys go to the topmost grabbing popup.
        #expect(s.client.wait { s.client.events("enter", of: s.client.keyboard).last?.objects.last == PopupClient.id(nested.surface) })

        // A click on the menu reaches it, at its own coordinates (the menu is at (10, 10)).
        let buttons = s.client.events("button", of: s.client.pointer).count
        try s.click(15, 12)
        #expect(s.client.wait { s.client.events("button", of: s.client.pointer).count == buttons + 2 })
        // (The menu appeared under the pointer: it entered then, and the click's motion
        // moved it on the menu.)
        let enter = try #require(s.client.events("enter", of: s.client.pointer).last)
        let pointer = PopupClient.id(s.client.pointer)
        let place = try #require(s.client.events.last { $0.object == pointer && ($0.name == "enter" || $0.name == "motion") })
        #expect(enter.objects.last == PopupClient.id(menu.surface) && place.values.suffix(2) == [5, 2], "\(enter), \(place)")
        #expect(s.client.events("popup_done", of: menu.popup).isEmpty)

        // A click on the window outside the popups dismisses both, topmost first, and
        // the window does not hear it.
        try s.click(50, 35)
        #expect(s.client.wait { !s.client.events("popup_done", of: menu.popup).isEmpty })
        let done = s.client.events.filter { $0.name == "popup_done" }.map(\.object)
        #expect(done == [PopupClient.id(nested.popup), PopupClient.id(menu.popup)])
        s.client.wait(timeout: 0.5) { false }
        #expect(s.client.events("button", of: s.client.pointer).count == buttons + 2, "the dismissing click is not delivered")
        #expect(s.client.events("enter", of: s.client.keyboard).last?.objects.last == PopupClient.id(s.window.surface), "keys back to the window")
        s.client.destroy(popup: nested.popup, xdg: nested.xdg, surface: nested.surface)
        s.client.destroy(popup: menu.popup, xdg: menu.xdg, surface: menu.surface)
        #expect(s.client.protocolError() == nil)
    }

    @Test func aTouchsSerialGrabsATouchOutsideDismissesAndKeysReturnWhenTheClientClosesTheMenu() throws {
        let s = try Setup()
        try s.touch(10, 10)
        #expect(s.client.wait { !s.client.events("down", of: s.client.touch).isEmpty })
        let serial = try #require(s.client.events("down", of: s.client.touch).first?.values.first)
        let positioner = s.client.positioner(size: (20, 10), anchorRect: (10, 10, 1, 1), gravity: 8)
        let menu = s.client.popup(parent: s.window.xdg, positioner: positioner, grab: UInt32(serial))
        s.client.show(menu.surface, 20, 10, 0xFFFF_FFFF)
        #expect(s.client.wait { s.client.events("enter", of: s.client.keyboard).last?.objects.last == PopupClient.id(menu.surface) })
        // The client closes its menu itself: keys go back to the window.
        s.client.destroy(popup: menu.popup, xdg: menu.xdg, surface: menu.surface)
        #expect(s.client.wait { s.client.events("enter", of: s.client.keyboard).last?.objects.last == PopupClient.id(s.window.surface) })
        #expect(s.client.events("popup_done", of: menu.popup).isEmpty)

        try s.touch(10, 10)
        #expect(s.client.wait { s.client.events("down", of: s.client.touch).count == 2 })
        let second = try #require(s.client.events("down", of: s.client.touch).last?.values.first)
        let again = s.client.popup(parent: s.window.xdg, positioner: positioner, grab: UInt32(second))
        s.client.show(again.surface, 20, 10, 0xFFFF_FFFF)
        // A touch on the popup reaches it at its coordinates; one outside dismisses it unheard.
        try s.touch(12, 15)
        #expect(s.client.wait { s.client.events("down", of: s.client.touch).count == 3 })
        let onMenu = try #require(s.client.events("down", of: s.client.touch).last)
        #expect(onMenu.objects.last == PopupClient.id(again.surface) && onMenu.values.suffix(2) == [2, 5], "\(onMenu)")
        // The pointer over the popup when a touch outside dismisses it: it leaves the popup.
        try s.setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [\#(40 + 2 * 20), \#(20 + 2 * 15)]}"#)
        #expect(s.client.wait { s.client.events("enter", of: s.client.pointer).last?.objects.last == PopupClient.id(again.surface) })
        try s.touch(50, 5)
        #expect(s.client.wait { !s.client.events("popup_done", of: again.popup).isEmpty })
        #expect(s.client.wait { s.client.events("leave", of: s.client.pointer).last?.objects.last == PopupClient.id(again.surface) })
        s.client.wait(timeout: 0.3) { false }
        #expect(s.client.events("down", of: s.client.touch).count == 3, "the dismissing touch is not delivered")
    }

    @Test func aGrabWithoutAPressSerialIsDismissedAtOnce() throws {
        let s = try Setup()
        let menu = s.client.popup(parent: s.window.xdg, positioner: s.client.positioner(size: (20, 10), anchorRect: (10, 10, 1, 1)), grab: 12345)
        #expect(!s.client.events("popup_done", of: menu.popup).isEmpty)
    }

    @Test func theInputRegionLeavesAStripOutAndASubsurfaceHearsItsOwnCoordinates() throws {
        let s = try Setup()
        // The window takes input everywhere but the strip x < 10.
        let region = wlCompositorCreateRegion(s.client.compositor)
        wlRegionAdd(region, 0, 0, 60, 40)
        wlRegionSubtract(region, 0, 0, 10, 40)
        wlSurfaceSetInputRegion(s.window.surface, region)
        wlRegionDestroy(region)
        // A 10 × 10 subsurface at (40, 5).
        let child = wlCompositorCreateSurface(s.client.compositor)
        let sub = wlSubcompositorGetSubsurface(s.client.subcompositor, child, s.window.surface)
        wlSubsurfaceSetPosition(sub, 40, 5)
        s.client.show(child, 10, 10, 0xFF00_FF00)
        wlSurfaceCommit(s.window.surface)
        wl_display_roundtrip(s.client.display)

        try s.touch(5, 20)
        try s.touch(20, 20)
        #expect(s.client.wait { !s.client.events("down", of: s.client.touch).isEmpty })
        s.client.wait(timeout: 0.3) { false }
        let downs = s.client.events("down", of: s.client.touch)
        #expect(downs.count == 1 && downs[0].objects.last == PopupClient.id(s.window.surface) && downs[0].values.suffix(2) == [20, 20], "\(downs)")

        try s.click(45, 8)
        #expect(s.client.wait { !s.client.events("button", of: s.client.pointer).isEmpty })
        let enter = try #require(s.client.events("enter", of: s.client.pointer).last)
        #expect(enter.objects.last == PopupClient.id(child) && enter.values.suffix(2) == [5, 3], "\(enter)")
        // Moving off the subsurface onto the window: leave the one, enter the other.
        try s.setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [100, 60]}"#)
        #expect(s.client.wait { s.client.events("enter", of: s.client.pointer).last?.objects.last == PopupClient.id(s.window.surface) })
        #expect(s.client.events("leave", of: s.client.pointer).last?.objects.last == PopupClient.id(child))
        // Over the strip, the pointer leaves the window.
        try s.setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [50, 60]}"#)
        #expect(s.client.wait { s.client.events("leave", of: s.client.pointer).last?.objects.last == PopupClient.id(s.window.surface) })
        // With an empty input region (committed with its parent: it is synchronized), the subsurface lets the window under it have the point.
        let empty = wlCompositorCreateRegion(s.client.compositor)
        wlSurfaceSetInputRegion(child, empty)
        wlRegionDestroy(empty)
        wlSurfaceCommit(child)
        wlSurfaceCommit(s.window.surface)
        wl_display_roundtrip(s.client.display)
        try s.click(45, 8)
        #expect(s.client.wait { s.client.events("enter", of: s.client.pointer).last?.objects.last == PopupClient.id(s.window.surface) })
        #expect(s.client.events("enter", of: s.client.pointer).last?.values.suffix(2) == [45, 8])
    }

    @Test func repositionAnswersWithItsTokenAndANewPlace() throws {
        let s = try Setup()
        let popup = s.client.popup(parent: s.window.xdg, positioner: s.corner(0))
        waylandRequest(popup.popup!, XdgPopupRequest.reposition.rawValue, [wl_argument(o: s.corner(3)), wl_argument(u: 77)])
        #expect(s.client.wait { !s.client.events("repositioned", of: popup.popup).isEmpty })
        #expect(s.client.events("repositioned", of: popup.popup).first?.values == [77])
        #expect(s.client.place(of: popup.popup) == [30, 20, 30, 20])
        #expect(s.client.events("configure", of: popup.xdg).count == 2)
    }

    /// A reactive popup (slid into the 60 × 40 window at (30, 20)) is placed again when the
    /// window shrinks to 50 × 30: slid to (20, 10).
    @Test func aReactivePopupIsPlacedAgainWhenTheWindowShrinks() throws {
        let s = try Setup()
        let positioner = s.corner(3)
        waylandRequest(positioner!, XdgPositionerRequest.set_reactive.rawValue)
        let popup = s.client.popup(parent: s.window.xdg, positioner: positioner)
        #expect(s.client.place(of: popup.popup) == [30, 20, 30, 20])
        s.client.show(popup.surface, 30, 20, 0xFFFF_FFFF)
        s.client.show(s.window.surface, 50, 30, 0xFF00_0060)
        #expect(s.client.wait { s.client.events("configure", of: popup.popup).count == 2 })
        #expect(s.client.place(of: popup.popup) == [20, 10, 30, 20])
        // One that is not reactive keeps its place.
        let fixed = s.client.popup(parent: s.window.xdg, positioner: s.corner(3))
        #expect(s.client.place(of: fixed.popup) == [20, 10, 30, 20])
        s.client.show(fixed.surface, 30, 20, 0xFFFF_FFFF)
        s.client.show(s.window.surface, 60, 40, 0xFF00_0060)
        #expect(s.client.wait { s.client.events("configure", of: popup.popup).count == 3 })
        #expect(s.client.events("configure", of: fixed.popup).count == 1)
    }

    /// `set_parent_size` (40 × 30) is the area a popup is kept in when it comes with the
    /// window's last configure's serial, or without one; with an older serial the window's
    /// own 60 × 40 is.
    @Test func theParentSizeOfTheLatestConfigureIsTheArea() throws {
        let s = try Setup()
        let serial = try #require(s.client.events("configure", of: s.window.xdg).last?.values.first)
        for (configure, place) in [(nil, [10.0, 10, 30, 20]), (UInt32(serial), [10, 10, 30, 20]), (UInt32(serial) - 1, [30, 20, 30, 20])] {
            let positioner = s.corner(3)
            waylandRequest(positioner!, XdgPositionerRequest.set_parent_size.rawValue, [wl_argument(i: 40), wl_argument(i: 30)])
            if let configure { waylandRequest(positioner!, XdgPositionerRequest.set_parent_configure.rawValue, [wl_argument(u: configure)]) }
            let popup = s.client.popup(parent: s.window.xdg, positioner: positioner)
            #expect(s.client.place(of: popup.popup) == place, "parent configure \(String(describing: configure))")
            s.client.destroy(popup: popup.popup, xdg: popup.xdg, surface: popup.surface)
        }
    }

    @Test func destroyingAPopupUnderAnotherIsTheProtocolsError() throws {
        let s = try Setup()
        let menu = s.client.popup(parent: s.window.xdg, positioner: s.corner(0))
        _ = s.client.popup(parent: menu.xdg, positioner: s.corner(0))
        waylandRequest(menu.popup!, XdgPopupRequest.destroy.rawValue, destroying: true)
        let error = s.client.protocolError()
        #expect(error?.code == 2 && error?.interface == "xdg_wm_base", "not_the_topmost_popup: \(String(describing: error))")
        #expect(try s.setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
    }

    @Test func positionerErrorsAreTheProtocols() throws {
        let s = try Setup()
        let bad = s.client.positioner(size: (0, 10), anchorRect: (0, 0, 1, 1))
        _ = bad
        let error = s.client.protocolError()
        #expect(error?.code == 0 && error?.interface == "xdg_positioner", "invalid_input: \(String(describing: error))")

        let other = try PopupClient(s.setup.waylandPath)
        let window = other.toplevel(appID: "other", 20, 20, 0xFF00_0000)
        _ = other.popup(parent: window.xdg, positioner: other.positioner(size: (10, 10), anchorRect: nil))
        let incomplete = other.protocolError()
        #expect(incomplete?.code == 5 && incomplete?.interface == "xdg_wm_base", "invalid_positioner: \(String(describing: incomplete))")
    }

    /// weston-terminal's right-click menu (window.c: an xdg_popup with a grab on the
    /// button's serial, no constraint adjustment) on a 300 × 200 layer at (50, 50) of a
    /// 400 × 300 screen, the terminal running cat (a blank page that never exits): shown at the click, dismissed by a click outside it, and cut at
    /// the layer's edge when opened near its corner.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-terminal"), "weston-terminal is not installed: apt-get install weston"))
    func westonTerminalsMenuOpensIsDismissedAndIsCutAtTheLayersEdge() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-wl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml").path
        try """
        [output]
        headless_size = "400x300"
        background = "#203040"
        [compositor]
        enabled = true
        socket = "wl"
        [[compositor.rules]]
        app_id = "org.freedesktop.weston.wayland-terminal"
        layer = "win"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config])
        let control = try daemon.connect()
        try control.ok(#"{"cmd": "subscribe", "events": ["surface.*"]}"#)
        try control.ok(#"{"cmd": "layer.add", "layer": "win", "kind": "surface", "properties": {"bounds": [0, 0, 300, 200], "position": [200, 150]}}"#)
        let log = directory.appendingPathComponent("terminal.stderr").path
        let terminal = try ChildProcess(
            "/usr/bin/weston-terminal", ["--shell=/bin/cat"], stderrPath: log,
            environment: ["WAYLAND_DISPLAY": daemon.directory.appendingPathComponent("wl").path])
        defer { _ = terminal.terminate() }
        _ = try control.waitForEvent("surface.mapped")

        /// The menu's light grey pixels in `rect` of a screenshot taken once `accept` holds
        /// (or after 5 s).
        func menuPixels(in rect: PixelRect, until accept: (Int) -> Bool) throws -> (count: Int, shot: Surface) {
            let deadline = Date().addingTimeInterval(5)
            while true {
                let shot = try control.screenshot("terminal")
                var count = 0
                for y in rect.y..<rect.maxY {
                    for x in rect.x..<rect.maxX {
                        let p = shot.pixels[y * shot.stride + x]
                        let (r, g, b) = ((p >> 16) & 255, (p >> 8) & 255, p & 255)
                        if r == g, g == b, (0xC0...0xD8).contains(r) { count += 1 }
                    }
                }
                if accept(count) || Date() > deadline { return (count, shot) }
                usleep(50_000)
            }
        }
        func click(_ button: String, _ x: Int, _ y: Int) throws {
            try control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [\#(x), \#(y)]}"#)
            try control.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "\#(button)", "pressed": true}"#)
            try control.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "\#(button)", "pressed": false}"#)
        }
        let body = PixelRect(x: 110, y: 120, width: 150, height: 60)
        #expect(try menuPixels(in: body) { $0 == 0 }.count == 0, "the terminal's body is dark")
        try click("right", 100, 110)
        let open = try menuPixels(in: body) { $0 > body.width * body.height / 2 }
        #expect(open.count > body.width * body.height / 2, "the menu opened at the click: \(open.count) light pixels")
        try click("left", 300, 220)
        #expect(try menuPixels(in: body) { $0 == 0 }.count == 0, "the menu was dismissed by the click outside it")

        try click("right", 320, 220)
        let corner = PixelRect(x: 320, y: 225, width: 30, height: 25)
        let cut = try menuPixels(in: corner) { $0 > 200 }
        #expect(cut.count > 200, "the menu opened near the corner: \(cut.count) light pixels")
        var outside = 0
        for y in 200..<300 {
            for x in 350..<400 where cut.shot.pixels[y * cut.shot.stride + x] != 0xFF20_3040 { outside += 1 }
        }
        for y in 250..<300 {
            for x in 300..<350 where cut.shot.pixels[y * cut.shot.stride + x] != 0xFF20_3040 { outside += 1 }
        }
        #expect(outside == 0, "nothing of the menu past the layer's edge: \(outside) pixels")
        #expect(terminal.isRunning, "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// Chromium's <select> list is an xdg_popup: a click on the select opens it below,
    /// a click on its third row reaches the popup and picks "Gamma" (the page turns blue).
    /// RealApplicationTests' 500 × 300 layer at (70, 50); Chromium may draw a title bar and
    /// an info bar over the page, so the page's top is found on the screenshot.
    @Test(.enabled(if: RealApplicationTests.installed("/usr/bin/chromium"), "chromium is not installed: apt-get install chromium"))
    func chromiumsSelectListOpensAndTakesAClick() throws {
        typealias Apps = RealApplicationTests
        let setup = try Apps.Setup(appID: nil)
        let page = setup.directory + "/select.html"
        try """
        <!doctype html><html><body style="margin:0;background:#10a040">
        <select style="position:fixed;left:20px;top:20px;width:200px;font-size:20px"
         onchange="document.body.style.background = this.value == 'Gamma' ? '#2040e0' : '#e02020'">
        <option>Alpha</option><option>Beta</option><option>Gamma</option><option>Delta</option></select></body></html>
        """.write(toFile: page, atomically: true, encoding: .utf8)
        let (chromium, log) = try setup.startChromium(page)
        defer { _ = chromium.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped", timeout: 30)
        let id = try #require(mapped["surface"]?.number, "\(mapped.text) \(Apps.log(log))")
        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(id)), "layer": "app"}"#)
        let green: UInt32 = 0x10_A040, blue: UInt32 = 0x20_40E0
        /// The first row of the layer whose pixel at x 400 is `colour` (the page's top).
        func top(_ shot: Surface, _ colour: UInt32) -> Int? { (0..<Apps.height).first { Apps.near(Apps.rgb(shot, 400, $0), colour, 4) } }
        let shown = try setup.screenshot("chromium-select", timeout: 30) { top($0, green).map { $0 < 150 } ?? false }
        let pageTop = try #require(top(shown, green), "the page is not shown: \(Apps.log(log))")
        func click(_ x: Int, _ y: Int) throws {
            try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [\#(Apps.left + x), \#(Apps.top + y)]}"#)
            try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "left", "pressed": true}"#)
            try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "left", "pressed": false}"#)
        }
        try click(120, pageTop + 33)
        // The list: its highlighted first row (Alpha), then the others, at x 190 of the layer.
        let highlighted = { (shot: Surface) in (pageTop + 40..<Apps.height).filter { Apps.near(Apps.rgb(shot, 190, $0), 0x19_67D2, 24) } }
        let open = try setup.screenshot("chromium-select-open", timeout: 10) { highlighted($0).count > 10 }
        let rows = highlighted(open)
        let first = try #require(rows.first, "the list did not open: \(Apps.log(log))")
        let height = rows.count
        #expect(Apps.near(Apps.rgb(open, 190, first + height + 2), 0xEF_EFEF, 8), "rows under the highlighted one")
        try click(150, first + 2 * height + height / 2)
        let picked = try setup.screenshot("chromium-select-picked", timeout: 10) { Apps.near(Apps.rgb($0, 400, Apps.height - 10), blue, 8) }
        #expect(
            Apps.near(Apps.rgb(picked, 400, Apps.height - 10), blue, 8), "Gamma was not picked: \(String(Apps.rgb(picked, 400, Apps.height - 10), radix: 16))")
        #expect(highlighted(picked).isEmpty, "the list closed")
        #expect(chromium.isRunning, "chromium stopped: \(Apps.log(log))")
    }
}
