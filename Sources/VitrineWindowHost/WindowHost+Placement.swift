import VitrineConfig
import VitrineCore
import VitrineProtocol
import VitrineWayland

/// Which layer shows which window: rules, `surface.assign`, `surface.close`, and the
/// scene's layers coming and going.
extension WindowHost {
    /// The layer showing `window`, if any.
    func assignedLayer(of window: any HostedWindow) -> String? {
        surfaces.assignments.first { $0.value === window }?.key
    }

    /// The first rule that matches `window`.
    func rule(for window: any HostedWindow) -> Configuration.Compositor.Rule? {
        compositor.rules.first { $0.matches(appID: window.appID, title: window.title, instance: window.instance) }
    }

    /// Every window of every kind, by id.
    var windows: [any HostedWindow] {
        let toplevels: [any HostedWindow] = server.map { Array($0.toplevels.values) } ?? []
        return (toplevels + (x11?.windows ?? [])).sorted { $0.id < $1.id }
    }

    /// The window `id`, of either kind.
    func window(_ id: Int) -> (any HostedWindow)? {
        server?.toplevels[id] ?? x11?.windows.first { $0.id == id }
    }

    /// The window as `surface.*` events and replies describe it.
    func description(of window: any HostedWindow) -> Event.Window {
        Event.Window(
            surface: window.id, kind: window.kind.rawValue, appID: window.appID, instance: window.instance, title: window.title, pid: window.pid,
            mapped: window.isMapped, layer: assignedLayer(of: window), responsive: window.isResponsive,
            size: window.isMapped ? window.picture?.windowRect.map { Size(width: Double($0.width), height: Double($0.height)) } : nil)
    }

    /// Why `surface.*` fails while no Wayland server runs.
    public static let serverOff = ProtocolError(.invalidValue, "the compositor is off: [compositor] enabled = true serves Wayland clients")

    /// `surface.list`.
    public func list() -> JSON {
        .object(["surfaces": .array(windows.map { .object(description(of: $0).fields) })])
    }

    /// `surface.assign`: shows window `id` in the surface layer `layer` (nil: in none);
    /// rules no longer move it. Its description.
    public func assign(_ id: Int, to layer: String?) throws(ProtocolError) -> JSON {
        guard server != nil else { throw Self.serverOff }
        guard let window = window(id) else {
            throw ProtocolError(.invalidValue, "there is no surface \(id); surface.list lists them")
        }
        if let layer {
            try assign(window, to: layer)
        } else if let old = assignedLayer(of: window) {
            surfaces.assignments[old] = nil
        }
        handPlaced.insert(window.id)
        reportAssignments()
        notify(.redraw(afterReply: true))
        return .object(description(of: window).fields)
    }

    /// `surface.close`: asks the window `id`, or the one the surface layer `layer` shows,
    /// to close; its description.
    public func close(_ id: Int?, layer: String?) throws(ProtocolError) -> JSON {
        guard server != nil else { throw Self.serverOff }
        let window: any HostedWindow
        if let id {
            guard let found = self.window(id) else {
                throw ProtocolError(.invalidValue, "there is no surface \(id); surface.list lists them")
            }
            window = found
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
            window = shown
        }
        window.close()
        logger.info("surface \(window.id) (\(window.kind.rawValue), app id '\(window.appID)', pid \(window.pid)) asked to close")
        return .object(description(of: window).fields)
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
        if removed { layerShell?.arrange(at: now()) }
        reportAssignments()
    }

    /// Sends `surface.assigned` for each window whose layer changed since it was last told,
    /// whatever moved it.
    func reportAssignments() {
        guard server != nil else { return }
        var layers: [Int: String] = [:]
        for (layer, window) in surfaces.assignments { layers[window.id] = layer }
        for id in Set(layers.keys).union(reportedLayers.keys).sorted() where layers[id] != reportedLayers[id] {
            guard let window = window(id) else { continue }
            logger.info("surface \(id) (app id '\(window.appID)') now on layer \(layers[id] ?? "none"), was on \(reportedLayers[id] ?? "none")")
            notify(.event(.surfaceAssigned(description(of: window), previous: reportedLayers[id]), afterReply: false))
        }
        reportedLayers = layers.filter { window($0.key) != nil }
    }

    /// Shows `window` in the surface layer `layer`, instead of wherever it was.
    func assign(_ window: any HostedWindow, to layer: String) throws(ProtocolError) {
        let kind: LayerKind
        do { kind = try scene.kind(of: layer) } catch { throw ProtocolError(error) }
        guard kind.name == SurfaceLayer.kindName else {
            throw ProtocolError(.invalidValue, "layer '\(layer)' is a \(kind.name) layer; a surface is shown by a layer of kind surface")
        }
        if let old = assignedLayer(of: window) { surfaces.assignments[old] = nil }
        surfaces.assignments[layer] = window
        if let bounds = try? scene.modelValues(of: layer).rect(.bounds) {
            window.configure(
                width: max(1, Int(bounds.size.width.rounded())), height: max(1, Int(bounds.size.height.rounded())), scale: surfaces.scale(of: layer))
        }
    }

    /// After a reload: the mapped windows that `surface.assign` did not place go where the
    /// rules now say (the first that matches), or nowhere when none matches any more.
    func placeByRules() {
        guard server != nil else { return }
        for window in windows where window.isMapped && !handPlaced.contains(window.id) {
            let rule = rule(for: window)
            let current = assignedLayer(of: window)
            guard rule?.layer != current else { continue }
            if let rule {
                do { try assign(window, to: rule.layer) } catch {
                    logger.warning("surface \(window.id) (\(window.appID)): rule for layer \(rule.layer) not applied: \(error.message)")
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
        guard server != nil else { return }
        for window in windows where window.isMapped && !handPlaced.contains(window.id) && assignedLayer(of: window) == nil {
            guard let rule = rule(for: window), surfaces.assignments[rule.layer] == nil,
                (try? scene.kind(of: rule.layer))?.name == SurfaceLayer.kindName
            else { continue }
            do { try assign(window, to: rule.layer) } catch { continue }
            logger.info("surface \(window.id) (app id '\(window.appID)') placed in layer \(rule.layer) by its rule, now that the layer exists")
            notify(.redraw(afterReply: true))
        }
    }
}
