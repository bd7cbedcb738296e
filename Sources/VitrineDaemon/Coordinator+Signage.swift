import VitrineConfig
import VitrineCore
import VitrineOutputSet
import VitrineProtocol
import VitrineSignage
import VitrineSystem

/// Scenes as units (`scene.load`) and the playlists and schedules that run on the device
/// (`playlist.*`, `schedule.*`): the signage host is made when the first playlist plays;
/// until then nothing of it runs.
extension Coordinator {
    /// Starts playing the configured schedules, if any.
    func startSignage() {
        input.playActions = { [unowned self] spec in
            do throws(ProtocolError) { try signageHost().play(spec.playlist ?? "", item: nil, output: nil, at: now) } catch {
                logger.warning("binding '\(spec.id ?? "")' cannot play its playlist: \(error.message)")
            }
        }
        guard !signageLibrary.isEmpty else { return }
        _ = signageHost()
    }

    /// The configuration's playlists and schedules with the changes made over the socket.
    var signageLibrary: SignageLibrary {
        let (library, dropped) = signageChanges.applied(to: settings.signage.library)
        for change in dropped { logger.warning("a playlist or schedule set over the socket no longer applies: \(change)") }
        return library
    }

    /// The signage host, made (and started on every output) the first time it is needed.
    func signageHost() -> SignageHost {
        if let signage { return signage }
        let host = SignageHost(library: signageLibrary, switcher: switcher, clock: clock, loop: loop) { [unowned self] notice in
            take(notice)
        }
        host.recorder = playRecorder
        signage = host
        let heads = outputSet.heads.map { (name: $0.name, root: $0.root, primary: $0.root == root) }
        host.start(outputs: heads, at: now)
        return host
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
            } else if let loop {
                // (not within the frame or the request that said it)
                loop.schedule(after: 0) { [weak self] in self?.requestFrame() }
            } else {
                afterReply.frame = true
            }
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
        let result = try apply(command)
        signageChanges.note(command)
        return result
    }

    private func apply(_ command: SignageCommand) throws(ProtocolError) -> JSON {
        var library = signage?.library ?? signageLibrary
        switch command {
        case .playlistSet(let playlist):
            library.set(playlist)
            signageHost().take(library, at: now)
            return .object(["playlist": .string(playlist.name), "items": .number(Double(playlist.items.count))])
        case .playlistRemove(let name):
            try library.removePlaylist(name)
            signageHost().take(library, at: now)
            return .object(["removed": .string(name)])
        case .playlistList:
            return .object([
                "playlists": .array(library.playlists.keys.sorted().map { library.playlists[$0]!.json }),
                "outputs": signage?.status ?? .array([]),
            ])
        case .playlistPlay(let name, let item, let output):
            try signageHost().play(name, item: item, output: output, at: now)
            afterReply.frame = true
            return .object(["playlist": .string(name), "outputs": signageHost().status])
        case .playlistStop(let output):
            return .object(["stopped": .bool(try signage?.stop(output: output, at: now) ?? false)])
        case .scheduleSet(let entry):
            try library.set(entry)
            signageHost().take(library, at: now)
            return .object(["schedule": .string(entry.name)])
        case .scheduleRemove(let name):
            try library.removeSchedule(name)
            signageHost().take(library, at: now)
            return .object(["removed": .string(name)])
        case .scheduleList:
            return .object(["schedules": .array(library.schedules.map(\.json))])
        }
    }
}
