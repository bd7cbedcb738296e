import VitrineConfig
import VitrineCore
import VitrineProtocol
import VitrineWayland

/// Which layer shows which window: rules, `surface.assign`, `surface.close`, and the
/// scene's layers coming and going.
extension WindowHost {
    /// The layer showing `toplevel`, if any.
    func assignedLayer(of toplevel: Toplevel) -> String? {
        surfaces.assignments.first { $0.value === toplevel }?.key
    }

    /// The first rule that matches `toplevel`.
    func rule(for toplevel: Toplevel) -> Configuration.Compositor.Rule? {
        compositor.rules.first { $0.matches(appID: toplevel.appID, title: toplevel.title) }
    }

    /// The window as `surface.*` events and replies describe it.
    func description(of toplevel: Toplevel) -> Event.Window {
        Event.Window(
            surface: toplevel.id, appID: toplevel.appID, title: toplevel.title, pid: Int(toplevel.pid), mapped: toplevel.isMapped,
            layer: assignedLayer(of: toplevel), responsive: toplevel.isResponsive,
            size: toplevel.windowRect.map { Size(width: Double($0.width), height: Double($0.height)) })
    }

    /// Why `surface.*` fails while no Wayland server runs.
    public static let serverOff = ProtocolError(.invalidValue, "the compositor is off: [compositor] enabled = true serves Wayland clients")

    /// `surface.list`.
    public func list() -> JSON {
        let toplevels = server?.toplevels.values.sorted { $0.id < $1.id } ?? []
        return .object(["surfaces": .array(toplevels.map { .object(description(of: $0).fields) })])
    }

    /// `surface.assign`: shows window `id` in the surface layer `layer` (nil: in none);
    /// rules no longer move it. Its description.
    public func assign(_ id: Int, to layer: String?) throws(ProtocolError) -> JSON {
        guard let server else { throw Self.serverOff }
        guard let toplevel = server.toplevels[id] else {
            throw ProtocolError(.invalidValue, "there is no surface \(id); surface.list lists them")
        }
        if let layer {
            try assign(toplevel, to: layer)
        } else if let old = assignedLayer(of: toplevel) {
            surfaces.assignments[old] = nil
        }
        handPlaced.insert(toplevel.id)
        reportAssignments()
        notify(.redraw(afterReply: true))
        return .object(description(of: toplevel).fields)
    }

    /// `surface.close`: asks the window `id`, or the one the surface layer `layer` shows,
    /// to close; its description.
    public func close(_ id: Int?, layer: String?) throws(ProtocolError) -> JSON {
        guard let server else { throw Self.serverOff }
        let toplevel: Toplevel
        if let id {
            guard let found = server.toplevels[id] else {
                throw ProtocolError(.invalidValue, "there is no surface \(id); surface.list lists them")
            }
            toplevel = found
        } else {
            let layer = layer ?? ""
            let kind: LayerKind
            do { kind = try scene.kind(of: layer) } catch { throw ProtocolError(error) }
            guard kind.name == SurfaceLayer.kindName else {
                throw ProtocolError(
                    .invalidValue, "layer '\(layer)' is a \(kind.name) layer; surface.close takes a surface layer, or a surface id from surface.list")
            }
            guard let shown = surfaces.assignments[layer] else {
                throw ProtocolError(
                    .invalidValue, "layer '\(layer)' shows no surface; surface.list lists the surfaces and the layers showing them")
            }
            toplevel = shown
        }
        toplevel.close()
        logger.info("surface \(toplevel.id) (app id '\(toplevel.appID)', pid \(toplevel.pid)) asked to close")
        return .object(description(of: toplevel).fields)
    }

    /// After a transaction added or removed layers: the windows of removed layers are on
    /// none (one its rule placed goes back when the layer comes again), and windows waiting
    /// for their rule's layer go there once it is a surface layer showing no window.
    public func layersChanged(added: Bool, removed: Bool) {
        guard server != nil, added || removed else { return }
        if removed {
            for layer in surfaces.assignments.keys where !scene.contains(layer) { surfaces.assignments[layer] = nil }
        }
        if added { placeWaitingWindows() }
        reportAssignments()
    }

    /// Sends `surface.assigned` for each window whose layer changed since it was last told,
    /// whatever moved it.
    func reportAssignments() {
        guard let server else { return }
        var layers: [Int: String] = [:]
        for (layer, toplevel) in surfaces.assignments { layers[toplevel.id] = layer }
        for id in Set(layers.keys).union(reportedLayers.keys).sorted() where layers[id] != reportedLayers[id] {
            guard let toplevel = server.toplevels[id] else { continue }
            logger.info("surface \(id) (app id '\(toplevel.appID)') now on layer \(layers[id] ?? "none"), was on \(reportedLayers[id] ?? "none")")
            notify(.event(.surfaceAssigned(description(of: toplevel), previous: reportedLayers[id]), afterReply: false))
        }
        reportedLayers = layers.filter { server.toplevels[$0.key] != nil }
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

    /// After a reload: the mapped windows that `surface.assign` did not place go where the
    /// rules now say (the first that matches), or nowhere when none matches any more.
    func placeByRules() {
        guard let server else { return }
        for toplevel in server.toplevels.values.sorted(by: { $0.id < $1.id }) where toplevel.isMapped && !handPlaced.contains(toplevel.id) {
            let rule = rule(for: toplevel)
            let current = assignedLayer(of: toplevel)
            guard rule?.layer != current else { continue }
            if let rule {
                do { try assign(toplevel, to: rule.layer) } catch {
                    logger.warning("surface \(toplevel.id) (\(toplevel.appID)): rule for layer \(rule.layer) not applied: \(error.message)")
                }
            } else if let current {
                surfaces.assignments[current] = nil
            }
        }
        reportAssignments()
        notify(.redraw(afterReply: true))
    }

    /// A mapped window whose rule names a layer that did not exist when it mapped goes to
    /// that layer once it is a surface layer showing no window.
    private func placeWaitingWindows() {
        guard let server else { return }
        for toplevel in server.toplevels.values.sorted(by: { $0.id < $1.id })
        where toplevel.isMapped && !handPlaced.contains(toplevel.id) && assignedLayer(of: toplevel) == nil {
            guard let rule = rule(for: toplevel), surfaces.assignments[rule.layer] == nil,
                (try? scene.kind(of: rule.layer))?.name == SurfaceLayer.kindName
            else { continue }
            do { try assign(toplevel, to: rule.layer) } catch { continue }
            logger.info("surface \(toplevel.id) (app id '\(toplevel.appID)') placed in layer \(rule.layer) by its rule, now that the layer exists")
            notify(.redraw(afterReply: true))
        }
    }
}
