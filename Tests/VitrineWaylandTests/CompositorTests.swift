import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineOutput
import VitrineProtocol
import VitrineRaster

/// The daemon as a Wayland compositor (`[compositor]`): a client's toplevel shown by a
/// `surface` layer. The client is a second `vitrined` with `--backend wayland` drawing a
/// known scene into wl_shm buffers (an xdg toplevel that resizes to its configure and sends
/// only its damage), clients written here that misbehave (a pool too small for its buffer,
/// a pool truncated under the daemon, a window beyond the memory budget), and Weston's
/// `weston-simple-shm`.
@Suite(.serialized) struct CompositorTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")

    /// Starts vitrined with the configuration `config` (its compositor's socket "wl"),
    /// subscribed to surface events, with the surface layer `win` of `properties`.
    static func start(config: String, clock: String = "manual", arguments: [String] = [], win properties: String) throws -> (
        daemon: DaemonProcess, control: SocketClient, waylandPath: String
    ) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-wl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("vitrine.toml").path
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(clock: clock, arguments: ["--config", file] + arguments)
        let control = try daemon.connect()
        try control.ok(#"{"cmd": "subscribe", "events": ["surface.*"]}"#)
        try control.ok(#"{"cmd": "layer.add", "layer": "win", "kind": "surface", "properties": "# + properties + "}")
        return (daemon, control, daemon.directory.appendingPathComponent("wl").path)
    }

    /// The compositor (headless, 200×120, manual clock) with a surface layer `win` that
    /// rules give toplevels of app id "vitrined", scaled 2× and moved to (100, 60).
    struct Setup {
        let daemon: DaemonProcess
        let control: SocketClient
        let waylandPath: String

        init(rules: String = "[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"win\"\n", extra: String = "") throws {
            (daemon, control, waylandPath) = try CompositorTests.start(
                config: "[output]\nheadless_size = \"200x120\"\nbackground = \"#203040\"\n\(extra)[compositor]\nenabled = true\nsocket = \"wl\"\n\(rules)",
                arguments: ["--log-level", "info"],
                win: ##"{"bounds": [0, 0, 60, 40], "position": [100, 60], "transform.scale": 2, "backgroundColor": "#404040"}"##)
        }

        /// A `vitrined --backend wayland` showing `compositorClientScene` as a client of this one.
        func startClient() throws -> DaemonProcess {
            let scene = daemon.directory.appendingPathComponent("client.json").path
            try compositorClientScene.write(toFile: scene, atomically: true, encoding: .utf8)
            return try DaemonProcess(
                clock: "manual", backend: "wayland", environment: ["WAYLAND_DISPLAY": waylandPath],
                arguments: ["--mode", "60x40@60", "--scene", scene, "--log-level", "info"])
        }

        /// Takes screenshots until one matches the reference `name` (a client's frame takes a
        /// moment to arrive); the last mismatch, or nil. Without a reference, the picture of
        /// a moment later is written as one, and the test fails.
        func expectPicture(_ name: String, timeout: Double = 10) throws -> String? {
            if !FileManager.default.fileExists(atPath: CompositorTests.references.appendingPathComponent(name + ".png").path) {
                sleep(2)
                return try GoldenImage.check(try control.screenshot(name), named: name, in: CompositorTests.references)
            }
            let deadline = Date().addingTimeInterval(timeout)
            var failure: String?
            repeat {
                failure = try GoldenImage.check(try control.screenshot(name), named: name, in: CompositorTests.references)
                if failure == nil { return nil }
                usleep(50_000)
            } while Date() < deadline
            return failure
        }
    }

    @Test func aFileInTheWaylandSocketsPlaceNamesTheSettingToChange() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-wl-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "[compositor]\nenabled = true\nsocket = \"wl\"\n".write(toFile: directory + "/vitrine.toml", atomically: true, encoding: .utf8)
        try "not a socket".write(toFile: directory + "/wl", atomically: true, encoding: .utf8)
        let run = try DaemonProcess.runToExit(["--backend", "headless", "--socket", directory + "/v.sock", "--config", directory + "/vitrine.toml"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("\(directory)/wl exists and is not a socket; remove it or choose another compositor.socket"), "\(run.stderr)")
    }

    @Test func aClientIsShownThroughTheLayersTransformAndFades() throws {
        let setup = try Setup()
        #expect(FileManager.default.fileExists(atPath: setup.waylandPath))
        let client = try setup.startClient()
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["appId"] == .string("vitrined") && mapped["layer"] == .string("win"), "\(mapped.text)")
        #expect(try setup.expectPicture("compositor-client-scaled") == nil)
        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"opacity": 0}, "animation": {"duration": 1, "timing": "linear"}}"#)
        try setup.control.ok(#"{"cmd": "clock.set", "time": 0.5}"#)
        #expect(try setup.expectPicture("compositor-client-half-faded") == nil)
        let list = try setup.control.request(#"{"cmd": "surface.list"}"#)
        let surface = try #require(list["result"]?["surfaces"]?.array?.first, "\(list)")
        #expect(surface["width"] == .number(60) && surface["height"] == .number(40) && surface["mapped"] == .bool(true), "\(surface.text)")
        #expect(client.isRunning)
    }

    /// The layer `win` shows the client's 60×40 window scaled 2× around (100, 60): the
    /// client's point (x, y) is on the screen at (40 + 2x, 20 + 2y).
    @Test func touchesClicksAndKeysReachTheClientThroughTheLayersTransform() throws {
        let setup = try Setup()
        let client = try setup.startClient()
        _ = try setup.control.waitForEvent("surface.mapped")
        #expect(try setup.expectPicture("compositor-client-scaled") == nil)
        let inner = try client.connect()
        try inner.ok(#"{"cmd": "subscribe", "events": ["layer.tap", "input.touch", "input.pointer", "input.key"]}"#)

        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [130, 80]}"#)
        let down = try inner.waitForEvent("input.touch") { $0["phase"] == .string("down") }
        #expect(down["point"] == .array([.number(45), .number(30)]), "the client's (45, 30): \(down.text)")
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        let tap = try inner.waitForEvent("layer.tap")
        #expect(tap["layer"] == .string("br"), "\(tap.text)")

        try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "point": [60, 30]}"#)
        try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "left", "pressed": true}"#)
        try setup.control.ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "left", "pressed": false}"#)
        let click = try inner.waitForEvent("layer.tap") { $0["layer"] == .string("tl") }
        #expect(click["point"] == .array([.number(10), .number(5)]), "\(click.text)")

        try setup.control.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 42, "pressed": true}"#)
        try setup.control.ok(#"{"cmd": "input.inject", "type": "key", "keycode": 30}"#)
        let key = try inner.waitForEvent("input.key") { $0["keysym"] == .string("A") }
        #expect(key["text"] == .string("A") && key["pressed"] == .bool(true), "Shift held, then A: \(key.text)")

        // Outside the layer nothing reaches the client.
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [10, 10]}"#)
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        #expect(throws: (any Error).self) { try inner.waitForEvent("input.touch", timeout: 1) }
    }

    @Test func theLayersSizeIsTheClientsWindowSize() throws {
        let setup = try Setup()
        let client = try setup.startClient()
        _ = try setup.control.waitForEvent("surface.mapped")
        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"bounds": [0, 0, 50, 30]}, "actions": false}"#)
        let inner = try client.connect()
        let deadline = Date().addingTimeInterval(10)
        var size: JSON?
        repeat {
            size = try inner.request(#"{"cmd": "output.list"}"#)["result"]?["outputs"]?.array?.first
            if size?["size"] == .array([.number(50), .number(30)]) { break }
            usleep(50_000)
        } while Date() < deadline
        #expect(size?["size"] == .array([.number(50), .number(30)]), "\(size?.text ?? "no output")")
        let listed = try setup.control.request(#"{"cmd": "surface.list"}"#)["result"]?["surfaces"]?.array?.first
        #expect(listed?["width"] == .number(50) && listed?["height"] == .number(30), "\(listed?.text ?? "")")
    }

    @Test func aClientsDamageRedrawsOnlyThatPartOfTheLayer() throws {
        let setup = try Setup()
        let client = try setup.startClient()
        _ = try setup.control.waitForEvent("surface.mapped")
        #expect(try setup.expectPicture("compositor-client-scaled") == nil)
        let before = try setup.control.request(#"{"cmd": "stats"}"#)["result"]?["pixels"]?.number ?? 0
        try client.connect().ok(##"{"cmd": "layer.set", "layer": "dot", "properties": {"backgroundColor": "#00ffff"}, "actions": false}"##)
        #expect(try setup.expectPicture("compositor-client-dot-changed") == nil)
        let after = try setup.control.request(#"{"cmd": "stats"}"#)["result"]?["pixels"]?.number ?? 0
        // The client damages the 8×8 square and a pixel around it, drawn at 2× with a pixel
        // of filtering around that: 22 × 22, far below the layer's 120 × 80.
        #expect(after - before > 0 && after - before <= 24 * 24, "repainted \(after - before) pixels")
    }

    @Test func mappingAndUnmappingAreEvents() throws {
        let setup = try Setup(rules: "")
        let client = try setup.startClient()
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["layer"] == .null, "no rule: shown nowhere, \(mapped.text)")
        let id = try #require(mapped["surface"]?.number)
        let assigned = try setup.control.request(#"{"cmd": "surface.assign", "surface": \#(Int(id)), "layer": "win"}"#)
        #expect(assigned["result"]?["layer"] == .string("win"), "\(assigned.text)")
        #expect(try setup.expectPicture("compositor-client-scaled") == nil)
        let wrong = try setup.control.request(#"{"cmd": "surface.assign", "surface": 999, "layer": "win"}"#)
        #expect(wrong["error"]?["code"] == .string("invalid_value"), "\(wrong.text)")
        try setup.control.ok(#"{"cmd": "layer.add", "layer": "plain", "properties": {"bounds": [0, 0, 10, 10]}}"#)
        let notSurface = try setup.control.request(#"{"cmd": "surface.assign", "surface": \#(Int(id)), "layer": "plain"}"#)
        #expect(notSurface["error"]?["message"]?.string?.contains("kind surface") == true, "\(notSurface.text)")
        _ = client.stop()
        let unmapped = try setup.control.waitForEvent("surface.unmapped")
        #expect(unmapped["surface"] == .number(id) && unmapped["layer"] == .string("win"), "\(unmapped.text)")
        #expect(try setup.expectPicture("compositor-client-gone") == nil)
    }

    @Test func aPoolTooSmallForItsBufferIsAProtocolErrorAndTheDaemonGoesOn() throws {
        let setup = try Setup()
        let client = try RawClient(setup.waylandPath)
        let pool = try client.pool(bytes: 4096)
        // 64 rows of 256 bytes need 16 KiB: the pool has 4.
        _ = wlShmPoolCreateBuffer(pool, 0, 64, 64, 256, WL_SHM_FORMAT_ARGB8888.rawValue)
        let error = client.protocolError()
        #expect(error?.code == WL_SHM_ERROR_INVALID_STRIDE.rawValue && error?.interface == "wl_shm_pool", "\(String(describing: error))")
        #expect(try setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        #expect(setup.daemon.isRunning)
    }

    @Test func aPoolTruncatedUnderTheDaemonIsAProtocolErrorAndTheDaemonGoesOn() throws {
        let setup = try Setup()
        let client = try RawClient(setup.waylandPath)
        let pool = try client.pool(bytes: 64 * 256)
        let buffer = try #require(wlShmPoolCreateBuffer(pool, 0, 64, 64, 256, WL_SHM_FORMAT_ARGB8888.rawValue))
        let surface = try #require(wlCompositorCreateSurface(client.compositor))
        wl_display_roundtrip(client.display)
        // The file shrinks after the pool was mapped: reading the buffer faults (SIGBUS).
        ftruncate(client.poolFile, 0)
        wlSurfaceAttach(surface, buffer, 0, 0)
        wlSurfaceDamage(surface, 0, 0, 64, 64)
        wlSurfaceCommit(surface)
        let error = client.protocolError()
        #expect(error?.code == WL_SHM_ERROR_INVALID_FD.rawValue && error?.interface == "wl_buffer", "\(String(describing: error))")
        #expect(try setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        #expect(setup.daemon.isRunning)
    }

    @Test func aWindowBeyondTheMemoryBudgetDisconnectsItsClient() throws {
        let setup = try Setup(extra: "[limits]\nmemory_mb = 16\n")
        let client = try RawClient(setup.waylandPath)
        // 2100 × 2100 pixels are 17.6 MB: over 16 MB.
        let pool = try client.pool(bytes: 2112 * 4 * 2100)
        let buffer = try #require(wlShmPoolCreateBuffer(pool, 0, 2100, 2100, 2112 * 4, WL_SHM_FORMAT_XRGB8888.rawValue))
        let surface = try #require(wlCompositorCreateSurface(client.compositor))
        wlSurfaceAttach(surface, buffer, 0, 0)
        wlSurfaceDamage(surface, 0, 0, 2100, 2100)
        wlSurfaceCommit(surface)
        // (libwayland-client reports the display's no_memory error as ENOMEM)
        wl_display_roundtrip(client.display)
        #expect(wl_display_get_error(client.display) == ENOMEM)
        #expect(try setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        #expect(setup.daemon.standardError.contains("does not fit in limits.memory_mb: disconnected"), "\(setup.daemon.standardError)")
    }

    @Test func aClientFloodingRequestsIsDisconnected() throws {
        let setup = try Setup()
        let client = try RawClient(setup.waylandPath)
        let surface = try #require(wlCompositorCreateSurface(client.compositor))
        let sent = client.floodUntilDisconnected { for _ in 0..<100 { wlSurfaceDamage(surface, 0, 0, 1, 1) } }
        #expect(sent != nil, "still connected after 20 s")
        #expect(try setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        let log = setup.daemon.standardError
        #expect(log.contains("requests in a second: disconnected"), "\(log)")
    }

    @Test func aFloodingClientThatLibwaylandEndsInTheSameReadIsEndedOnce() throws {
        let setup = try Setup()
        let client = try RawClient(setup.waylandPath)
        let surface = try #require(wlCompositorCreateSurface(client.compositor))
        // Past the flood mark a create_region is not handled, so the add that follows it in
        // the same read names an unknown object and libwayland ends the client itself
        // (regions are kept: destroying them would send events this client never reads).
        let sent = client.floodUntilDisconnected {
            for _ in 0..<48 { wlSurfaceDamage(surface, 0, 0, 1, 1) }
            wlRegionAdd(wlCompositorCreateRegion(client.compositor), 0, 0, 1, 1)
        }
        #expect(sent != nil, "still connected after 20 s")
        #expect(try setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        #expect(setup.daemon.isRunning)
    }

    /// A client written here with libwayland-client: the compositor and wl_shm bound, and
    /// a pool in an anonymous file.
    final class RawClient: TestWaylandClient {
        var shm: OpaquePointer? { global("wl_shm") }
        var compositor: OpaquePointer? { global("wl_compositor") }
        private(set) var poolFile: Int32 = -1

        init(_ path: String) throws {
            try super.init(path, binding: ["wl_shm": 1, "wl_compositor": 4])
        }

        deinit { if poolFile >= 0 { close(poolFile) } }

        /// Sends `batch` after batch, each flushed (waiting while the socket is full), until
        /// the daemon hangs up: the batches sent then, or nil when it still listened after
        /// `seconds`.
        func floodUntilDisconnected(seconds: Double = 20, _ batch: () -> Void) -> Int? {
            let fd = wl_display_get_fd(display)
            let deadline = Date().addingTimeInterval(seconds)
            var sent = 0
            while Date() < deadline {
                batch()
                sent += 1
                while wl_display_flush(display) < 0 {
                    guard errno == EAGAIN, Date() < deadline else { return Date() < deadline ? sent : nil }
                    var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, 100)
                }
            }
            return nil
        }

        /// A pool of `bytes` in a fresh anonymous file (`poolFile`).
        func pool(bytes: Int32) throws -> OpaquePointer {
            poolFile = memfd_create("vitrine-test", 1)
            ftruncate(poolFile, off_t(bytes))
            guard let shm, let pool = wlShmCreatePool(shm, poolFile, bytes) else { throw DaemonError("no pool") }
            return pool
        }
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-simple-shm"), "weston-simple-shm is not installed: apt-get install weston"))
    func westonSimpleShmIsShownInALayer() throws {
        let setup = try Setup(rules: "[[compositor.rules]]\ntitle = \"simple-shm\"\nlayer = \"win\"\n")
        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"transform.scale": 1}, "actions": false}"#)
        let empty = try setup.control.screenshot("simple-shm-before")
        let log = setup.daemon.directory.appendingPathComponent("simple-shm.stderr").path
        let client = try ChildProcess("/usr/bin/weston-simple-shm", [], stderrPath: log, environment: ["WAYLAND_DISPLAY": setup.waylandPath])
        defer { _ = client.terminate() }
        let mapped = try setup.control.waitForEvent("surface.mapped")
        #expect(mapped["title"] == .string("simple-shm") && mapped["layer"] == .string("win"), "\(mapped.text)")
        // Its 250 × 250 window is drawn into the layer's 60 × 40, at (70, 40) on screen.
        usleep(300_000)
        let shot = try setup.control.screenshot("simple-shm")
        try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("compositor-simple-shm.png").path)
        var drawn = 0, outside = 0
        for y in 0..<shot.height {
            for x in 0..<shot.width where shot.pixels[y * shot.stride + x] != empty.pixels[y * empty.stride + x] {
                if (70..<130).contains(x), (40..<80).contains(y) { drawn += 1 } else { outside += 1 }
            }
        }
        #expect(
            drawn > 1200 && outside == 0,
            "\(drawn) pixels of the layer and \(outside) outside it show the client: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(client.isRunning, "weston-simple-shm stopped: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
}
