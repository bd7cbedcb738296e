import VitrineConfig
import VitrineJSON
import VitrineProtocol
import VitrineSystem
import VitrineVideoLayer
import VitrineWayland

/// The content watchdog's wiring (`[[watch]]`): what it notices goes to subscribers
/// (`content.stalled`, `content.resumed`) and runs the watch's actions.
extension Coordinator {
    /// The watchdog of `settings.watches` on `loop`; nil without watches.
    func makeWatchdog(loop: EventLoop) -> ContentWatchdog? {
        guard !settings.watches.isEmpty else { return nil }
        let watchdog = ContentWatchdog(
            watches: settings.watches, outputSet: outputSet, scene: scene, loop: loop, mediaNow: { [unowned sceneHost] in sceneHost.now },
            expected: { [unowned self] layer in watchExpectsChange(of: layer) }
        ) { [unowned self] notice in watchdogNoticed(notice) }
        watchdog.start()
        return watchdog
    }

    /// What a watched layer's picture should do now: a video layer change while it plays,
    /// a surface layer while it shows a window (without one, wait for it), any other layer
    /// always.
    private func watchExpectsChange(of layer: String) -> ContentWatchdog.Expectation {
        switch (try? scene.kind(of: layer))?.name {
        case VideoLayer.kindName: content.videos.isPlaying(layer) ? .change : .stayStill
        case SurfaceLayer.kindName: content.surfaces.assignments[layer] != nil ? .change : .wait
        default: .change
        }
    }

    private func watchdogNoticed(_ notice: ContentWatchdog.Notice) {
        switch notice {
        case .stalled(let watch, let since, let duration):
            var actions: [String] = []
            if !watch.restart.isEmpty { actions.append("restart") }
            if watch.reload { actions.append("reload") }
            if !watch.commands.isEmpty { actions.append("commands") }
            logger.warning(
                "\(Self.described(watch)) has not changed for \(String(format: "%.1f", duration)) s (must_change_every \(watch.mustChangeEvery)): stalled\(actions.isEmpty ? "" : "; " + actions.joined(separator: ", "))"
            )
            broadcast(.contentStalled(Self.picture(watch), since: since, duration: duration, actions: actions))
            if !watch.restart.isEmpty { restartClient(watch.restart, for: "watch of \(Self.described(watch))") }
            if watch.reload, case .layer(let layer) = watch.target {
                if !content.videos.reload(layer) { logger.warning("watch of \(Self.described(watch)): reload: the layer plays no video") }
            }
            runWatchCommands(watch.commands, of: watch)
        case .resumed(let watch, let stalledSeconds, let reason):
            logger.notice(
                "\(Self.described(watch)) \(reason == "changed" ? "changes again" : "is no longer expected to change") after \(String(format: "%.1f", stalledSeconds)) s stalled"
            )
            broadcast(.contentResumed(Self.picture(watch), time: now, stalledSeconds: stalledSeconds, reason: reason))
            runWatchCommands(watch.resumeCommands, of: watch)
        }
        requestFrame()
    }

    /// Applies `commands` as one transaction; a failure is logged.
    private func runWatchCommands(_ commands: [JSON], of watch: Configuration.Watch) {
        guard !commands.isEmpty else { return }
        let line = JSON.object(["id": .string("watch"), "cmd": .string("transaction"), "commands": .array(commands)]).text
        do throws(ProtocolError) {
            guard case .success(let request) = Request.decode(Array(line.utf8)), case .transaction(let spec) = request.command else {
                throw ProtocolError(.invalidValue, "the commands are no transaction")
            }
            _ = try sceneHost.commit(spec, owner: nil, at: now)
        } catch {
            logger.warning("watch of \(Self.described(watch)): its commands failed: \(error.message)")
        }
        flush()
    }

    private static func picture(_ watch: Configuration.Watch) -> Event.WatchedPicture {
        switch watch.target {
        case .layer(let id): .layer(id)
        case .output(let name): .output(name)
        }
    }

    private static func described(_ watch: Configuration.Watch) -> String {
        switch watch.target {
        case .layer(let id): "layer '\(id)'"
        case .output(let name): "output \(name)"
        }
    }
}
