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
/// `commit`; the committed buffer is held (`ClientBuffer`) and drawn from until the next
/// commit replaces it, which releases it to the client.
final class SurfaceObject: ServerObject {
    /// What gives the surface its meaning.
    enum Role {
        case xdg(XDGSurfaceObject)
        case subsurface(SubsurfaceObject)
    }

    var role: Role?
    /// The committed buffer (premultiplied ARGB, or XRGB: opaque).
    private(set) var buffer: ClientBuffer?
    /// Where the committed pictures changed since the role took them, in surface pixels.
    var damage: [PixelRect] = []
    /// Subsurfaces over this one, bottom first.
    var children: [SubsurfaceObject] = []

    private var pendingBuffer: (resource: OpaquePointer?, id: UInt32)?
    private var pendingDamage: [PixelRect] = []
    private var pendingCallbacks: [CallbackObject] = []
    private var callbacks: [CallbackObject] = []
    /// `wp_presentation_feedback` for the next commit, and for the last one until a frame shows it.
    var pendingFeedback: [PresentationFeedback] = []
    var feedback: [PresentationFeedback] = []

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
        discardFeedback(pending: true)
        switch role {
        case .xdg(let xdg): xdg.surfaceGone()
        case .subsurface(let sub): sub.surfaceGone()
        case nil: break
        }
        buffer?.drop()
        buffer = nil
    }

    /// The piece this surface adds to its window with its top-left at (`x`, `y`) in window
    /// coordinates: its whole buffer, a buffer pixel a surface unit (scale 1, no buffer
    /// transform, no viewport); nil without a buffer.
    func piece(x: Int, y: Int) -> WindowPiece? {
        guard let buffer else { return nil }
        return WindowPiece(buffer: buffer, source: buffer.bounds.rect, toWindow: AffineTransform(translationX: Double(x), y: Double(y)))
    }

    /// The surface's size in surface coordinates; nil without a buffer.
    var size: (width: Int, height: Int)? { buffer.map { ($0.width, $0.height) } }

    /// Applies the pending state.
    private func commit() {
        var changed = false
        if let (buffer, id) = pendingBuffer {
            pendingBuffer = nil
            if let buffer, wl_client_get_object(client, id) == buffer {
                guard hold(buffer) else { return }
            } else {
                self.buffer?.drop()
                self.buffer = nil
            }
            changed = true
        }
        if let buffer, !pendingDamage.isEmpty {
            let whole = buffer.bounds
            damage += pendingDamage.map { $0.intersection(whole) }.filter { !$0.isEmpty }
            changed = true
        }
        pendingDamage.removeAll()
        callbacks += pendingCallbacks
        pendingCallbacks.removeAll()
        commitFeedback()
        switch role {
        case .xdg(let xdg): xdg.committed(changed: changed)
        case .subsurface(let sub): sub.committed(changed: changed)
        case nil: break
        }
        if !feedback.isEmpty {
            // Shown only as part of a mapped toplevel; the daemon decides whether a frame shows it.
            if let toplevel, toplevel.isMapped { server.changed(toplevel) } else { discardFeedback(pending: false) }
        }
    }

    /// Shows `resource` from now on, in place of the buffer shown so far (released); the
    /// whole surface is damaged when its size changes. False when the client was sent an
    /// error instead.
    private func hold(_ resource: OpaquePointer) -> Bool {
        if let buffer, buffer.resource == resource, !buffer.isDestroyed { return true }
        let held: ClientBuffer
        do { held = try ClientBuffer(resource, server: server) } catch {
            postError(error.code, error.message)
            return false
        }
        guard held.count(replacing: buffer) else {
            server.logger.warning(
                "Wayland client \(WaylandServer.describe(client)): a \(held.width)×\(held.height) surface does not fit in limits.memory_mb: disconnected")
            wl_client_post_no_memory(client)
            return false
        }
        if buffer?.width != held.width || buffer?.height != held.height { pendingDamage = [held.bounds] }
        buffer?.drop()
        buffer = held
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
