import Glibc
import VitrineCore
import VitrineJSON
import VitrineProtocol
import VitrineSystem
import VitrineWayland

/// Surface layers: Wayland clients' toplevel windows shown as layers' contents, placed by
/// `[[compositor.rules]]` and `surface.assign`, with `surface.*` events.
extension Compositor: WaylandServerDelegate {
    /// Registers the renderer of the `surface` kind and adds its damage to every output's.
    func attachSurfaces() -> SurfaceRenderer {
        let surfaces = SurfaceRenderer()
        pipeline.renderer.register(surfaces, forKind: SurfaceLayer.kindName)
        for head in heads { head.pipeline.extraDamage = extraDamage(for: head, surfaces: surfaces) }
        return surfaces
    }

    /// The damage of `head`'s content that changes by itself: video frames, and windows
    /// (kept apart per output, since outputs may show one layer).
    func extraDamage(for head: OutputHead, surfaces: SurfaceRenderer) -> (RenderTree) -> [Rect] {
        let output = ObjectIdentifier(head)
        return { [unowned videos = videos!, unowned surfaces] tree in videos.damage(in: tree) + surfaces.damage(in: tree, output: output) }
    }

    /// Serves Wayland clients with `server`: its pictures count in `limits.memory_mb` with
    /// the images and videos.
    public func serve(_ server: WaylandServer) {
        wayland = server
        server.delegate = self
        server.memoryAvailable = { [unowned self, unowned server] in
            (settings.limits.memoryMB << 20) - videos.bytes - pipeline.renderer.images.usedBytes - server.bytes
        }
        server.onMemory = { [unowned self] _ in rebudgetImages() }
        seatRouter = SeatRouter(compositor: self, server: server)
        server.pingTimeout = settings.compositor.pingTimeout
        server.maximumObjectsPerClient = settings.compositor.maxObjectsPerClient
        server.maximumPoolsPerClient = settings.compositor.maxShmPoolsPerClient
    }

    /// The image store's budget: `limits.memory_mb` less what videos and surfaces hold.
    func rebudgetImages() {
        pipeline.renderer.images.budget = max(0, (settings.limits.memoryMB << 20) - videos.bytes - (wayland?.bytes ?? 0))
    }

    /// After a frame is presented: the frame callbacks of the windows it showed are done.
    func surfacesPresented() {
        guard let wayland else { return }
        wayland.framePresented(showing: surfaces.takeShown(), milliseconds: Self.milliseconds())
    }

    static func milliseconds() -> UInt32 { UInt32(truncatingIfNeeded: EventLoop.monotonicNanoseconds() / 1_000_000) }

    // MARK: WaylandServerDelegate

    public func toplevelMapped(_ toplevel: Toplevel) {
        if assignedLayer(of: toplevel) == nil, let rule = settings.compositor.rules.first(where: { $0.matches(appID: toplevel.appID, title: toplevel.title) }) {
            do { try assign(toplevel, to: rule.layer) } catch  where error.code == "unknown_layer" {
                logger.info(
                    "surface \(toplevel.id) (\(toplevel.appID)) waits for layer \(rule.layer), which its rule names: it goes there once added (kind surface)")
            } catch {
                logger.warning("surface \(toplevel.id) (\(toplevel.appID)): rule for layer \(rule.layer) not applied: \(error.message)")
            }
        }
        if assignedLayer(of: toplevel) == nil { toplevel.discardFeedback() }
        reportedLayers[toplevel.id] = assignedLayer(of: toplevel)
        reportAssignments()
        logger.info("surface \(toplevel.id) mapped: app id '\(toplevel.appID)', title '\(toplevel.title)', pid \(toplevel.pid)")
        broadcast(.surfaceMapped(description(of: toplevel)))
        requestFrame()
    }

    public func toplevelUnmapped(_ toplevel: Toplevel) {
        let layer = assignedLayer(of: toplevel)
        if let layer, !toplevel.isAlive { surfaces.assignments[layer] = nil }
        if !toplevel.isAlive {
            handPlaced.remove(toplevel.id)
            reportedLayers[toplevel.id] = nil
        }
        broadcast(.surfaceUnmapped(surface: toplevel.id, layer: layer))
        requestFrame()
    }

    public func toplevelChanged(_ toplevel: Toplevel) {
        guard assignedLayer(of: toplevel) != nil else {
            toplevel.discardFeedback()
            return
        }
        if !heads.contains(where: \.powered) { toplevel.discardFeedback() }
        if toplevel.awaitsFrame, !surfaceFrameDue {
            // A commit that changes nothing on screen still gets its callback, a frame later.
            surfaceFrameDue = true
            schedule(1.0 / 60) { [weak self] in
                guard let self else { return }
                surfaceFrameDue = false
                wayland?.framePresented(showing: surfaces.shownAwaitingFrames, milliseconds: Self.milliseconds())
            }
        }
        requestFrame()
    }

    public func initialSize(of toplevel: Toplevel) -> (width: Int, height: Int)? {
        guard let rule = settings.compositor.rules.first(where: { $0.matches(appID: toplevel.appID, title: toplevel.title) }),
            let bounds = try? scene.modelValues(of: rule.layer).rect(.bounds)
        else { return nil }
        return (Int(bounds.size.width.rounded()), Int(bounds.size.height.rounded()))
    }

    // MARK: Commands

    /// The layer showing `toplevel`, if any.
    func assignedLayer(of toplevel: Toplevel) -> String? {
        surfaces.assignments.first { $0.value === toplevel }?.key
    }

    /// `surface.list`.
    func surfaceList() -> JSON {
        let toplevels = (wayland?.toplevels.values.sorted { $0.id < $1.id } ?? [])
        return .object(["surfaces": .array(toplevels.map { .object(description(of: $0).fields) })])
    }

    /// The window as `surface.*` events and replies describe it.
    func description(of toplevel: Toplevel) -> Event.Window {
        Event.Window(
            surface: toplevel.id, appID: toplevel.appID, title: toplevel.title, pid: Int(toplevel.pid), mapped: toplevel.isMapped,
            layer: assignedLayer(of: toplevel), responsive: toplevel.isResponsive,
            size: toplevel.windowRect.map { Size(width: Double($0.width), height: Double($0.height)) })
    }

    /// `surface.assign`.
    func surfaceAssign(_ id: Int, layer: String?) throws(ProtocolError) -> JSON {
        guard let wayland else {
            throw ProtocolError(.invalidValue, "the compositor is off: [compositor] enabled = true serves Wayland clients")
        }
        guard let toplevel = wayland.toplevels[id] else {
            throw ProtocolError(.invalidValue, "there is no surface \(id); surface.list lists them")
        }
        if let layer {
            try assign(toplevel, to: layer)
        } else if let old = assignedLayer(of: toplevel) {
            surfaces.assignments[old] = nil
        }
        handPlaced.insert(toplevel.id)
        reportAssignments()
        frameNeeded = true
        return .object(description(of: toplevel).fields)
    }

    /// Sends `surface.assigned` for each window whose layer changed since it was last told,
    /// whatever moved it.
    func reportAssignments() {
        guard let wayland else { return }
        var layers: [Int: String] = [:]
        for (layer, toplevel) in surfaces.assignments { layers[toplevel.id] = layer }
        for id in Set(layers.keys).union(reportedLayers.keys).sorted() where layers[id] != reportedLayers[id] {
            guard let toplevel = wayland.toplevels[id] else { continue }
            logger.info("surface \(id) (app id '\(toplevel.appID)') now on layer \(layers[id] ?? "none"), was on \(reportedLayers[id] ?? "none")")
            broadcast(.surfaceAssigned(description(of: toplevel), previous: reportedLayers[id]))
        }
        reportedLayers = layers.filter { wayland.toplevels[$0.key] != nil }
    }

    /// Shows `toplevel` in the surface layer `layer`, instead of wherever it was.
    func assign(_ toplevel: Toplevel, to layer: String) throws(ProtocolError) {
        let kind: LayerKind
        do { kind = try scene.kind(of: layer) } catch { throw ProtocolError(error) }
        guard kind.name == SurfaceLayer.kindName else {
            throw ProtocolError(.invalidValue, "layer '\(layer)' is a \(kind.name) layer; a surface is shown by a layer of kind surface")
        }
        if let old = assignedLayer(of: toplevel) { surfaces.assignments[old] = nil }
        surfaces.assignments[layer] = toplevel
        if let bounds = try? scene.modelValues(of: layer).rect(.bounds) {
            toplevel.configure(width: max(1, Int(bounds.size.width.rounded())), height: max(1, Int(bounds.size.height.rounded())))
        }
    }
}
