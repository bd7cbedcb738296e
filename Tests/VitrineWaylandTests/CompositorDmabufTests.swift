import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import WaylandDescription

@testable import VitrineOutput

/// `zwp_linux_dmabuf_v1` as the real daemon serves it, from a client written here: the
/// formats offered, and the protocol's errors for what a client gets wrong, each on a
/// connection of its own. This host has no dma-buf to give (no /dev/udmabuf, no DRM
/// device): the planes are memfds, which pass every check of the params and are refused
/// as no dma-buf at the import (`failed`, or `invalid_wl_buffer` from `create_immed`).
/// Real dma-bufs shown pixel for pixel, and the errors again with them, are the QEMU
/// guest's (.ci/drm-test dmabuf, docs/DRM-TEST.md).
@Suite(.serialized) struct CompositorDmabufTests {
    typealias Dmabuf = CompositorDmabufTests
    static let table = WaylandInterfaceTable(WaylandProtocol.linuxDmabufUnstableV1)
    static let xr24: UInt32 = 0x3432_5258
    static let ar24: UInt32 = 0x3432_5241
    static let nv12: UInt32 = 0x3231_564E
    static let width = 64
    static let height = 32

    /// A connection with `zwp_linux_dmabuf_v1` bound at the version offered (at most 4),
    /// and a memfd of one 64 × 32 XRGB picture to add as a plane.
    final class Client: TestWaylandClient {
        private(set) var dmabuf: OpaquePointer!
        private(set) var version: UInt32 = 0
        let memfd: Int32
        /// The (format, modifier) pairs told by version 3's events.
        var modifiers: [(UInt32, UInt64)] = []
        /// What the params last made told: "created", "failed".
        var outcome: String?

        init(_ path: String) throws {
            memfd = memfd_create("not-a-dmabuf", 1)
            ftruncate(memfd, off_t(Dmabuf.width * Dmabuf.height * 4))
            try super.init(path, binding: ["wl_compositor": 4])
            guard let offered = offeredVersion(of: "zwp_linux_dmabuf_v1") else { throw DaemonError("zwp_linux_dmabuf_v1 is not offered") }
            version = min(offered, 4)
            dmabuf = try bind("zwp_linux_dmabuf_v1", version: version, interface: Dmabuf.table["zwp_linux_dmabuf_v1"])
            listen(dmabuf) { [unowned self] opcode, a in
                if opcode == 1 { modifiers.append((a[0].u, UInt64(a[1].u) << 32 | UInt64(a[2].u))) }
            }
            roundtrip()
        }

        deinit { close(memfd) }

        func params() -> OpaquePointer {
            let params = waylandRequest(dmabuf, 1, [wl_argument(n: 0)], creating: Dmabuf.table["zwp_linux_buffer_params_v1"])!
            listen(params) { [unowned self] opcode, _ in outcome = opcode == 0 ? "created" : "failed" }
            return params
        }

        func add(_ params: OpaquePointer, plane: UInt32, offset: UInt32 = 0, stride: UInt32 = UInt32(Dmabuf.width * 4), modifier: UInt64 = 0) {
            waylandRequest(
                params, 1,
                [
                    wl_argument(h: memfd), wl_argument(u: plane), wl_argument(u: offset), wl_argument(u: stride), wl_argument(u: UInt32(modifier >> 32)),
                    wl_argument(u: UInt32(modifier & 0xFFFF_FFFF)),
                ])
        }

        func create(_ params: OpaquePointer, width: Int = Dmabuf.width, height: Int = Dmabuf.height, format: UInt32 = Dmabuf.xr24) {
            waylandRequest(params, 2, [wl_argument(i: Int32(width)), wl_argument(i: Int32(height)), wl_argument(u: format), wl_argument(u: 0)])
        }

        /// Adds the memfd as `planes`, then sends `create` `creates` times and `create_immed`
        /// if `immediately`.
        func make(
            _ params: OpaquePointer, planes: [UInt32] = [0], offset: UInt32 = 0, stride: UInt32 = UInt32(Dmabuf.width * 4), width: Int = Dmabuf.width,
            height: Int = Dmabuf.height, format: UInt32 = Dmabuf.xr24, creates: Int = 1, immediately: Bool = false
        ) {
            for plane in planes { add(params, plane: plane, offset: offset, stride: stride) }
            for _ in 0..<creates { create(params, width: width, height: height, format: format) }
            if immediately { createImmediately(params) }
        }

        func createImmediately(_ params: OpaquePointer) {
            waylandRequest(
                params, 3,
                [wl_argument(n: 0), wl_argument(i: Int32(Dmabuf.width)), wl_argument(i: Int32(Dmabuf.height)), wl_argument(u: Dmabuf.xr24), wl_argument(u: 0)],
                creating: vitrine_wl_buffer_interface())
        }
    }

    @Test func linearXRGBAndARGBAreOffered() throws {
        let setup = try CompositorTests.Setup()
        let client = try Client(setup.waylandPath)
        // This host has no render node: version 3, whose events name the formats.
        #expect(client.version == 3)
        #expect(client.modifiers.map(\.0) == [Self.xr24, Self.ar24] && client.modifiers.allSatisfy { $0.1 == 0 }, "\(client.modifiers)")
        #expect(client.protocolError() == nil)
    }

    /// Each case on a fresh connection, and the error it must end with
    /// (`zwp_linux_buffer_params_v1`'s codes).
    static var mistakes: [(what: String, code: UInt32, send: (Client, OpaquePointer) -> Void)] {
        [
            ("plane index 4", 1, { $0.add($1, plane: 4) }),
            ("plane 0 twice", 2, { $0.make($1, planes: [0, 0], creates: 0) }),
            ("plane 1 without plane 0", 3, { $0.make($1, planes: [1]) }),
            ("two planes of XR24", 3, { $0.make($1, planes: [0, 1]) }),
            ("format NV12", 4, { $0.make($1, format: nv12) }),
            ("width 0", 5, { $0.make($1, width: 0) }),
            ("rows beyond the plane's file", 6, { $0.make($1, height: height * 2) }),
            ("an offset at the file's end", 6, { $0.make($1, offset: UInt32(width * height * 4)) }),
            ("rows narrower than the width", 6, { $0.make($1, stride: UInt32(width * 2)) }),
            ("create twice", 0, { $0.make($1, creates: 2) }),
            ("create_immed of what is no dma-buf", 7, { $0.make($1, creates: 0, immediately: true) }),
        ]
    }

    @Test func aClientsMistakesAreTheProtocolsErrors() throws {
        let setup = try CompositorTests.Setup()
        for mistake in Self.mistakes {
            let client = try Client(setup.waylandPath)
            mistake.send(client, client.params())
            let error = client.protocolError()
            #expect(
                error?.interface == "zwp_linux_buffer_params_v1" && error?.code == mistake.code,
                "\(mistake.what): \(String(describing: error)), not error \(mistake.code)")
        }
        #expect(try setup.control.request(#"{"cmd": "ping"}"#)["ok"] == .bool(true))
    }

    @Test func whatCannotBeImportedIsFailedAndTheClientGoesOn() throws {
        let setup = try CompositorTests.Setup()
        let client = try Client(setup.waylandPath)
        // Not a dma-buf, then a tiled modifier (version 3: not a protocol error).
        for modifier: UInt64 in [0, 0x0100_0000_0000_0001] {
            client.outcome = nil
            let params = client.params()
            client.add(params, plane: 0, modifier: modifier)
            client.create(params)
            try client.dispatch(until: { client.outcome != nil }, what: "created or failed")
            #expect(client.outcome == "failed")
            waylandRequest(params, 0, destroying: true)
        }
        #expect(client.protocolError() == nil)
    }
}
