import CWaylandClient
import Foundation
import VitrineDaemonTestSupport
import VitrineOutput
import VitrineRaster
import VitrineWayland
import WaylandDescription

/// The tests' capture client (`zwlr_screencopy_manager_v1` version 3): captures an output
/// into a buffer of the size it is told, or of a size it is not told, and records the
/// events of each frame.
final class ScreencopyClient: TestWaylandClient {
    static let table = WaylandInterfaceTable(WaylandProtocol.screencopyV1)
    private var manager: OpaquePointer!
    private var pools: [ShmPool] = []

    /// What the compositor told of one frame.
    final class Frame {
        let proxy: OpaquePointer
        var buffer: (format: UInt32, width: Int, height: Int, stride: Int)?
        var bufferDone = false
        var flags: UInt32?
        var damage: [PixelRect] = []
        var ready = false
        var failed = false
        /// The pixels copied, once ready.
        var picture: Surface?
        init(_ proxy: OpaquePointer) { self.proxy = proxy }
    }

    init(_ path: String) throws {
        try super.init(path, binding: ["wl_shm": 1, "wl_output": 4])
        manager = try bind("zwlr_screencopy_manager_v1", version: 3, interface: Self.table["zwlr_screencopy_manager_v1"])
    }

    /// Asks for a capture of the output (of `region`, in its logical pixels, when given)
    /// and waits for its buffer's description.
    func capture(region: PixelRect? = nil) throws -> Frame {
        let output = global("wl_output")
        let made =
            if let region {
                waylandRequest(
                    manager, 1,
                    [
                        wl_argument(n: 0), wl_argument(i: 0), wl_argument(o: output), wl_argument(i: Int32(region.x)), wl_argument(i: Int32(region.y)),
                        wl_argument(i: Int32(region.width)), wl_argument(i: Int32(region.height)),
                    ], creating: Self.table["zwlr_screencopy_frame_v1"])
            } else {
                waylandRequest(manager, 0, [wl_argument(n: 0), wl_argument(i: 0), wl_argument(o: output)], creating: Self.table["zwlr_screencopy_frame_v1"])
            }
        let frame = Frame(try made.orThrow("no zwlr_screencopy_frame_v1"))
        listen(frame.proxy) { opcode, a in
            switch opcode {
            case 0: frame.buffer = (a[0].u, Int(a[1].u), Int(a[2].u), Int(a[3].u))
            case 1: frame.flags = a[0].u
            case 2: frame.ready = true
            case 3: frame.failed = true
            case 4: frame.damage.append(PixelRect(x: Int(a[0].u), y: Int(a[1].u), width: Int(a[2].u), height: Int(a[3].u)))
            case 6: frame.bufferDone = true
            default: break
            }
        }
        try dispatch(until: { frame.bufferDone || frame.failed }, what: "buffer_done")
        return frame
    }

    /// Copies `frame` into a buffer of `width` × `height` (default: what it was told), with
    /// damage or not; waits for `ready` or `failed` unless `wait` is false.
    func copy(_ frame: Frame, width: Int? = nil, height: Int? = nil, withDamage: Bool = false, wait: Bool = true) throws {
        let told = try frame.buffer.orThrow("no buffer event")
        let (w, h) = (width ?? told.width, height ?? told.height)
        let pool = try ShmPool(shm: global("wl_shm"), bytes: w * h * 4, name: "capture")
        pools.append(pool)
        let buffer = try pool.buffer(offset: 0, width: w, height: h, format: wl_shm_format(rawValue: told.format))
        waylandRequest(frame.proxy, withDamage ? 2 : 0, [wl_argument(o: buffer)])
        guard wait else {
            wl_display_flush(display)
            return
        }
        try dispatch(until: { frame.ready || frame.failed }, what: "ready")
        guard frame.ready else { return }
        let picture = Surface(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w { picture.setPixel(x: x, y: y, PremultipliedColor(unchecked: pool.pixels[y * w + x] | 0xFF00_0000)) }
        }
        frame.picture = picture
    }
}

extension Optional {
    func orThrow(_ what: String) throws -> Wrapped {
        guard let self else { throw DaemonError(what) }
        return self
    }
}
