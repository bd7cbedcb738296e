import CWaylandServer
import Glibc
import VitrineCore
import VitrineRaster

/// `wl_compositor`: makes surfaces and regions.
final class Compositor: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: Self.interface, version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch WlCompositorRequest(rawValue: opcode) {
        case .create_surface:
            if let surface = SurfaceObject(server: server, client: client, version: version, id: a[0].n) { server.made(surface) }
        case .create_region: _ = RegionObject(server: server, client: client, version: 1, id: a[0].n)
        case nil: break
        }
    }
}

/// `wl_region`: rectangles added and subtracted in order (input regions use it; opaque
/// regions are not).
final class RegionObject: ServerObject {
    private(set) var region = Region()

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_region_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        let request = WlRegionRequest(rawValue: opcode)
        switch request {
        case .destroy:
            destroy()
        case .add, .subtract:
            guard region.steps.count < Region.maximumSteps else {
                server.logger.warning("Wayland client \(WaylandServer.describe(client)): a region of more than \(Region.maximumSteps) rectangles: disconnected")
                wl_client_post_no_memory(client)
                return
            }
            let rect = PixelRect(x: Int(a[0].i), y: Int(a[1].i), width: Int(a[2].i), height: Int(a[3].i))
            if !rect.isEmpty { region.steps.append((request == .add, rect)) }
        case nil:
            break
        }
    }
}

/// A region of surface pixels: rectangles added to it and subtracted from it, in order.
struct Region {
    static let maximumSteps = 4096
    var steps: [(add: Bool, rect: PixelRect)] = []

    /// Whether the point (`x`, `y`) is in the region: the last rectangle holding it says.
    func contains(_ x: Double, _ y: Double) -> Bool {
        for step in steps.reversed() {
            let r = step.rect
            if x >= Double(r.x), y >= Double(r.y), x < Double(r.maxX), y < Double(r.maxY) { return step.add }
        }
        return false
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
        post(WlCallbackEvent.done.rawValue, [wl_argument(u: milliseconds)])
        destroy()
    }
}

/// `wl_surface`: double-buffered state (buffer, damage, frame callbacks, buffer scale and
/// transform, the viewport's crop and scale) applied on `commit`, or cached until the
/// parent's commit for a synchronized subsurface; the committed buffer is held
/// (`ClientBuffer`) and drawn from until a later commit replaces it, which releases it to
/// the client.
final class SurfaceObject: ServerObject {
    /// What gives the surface its meaning.
    enum Role {
        case xdg(XDGSurfaceObject)
        case subsurface(SubsurfaceObject)
        /// Xwayland's surface of an X11 window, given by the X window manager.
        case xwayland(XWaylandSurface)
        /// A layer shell surface (`zwlr_layer_surface_v1`).
        case layer(LayerSurface)
        /// The pointer's cursor (`wl_pointer.set_cursor`).
        case cursor
    }

    /// The state a commit applies.
    struct State {
        /// The buffer attached (a null one: none), or nil when no attach was made.
        var attached: (resource: OpaquePointer?, id: UInt32)?
        var surfaceDamage: [PixelRect] = []
        var bufferDamage: [PixelRect] = []
        var callbacks: [CallbackObject] = []
        var feedback: [PresentationFeedback] = []
        var scale = 1
        var transform = BufferMapping.Transform.normal
        var source: Rect?
        var destination: (width: Int, height: Int)?
        /// The input region set (nil inside: none, everywhere), or nil when it was not set.
        var inputRegion: Region??
        /// The synchronized subsurfaces' cached states, taken by this commit (a held one
        /// keeps them while it waits); nil: taken from their caches when it is applied.
        var children: [ChildState]?

        /// `newer` committed over this (cached) state.
        mutating func take(_ newer: State) {
            attached = newer.attached ?? attached
            surfaceDamage += newer.surfaceDamage
            bufferDamage += newer.bufferDamage
            callbacks += newer.callbacks
            for replaced in feedback { replaced.discard() }
            feedback = newer.feedback
            (scale, transform, source, destination) = (newer.scale, newer.transform, newer.source, newer.destination)
            if let region = newer.inputRegion { inputRegion = region }
        }

        /// What stays for the next commit: the settings, not the buffer, damage or callbacks.
        var settings: State {
            var kept = State()
            (kept.scale, kept.transform, kept.source, kept.destination) = (scale, transform, source, destination)
            return kept
        }
    }

    /// A synchronized subsurface's state a parent's commit took.
    struct ChildState {
        weak var surface: SurfaceObject?
        var state: State
    }

    var role: Role?
    /// The committed buffer (premultiplied ARGB, or XRGB: opaque).
    private(set) var buffer: ClientBuffer?
    /// How the committed buffer maps onto the surface; nil without a buffer.
    private(set) var mapping: BufferMapping?
    /// Where the committed pictures changed since its window last took its damage, in
    /// surface coordinates.
    var damage: [PixelRect] = []
    /// Its subsurfaces, bottom first, the first `childrenBelow` of them under this surface
    /// and the others over it (their order changes on this surface's commit).
    var children: [SubsurfaceObject] = []
    private(set) var childrenBelow = 0
    /// The order of the subsurfaces the next commit applies.
    var pendingChildren: [SubsurfaceObject] = []
    var pendingChildrenBelow = 0
    /// The outputs it was told it is on (`wl_surface.enter`), by name.
    var outputs: Set<String> = []
    /// Its resource is being destroyed: nothing more is sent to it.
    private(set) var isGone = false
    /// Its `wp_viewport`, if it has one.
    weak var viewport: ViewportObject?
    /// Where the surface takes input; nil: everywhere (`set_input_region` with null).
    private var inputRegion: Region?

    private var pending = State()
    /// A synchronized subsurface's committed state, waiting for its parent's commit.
    private var cached: State?
    /// Commits held until the dma-bufs they show are written (DmabufFences.swift).
    private var heldCommits: HeldCommits?
    private var callbacks: [CallbackObject] = []
    /// `wp_presentation_feedback` for the next commit, and for the last one until a frame shows it.
    var pendingFeedback: [PresentationFeedback] = []
    var feedback: [PresentationFeedback] = []

    /// The preferred scale last told (`wl_surface.preferred_buffer_scale` from version 6,
    /// `wp_fractional_scale_v1`): 1 until told otherwise.
    var preferredScale = 1.0
    /// Its `wp_fractional_scale_v1`, if it has one.
    weak var fractionalScale: FractionalScaleObject?

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: Self.interface, version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        let request = WlSurfaceRequest(rawValue: opcode)
        switch request {
        case .destroy:
            destroy()
        case .attach:
            if case .xdg(let xdg) = role, a[0].resource != nil, !xdg.configured, !server.acceptsUnacknowledgedBuffers {
                xdg.postError(XdgSurfaceError.unconfigured_buffer, "a buffer was attached before the first xdg_surface.configure was acknowledged")
                return
            }
            if version >= 5, a[1].i != 0 || a[2].i != 0 {
                postError(WlSurfaceError.invalid_offset, "attach with an offset is not allowed from version 5 on; use wl_surface.offset")
                return
            }
            pending.attached = (a[0].resource, a[0].resource.map { wl_resource_get_id($0) } ?? 0)
        case .damage, .damage_buffer:
            let rect = PixelRect(x: Int(a[0].i), y: Int(a[1].i), width: Int(a[2].i), height: Int(a[3].i))
            guard !rect.isEmpty else { return }
            if request == .damage { Self.add(rect, to: &pending.surfaceDamage) } else { Self.add(rect, to: &pending.bufferDamage) }
        case .frame:
            if let callback = CallbackObject(server: server, client: client, id: a[0].n) { pending.callbacks.append(callback) }
        case .set_input_region:
            pending.inputRegion = .some(ServerObject.of(a[0].resource, as: RegionObject.self)?.region)
        case .commit:
            commit()
        case .set_buffer_scale:
            guard a[0].i >= 1 else {
                postError(WlSurfaceError.invalid_scale, "buffer scale \(a[0].i) is not positive")
                return
            }
            pending.scale = Int(a[0].i)
        case .set_buffer_transform:
            guard let transform = BufferMapping.Transform(rawValue: Int(a[0].i)) else {
                postError(WlSurfaceError.invalid_transform, "buffer transform \(a[0].i) is not a wl_output.transform")
                return
            }
            pending.transform = transform
        case .set_opaque_region, .offset, nil:
            break
        }
    }

    static let everything = PixelRect(x: 0, y: 0, width: 1 << 20, height: 1 << 20)

    /// Adds damage `rect` to `list`, which becomes everything past 64 rectangles.
    private static func add(_ rect: PixelRect, to list: inout [PixelRect]) {
        if list.count < 64 { list.append(rect) } else { list = [everything] }
    }

    override func destroyed() {
        isGone = true
        server.liftTouches(on: self)
        if server.seat.pointerFocus === self { server.seat.pointerFocusChanged() }
        pending.callbacks.removeAll()
        for item in cached?.feedback ?? [] { item.discard() }
        cached = nil
        heldCommits?.drop()
        heldCommits = nil
        discardFeedback(pending: true)
        viewport?.surfaceGone()
        switch role {
        case .xdg(let xdg): xdg.surfaceGone()
        case .subsurface(let sub): sub.surfaceGone()
        case .xwayland(let x): x.surfaceGone()
        case .layer(let layer): layer.surfaceGone()
        case .cursor: server.seat.cursorGone(self)
        case nil: break
        }
        buffer?.drop()
        buffer = nil
    }

    /// The piece this surface adds to its window with its top-left at (`x`, `y`) in window
    /// coordinates: the viewport's source of its buffer, mapped by its buffer transform,
    /// scale and viewport; nil without a buffer.
    func piece(x: Int, y: Int) -> WindowPiece? {
        guard let buffer, let mapping else { return nil }
        return WindowPiece(
            buffer: buffer, source: mapping.bufferSource,
            toWindow: mapping.bufferToSurface.concatenating(AffineTransform(translationX: Double(x), y: Double(y))))
    }

    /// Whether a buffer is committed, or attached for the next commit.
    var hasBuffer: Bool {
        buffer != nil || pending.attached?.resource != nil || cached?.attached?.resource != nil || heldCommits?.attachesBuffer == true
    }

    /// The surface's size in surface coordinates; nil without a buffer.
    var size: (width: Int, height: Int)? { mapping.map { ($0.surfaceWidth, $0.surfaceHeight) } }

    /// Sets the viewport's source rectangle (nil: unset) for the next commit.
    func pendingViewport(source: Rect?) { pending.source = source }

    /// Sets the viewport's destination size (nil: unset) for the next commit.
    func pendingViewport(destination: (width: Int, height: Int)?) { pending.destination = destination }

    /// Unsets the viewport's source and destination for the next commit.
    func pendingViewport(source: Rect?, destination: (width: Int, height: Int)?) {
        (pending.source, pending.destination) = (source, destination)
    }

    /// Takes `child` out of the current and pending stacking orders (it is going).
    func forget(_ child: SubsurfaceObject) {
        if let index = children.firstIndex(where: { $0 === child }) {
            children.remove(at: index)
            if index < childrenBelow { childrenBelow -= 1 }
        }
        if let index = pendingChildren.firstIndex(where: { $0 === child }) {
            pendingChildren.remove(at: index)
            if index < pendingChildrenBelow { pendingChildrenBelow -= 1 }
        }
    }

    /// The subsurface role, when the surface has it.
    private var subsurface: SubsurfaceObject? {
        if case .subsurface(let sub) = role { sub } else { nil }
    }

    /// Whether its commits wait for its parent's: a synchronized subsurface, or one under
    /// a parent that is.
    var isEffectivelySynchronized: Bool {
        guard let sub = subsurface else { return false }
        return sub.isSynchronized || (sub.parent?.isEffectivelySynchronized ?? false)
    }

    /// `wl_surface.commit`: applies the pending state, with what was cached, unless the
    /// surface is effectively synchronized (then it waits in the cache) or a dma-buf it
    /// (or a synchronized subsurface) shows is still being written, or an earlier commit
    /// waits for that (then it is held, `HeldCommits`; a subsurface made synchronized
    /// while its commits are held queues behind them, in order).
    private func commit() {
        if preferredScale != windowScale { prefer(scale: windowScale) }
        pending.feedback = pendingFeedback
        pendingFeedback.removeAll()
        var state = cached ?? State()
        let replaced = state.attached
        state.take(pending)
        pending = pending.settings
        if let (resource, id) = replaced, let resource, resource != state.attached?.resource { releaseUnshown(resource, id: id) }
        if isEffectivelySynchronized, heldCommits?.isHolding != true {
            cached = state
            return
        }
        cached = nil
        guard heldCommits != nil || !server.dmabufImages.isEmpty else {
            apply(state, notify: true)
            return
        }
        state.children = takeSynchronizedChildStates()
        if heldCommits?.isHolding != true, state.unwrittenBuffers(of: client, server: server).isEmpty {
            apply(state, notify: true)
            return
        }
        let held = heldCommits ?? HeldCommits(surface: self)
        heldCommits = held
        held.hold(state)
    }

    /// Takes the states the synchronized subsurfaces cached, with theirs, for a commit.
    private func takeSynchronizedChildStates() -> [ChildState] {
        pendingChildren.compactMap { child in
            guard let surface = child.surface, surface.isEffectivelySynchronized, var state = surface.cached else { return nil }
            surface.cached = nil
            state.children = surface.takeSynchronizedChildStates()
            return ChildState(surface: surface, state: state)
        }
    }

    /// Tells the client it may reuse `resource`, a buffer a synchronized subsurface cached
    /// and replaced before it was shown, unless the surface shows it or a held commit
    /// attaches it.
    func releaseUnshown(_ resource: OpaquePointer, id: UInt32) {
        guard buffer?.resource != resource, heldCommits?.attaches(resource) != true, wl_client_get_object(client, id) == resource else { return }
        postEvent(resource, WlBufferEvent.release.rawValue)
    }

    /// Applies a held commit whose dma-bufs are written.
    func applyHeld(_ state: State) { apply(state, notify: true) }

    /// Applies what a synchronized subsurface cached, on its parent's commit.
    func applyCached() -> Bool {
        guard let state = cached else { return false }
        cached = nil
        return apply(state, notify: false)
    }

    /// Applies `state`: the buffer held, the mapping and damage in both spaces, the
    /// callbacks, then the subsurfaces' positions, order and cached states. `notify`
    /// tells the role; false when an ancestor's commit does. Whether anything shown changed.
    @discardableResult
    private func apply(_ state: State, notify: Bool) -> Bool {
        var changed = false
        let old = mapping
        if let (resource, id) = state.attached {
            if let resource, wl_client_get_object(client, id) == resource {
                guard hold(resource) else { return false }
            } else {
                buffer?.drop()
                buffer = nil
            }
            changed = true
        }
        if let buffer {
            do {
                mapping = try BufferMapping(
                    bufferWidth: buffer.width, bufferHeight: buffer.height, scale: state.scale, transform: state.transform, source: state.source,
                    destination: state.destination)
            } catch {
                switch error {
                case .sizeNotMultipleOfScale: postError(WlSurfaceError.invalid_size, error.description)
                case .fractionalSourceWithoutDestination:
                    if let viewport {
                        viewport.postError(WpViewportError.bad_size, error.description)
                    } else {
                        postError(WlSurfaceError.invalid_size, error.description)
                    }
                case .sourceOutsideBuffer:
                    if let viewport {
                        viewport.postError(WpViewportError.out_of_buffer, error.description)
                    } else {
                        postError(WlSurfaceError.invalid_size, error.description)
                    }
                }
                return false
            }
        } else {
            mapping = nil
        }
        if let mapping {
            var surfaceDamage = state.surfaceDamage + state.bufferDamage.map { mapping.surfaceRect(ofBuffer: $0) }
            if mapping != old { surfaceDamage = [mapping.surfaceBounds] }
            let inside = surfaceDamage.map { $0.intersection(mapping.surfaceBounds) }.filter { !$0.isEmpty }
            if !inside.isEmpty {
                damage += inside
                if damage.count > 64 { damage = [mapping.surfaceBounds] }
                changed = true
            }
        }
        callbacks += state.callbacks
        if let region = state.inputRegion { inputRegion = region }
        for old in feedback { old.discard() }
        feedback = state.feedback
        if pendingChildren.map(ObjectIdentifier.init) != children.map(ObjectIdentifier.init) || pendingChildrenBelow != childrenBelow {
            children = pendingChildren
            childrenBelow = pendingChildrenBelow
            changed = true
        }
        for child in children {
            if child.applyPosition() { changed = true }
            guard let surface = child.surface, !surface.isGone else { continue }
            if let taken = state.children {
                if let entry = taken.first(where: { $0.surface === surface }), surface.apply(entry.state, notify: false) { changed = true }
            } else if surface.isEffectivelySynchronized, surface.applyCached() {
                changed = true
            }
        }
        if notify {
            switch role {
            case .xdg(let xdg): xdg.committed(changed: changed)
            case .subsurface(let sub): sub.committed(changed: changed)
            case .xwayland(let x): x.committed(changed: changed)
            case .layer(let layer): layer.committed(changed: changed)
            case .cursor: cursorCommitted()
            case nil: break
            }
            if !feedback.isEmpty {
                // Shown only as part of a mapped window; the daemon decides whether a frame shows it.
                if let toplevel, toplevel.isMapped {
                    server.changed(toplevel)
                } else if let layer = layerSurface, layer.isMapped {
                    server.layerShellDelegate?.layerSurfaceChanged(layer)
                } else if let shown = xwayland, shown.isShown {
                    shown.commitWaits()
                } else {
                    discardFeedback(pending: false)
                }
            }
        }
        return changed
    }

    /// Shows `resource` from now on, in place of the buffer shown so far (released). False
    /// when the client was sent an error instead.
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

    /// Whether the point (`x`, `y`) of the surface takes input: on its picture and in its
    /// input region.
    func takesInput(at x: Double, _ y: Double) -> Bool {
        guard let size, x >= 0, y >= 0, x < Double(size.width), y < Double(size.height) else { return false }
        return inputRegion?.contains(x, y) ?? true
    }

    /// The toplevel this surface is (part of).
    var toplevel: Toplevel? {
        switch role {
        case .xdg(let xdg): xdg.window
        case .subsurface(let sub): sub.parent?.toplevel
        case .xwayland, .layer, .cursor, nil: nil
        }
    }

    /// The X11 window's surface this surface is (part of).
    var xwayland: XWaylandSurface? {
        switch role {
        case .xwayland(let x): x
        case .subsurface(let sub): sub.parent?.xwayland
        case .xdg, .layer, .cursor, nil: nil
        }
    }
}

/// `wl_subcompositor`: makes subsurfaces.
final class SubcompositorObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_subcompositor_interface(), version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch WlSubcompositorRequest(rawValue: opcode) {
        case .destroy:
            destroy()
        case .get_subsurface:
            guard let surface = ServerObject.of(a[1].resource, as: SurfaceObject.self), let parent = ServerObject.of(a[2].resource, as: SurfaceObject.self)
            else { return }
            guard surface.role == nil, surface !== parent else {
                postError(WlSubcompositorError.bad_surface, "wl_surface@\(wl_resource_get_id(surface.resource)) already has a role or is its own parent")
                return
            }
            var ancestor: SurfaceObject? = parent
            while case .subsurface(let sub) = ancestor?.role {
                if sub.parent === surface {
                    postError(WlSubcompositorError.bad_surface, "a subsurface cannot be its own ancestor")
                    return
                }
                ancestor = sub.parent
            }
            guard let sub = SubsurfaceObject(server: server, client: client, id: a[0].n, surface: surface, parent: parent) else { return }
            surface.role = .subsurface(sub)
            parent.children.append(sub)
            parent.pendingChildren.append(sub)
        case nil:
            break
        }
    }
}

/// `wl_subsurface`: a surface drawn over its parent at a position (surface coordinates),
/// a piece of its toplevel's window. Synchronized (as it starts), its commits are
/// cached and applied with its parent's; its position and stacking apply on its parent's
/// commit.
final class SubsurfaceObject: ServerObject {
    weak var surface: SurfaceObject?
    weak var parent: SurfaceObject?
    private(set) var x = 0, y = 0
    private var pendingPosition: (x: Int, y: Int)?
    private(set) var isSynchronized = true

    init?(server: WaylandServer, client: OpaquePointer, id: UInt32, surface: SurfaceObject, parent: SurfaceObject) {
        self.surface = surface
        self.parent = parent
        super.init(server: server, client: client, interface: vitrine_wl_subsurface_interface(), version: 1, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch WlSubsurfaceRequest(rawValue: opcode) {
        case .destroy: destroy()
        case .set_position: pendingPosition = (Int(a[0].i), Int(a[1].i))
        case .place_above: restack(true, relativeTo: a[0].resource)
        case .place_below: restack(false, relativeTo: a[0].resource)
        case .set_sync: isSynchronized = true
        case .set_desync: isSynchronized = false
        case nil: break
        }
    }

    /// `place_above` / `place_below` `sibling` (the parent or another of its subsurfaces),
    /// in the order the parent's next commit applies.
    private func restack(_ above: Bool, relativeTo sibling: OpaquePointer?) {
        guard let parent, let other = ServerObject.of(sibling, as: SurfaceObject.self) else { return }
        var order = parent.pendingChildren
        var below = parent.pendingChildrenBelow
        if let mine = order.firstIndex(where: { $0 === self }) {
            order.remove(at: mine)
            if mine < below { below -= 1 }
        }
        if other === parent {
            // Right over the parent, or right under it.
            order.insert(self, at: below)
            if !above { below += 1 }
        } else if case .subsurface(let sub) = other.role, sub.parent === parent, let at = order.firstIndex(where: { $0 === sub }) {
            order.insert(self, at: above ? at + 1 : at)
            if at < below { below += 1 }
        } else {
            postError(WlSubsurfaceError.bad_surface, "wl_surface@\(wl_resource_get_id(other.resource)) is neither the parent nor a sibling of this subsurface")
            return
        }
        (parent.pendingChildren, parent.pendingChildrenBelow) = (order, below)
    }

    /// Takes the position set since the parent's last commit; whether it moved.
    func applyPosition() -> Bool {
        guard let (newX, newY) = pendingPosition else { return false }
        pendingPosition = nil
        guard (newX, newY) != (x, y) else { return false }
        (x, y) = (newX, newY)
        return true
    }

    override func destroyed() { detach() }

    func surfaceGone() {
        detach()
    }

    private func detach() {
        parent?.forget(self)
        if case .subsurface(let me) = surface?.role, me === self { surface?.role = nil }
        let top = parent?.toplevel
        parent = nil
        top?.contentChanged()
    }

    func committed(changed: Bool) {
        guard changed else { return }
        parent?.toplevel?.contentChanged()
    }
}
