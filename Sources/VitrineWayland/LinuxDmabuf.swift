import CWaylandServer
import Glibc
import VitrineSystem
import WaylandDescription

/// `zwp_linux_dmabuf_v1`: clients share dma-bufs as `wl_buffer`s, which the software
/// compositor reads in place (`DmabufImage`).
///
/// What is offered is what the CPU can read: XRGB8888 and ARGB8888 in the linear layout
/// (`DRM_FORMAT_MOD_LINEAR`), one plane. Tiled or compressed modifiers are not offered,
/// even where a device can map them: their pixels are not in rows. With a device to name
/// (`mainDevice`: the DRM device of the outputs, or a render node) version 4 is offered,
/// with feedback (the format table in a sealed memfd, the main device, one tranche with
/// both formats, the same for every surface); without one, version 3, whose `format` and
/// `modifier` events tell the same formats (buffers from `/dev/udmabuf` or a DMA heap
/// need no device).
final class LinuxDmabufGlobal {
    /// The (format, modifier) pairs offered, in the format table's order.
    static let formats: [(format: UInt32, modifier: UInt64)] = [(DmabufImage.xrgb8888, DmabufImage.linear), (DmabufImage.argb8888, DmabufImage.linear)]
    /// Params and buffers a client may hold at once (each holds descriptors, a buffer a mapping).
    static let maximumPerClient = 256
    /// The device's `dev_t`, for version 4's feedback.
    let mainDevice: UInt64?
    /// The format table: per pair, the format (u32), 4 bytes of padding, the modifier (u64).
    let table: OwnedDescriptor?
    let tableSize: UInt32
    private(set) var binding: GlobalBinding?
    /// Params and buffers each client holds.
    private var held: [OpaquePointer: Int] = [:]

    init(server: WaylandServer, mainDevice: UInt64?) {
        self.mainDevice = mainDevice
        var bytes: [UInt8] = []
        for pair in Self.formats {
            withUnsafeBytes(of: pair.format.littleEndian) { bytes += $0 }
            bytes += [0, 0, 0, 0]
            withUnsafeBytes(of: pair.modifier.littleEndian) { bytes += $0 }
        }
        let fd =
            mainDevice == nil
            ? -1 : bytes.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { vitrine_sealed_memfd($0.baseAddress, UInt($0.count)) } }
        table = fd >= 0 ? OwnedDescriptor(fd) : nil
        tableSize = UInt32(bytes.count)
        binding = GlobalBinding(server, Self.interfaces["zwp_linux_dmabuf_v1"], version: table == nil ? 3 : 4) { server, client, version, id in
            LinuxDmabufObject(server: server, client: client, version: version, id: id)
        }
    }

    static let interfaces = ServerInterfaceTable(WaylandProtocol.linuxDmabufUnstableV1)

    /// Counts one more params or buffer of `client`; false when it holds too many.
    func take(for client: OpaquePointer) -> Bool {
        let count = held[client, default: 0]
        guard count < Self.maximumPerClient else { return false }
        held[client] = count + 1
        return true
    }

    func give(back client: OpaquePointer) {
        let count = held[client, default: 1] - 1
        held[client] = count > 0 ? count : nil
    }

    /// Whether `format` with `modifier` is offered.
    static func offers(_ format: UInt32, _ modifier: UInt64) -> Bool { formats.contains { $0 == (format, modifier) } }
}

extension WaylandServer {
    /// Offers `zwp_linux_dmabuf_v1` (once): version 4 with feedback naming `mainDevice`
    /// (a `dev_t`), or version 3 without a device.
    public func offerLinuxDmabuf(mainDevice: UInt64?) {
        guard linuxDmabuf == nil else { return }
        linuxDmabuf = LinuxDmabufGlobal(server: self, mainDevice: mainDevice)
    }
}

/// A client's `zwp_linux_dmabuf_v1`.
final class LinuxDmabufObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: LinuxDmabufGlobal.interfaces["zwp_linux_dmabuf_v1"], version: version, id: id)
        guard version < 4 else { return }
        for pair in LinuxDmabufGlobal.formats {
            post(ZwpLinuxDmabufV1Event.format.rawValue, [wl_argument(u: pair.format)])
            if version >= 3 {
                post(
                    ZwpLinuxDmabufV1Event.modifier.rawValue,
                    [wl_argument(u: pair.format), wl_argument(u: UInt32(pair.modifier >> 32)), wl_argument(u: UInt32(pair.modifier & 0xFFFF_FFFF))])
            }
        }
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwpLinuxDmabufV1Request(rawValue: opcode) {
        case .destroy:
            destroy()
        case .create_params:
            _ = BufferParamsObject(server: server, client: client, version: version, id: a[0].n)
        case .get_default_feedback, .get_surface_feedback:
            _ = DmabufFeedbackObject(server: server, client: client, version: version, id: a[0].n)
        case nil:
            break
        }
    }
}

/// `zwp_linux_dmabuf_feedback_v1`: the device and formats, sent once (they do not change),
/// the same for the default and for every surface.
final class DmabufFeedbackObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(
            server: server, client: client, interface: LinuxDmabufGlobal.interfaces["zwp_linux_dmabuf_feedback_v1"], version: version, id: id)
        guard let global = server.linuxDmabuf, let table = global.table, let device = global.mainDevice else { return }
        post(ZwpLinuxDmabufFeedbackV1Event.format_table.rawValue, [wl_argument(h: table.rawValue), wl_argument(u: global.tableSize)])
        postArray(ZwpLinuxDmabufFeedbackV1Event.main_device, of: device)
        postArray(ZwpLinuxDmabufFeedbackV1Event.tranche_target_device, of: device)
        postArray(ZwpLinuxDmabufFeedbackV1Event.tranche_formats, of: LinuxDmabufGlobal.formats.indices.map { UInt16($0) })
        post(ZwpLinuxDmabufFeedbackV1Event.tranche_flags.rawValue, [wl_argument(u: 0)])
        post(ZwpLinuxDmabufFeedbackV1Event.tranche_done.rawValue)
        post(ZwpLinuxDmabufFeedbackV1Event.done.rawValue)
    }

    /// Sends `event` with one array argument holding `values`' bytes.
    private func postArray<Value>(_ event: ZwpLinuxDmabufFeedbackV1Event, of values: Value...) { postArray(event, of: values) }

    private func postArray<Value>(_ event: ZwpLinuxDmabufFeedbackV1Event, of values: [Value]) {
        var values = values
        values.withUnsafeMutableBytes { bytes in
            var array = wl_array(size: bytes.count, alloc: bytes.count, data: bytes.baseAddress)
            withUnsafeMutablePointer(to: &array) { post(event.rawValue, [wl_argument(a: $0)]) }
        }
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if ZwpLinuxDmabufFeedbackV1Request(rawValue: opcode) == .destroy { destroy() }
    }
}

/// `zwp_linux_buffer_params_v1`: the planes of one buffer to be, then `create` or
/// `create_immed`; the protocol's errors for what a client got wrong, `failed` (or, for
/// `create_immed`, `invalid_wl_buffer`) for what could not be imported.
final class BufferParamsObject: ServerObject {
    private struct Plane {
        let fd: OwnedDescriptor
        let offset: Int
        let stride: Int
        let modifier: UInt64
    }

    private var planes: [UInt32: Plane] = [:]
    private var used = false
    private var counted = false

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: LinuxDmabufGlobal.interfaces["zwp_linux_buffer_params_v1"], version: version, id: id)
        counted = server.linuxDmabuf?.take(for: client) ?? false
        if !counted { wl_client_post_no_memory(client) }
    }

    override func destroyed() {
        if counted { server.linuxDmabuf?.give(back: client) }
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwpLinuxBufferParamsV1Request(rawValue: opcode) {
        case .destroy:
            destroy()
        case .add:
            add(OwnedDescriptor(a[0].h), index: a[1].u, offset: Int(a[2].u), stride: Int(a[3].u), modifier: UInt64(a[4].u) << 32 | UInt64(a[5].u))
        case .create:
            create(id: nil, width: Int(a[0].i), height: Int(a[1].i), format: a[2].u, flags: a[3].u)
        case .create_immed:
            create(id: a[0].n, width: Int(a[1].i), height: Int(a[2].i), format: a[3].u, flags: a[4].u)
        case nil:
            break
        }
    }

    private func add(_ fd: OwnedDescriptor, index: UInt32, offset: Int, stride: Int, modifier: UInt64) {
        guard !used else { return postError(ZwpLinuxBufferParamsV1Error.already_used, "these params already made a buffer") }
        guard index < 4 else { return postError(ZwpLinuxBufferParamsV1Error.plane_idx, "plane \(index) is beyond the 4 planes of a dma-buf") }
        guard planes[index] == nil else { return postError(ZwpLinuxBufferParamsV1Error.plane_set, "plane \(index) was added twice") }
        planes[index] = Plane(fd: fd, offset: offset, stride: stride, modifier: modifier)
    }

    /// `create` (`id` nil: the buffer is told with `created`) or `create_immed` (`id`).
    private func create(id: UInt32?, width: Int, height: Int, format: UInt32, flags: UInt32) {
        guard !used else { return postError(ZwpLinuxBufferParamsV1Error.already_used, "these params already made a buffer") }
        used = true
        let image: DmabufImage
        do { image = try importPlanes(width: width, height: height, format: format, flags: flags) } catch {
            if let code = error.code { return postError(code, error.message) }
            server.logger.info("Wayland client \(WaylandServer.describe(client)): a dma-buf was not imported: \(error.message)")
            if id != nil { return postError(ZwpLinuxBufferParamsV1Error.invalid_wl_buffer, error.message) }
            return post(ZwpLinuxBufferParamsV1Event.failed.rawValue)
        }
        guard let buffer = DmabufBufferObject(server: server, client: client, id: id ?? 0, image: image) else { return }
        if id == nil { post(ZwpLinuxBufferParamsV1Event.created.rawValue, [wl_argument(o: buffer.resource)]) }
    }

    private func importPlanes(width: Int, height: Int, format: UInt32, flags: UInt32) throws(DmabufImage.Failure) -> DmabufImage {
        guard LinuxDmabufGlobal.formats.contains(where: { $0.format == format }) else {
            throw .init(code: .invalid_format, message: "format \(Self.fourcc(format)) is not offered (XR24, AR24)")
        }
        guard let plane = planes[0], planes.count == 1 else {
            throw .init(code: .incomplete, message: "format \(Self.fourcc(format)) has one plane; planes \(planes.keys.sorted()) were added")
        }
        guard width > 0, height > 0 else { throw .init(code: .invalid_dimensions, message: "a \(width)×\(height) buffer") }
        guard LinuxDmabufGlobal.offers(format, plane.modifier) else {
            let message = "modifier 0x\(String(plane.modifier, radix: 16)) of \(Self.fourcc(format)) is not offered (linear only)"
            throw .init(code: version >= 4 ? .invalid_format : nil, message: message)
        }
        guard flags == 0 else { throw .init(code: nil, message: "flags \(flags) (y-inverted or interlaced buffers are not shown)") }
        planes = [:]
        return try DmabufImage(fd: plane.fd.release(), offset: plane.offset, stride: plane.stride, width: width, height: height, format: format)
    }

    /// "XR24" for a DRM fourcc code.
    static func fourcc(_ code: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: code >> ($0 * 8)) }.map { (32..<127).contains($0) ? $0 : 63 }, as: UTF8.self)
    }
}

/// A `wl_buffer` of a dma-buf: its image, found by `ClientBuffer` when a surface commits it.
final class DmabufBufferObject: ServerObject {
    private var counted = false

    init?(server: WaylandServer, client: OpaquePointer, id: UInt32, image: DmabufImage) {
        super.init(server: server, client: client, interface: vitrine_wl_buffer_interface(), version: 1, id: id)
        counted = server.linuxDmabuf?.take(for: client) ?? false
        guard counted else {
            wl_client_post_no_memory(client)
            return
        }
        server.dmabufImages[resource] = image
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if WlBufferRequest(rawValue: opcode) == .destroy { destroy() }
    }

    override func destroyed() {
        server.dmabufImages[resource] = nil
        if counted { server.linuxDmabuf?.give(back: client) }
    }
}
