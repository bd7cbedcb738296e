import CX11
import Glibc
import VitrineRaster

/// Pixels on their way into an X11 window: a MIT-SHM segment the server reads from, or,
/// where the server cannot attach one (a remote display), plain `PutImage` requests with
/// the pixels in them.
///
/// The segment has the surface's layout (its `stride`), so a damaged rectangle is copied
/// row by row and put from the same place.
final class X11Image {
    /// A shared-memory segment the server has attached; nil without MIT-SHM.
    private var segment: (id: xcb_shm_seg_t, memory: UnsafeMutableRawPointer)?
    private let connection: OpaquePointer
    private let window: xcb_window_t
    private let gc: xcb_gcontext_t
    private let depth: UInt8
    /// Whether the server read the last frame from shared memory (a completion event
    /// follows each frame) or got it in the requests (shown at once).
    var usesSharedMemory: Bool { segment != nil }
    private var width: Int, height: Int, stride: Int

    /// An image for `surface`'s size, shared with the server when `shared` and the server
    /// can attach the segment.
    init(connection: OpaquePointer, window: xcb_window_t, gc: xcb_gcontext_t, depth: UInt8, for surface: Surface, shared: Bool) {
        (self.connection, self.window, self.gc, self.depth) = (connection, window, gc, depth)
        (width, height, stride) = (surface.width, surface.height, surface.stride)
        if shared { segment = Self.attach(connection, bytes: stride * height * 4, checked: true) }
    }

    deinit { detach() }

    /// Whether the server offers MIT-SHM at all.
    static func serverHasSharedMemory(_ connection: OpaquePointer) -> Bool {
        guard let data = xcb_get_extension_data(connection, vitrine_xcb_shm_id()), data.pointee.present != 0 else { return false }
        let reply = xcb_shm_query_version_reply(connection, xcb_shm_query_version(connection), nil)
        defer { free(reply) }
        return reply != nil
    }

    /// The first event number of MIT-SHM's events (its completion event's type).
    static func completionEventType(_ connection: OpaquePointer) -> UInt8? {
        guard let data = xcb_get_extension_data(connection, vitrine_xcb_shm_id()), data.pointee.present != 0 else { return nil }
        return data.pointee.first_event + UInt8(XCB_SHM_COMPLETION)
    }

    /// A segment of `bytes`, attached by us and the server; nil when either fails (then
    /// pixels go in requests). The segment is marked for removal at once: it goes when
    /// the last of us detaches, even if the daemon is killed.
    private static func attach(_ connection: OpaquePointer, bytes: Int, checked: Bool) -> (xcb_shm_seg_t, UnsafeMutableRawPointer)? {
        let id = shmget(IPC_PRIVATE, bytes, IPC_CREAT | 0o600)
        guard id >= 0 else { return nil }
        guard let memory = shmat(id, nil, 0), memory != UnsafeMutableRawPointer(bitPattern: -1) else {
            shmctl(id, IPC_RMID, nil)
            return nil
        }
        let seg = xcb_generate_id(connection)
        if checked {
            let error = xcb_request_check(connection, xcb_shm_attach_checked(connection, seg, UInt32(id), 0))
            shmctl(id, IPC_RMID, nil)
            if let error {
                free(error)
                shmdt(memory)
                return nil
            }
        } else {
            xcb_shm_attach(connection, seg, UInt32(id), 0)
            shmctl(id, IPC_RMID, nil)
        }
        return (seg, memory)
    }

    private func detach() {
        guard let segment else { return }
        // The server finishes the requests before this one (a put reading the segment) first.
        xcb_shm_detach(connection, segment.id)
        shmdt(segment.memory)
        self.segment = nil
    }

    /// Makes the image `surface`'s new size; its contents are unknown until the next `put`.
    func resize(for surface: Surface) {
        (width, height, stride) = (surface.width, surface.height, surface.stride)
        guard segment != nil else { return }
        detach()
        segment = Self.attach(connection, bytes: stride * height * 4, checked: false)
    }

    /// Sends `rects` of `surface` to the window: copied into the segment and put from it
    /// (the last put asks for a completion event when `notify`), or put in requests.
    func put(_ rects: [PixelRect], of surface: Surface, notify: Bool) {
        let rects = rects.map { $0.intersection(surface.bounds) }.filter { !$0.isEmpty }
        guard let segment else {
            for rect in rects { putInRequests(rect, of: surface) }
            return
        }
        let target = segment.memory.assumingMemoryBound(to: UInt32.self)
        for rect in rects {
            for y in rect.y..<rect.maxY {
                (target + y * stride + rect.x).update(from: surface.pixels + y * surface.stride + rect.x, count: rect.width)
            }
        }
        for (index, rect) in rects.enumerated() {
            putShared(rect, notify: notify && index == rects.count - 1)
        }
        if notify, rects.isEmpty { putShared(PixelRect(x: 0, y: 0, width: 1, height: 1), notify: true) }
    }

    /// Shows `rect` of what the segment holds again (an expose), without a completion event.
    func refresh(_ rect: PixelRect, of surface: Surface) {
        let rect = rect.intersection(surface.bounds)
        guard !rect.isEmpty else { return }
        if segment != nil { putShared(rect, notify: false) } else { putInRequests(rect, of: surface) }
    }

    private func putShared(_ r: PixelRect, notify: Bool) {
        guard let segment else { return }
        xcb_shm_put_image(
            connection, window, gc, UInt16(stride), UInt16(height), UInt16(r.x), UInt16(r.y), UInt16(r.width), UInt16(r.height),
            Int16(r.x), Int16(r.y), depth, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), notify ? 1 : 0, segment.id, 0)
    }

    /// `PutImage` requests of as many rows as the server's request size takes.
    private func putInRequests(_ r: PixelRect, of surface: Surface) {
        let maximumBytes = Int(xcb_get_maximum_request_length(connection)) * 4 - 64
        let rowsPerRequest = max(1, min(r.height, maximumBytes / (r.width * 4)))
        var rows = [UInt32](repeating: 0, count: r.width * rowsPerRequest)
        var y = r.y
        while y < r.maxY {
            let count = min(rowsPerRequest, r.maxY - y)
            rows.withUnsafeMutableBufferPointer { buffer in
                for row in 0..<count {
                    (buffer.baseAddress! + row * r.width).update(from: surface.pixels + (y + row) * surface.stride + r.x, count: r.width)
                }
                xcb_put_image(
                    connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, gc, UInt16(r.width), UInt16(count), Int16(r.x), Int16(y), 0, depth,
                    UInt32(r.width * count * 4), UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: UInt8.self))
            }
            y += count
        }
    }
}
