import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineRaster

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
        wlBufferDestroy(translucent.proxy)
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
final class ToplevelClient: TestWaylandClient {
    struct Buffer {
        let proxy: OpaquePointer
        let id: UInt32
        let pixels: UnsafeMutablePointer<UInt32>
        let pool: ShmPool
    }

    let size: (width: Int, height: Int)
    private var surface: OpaquePointer!
    /// Ids of the buffers released, in order.
    private(set) var released: [UInt32] = []
    /// The file of the shared pool (the first made).
    var poolFile: Int32 { shared?.pool.file ?? -1 }
    private var shared: (pool: ShmPool, used: Int)?
    private var buffers: [UInt32: Buffer] = [:]

    init(_ path: String, size: (Int, Int) = (40, 30)) throws {
        self.size = size
        try super.init(path, binding: ["wl_compositor": 4, "wl_shm": 1, "xdg_wm_base": 1])
        surface = wlCompositorCreateSurface(global("wl_compositor"))
        _ = try makeToplevel(surface, appID: "buffer-test")
    }

    /// A window-sized buffer filled with `fill`, in the shared pool (room for eight) or a
    /// pool of its own.
    func buffer(format: UInt32, fill: UInt32, newPool: Bool = false) throws -> Buffer {
        let bytes = size.width * 4 * size.height
        let pool: ShmPool
        var offset = 0
        if !newPool, let shared, shared.used + bytes <= shared.pool.bytes {
            pool = shared.pool
            offset = shared.used
            self.shared?.used += bytes
        } else {
            pool = try ShmPool(shm: global("wl_shm"), bytes: newPool ? bytes : bytes * 8, name: "buffer-test")
            if !newPool { shared = (pool, bytes) }
        }
        let proxy = try pool.buffer(offset: offset, width: size.width, height: size.height, format: wl_shm_format(format))
        let buffer = Buffer(proxy: proxy, id: wl_proxy_get_id(proxy), pixels: (pool.memory + offset).assumingMemoryBound(to: UInt32.self), pool: pool)
        buffers[buffer.id] = buffer
        self.fill(buffer, fill)
        listen(proxy) { [unowned self] opcode, _ in if opcode == 0 { released.append(buffer.id) } }
        return buffer
    }

    func fill(_ buffer: Buffer, _ value: UInt32) { buffer.pixels.update(repeating: value, count: size.width * size.height) }

    func pixels(_ buffer: Buffer) -> UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: buffer.pixels, count: size.width * size.height) }

    /// Attaches `buffer` (nil: none, which unmaps), damages all and commits.
    func show(_ buffer: Buffer?) {
        wlSurfaceAttach(surface, buffer?.proxy, 0, 0)
        wlSurfaceDamage(surface, 0, 0, Int32(size.width), Int32(size.height))
        wlSurfaceCommit(surface)
        wl_display_flush(display)
    }

    /// Destroys the buffers released so far (and their own pools).
    func forgetReleased() {
        for id in released {
            guard let buffer = buffers.removeValue(forKey: id) else { continue }
            wlBufferDestroy(buffer.proxy)
            if buffer.pool !== shared?.pool { wlShmPoolDestroy(buffer.pool.proxy) }
        }
        released.removeAll()
    }

    /// Buffers not released yet.
    var held: Int { buffers.count }
}
