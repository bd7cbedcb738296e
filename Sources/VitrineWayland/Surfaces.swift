import CWaylandServer
import Glibc
import VitrineCore
import VitrineRaster

/// `wl_compositor`: makes surfaces and regions.
final class Compositor: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_compositor_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case 0: _ = SurfaceObject(server: server, client: client, version: version, id: a[0].n)
        case 1: _ = RegionObject(server: server, client: client, version: 1, id: a[0].n)
        default: break
        }
    }
}

/// `wl_region`: kept only as far as the protocol needs (opaque and input regions are
/// not used yet).
final class RegionObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_region_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == 0 { destroy() }
    }
}

/// `wl_callback`: a frame callback, done when a frame showing its surface is presented.
final class CallbackObject: ServerObject {
    private(set) var alive = true

    init?(server: WaylandServer, client: OpaquePointer, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_callback_interface(), version: 1, id: id)
    }

    override func destroyed() { alive = false }

    /// Sends `done` with `milliseconds` and ends the callback.
    func done(_ milliseconds: UInt32) {
        guard alive else { return }
        wl_callback_send_done(resource, milliseconds)
        destroy()
    }
}

/// `wl_surface`: double-buffered state (buffer, damage, frame callbacks) applied on
/// `commit`; the committed buffer is copied into `image` at once and released to the
/// client, so that drawing never waits for it.
final class SurfaceObject: ServerObject {
    /// What gives the surface its meaning.
    enum Role {
        case xdg(XDGSurfaceObject)
        case subsurface(SubsurfaceObject)
    }

    var role: Role?
    /// The committed picture (premultiplied ARGB, opaque for XRGB buffers).
    private(set) var image: Surface?
    /// The picture came from an XRGB buffer: every pixel is opaque.
    private(set) var isOpaque = false
    /// Where the committed pictures changed since the role took them, in surface pixels.
    var damage: [PixelRect] = []
    /// Subsurfaces over this one, bottom first.
    var children: [SubsurfaceObject] = []

    private var pendingBuffer: (resource: OpaquePointer?, id: UInt32)?
    private var pendingDamage: [PixelRect] = []
    private var pendingCallbacks: [CallbackObject] = []
    private var callbacks: [CallbackObject] = []

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_surface_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case 0:
            destroy()
        case 1:
            if case .xdg(let xdg) = role, a[0].resource != nil, !xdg.configured {
                xdg.postError(3, "a buffer was attached before the first xdg_surface.configure was acknowledged")
                return
            }
            if version >= 5, a[1].i != 0 || a[2].i != 0 {
                postError(3, "attach with an offset is not allowed from version 5 on; use wl_surface.offset")
                return
            }
            pendingBuffer = (a[0].resource, a[0].resource.map { wl_resource_get_id($0) } ?? 0)
        case 2, 9:
            // Scale 1 and no buffer transform: surface and buffer coordinates are one.
            let rect = PixelRect(x: Int(a[0].i), y: Int(a[1].i), width: Int(a[2].i), height: Int(a[3].i))
            if !rect.isEmpty, pendingDamage.count < 64 { pendingDamage.append(rect) } else if !rect.isEmpty { pendingDamage = [Self.everything] }
        case 3:
            if let callback = CallbackObject(server: server, client: client, id: a[0].n) { pendingCallbacks.append(callback) }
        case 6:
            commit()
        case 8:
            if a[0].i < 1 { postError(0, "buffer scale \(a[0].i) is not positive") }
        case 7:
            if a[0].i < 0 || a[0].i > 7 { postError(1, "buffer transform \(a[0].i) is not a wl_output.transform") }
        default:
            break
        }
    }

    static let everything = PixelRect(x: 0, y: 0, width: 1 << 20, height: 1 << 20)

    override func destroyed() {
        pendingCallbacks.removeAll()
        switch role {
        case .xdg(let xdg): xdg.surfaceGone()
        case .subsurface(let sub): sub.surfaceGone()
        case nil: break
        }
        release(image)
        image = nil
    }

    private func release(_ picture: Surface?) {
        guard let picture else { return }
        _ = server.reserve(-picture.stride * picture.height * 4)
    }

    /// Applies the pending state.
    private func commit() {
        var changed = false
        if let (buffer, id) = pendingBuffer {
            pendingBuffer = nil
            if let buffer, wl_client_get_object(client, id) == buffer {
                guard copy(buffer) else { return }
            } else {
                release(image)
                image = nil
            }
            changed = true
        }
        if let image, !pendingDamage.isEmpty {
            let whole = image.bounds
            damage += pendingDamage.map { $0.intersection(whole) }.filter { !$0.isEmpty }
            changed = true
        }
        pendingDamage.removeAll()
        callbacks += pendingCallbacks
        pendingCallbacks.removeAll()
        switch role {
        case .xdg(let xdg): xdg.committed(changed: changed)
        case .subsurface(let sub): sub.committed(changed: changed)
        case nil: break
        }
    }

    /// Copies the shm buffer into `image` (its damage only when the size stays) and
    /// releases it; false when the client was sent an error instead.
    private func copy(_ buffer: OpaquePointer) -> Bool {
        guard let shm = wl_shm_buffer_get(buffer) else {
            postError(UInt32(WL_DISPLAY_ERROR_INVALID_OBJECT.rawValue), "only wl_shm buffers are shown")
            return false
        }
        let width = Int(wl_shm_buffer_get_width(shm)), height = Int(wl_shm_buffer_get_height(shm))
        let stride = Int(wl_shm_buffer_get_stride(shm))
        let format = wl_shm_buffer_get_format(shm)
        guard format == WL_SHM_FORMAT_ARGB8888.rawValue || format == WL_SHM_FORMAT_XRGB8888.rawValue else {
            postError(UInt32(WL_DISPLAY_ERROR_INVALID_OBJECT.rawValue), "buffer format \(format) is not ARGB8888 or XRGB8888")
            return false
        }
        guard width <= 8192, height <= 8192 else {
            postError(2, "a \(width)×\(height) buffer is larger than the 8192×8192 shown")
            return false
        }
        var target = image
        var rects = pendingDamage
        if target == nil || target!.width != width || target!.height != height {
            let fresh = Surface(width: width, height: height)
            guard server.reserve(fresh.stride * height * 4) else {
                server.logger.warning(
                    "Wayland client \(WaylandServer.describe(client)): a \(width)×\(height) surface does not fit in limits.memory_mb: disconnected")
                wl_client_post_no_memory(client)
                return false
            }
            release(image)
            target = fresh
            rects = [fresh.bounds]
            pendingDamage = [fresh.bounds]
        }
        guard let target else { return false }
        let opaque = format == WL_SHM_FORMAT_XRGB8888.rawValue
        wl_shm_buffer_begin_access(shm)
        if let data = wl_shm_buffer_get_data(shm) {
            for rect in rects {
                let r = rect.intersection(target.bounds)
                guard !r.isEmpty else { continue }
                for y in r.y..<r.maxY {
                    let source = (data + y * stride).assumingMemoryBound(to: UInt32.self) + r.x
                    let row = target.pixels + y * target.stride + r.x
                    if opaque {
                        for x in 0..<r.width { row[x] = source[x] | 0xFF00_0000 }
                    } else {
                        row.update(from: source, count: r.width)
                    }
                }
            }
        }
        wl_shm_buffer_end_access(shm)
        wl_buffer_send_release(buffer)
        image = target
        isOpaque = opaque
        return true
    }

    /// Sends `done` to the committed frame callbacks of this surface and its subsurfaces.
    func sendFrameDone(_ milliseconds: UInt32) {
        let due = callbacks
        callbacks.removeAll()
        for callback in due { callback.done(milliseconds) }
        for child in children { child.surface?.sendFrameDone(milliseconds) }
    }

    /// Whether frame callbacks wait.
    var awaitsFrame: Bool { !callbacks.isEmpty || children.contains { $0.surface?.awaitsFrame ?? false } }

    /// The toplevel this surface is (part of).
    var toplevel: Toplevel? {
        switch role {
        case .xdg(let xdg): xdg.toplevel
        case .subsurface(let sub): sub.parent?.toplevel
        case nil: nil
        }
    }
}

/// `wl_subcompositor`: makes subsurfaces.
final class SubcompositorObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_subcompositor_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case 0:
            destroy()
        case 1:
            guard let surface = ServerObject.of(a[1].resource, as: SurfaceObject.self), let parent = ServerObject.of(a[2].resource, as: SurfaceObject.self)
            else { return }
            guard surface.role == nil, surface !== parent else {
                postError(0, "wl_surface@\(wl_resource_get_id(surface.resource)) already has a role or is its own parent")
                return
            }
            var ancestor: SurfaceObject? = parent
            while case .subsurface(let sub) = ancestor?.role {
                if sub.parent === surface {
                    postError(0, "a subsurface cannot be its own ancestor")
                    return
                }
                ancestor = sub.parent
            }
            guard let sub = SubsurfaceObject(server: server, client: client, id: a[0].n, surface: surface, parent: parent) else { return }
            surface.role = .subsurface(sub)
            parent.children.append(sub)
        default:
            break
        }
    }
}

/// `wl_subsurface`: a surface drawn over its parent at a position, composed into the
/// toplevel's picture. Its state applies on its own commit (as desynchronized ones do).
final class SubsurfaceObject: ServerObject {
    weak var surface: SurfaceObject?
    weak var parent: SurfaceObject?
    var x = 0, y = 0

    init?(server: WaylandServer, client: OpaquePointer, id: UInt32, surface: SurfaceObject, parent: SurfaceObject) {
        self.surface = surface
        self.parent = parent
        super.init(server: server, client: client, interface: vitrine_wl_subsurface_interface(), version: 1, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case 0: destroy()
        case 1: (x, y) = (Int(a[0].i), Int(a[1].i))
        case 2, 3:
            guard let parent, let index = parent.children.firstIndex(where: { $0 === self }) else { return }
            parent.children.remove(at: index)
            parent.children.insert(self, at: opcode == 2 ? parent.children.count : 0)
        default: break
        }
    }

    override func destroyed() { detach() }

    func surfaceGone() {
        detach()
    }

    private func detach() {
        parent?.children.removeAll { $0 === self }
        if case .subsurface(let me) = surface?.role, me === self { surface?.role = nil }
        let top = parent?.toplevel
        parent = nil
        top?.contentChanged(whole: true)
    }

    func committed(changed: Bool) {
        guard changed else { return }
        surface?.damage.removeAll()
        parent?.toplevel?.contentChanged(whole: true)
    }
}
