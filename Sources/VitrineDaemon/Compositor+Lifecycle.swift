import VitrineConfig
import VitrineCore
import VitrineProtocol
import VitrineWayland

/// The lives of the windows: clients that stop answering pings, `surface.close`, and
/// `[[compositor.rules]]` applied again after a reload.
extension Compositor {
    public func toplevels(_ toplevels: [Toplevel], responsive: Bool, seconds: Double) {
        guard let first = toplevels.first else { return }
        let ids = toplevels.map { String($0.id) }.joined(separator: ", ")
        let what = "Wayland client pid \(first.pid) (surface\(toplevels.count == 1 ? "" : "s") \(ids), app id '\(first.appID)')"
        if responsive {
            logger.info("\(what) answers again, \(Self.seconds(seconds)) after the ping")
        } else {
            logger.warning("\(what) has not answered a ping for \(Self.seconds(seconds)): unresponsive")
        }
        for toplevel in toplevels {
            let window = description(of: toplevel)
            broadcast(responsive ? .surfaceResponsive(window) : .surfaceUnresponsive(window))
        }
        if responsive { launcher?.clientResponsive(pid: first.pid) } else { launcher?.clientUnresponsive(pid: first.pid) }
    }

    private static func seconds(_ value: Double) -> String {
        "\((value * 10).rounded() / 10) s"
    }

    /// `surface.close`: asks the window `id`, or the one the surface layer `layer` shows,
    /// to close; its description.
    func surfaceClose(_ id: Int?, layer: String?) throws(ProtocolError) -> JSON {
        guard let wayland else {
            throw ProtocolError(.invalidValue, "the compositor is off: [compositor] enabled = true serves Wayland clients")
        }
        let toplevel: Toplevel
        if let id {
            guard let found = wayland.toplevels[id] else {
                throw ProtocolError(.invalidValue, "there is no surface \(id); surface.list lists them")
            }
            toplevel = found
        } else {
            let layer = layer ?? ""
            let kind = try core { () throws(CoreError) in try scene.kind(of: layer) }
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

    /// After a reload: the mapped windows that `surface.assign` did not place go where the
    /// rules now say (the first that matches), or nowhere when none matches any more.
    func placeByRules() {
        guard let wayland else { return }
        for toplevel in wayland.toplevels.values.sorted(by: { $0.id < $1.id }) where toplevel.isMapped && !handPlaced.contains(toplevel.id) {
            let rule = settings.compositor.rules.first { $0.matches(appID: toplevel.appID, title: toplevel.title) }
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
        frameNeeded = true
    }

    /// After layers were removed: the windows their layers showed are on no layer (one its
    /// rule placed goes back when the layer is added again).
    func releaseRemovedLayers() {
        for layer in surfaces.assignments.keys where !scene.contains(layer) {
            surfaces.assignments[layer] = nil
        }
    }

    /// After layers were added: a mapped window whose rule names a layer that did not exist
    /// when it mapped goes to that layer once it is a surface layer showing no window.
    func placeWaitingWindows() {
        guard let wayland else { return }
        for toplevel in wayland.toplevels.values.sorted(by: { $0.id < $1.id })
        where toplevel.isMapped && !handPlaced.contains(toplevel.id) && assignedLayer(of: toplevel) == nil {
            guard let rule = settings.compositor.rules.first(where: { $0.matches(appID: toplevel.appID, title: toplevel.title) }),
                surfaces.assignments[rule.layer] == nil, (try? scene.kind(of: rule.layer))?.name == SurfaceLayer.kindName
            else { continue }
            do { try assign(toplevel, to: rule.layer) } catch { continue }
            logger.info("surface \(toplevel.id) (app id '\(toplevel.appID)') placed in layer \(rule.layer) by its rule, now that the layer exists")
            frameNeeded = true
        }
    }

    /// Takes `[compositor]`'s reloadable keys: the rules (applied to the windows at once)
    /// and the ping timeout.
    func apply(reloaded compositor: Configuration.Compositor) {
        settings.compositor.pingTimeout = compositor.pingTimeout
        wayland?.pingTimeout = compositor.pingTimeout
        guard compositor.rules != settings.compositor.rules else { return }
        settings.compositor.rules = compositor.rules
        placeByRules()
    }
}
