import VitrineCore
import VitrineJSON
import VitrineOutput

/// Outputs plugged in and unplugged while the daemon runs.
///
/// An unplugged output's head, pipeline and pacer go at once; its root layer and
/// everything under it stay in the scene, not drawn, for `[output] hotplug_grace`
/// seconds: scripts may go on changing them, and the screen plugged in again within that
/// time shows them as they are then. After the grace the root is removed with its tree
/// (`Scene.removeRoot`): its layers' ids are unknown from then on, and the output plugged
/// in later gets a fresh root with its configured scene, as at start.
extension OutputSet {
    /// An unplugged output's kept root, until its grace ends.
    struct UnpluggedOutput {
        let root: String
        /// Tells the grace's timer from a later unplugging's.
        let serial: Int
    }

    /// `backend` was plugged in: its head is made (its root kept from before, or a new
    /// one showing its configured scene) and subscribers get `output.added`.
    public func plug(_ backend: OutputBackend) {
        let connector = backend.connector
        guard !heads.contains(where: { $0.backend.connector == connector }) else {
            logger.warning("\(connector) plugged in twice; the second is not drawn")
            backend.close()
            return
        }
        let kept = unplugged.removeValue(forKey: connector)
        let head: OutputHead
        do {
            head = try addHead(backend, keeping: kept.flatMap { scene.contains($0.root) ? $0.root : nil })
        } catch {
            logger.error("\(connector) plugged in but not drawn: \(error)")
            backend.close()
            return
        }
        lastHead = nil
        notify(.powered(heads.contains(where: \.powered)))
        notify(.headAdded(head))
        logger.info("\(connector) plugged in: \(backend.mode), root '\(head.root)'\(head.restored ? " (kept)" : "")")
        let size = Size(width: Double(backend.mode.width), height: Double(backend.mode.height))
        notify(.event(.outputAdded(output: head.name, root: head.root, size: size, rate: backend.mode.refreshRate, kept: head.restored), afterReply: false))
        if head.entry?.schedule != nil { followSchedule(of: head) }
        switch clock.mode {
        case .manual: renderFrame(on: [head])
        case .realtime: head.pacer.request()
        }
    }

    /// `backend` was unplugged: its head goes (its backend gives the screen back); its
    /// root is kept for the grace, and subscribers get `output.removed`.
    public func unplug(_ backend: OutputBackend) {
        guard let index = heads.firstIndex(where: { $0.backend === backend }) else { return }
        let head = heads.remove(at: index)
        if heads.isEmpty { lastHead = head }
        notify(.powered(heads.contains(where: \.powered)))
        backend.frameDone = nil
        presentationGone(head)
        head.pacer.render = { false }
        head.pipeline.shared?.leave(head.pipeline)
        let grace = settings.hotplugGrace
        logger.info("\(head.name) unplugged; root '\(head.root)' kept for \(grace) s")
        notify(.headRemoved(head))
        notify(.event(.outputRemoved(output: head.name, root: head.root, keptSeconds: grace), afterReply: false))
        // A wall's root stays while another of its screens shows it.
        guard !heads.contains(where: { $0.root == head.root }) else { return }
        hotplugSerial += 1
        let serial = hotplugSerial
        unplugged[head.name] = UnpluggedOutput(root: head.root, serial: serial)
        let forget = { [weak self] in
            guard let self, unplugged[head.name]?.serial == serial else { return }
            forgetUnplugged(head.name)
        }
        if grace > 0 { schedule(grace, forget) } else { forget() }
    }

    /// The grace of `connector`'s kept root ended: the root goes with everything under it.
    func forgetUnplugged(_ connector: String) {
        guard let kept = unplugged.removeValue(forKey: connector), scene.contains(kept.root) else { return }
        do {
            try scene.removeRoot(id: kept.root, at: clock.now)
            logger.info("\(connector) stayed unplugged: root '\(kept.root)' and its layers removed")
        } catch {
            logger.error("\(connector): its root '\(kept.root)' could not be removed: \(error)")
        }
        notify(.sceneChanged)
    }
}
