import CWaylandClient
import Foundation
import Testing
import VitrineRaster
import VitrineTestSupport

@testable import VitrineOutput

/// The daemon draws windows straight from their clients' wl_shm buffers: a buffer is held
/// while it is shown and released only once a newer one (or none) is committed, XRGB is
/// drawn opaque without the client's memory being written, a client that truncates or
/// destroys a buffer that is shown cannot hurt the daemon, and memory does not grow over
/// many commits. The client is written here: an xdg toplevel (app id "buffer-test", shown
/// 1:1 by the layer `win` at (20, 10)) committing 40 × 30 buffers it fills itself.
@Suite(.serialized) struct CompositorBufferTests {
    static let rules = "[[compositor.rules]]\napp_id = \"buffer-test\"\nlayer = \"win\"\n"

    /// The compositor of `CompositorTests` with the layer `win` at (20, 10), unscaled.
    static func setup(extra: String = "") throws -> CompositorTests.Setup {
        let setup = try CompositorTests.Setup(rules: rules, extra: extra)
        try setup.control.ok(
            #"{"cmd": "layer.set", "layer": "win", "properties": {"bounds": [0, 0, 40, 30], "position": [40, 25], "transform.scale": 1}, "actions": false}"#)
        return setup
    }

    /// A compositor showing a client's window of one `format` buffer filled with `fill`.
    static func shown(format: wl_shm_format, fill: UInt32) throws -> (CompositorTests.Setup, ToplevelClient, ToplevelClient.Buffer) {
        let setup = try Self.setup()
        let client = try ToplevelClient(setup.waylandPath)
        let buffer = try client.buffer(format: format.rawValue, fill: fill)
        client.show(buffer)
        _ = try setup.control.waitForEvent("surface.mapped")
        return (setup, client, buffer)
    }

    /// The screen pixel at (x, y) of a screenshot.
    static func pixel(_ shot: Surface, _ x: Int, _ y: Int) -> UInt32 { shot.pixels[y * shot.stride + x] }

    @Test func aShownBufferIsReleasedOnlyOnceANewerOneIsCommittedAndItsMemoryIsNeverWritten() throws {
        // XRGB with zero alpha bytes: drawn as opaque red all the same.
        let (setup, client, red) = try Self.shown(format: WL_SHM_FORMAT_XRGB8888, fill: 0x00FF_0000)
        #expect(Self.pixel(try setup.control.screenshot("held-red"), 40, 25) == 0xFFFF_0000)
        client.roundtrip()
        #expect(!client.released.contains(red.id), "the buffer shown was released")
        #expect(client.pixels(red).allSatisfy { $0 == 0x00FF_0000 }, "the daemon wrote into the client's buffer")

        let blue = try client.buffer(format: WL_SHM_FORMAT_XRGB8888.rawValue, fill: 0x0000_00FF)
        client.show(blue)
        client.roundtrip()
        #expect(client.released == [red.id])
        // Released: the client may reuse it; the daemon shows the newer buffer only.
        client.fill(red, 0x0000_FF00)
        #expect(Self.pixel(try setup.control.screenshot("held-blue"), 40, 25) == 0xFF00_00FF)
        usleep(100_000)
        client.roundtrip()
        #expect(client.released == [red.id], "the buffer shown was released")

        client.show(nil)
        _ = try setup.control.waitForEvent("surface.unmapped")
        client.roundtrip()
        #expect(client.released == [red.id, blue.id])
        #expect(client.protocolError() == nil)
    }

    @Test func aPoolTruncatedWhileItsBufferIsShownDisconnectsTheClientNotTheDaemon() throws {
        let (setup, client, _) = try Self.shown(format: WL_SHM_FORMAT_ARGB8888, fill: 0xFF00_FF00)
        #expect(Self.pixel(try setup.control.screenshot("truncated-before"), 40, 25) == 0xFF00_FF00)
        // The file shrinks under the mapping: the next frame reading the buffer faults.
        ftruncate(client.poolFile, 0)
        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"position": [41, 25]}, "actions": false}"#)
        _ = try setup.control.screenshot("truncated-after")
        let error = client.protocolError()
        #expect(error?.code == WL_SHM_ERROR_INVALID_FD.rawValue && error?.interface == "wl_buffer", "\(String(describing: error))")
        _ = try setup.control.waitForEvent("surface.unmapped")
        #expect(try setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
        #expect(setup.daemon.isRunning)
    }

    @Test func aShownBufferItsClientDestroysKeepsItsPicture() throws {
        // Premultiplied half-transparent red over the layer's grey background.
        let (setup, client, translucent) = try Self.shown(format: WL_SHM_FORMAT_ARGB8888, fill: 0x8080_0000)
        let before = Self.pixel(try setup.control.screenshot("destroyed-before"), 40, 25)
        let (red, green) = ((before >> 16) & 0xFF, (before >> 8) & 0xFF)
        #expect((0x9C...0xA4).contains(red) && (0x1C...0x24).contains(green), "\(String(before, radix: 16))")
        wl_buffer_destroy(translucent.proxy)
        client.roundtrip()
        // Whatever the client does with the memory now, the picture stays.
        client.fill(translucent, 0xFF00_00FF)
        ftruncate(client.poolFile, 0)
        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"position": [41, 25]}, "actions": false}"#)
        #expect(Self.pixel(try setup.control.screenshot("destroyed-after"), 41, 25) == before)
        #expect(client.protocolError() == nil)
        #expect(setup.daemon.isRunning)
    }

    @Test func memoryDoesNotGrowOverManyCommitsOfFreshPools() throws {
        let setup = try Self.setup()
        let client = try ToplevelClient(setup.waylandPath, size: (256, 256))
        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"bounds": [0, 0, 256, 256], "position": [100, 60]}, "actions": false}"#)
        func commits(_ count: Int) throws {
            for i in 0..<count {
                // A pool of its own for every buffer, let go as soon as the buffer is released.
                let buffer = try client.buffer(format: WL_SHM_FORMAT_XRGB8888.rawValue, fill: UInt32(i) & 0xFF, newPool: true)
                client.show(buffer)
                client.roundtrip()
                _ = try setup.control.request(#"{"cmd": "ping"}"#)
                client.forgetReleased()
            }
        }
        try commits(40)
        _ = try setup.control.waitForEvent("surface.mapped")
        let start = try Self.residentKilobytes(setup.daemon.pid)
        try commits(400)
        let end = try Self.residentKilobytes(setup.daemon.pid)
        // 400 buffers are 100 MB: held or mapped on, they would show.
        #expect(end - start < 16 * 1024, "resident memory grew from \(start) kB to \(end) kB")
        #expect(client.held <= 2, "\(client.held) buffers were never released")
        #expect(client.protocolError() == nil)
    }

    static func residentKilobytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return Int(line.split(separator: " ")[1]) ?? 0
    }
}

/// A wayland-client toplevel with app id "buffer-test" that commits wl_shm buffers it
/// fills, and records which the compositor released.
final class ToplevelClient {
    struct Buffer {
        let proxy: OpaquePointer
        let id: UInt32
        let pixels: UnsafeMutablePointer<UInt32>
        let pool: (proxy: OpaquePointer, file: Int32, mapping: UnsafeMutableRawPointer, bytes: Int)
    }

    let display: OpaquePointer
    let size: (width: Int, height: Int)
    private var compositor: OpaquePointer?
    private var shm: OpaquePointer?
    private var wmBase: OpaquePointer?
    private var surface: OpaquePointer!
    private var listeners: [WaylandListener] = []
    private var configured = false
    /// Ids of the buffers released, in order.
    private(set) var released: [UInt32] = []
    /// The file of the shared pool (the first made).
    private(set) var poolFile: Int32 = -1
    private var shared: (proxy: OpaquePointer, file: Int32, mapping: UnsafeMutableRawPointer, bytes: Int, used: Int)?
    private var buffers: [UInt32: Buffer] = [:]

    init(_ path: String, size: (Int, Int) = (40, 30)) throws {
        guard let display = wl_display_connect(path) else { throw DaemonError("cannot connect to \(path)") }
        self.display = display
        self.size = size
        let registry = try #require(wl_display_get_registry(display))
        listen(registry) { [unowned self] opcode, args in
            guard opcode == 0, let name = args[1].s else { return }
            switch String(cString: name) {
            case "wl_compositor": compositor = wl_registry_bind(registry, args[0].u, vitrine_wl_compositor_interface(), 4).map(OpaquePointer.init)
            case "wl_shm": shm = wl_registry_bind(registry, args[0].u, vitrine_wl_shm_interface(), 1).map(OpaquePointer.init)
            case "xdg_wm_base": wmBase = wl_registry_bind(registry, args[0].u, WaylandInterfaceTable.xdgShell["xdg_wm_base"], 1).map(OpaquePointer.init)
            default: break
            }
        }
        wl_display_roundtrip(display)
        guard let compositor, shm != nil, let wmBase else { throw DaemonError("no wl_compositor, wl_shm or xdg_wm_base") }
        surface = wl_compositor_create_surface(compositor)
        let xdg = WaylandInterfaceTable.xdgShell
        let xdgSurface = try #require(
            waylandRequest(wmBase, XdgWmBaseRequest.get_xdg_surface.rawValue, [wl_argument(n: 0), wl_argument(o: surface)], creating: xdg["xdg_surface"]))
        let toplevel = try #require(waylandRequest(xdgSurface, XdgSurfaceRequest.get_toplevel.rawValue, [wl_argument(n: 0)], creating: xdg["xdg_toplevel"]))
        listen(xdgSurface) { [unowned self] opcode, args in
            guard opcode == XdgSurfaceEvent.configure.rawValue else { return }
            waylandRequest(xdgSurface, XdgSurfaceRequest.ack_configure.rawValue, [wl_argument(u: args[0].u)])
            configured = true
        }
        listen(toplevel) { _, _ in }
        _ = "buffer-test".withCString { waylandRequest(toplevel, XdgToplevelRequest.set_app_id.rawValue, [wl_argument(s: $0)]) }
        wl_surface_commit(surface)
        for _ in 0..<20 where !configured { wl_display_roundtrip(display) }
        guard configured else { throw DaemonError("the compositor did not configure the toplevel") }
    }

    deinit {
        wl_display_disconnect(display)
        for buffer in buffers.values where buffer.pool.proxy != shared?.proxy { drop(buffer.pool) }
        if let shared { drop((shared.proxy, shared.file, shared.mapping, shared.bytes)) }
    }

    private func drop(_ pool: (proxy: OpaquePointer, file: Int32, mapping: UnsafeMutableRawPointer, bytes: Int)) {
        munmap(pool.mapping, pool.bytes)
        close(pool.file)
    }

    private func listen(_ proxy: OpaquePointer, _ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) {
        let listener = WaylandListener(handle)
        listeners.append(listener)
        listener.listen(to: proxy)
    }

    /// A window-sized buffer filled with `fill`, in the shared pool (room for eight) or a
    /// pool of its own.
    func buffer(format: UInt32, fill: UInt32, newPool: Bool = false) throws -> Buffer {
        let stride = size.width * 4, bytes = stride * size.height
        var pool: (proxy: OpaquePointer, file: Int32, mapping: UnsafeMutableRawPointer, bytes: Int)
        var offset = 0
        if !newPool, let shared, shared.used + bytes <= shared.bytes {
            pool = (shared.proxy, shared.file, shared.mapping, shared.bytes)
            offset = shared.used
            self.shared?.used += bytes
        } else {
            let total = newPool ? bytes : bytes * 8
            let file = memfd_create("buffer-test", 1)
            ftruncate(file, off_t(total))
            guard let mapping = mmap(nil, total, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0), mapping != MAP_FAILED,
                let proxy = wl_shm_create_pool(shm, file, Int32(total))
            else { throw DaemonError("cannot make a pool of \(total) bytes") }
            pool = (proxy, file, mapping, total)
            if !newPool {
                shared = (proxy, file, mapping, total, bytes)
                poolFile = file
            }
        }
        guard let proxy = wl_shm_pool_create_buffer(pool.proxy, Int32(offset), Int32(size.width), Int32(size.height), Int32(stride), format)
        else { throw DaemonError("no buffer") }
        let buffer = Buffer(
            proxy: proxy, id: wl_proxy_get_id(proxy), pixels: (pool.mapping + offset).assumingMemoryBound(to: UInt32.self), pool: pool)
        buffers[buffer.id] = buffer
        self.fill(buffer, fill)
        listen(proxy) { [unowned self] opcode, _ in if opcode == 0 { released.append(buffer.id) } }
        return buffer
    }

    func fill(_ buffer: Buffer, _ value: UInt32) { buffer.pixels.update(repeating: value, count: size.width * size.height) }

    func pixels(_ buffer: Buffer) -> UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: buffer.pixels, count: size.width * size.height) }

    /// Attaches `buffer` (nil: none, which unmaps), damages all and commits.
    func show(_ buffer: Buffer?) {
        wl_surface_attach(surface, buffer?.proxy, 0, 0)
        wl_surface_damage(surface, 0, 0, Int32(size.width), Int32(size.height))
        wl_surface_commit(surface)
        wl_display_flush(display)
    }

    func roundtrip() { wl_display_roundtrip(display) }

    /// Destroys the buffers released so far (and their own pools).
    func forgetReleased() {
        for id in released {
            guard let buffer = buffers.removeValue(forKey: id) else { continue }
            wl_buffer_destroy(buffer.proxy)
            if buffer.pool.proxy != shared?.proxy {
                wl_shm_pool_destroy(buffer.pool.proxy)
                drop(buffer.pool)
            }
        }
        released.removeAll()
    }

    /// Buffers not released yet.
    var held: Int { buffers.count }

    /// The protocol error the compositor sent, after a round trip.
    func protocolError() -> (code: UInt32, interface: String)? { waylandProtocolError(display) }
}
