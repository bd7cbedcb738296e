import VitrineCore
import VitrineImage
import VitrineProtocol
import VitrineRender

/// Cross-fades of layers' contents, Core Animation's fade transition on `contents` as an
/// implicit action: when a request gives a layer another image, or the file it shows
/// changes on disk, the old picture dissolves into the new over the implicit duration (a
/// transaction's `duration`, or the `contents` action's own). Not when actions are off for
/// the change (`actions: false`, `disableActions`), nor when the layer's actions (or those
/// of its `actionsFrom` layer) say none for `contents`, or its policy is `explicitOnly` and
/// the change is not in a transaction that asks for animation.
extension ContentHost {
    /// A fade to start once a request has been applied: `layer` showed `from` and is to
    /// show `reference`.
    struct PendingFade {
        let layer: String
        let reference: String
        let from: Picture
        let duration: Double
    }

    /// The fades `command` would start: its `contents` changes of existing layers showing
    /// another picture, where actions allow. Call it before the command is applied.
    func contentFades(in command: Command, actions: Bool = true, animated: Bool = false, duration: Double? = nil) -> [PendingFade] {
        switch command {
        case .layerSet(let id, let properties, _, let enabled):
            guard actions, enabled else { return [] }
            return properties.compactMap { key, value in
                guard key == "contents", case .string(let reference) = value else { return nil }
                return pendingFade(id, to: reference, animated: animated, duration: duration)
            }
        case .transaction(let spec):
            let enabled = actions && spec.disableActions != true, animated = animated || spec.animated == true
            return spec.commands.flatMap { contentFades(in: $0, actions: enabled, animated: animated, duration: spec.duration ?? duration) }
        default:
            return []
        }
    }

    /// Starts the fades whose layer now shows what the fade was for.
    func start(_ fades: [PendingFade]) {
        for fade in fades where (try? scene.modelValues(of: fade.layer))?.string(.contents) == fade.reference {
            renderer.animations.fade(layer: fade.layer, from: fade.from, start: now, duration: fade.duration)
        }
    }

    /// Fades in the new picture of the file at canonical `path` (changed on disk) over
    /// `old` on every layer that shows it.
    func fadeChangedFile(_ path: String, from old: Picture) {
        let references = renderer.images.references(of: path)
        for id in layers(showing: references.contains) {
            guard let duration = fadeDuration(of: id, animated: false, override: nil) else { continue }
            renderer.animations.fade(layer: id, from: old, start: now, duration: duration)
        }
    }

    private var scene: Scene { sceneHost.scene }
    private var now: Double { sceneHost.now }

    private func pendingFade(_ id: String, to reference: String, animated: Bool, duration: Double?) -> PendingFade? {
        guard !reference.isEmpty, let shown = (try? scene.modelValues(of: id))?.string(.contents), !shown.isEmpty, shown != reference,
            let picture = renderer.images.held(shown), let seconds = fadeDuration(of: id, animated: animated, override: duration)
        else { return nil }
        return PendingFade(layer: id, reference: reference, from: picture, duration: seconds)
    }

    /// How long `layer`'s contents fade, by its action rules as Core Animation looks them
    /// up (`animated`: the change is in a transaction that asks for animation); nil when
    /// they do not.
    private func fadeDuration(of layer: String, animated: Bool, override: Double?) -> Double? {
        guard let rules = try? scene.actionRules(of: layer) else { return nil }
        var rule = rules.actions["contents"], policy = rules.policy
        if let from = rules.from, let source = try? scene.actionRules(of: from) {
            if let own = source.actions["contents"] { rule = own } else if source.policy == .explicitOnly { policy = .explicitOnly }
        }
        switch rule {
        case .none?:
            return nil
        case .animation(let animation)?:
            return animation.timing.duration > 0 ? animation.timing.duration : override ?? scene.configuration.implicitDuration
        case nil:
            return policy == .explicitOnly && !animated ? nil : override ?? scene.configuration.implicitDuration
        }
    }
}
