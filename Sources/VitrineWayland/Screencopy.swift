import CWaylandServer
import Glibc
import VitrineRaster

/// `zwlr_screencopy_manager_v1` (version 3): captures of an output or a region of it, for
/// the clients `WaylandServer.mayCaptureScreen` allows (grim, wayvnc). While any capture
/// client is connected the outputs it captured keep a shadow of their picture
/// (`OutputCapture`); the last one going stops that.
final class ScreencopyManagerObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.screencopyV1["zwlr_screencopy_manager_v1"], version: version, id: id)
        server.captureClients += 1
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwlrScreencopyManagerV1Request(rawValue: opcode) {
        case .capture_output:
            capture(id: a[0].n, output: a[2].resource) { $0.bounds }
        case .capture_output_region:
            let (x, y, width, height) = (a[3].i, a[4].i, a[5].i, a[6].i)
            capture(id: a[0].n, output: a[2].resource) { $0.region(x: x, y: y, width: width, height: height) }
        case .destroy: destroy()
        case nil: break
        }
    }

    private func capture(id: UInt32, output: OpaquePointer?, region: (OutputCapture) -> PixelRect) {
        let name = ServerObject.of(output, as: OutputObject.self)?.name
        let capture = name.flatMap { server.captures[$0] }
        guard let frame = ScreencopyFrameObject(manager: self, id: id, capture: capture, region: capture.map(region) ?? .empty) else { return }
        frame.announce()
    }

    override func destroyed() {
        for capture in server.captures.values { capture.forget(manager: ObjectIdentifier(self)) }
        server.captureClientGone()
    }
}

/// `zwlr_screencopy_frame_v1`: one capture. It tells the buffer it takes (XRGB8888 of the
/// region's size, rows `4 × width` bytes apart; no dmabuf), then fills the client's buffer
/// on `copy` or `copy_with_damage` and tells `flags` (none), the damage and `ready` with
/// the frame's time; `failed` when the output cannot be captured. A buffer of another
/// kind, format, size or stride is the protocol error `invalid_buffer`; a second copy
/// `already_used`.
final class ScreencopyFrameObject: ServerObject {
    /// The manager it came from, for its damage since the last copy.
    private weak var source: ScreencopyManagerObject?
    private let capture: OutputCapture?
    /// The pixels captured, in the output's pixels.
    let region: PixelRect
    private(set) var withDamage = false
    /// The id of the buffer to fill: looked up again when it is filled, the client may
    /// have destroyed it meanwhile.
    private var bufferID: UInt32 = 0
    private var used = false
    private var finished = false

    init?(manager: ScreencopyManagerObject, id: UInt32, capture: OutputCapture?, region: PixelRect) {
        source = manager
        self.capture = capture
        self.region = region
        super.init(
            server: manager.server, client: manager.client, interface: ServerInterfaceTable.screencopyV1["zwlr_screencopy_frame_v1"],
            version: manager.version, id: id)
        server.captureClients += 1
    }

    var stride: Int { region.width * 4 }

    /// Its manager's identity while the manager is there (nil once it went).
    var manager: ObjectIdentifier? { source.map(ObjectIdentifier.init) }

    /// Tells the buffer wanted, or fails at once (an output that cannot be captured, an empty region).
    func announce() {
        guard capture != nil, !region.isEmpty else { return fail() }
        post(
            ZwlrScreencopyFrameV1Event.buffer.rawValue,
            [
                wl_argument(u: WL_SHM_FORMAT_XRGB8888.rawValue), wl_argument(u: UInt32(region.width)), wl_argument(u: UInt32(region.height)),
                wl_argument(u: UInt32(stride)),
            ])
        if version >= 3 { post(ZwlrScreencopyFrameV1Event.buffer_done.rawValue) }
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwlrScreencopyFrameV1Request(rawValue: opcode) {
        case .copy: copy(into: a[0].resource, withDamage: false)
        case .copy_with_damage: copy(into: a[0].resource, withDamage: true)
        case .destroy: destroy()
        case nil: break
        }
    }

    private func copy(into buffer: OpaquePointer?, withDamage: Bool) {
        guard !used else { return postError(ZwlrScreencopyFrameV1Error.already_used, "this frame was copied already; capture another frame") }
        guard let capture, !region.isEmpty else {
            return postError(ZwlrScreencopyFrameV1Error.invalid_buffer, "this frame failed; there is nothing to copy")
        }
        guard let buffer, let shm = wl_shm_buffer_get(buffer) else {
            return postError(ZwlrScreencopyFrameV1Error.invalid_buffer, "only wl_shm buffers are filled (no dmabuf)")
        }
        let (format, width, height) = (wl_shm_buffer_get_format(shm), Int(wl_shm_buffer_get_width(shm)), Int(wl_shm_buffer_get_height(shm)))
        let bufferStride = Int(wl_shm_buffer_get_stride(shm))
        guard format == WL_SHM_FORMAT_XRGB8888.rawValue, width == region.width, height == region.height, bufferStride == stride else {
            return postError(
                ZwlrScreencopyFrameV1Error.invalid_buffer,
                "the buffer is format \(format), \(width)×\(height), rows \(bufferStride) bytes apart; the frame takes format \(WL_SHM_FORMAT_XRGB8888.rawValue) (XRGB8888), \(region.width)×\(region.height), rows \(stride) bytes apart as its buffer event said"
            )
        }
        used = true
        self.withDamage = withDamage
        bufferID = wl_resource_get_id(buffer)
        capture.copy(self)
    }

    /// Fills the buffer with the region of `picture`, then tells the flags, `damage` (in
    /// the region's pixels) for `copy_with_damage`, and `ready` with `time` (CLOCK_MONOTONIC ns).
    func complete(from picture: Surface, damage: [PixelRect], time: UInt64) {
        guard !finished, let buffer = wl_client_get_object(client, bufferID), let shm = wl_shm_buffer_get(buffer),
            Int(wl_shm_buffer_get_width(shm)) == region.width, Int(wl_shm_buffer_get_height(shm)) == region.height,
            Int(wl_shm_buffer_get_stride(shm)) == stride, let data = wl_shm_buffer_get_data(shm)
        else { return fail() }
        finished = true
        wl_shm_buffer_begin_access(shm)
        let rows = data.assumingMemoryBound(to: UInt32.self)
        for y in 0..<region.height {
            (rows + y * region.width).update(from: picture.pixels + (region.y + y) * picture.stride + region.x, count: region.width)
        }
        wl_shm_buffer_end_access(shm)
        post(ZwlrScreencopyFrameV1Event.flags.rawValue, [wl_argument(u: 0)])
        if withDamage {
            for rect in damage {
                post(
                    ZwlrScreencopyFrameV1Event.damage.rawValue,
                    [wl_argument(u: UInt32(rect.x)), wl_argument(u: UInt32(rect.y)), wl_argument(u: UInt32(rect.width)), wl_argument(u: UInt32(rect.height))])
            }
        }
        let seconds = time / 1_000_000_000
        post(
            ZwlrScreencopyFrameV1Event.ready.rawValue,
            [wl_argument(u: UInt32(seconds >> 32)), wl_argument(u: UInt32(truncatingIfNeeded: seconds)), wl_argument(u: UInt32(time % 1_000_000_000))])
        server.flush()
    }

    /// Tells the client the capture failed.
    func fail() {
        guard !finished else { return }
        finished = true
        post(ZwlrScreencopyFrameV1Event.failed.rawValue)
        server.flush()
    }

    override func destroyed() {
        capture?.forget(self)
        server.captureClientGone()
    }
}

extension WaylandServer {
    /// One capture client's manager or frame went: when none is left, the outputs stop
    /// keeping pictures for capture.
    func captureClientGone() {
        captureClients -= 1
        guard captureClients == 0 else { return }
        for capture in captures.values { capture.stop() }
    }

    /// The capture of the output named `name` (its connector's), which the daemon feeds
    /// frames while it is tapping; nil for an output the server does not offer.
    public func capture(of name: String) -> OutputCapture? { captures[name] }
}
