import VitrineConfig
import VitrineCore
import VitrineOutputSet
import VitrineProtocol
import VitrineSignage
import VitrineSystem

/// Scenes as units (`scene.load`) and the wiring of the signage host (`playlist.*`,
/// `schedule.*`), which follows the outputs plugged in.
extension Coordinator {
    /// Starts playing the configured schedules, if any.
    func startSignage() {
        followSignage()
        signage.startIfScheduled(at: now)
    }

    /// Tells the signage host which outputs are plugged in.
    func followSignage() {
        signage.follow(outputs: outputSet.heads.map { SignageHost.Head(name: $0.name, root: $0.root, primary: $0.root == root) }, at: now)
    }

    func take(_ notice: SignageHost.Notice) {
        switch notice {
        case .event(let event):
            subscribers.send(event)
        case .sceneShown(let root, let old, let bindings):
            replaceBindings(of: old, with: bindings, root: root)
        case .firstFrame(let output, let token):
            guard let head = outputSet.heads.first(where: { $0.name == output }) else { return }
            // (said at the start of a frame, which the tap sees drawn whole)
            _ = FirstFrameTap(head.pipeline, workers: workers) { [weak self] hash in
                if !hash.isEmpty { self?.playRecorder?.firstFrame(token, hash: hash) }
            }
        case .frame(let at):
            if let at {
                if clock.mode == .realtime { outputSet.requestFrame(at: at) }
            } else {
                requestFrame()
            }
        case .frameAfterReply:
            afterReply.frame = true
        }
    }

    private func replaceBindings(of old: [String], with bindings: [BindingSpec], root: String) {
        let gone = Set(old)
        _ = input.bindings.remove { $0.spec.layer.map(gone.contains) ?? false }
        do { try input.addBindings(bindings, limits: settings.limits) } catch { logger.warning("the scene's bindings on \(root): \(error.message)") }
    }

    // MARK: scene.load

    /// Gets the scene of `load` ready, then answers through `finish`: with `at`, holds it
    /// for its time; otherwise shows it now.
    func sceneLoad(_ load: SceneLoad, request: Request, from client: ClientConnection) -> String? {
        let head: OutputHead
        do { head = try outputSet.head(named: load.output) } catch { return Wire.failure(id: request.id, error) }
        return deferredReply(to: client) { finish in
            switcher.prepare(.scene(load.source), timeout: load.timeout) { [unowned self] result in
                switch result {
                case .failure(let error):
                    finish(Wire.failure(id: request.id, error))
                case .success(let ready):
                    switcher.held[head.root] = ready
                    if let at = request.at {
                        if let line = schedule(request, at: at, from: client) { finish(line) }
                        return
                    }
                    finish(reply(to: request, client: client.clientID))
                    flush()
                }
            }
        }
    }

    private func reply(to request: Request, client: Int) -> String {
        do {
            return Wire.reply(id: request.id, result: try execute(request.command, from: client))
        } catch {
            return Wire.failure(id: request.id, error)
        }
    }

    /// Shows the scene `sceneLoad` got ready for `load`'s output.
    func showLoaded(_ load: SceneLoad) throws(ProtocolError) -> JSON {
        let head = try outputSet.head(named: load.output)
        guard let ready = switcher.held.removeValue(forKey: head.root) else {
            throw ProtocolError(.internalError, "scene.load's scene was not made ready")
        }
        let old = try switcher.sublayers(of: head.root)
        let bindings = try switcher.show(ready, root: head.root, transition: load.transition)
        replaceBindings(of: old, with: bindings, root: head.root)
        let style = load.transition?.transition.style.rawValue
        afterReply.events.append(.sceneLoaded(output: head.name, scene: load.source.description, transition: style))
        afterReply.frame = true
        return .object([
            "output": .string(head.name), "scene": .string(load.source.description), "layers": .number(Double(old.count)),
            "transition": load.transition?.json ?? .null,
        ])
    }

    // MARK: playlist.*, schedule.*

    func execute(_ command: SignageCommand) throws(ProtocolError) -> JSON {
        try signage.execute(command, at: now)
    }
}
