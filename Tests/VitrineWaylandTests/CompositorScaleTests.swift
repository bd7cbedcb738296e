import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol
import VitrineRaster

/// Buffer scale, buffer transforms, wp_viewporter and synchronized subsurfaces, seen
/// through Weston's clients, whose pictures are known: each window is shown pixel for
/// pixel by a surface layer of its size, its top-left corner at (20, 20).
@Suite(.serialized) struct CompositorScaleTests {
    struct Setup {
        let daemon: DaemonProcess
        let control: SocketClient
        let waylandPath: String

        /// The compositor (600×400) with the surface layer `win`, `width` × `height`, which
        /// takes toplevels of app id `appID`.
        init(appID: String, width: Int, height: Int) throws {
            let (x, y) = (20 + Double(width) / 2, 20 + Double(height) / 2)
            (daemon, control, waylandPath) = try CompositorTests.start(
                config:
                    "[output]\nheadless_size = \"600x400\"\nbackground = \"#203040\"\n[compositor]\nenabled = true\nsocket = \"wl\"\n[[compositor.rules]]\napp_id = \"\(appID)\"\nlayer = \"win\"\n",
                win: ##"{"bounds": [0, 0, \##(width), \##(height)], "position": [\##(x), \##(y)], "backgroundColor": "#404040"}"##)
        }

        /// Starts `program` with `arguments` as a client; its stderr is kept for messages.
        func start(_ program: String, _ arguments: [String]) throws -> (ChildProcess, String) {
            let log = daemon.directory.appendingPathComponent("\(URL(fileURLWithPath: program).lastPathComponent).stderr").path
            return (try ChildProcess(program, arguments, stderrPath: log, environment: ["WAYLAND_DISPLAY": waylandPath]), log)
        }

        /// A screenshot, also kept as `name` among the test failures' pictures for a look.
        func shot(_ name: String) throws -> Surface {
            let shot = try control.screenshot(name)
            try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("compositor-\(name).png").path)
            return shot
        }
    }

    /// The colour of the window's pixel (x, y) on `shot` (the window's corner is at (20, 20)).
    static func rgb(_ shot: Surface, _ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let pixel = shot.pixel(x: 20 + x, y: 20 + y)
        return (Int(pixel.red), Int(pixel.green), Int(pixel.blue))
    }

    static func near(_ c: (r: Int, g: Int, b: Int), _ r: Int, _ g: Int, _ b: Int, within tolerance: Int = 6) -> Bool {
        abs(c.r - r) <= tolerance && abs(c.g - g) <= tolerance && abs(c.b - b) <= tolerance
    }

    static func log(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    // MARK: weston-scaler

    /// weston-scaler draws, at buffer scale 2, an 842×674 buffer: red, a blue box of
    /// 110×154 at (42, 50) with a green line along its top and left edges, a white one
    /// along its right edge inside it and a black one under it. The modes show it through
    /// wp_viewporter: `-n` without (421×337 at scale 2), `-b` the box alone, its source
    /// (21.25, 25.25, 54.75, 76.75) stretched to 220×308, `-s` the same source without
    /// destination (55×77), `-d` all of it squeezed into 220×308.
    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-scaler"), "weston-scaler is not installed: apt-get install weston"),
        arguments: [("-n", 421, 337), ("-b", 220, 308), ("-s", 55, 77), ("-d", 220, 308)])
    func westonScalerIsCroppedAndScaledAsItsViewportSays(mode: String, width: Int, height: Int) throws {
        let setup = try Setup(appID: "org.freedesktop.weston.scaler-test-box", width: width, height: height)
        let (client, log) = try setup.start("/usr/bin/weston-scaler", [mode])
        defer { _ = client.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["width"] == .number(Double(width)) && mapped["height"] == .number(Double(height)), "\(mapped.text)")
        usleep(300_000)
        let shot = try setup.shot("scaler\(mode)")
        let c = { (x: Int, y: Int) in Self.rgb(shot, x, y) }
        switch mode {
        case "-n":
            // A surface pixel averages 2×2 buffer pixels: the lines are halves.
            #expect(Self.near(c(200, 200), 255, 0, 0) && Self.near(c(20, 60), 255, 0, 0), "red: \(c(200, 200)) \(c(20, 60))")
            #expect(Self.near(c(48, 63), 0, 0, 255), "the blue box: \(c(48, 63))")
            #expect(Self.near(c(21, 60), 0, 128, 128) && Self.near(c(48, 25), 0, 128, 128), "green edges: \(c(21, 60)) \(c(48, 25))")
            #expect(Self.near(c(75, 60), 128, 128, 255), "the white edge: \(c(75, 60))")
            #expect(Self.near(c(48, 102), 128, 0, 0), "the black line under the box: \(c(48, 102))")
        case "-b", "-s":
            // Only the box: blue, green at the top and left, white at the right; the red
            // and black around it are outside the source and never show.
            let (w, h) = (width, height)
            #expect(Self.near(c(w / 2, h / 2), 0, 0, 255), "\(c(w / 2, h / 2))")
            #expect(Self.near(c(w - 1, h / 2), 255, 255, 255), "the white edge: \(c(w - 1, h / 2))")
            #expect(Self.near(c(w / 2, h - 1), 0, 0, 255), "the bottom edge: \(c(w / 2, h - 1))")
            if mode == "-b" {
                #expect(c(w / 2, 0).g > 150 && c(w / 2, 0).r < 20 && c(0, h / 2).g > 150, "green edges: \(c(w / 2, 0)) \(c(0, h / 2))")
            }
            var reddish = 0
            for y in 0..<h {
                for x in 0..<w where c(x, y).r > 100 && c(x, y).b < 100 { reddish += 1 }
            }
            #expect(reddish == 0, "\(reddish) pixels show the red outside the source")
        default:
            // 421×337 squeezed into 220×308: the box is at about (11, 23) to (40, 93).
            #expect(Self.near(c(25, 58), 0, 0, 255), "the blue box: \(c(25, 58))")
            #expect(Self.near(c(150, 200), 255, 0, 0) && Self.near(c(5, 5), 255, 0, 0), "red: \(c(150, 200)) \(c(5, 5))")
            #expect(Self.near(c(50, 58), 255, 0, 0), "red right of the box: \(c(50, 58))")
        }
        #expect(client.isRunning, "weston-scaler stopped: \(Self.log(log))")
    }

    // MARK: weston-simple-damage

    /// weston-simple-damage draws a 300×200 window: a 10-pixel white border, a translucent
    /// black inside (#202020 over the layer's #404040) and a green ball bouncing, damaging
    /// only where the ball was and is. With a buffer transform and scale it draws its
    /// buffer turned and enlarged so that the window looks the same; with a viewport it
    /// draws at half size in a red buffer and crops and scales it back. Whatever the
    /// options, the window must look the same: the border in place, nothing red, and one
    /// ball (damage mapped wrongly would leave balls behind).
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-simple-damage"), "weston-simple-damage is not installed: apt-get install weston"),
        arguments: [
            ["--transform=90"], ["--transform=180", "--scale=2"], ["--transform=270"], ["--transform=flipped"],
            ["--transform=flipped-90", "--scale=2"], ["--transform=flipped-180"], ["--transform=flipped-270", "--use-damage-buffer"],
            ["--scale=3", "--use-damage-buffer"], ["--rotating-transform"], ["--use-viewport", "--transform=90"],
            ["--use-viewport", "--scale=2", "--transform=flipped-180", "--use-damage-buffer"],
        ])
    func westonSimpleDamageLooksTheSameWhateverItsBufferTransformScaleAndViewport(options: [String]) throws {
        let setup = try Setup(appID: "org.freedesktop.weston.simple-damage", width: 300, height: 200)
        let (client, log) = try setup.start("/usr/bin/weston-simple-damage", ["--width=300", "--height=200"] + options)
        defer { _ = client.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["width"] == .number(300) && mapped["height"] == .number(200), "\(mapped.text)")
        usleep(1_000_000)
        let name = "simple-damage" + options.joined().replacingOccurrences(of: "--", with: "-").replacingOccurrences(of: "=", with: "")
        let shot = try setup.shot(name)
        let c = { (x: Int, y: Int) in Self.rgb(shot, x, y) }
        let viewport = options.contains("--use-viewport")
        // The border: 10 pixels (edges blurred by a viewport's scaling, hence the margin).
        var border = 0, notBorder = 0
        for y in 0..<200 {
            for x in 0..<300 {
                let inset = min(x, y, 299 - x, 199 - y)
                if inset < (viewport ? 9 : 10) {
                    if Self.near(c(x, y), 255, 255, 255, within: 4) { border += 1 } else if inset < 8 { notBorder += 1 }
                }
            }
        }
        #expect(notBorder == 0, "\(notBorder) pixels of the border are not white (\(border) are)")
        var ball = 0, other = 0
        for y in 12..<188 {
            for x in 12..<288 {
                let p = c(x, y)
                if Self.near(p, 32, 32, 32) { continue }
                if p.g > p.r + 8 && p.g > p.b + 8 {
                    if p.g > 200 { ball += 1 }
                } else {
                    other += 1
                }
            }
        }
        #expect(other == 0, "\(other) pixels inside are neither the background nor the ball")
        #expect((200...420).contains(ball), "\(ball) pixels of green: one ball is about 315")
        // Around the window the screen is untouched.
        #expect(Self.near(Self.rgb(shot, -5, 100), 0x20, 0x30, 0x40, within: 1) && Self.near(Self.rgb(shot, 305, 100), 0x20, 0x30, 0x40, within: 1))
        #expect(client.isRunning, "weston-simple-damage stopped: \(Self.log(log))")
    }

    // MARK: weston-subsurfaces

    /// weston-subsurfaces: a decorated window whose green main area has two subsurfaces
    /// beside it, a red one drawn with cairo and one drawn with EGL under it, both
    /// synchronized (committed with their parent's commits); they show where their
    /// parent placed them.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-subsurfaces"), "weston-subsurfaces is not installed: apt-get install weston"))
    func westonSubsurfacesShowsItsSynchronizedSubsurfacesInPlace() throws {
        let setup = try Setup(appID: "org.freedesktop.weston.wayland-sub-surface-demo", width: 336, height: 236)
        let (client, log) = try setup.start("/usr/bin/weston-subsurfaces", [])
        defer { _ = client.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["width"] == .number(336) && mapped["height"] == .number(236), "\(mapped.text)")
        usleep(700_000)
        let shot = try setup.shot("subsurfaces")
        // The red one is at about (229, 28) to (330, 128), the EGL one under it.
        var red = 0, redOnMain = 0
        for y in 0..<236 {
            for x in 0..<336 {
                let p = Self.rgb(shot, x, y)
                guard p.r > 120, p.g < 70, p.b < 40 else { continue }
                if (227..<332).contains(x), (26..<130).contains(y) { red += 1 } else if x < 226 { redOnMain += 1 }
            }
        }
        #expect(red > 9000 && redOnMain == 0, "\(red) red pixels where the red subsurface is, \(redOnMain) on the main surface")
        let main = Self.rgb(shot, 100, 50), egl = Self.rgb(shot, 236, 190)
        #expect(main.g > 150 && main.r < 60, "the main surface: \(main)")
        #expect(egl.g > 60 && egl.g < 130 && egl.r < 40, "the EGL subsurface's dark green: \(egl)")
        #expect(client.isRunning, "weston-subsurfaces stopped: \(Self.log(log))")
    }
}
