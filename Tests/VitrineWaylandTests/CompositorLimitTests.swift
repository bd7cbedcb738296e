import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineOutput

/// A client that makes objects without end (pools, buffers, regions) is disconnected at
/// `[compositor] max_objects_per_client` or `max_shm_pools_per_client` with a log line, while
/// the daemon and another client's window go on; one that destroys what it makes stays.
@Suite(.serialized) struct CompositorLimitTests {
    static let limits = "max_objects_per_client = 300\nmax_shm_pools_per_client = 20\n"

    /// The compositor with low limits, showing a green window of another client (in the
    /// layer `win`, 2× at (100, 60)).
    static func shown() throws -> (CompositorTests.Setup, ToplevelClient) {
        let setup = try CompositorTests.Setup(rules: limits + CompositorBufferTests.rules)
        let window = try ToplevelClient(setup.waylandPath)
        window.show(try window.buffer(format: WL_SHM_FORMAT_ARGB8888.rawValue, fill: 0xFF00_FF00))
        _ = try setup.control.waitForEvent("surface.mapped")
        return (setup, window)
    }

    /// The daemon answers, still shows the window, and did not disconnect its client.
    static func expectUnharmed(_ setup: CompositorTests.Setup, _ window: ToplevelClient) throws {
        #expect(try setup.control.request(#"{"cmd": "hello"}"#)["ok"] == .bool(true))
        #expect(CompositorBufferTests.pixel(try setup.control.screenshot("limits-window"), 100, 60) == 0xFF00_FF00)
        window.roundtrip()
        #expect(window.protocolError() == nil && wl_display_get_error(window.display) == 0)
    }

    @Test func aClientMakingPoolsWithoutEndIsDisconnectedAtTheCap() throws {
        let (setup, window) = try Self.shown()
        let client = try CompositorTests.RawClient(setup.waylandPath)
        let file = memfd_create("limits-test", 1)
        defer { close(file) }
        ftruncate(file, 4096)
        for _ in 0..<100 { _ = wlShmCreatePool(client.shm, file, 4096) }
        wl_display_roundtrip(client.display)
        // (libwayland-client reports the display's no_memory error as ENOMEM)
        #expect(wl_display_get_error(client.display) == ENOMEM)
        let log = setup.daemon.standardError
        #expect(log.contains("holds more than 20 wl_shm_pools (compositor.max_shm_pools_per_client): disconnected; it held 21 wl_shm_pool"), "\(log)")
        try Self.expectUnharmed(setup, window)
    }

    @Test func aClientMakingBuffersAndRegionsWithoutDestroyingThemIsDisconnectedAtTheCap() throws {
        let (setup, window) = try Self.shown()
        let client = try CompositorTests.RawClient(setup.waylandPath)
        let pool = try client.pool(bytes: 4096)
        for _ in 0..<400 {
            _ = wlShmPoolCreateBuffer(pool, 0, 16, 16, 64, WL_SHM_FORMAT_ARGB8888.rawValue)
            _ = wlCompositorCreateRegion(client.compositor)
            if wl_display_flush(client.display) < 0 { break }
        }
        wl_display_roundtrip(client.display)
        #expect(wl_display_get_error(client.display) == ENOMEM)
        let log = setup.daemon.standardError
        #expect(log.contains("holds more than 300 objects (compositor.max_objects_per_client): disconnected; it held "), "\(log)")
        #expect(log.contains(" wl_buffer, ") && log.contains(" wl_region"), "\(log)")
        try Self.expectUnharmed(setup, window)
    }

    @Test func aClientDestroyingWhatItMakesStaysConnectedPastTenTimesTheCaps() throws {
        let (setup, window) = try Self.shown()
        let client = try CompositorTests.RawClient(setup.waylandPath)
        let file = memfd_create("limits-test", 1)
        defer { close(file) }
        ftruncate(file, 4096)
        // 30 rounds of 15 pools and 200 buffers and regions: 450 pools and 6,450 objects.
        for _ in 0..<30 {
            let pools = (0..<15).compactMap { _ in wlShmCreatePool(client.shm, file, 4096) }
            var objects: [OpaquePointer] = []
            for _ in 0..<100 {
                objects += [wlShmPoolCreateBuffer(pools[0], 0, 16, 16, 64, WL_SHM_FORMAT_ARGB8888.rawValue)].compactMap { $0 }
            }
            let regions = (0..<100).compactMap { _ in wlCompositorCreateRegion(client.compositor) }
            wl_display_roundtrip(client.display)
            objects.forEach { wlBufferDestroy($0) }
            regions.forEach { wlRegionDestroy($0) }
            pools.forEach { wlShmPoolDestroy($0) }
            wl_display_roundtrip(client.display)
            usleep(10_000)
        }
        #expect(wl_display_get_error(client.display) == 0)
        #expect(!setup.daemon.standardError.contains("disconnected"), "\(setup.daemon.standardError)")
        try Self.expectUnharmed(setup, window)
    }
}
