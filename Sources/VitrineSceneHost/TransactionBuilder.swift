import VitrineCore
import VitrineProtocol
import VitrineRolling

/// Turns wire commands into one model transaction, decoding each value by the type of
/// the property it goes to — including layers added earlier in the same batch.
struct TransactionBuilder {
    let host: SceneHost
    /// Kinds of layers added in this batch, by id.
    var pendingKinds: [String: LayerKind] = [:]
    /// Custom values set in this batch, by layer and key path.
    private var pendingCustom: [String: [String: Value]] = [:]

    init(host: SceneHost) { self.host = host }

    var scene: Scene { host.scene }
    var now: Double { host.now }

    /// A model transaction with a `transaction` command's settings.
    func transaction(_ spec: TransactionSpec) throws(ProtocolError) -> Transaction {
        Transaction(animationDuration: spec.duration, timingFunction: spec.timing, disableActions: spec.disableActions, isAnimated: spec.animated)
    }

    /// Appends the operations of a scene-changing command to `tx`; returns the result the
    /// reply carries.
    mutating func append(_ command: Command, to tx: inout Transaction) throws(ProtocolError) -> JSON {
        switch command {
        case .layerAdd(let id, let kindName, let parent, let placement, let properties):
            guard let kind = scene.kinds[kindName] else {
                throw ProtocolError(CoreError.unknownKind(kindName, known: scene.kinds.keys.sorted()))
            }
            var values: [(KeyPath, Value)] = []
            for (key, json) in properties {
                let path = try keyPath(key)
                let value = try Value(json: json, shape: kind.valueShape(at: path), at: "\(id).\(key)")
                if kind.slot(of: path.property) == nil { pendingCustom[id, default: [:]][key] = value }
                values.append((path, value))
            }
            pendingKinds[id] = kind
            tx.operations.append(
                .addLayer(id: id, kind: kindName, parent: parent ?? .some(host.root), placement: placement.placement, properties: values))
            if kindName == RollingNumber.kindName {
                var initial = PropertyValues(slots: kind.properties.map(\.defaultValue), custom: [:])
                for (path, value) in values where path.components.count == 1 {
                    if let slot = kind.slot(of: path.property), value.type == initial[slot: slot].type { initial.slots[slot] = value }
                }
                try appendRoll(layer: id, kind: kind, values: initial, change: nil, to: &tx)
            }
            return .object(["layer": .string(id)])
        case .layerRemove(let id):
            tx.remove(layer: id)
            return .object(["layer": .string(id)])
        case .layerMove(let id, let parent, let placement):
            tx.move(layer: id, to: parent, placement: placement.placement)
            return .object(["layer": .string(id)])
        case .layerSet(let id, let properties, let animation, let actions):
            let layerKind = try kind(of: id)
            if layerKind.name == RollingNumber.kindName, properties.contains(where: { RollingNumber.formattingKeys.contains($0.0) }) {
                return try setRollingNumber(id, kind: layerKind, properties: properties, actions: actions, to: &tx)
            }
            var inner = Transaction(disableActions: actions ? nil : true)
            for (key, json) in properties {
                let path = try keyPath(key)
                let value = try Value(json: json, shape: shape(of: id, at: path), at: "\(id).\(key)")
                if try kind(of: id).slot(of: path.property) == nil { pendingCustom[id, default: [:]][key] = value }
                guard let animation else {
                    inner.set(id, path, value)
                    continue
                }
                let shown = try? scene.presentationValue(path, of: id, at: now)
                var quiet = Transaction(disableActions: true)
                quiet.set(id, path, value)
                if let shown, shown.type == value.type {
                    quiet.addAnimation(try template(animation, path: path, from: shown, to: value), forKey: key, to: id)
                }
                inner.nest(quiet)
            }
            tx.nest(inner)
            return .object(["layer": .string(id)])
        case .layerActions(let id, let actions, let actionsFrom, let policy, let displayKeys):
            if let actions {
                var rules: [String: ActionRule?] = [:]
                for (key, template) in actions {
                    guard let template else {
                        rules[key] = ActionRule.none
                        continue
                    }
                    rules[key] = .animation(
                        try AnimationDescription(template: template, springDefaults: host.settings.spring) { path in try? self.shape(of: id, at: path) }
                            .animation)
                }
                tx.operations.append(.setActions(layer: id, actions: rules))
            }
            if let actionsFrom { tx.operations.append(.setActionsFrom(layer: id, source: actionsFrom)) }
            if let policy { tx.operations.append(.setActionPolicy(layer: id, policy: policy)) }
            if let displayKeys { tx.operations.append(.setDisplayKeys(layer: id, keys: Set(displayKeys))) }
            return .object(["layer": .string(id)])
        case .animationAdd(let layer, let key, let template):
            _ = try kind(of: layer)  // unknown_layer before any complaint about the animated property
            let description: AnimationDescription
            do throws(ProtocolError) {
                description = try AnimationDescription(template: template, springDefaults: host.settings.spring) { path in
                    try? self.shape(of: layer, at: path)
                }
            } catch {
                throw try nearMiss(in: template, of: layer) ?? error
            }
            var animation = description.animation
            if let delay = description.delay {
                let local = (try? scene.localTime(of: layer, at: now)) ?? nil
                animation.timing.beginTime = (local ?? now) + delay
            }
            let chosen = key ?? description.key ?? host.nextAnimationKey()
            tx.addAnimation(animation, forKey: chosen, to: layer)
            return .object(["layer": .string(layer), "key": .string(chosen)])
        case .animationRemove(let layer, let key):
            if let key {
                tx.operations.append(.removeAnimation(layer: layer, key: key))
            } else {
                tx.operations.append(.removeAllAnimations(layer: layer))
            }
            return .object(["layer": .string(layer)])
        case .layerPause(let id):
            return try changeSpeed(of: id, to: 0, in: &tx)
        case .layerResume(let id):
            return try changeSpeed(of: id, to: 1, in: &tx)
        case .layerSpeed(let id, let speed):
            return try changeSpeed(of: id, to: speed, in: &tx)
        case .numberSet(let layer, let change):
            let layerKind = try kind(of: layer)
            guard layerKind.name == RollingNumber.kindName else {
                throw ProtocolError(.invalidValue, "number.set needs a layer of kind \(RollingNumber.kindName); '\(layer)' is a \(layerKind.name)")
            }
            let values = try core { () throws(CoreError) in try scene.modelValues(of: layer) }
            try appendRoll(layer: layer, kind: layerKind, values: values, change: change, to: &tx)
            return .object(["layer": .string(layer), "text": .string(RollingNumberProperties(values, kind: layerKind).format.string(for: change.value))])
        case .transaction(let spec):
            var inner = try transaction(spec)
            for command in spec.commands { _ = try append(command, to: &inner) }
            tx.nest(inner)
            return .object([:])
        default:
            throw ProtocolError(.invalidValue, "\(command.name) cannot be part of a transaction")
        }
    }

    /// Changes a layer's speed without a jump in its local time (CAMediaTiming): speed 0
    /// pauses (timeOffset holds the time), another speed moves beginTime so that the
    /// local time continues from where it is.
    private func changeSpeed(of id: String, to speed: Double, in tx: inout Transaction) throws(ProtocolError) -> JSON {
        let values = try core { () throws(CoreError) in try scene.modelValues(of: id) }
        let timing = values.timing
        let parent = try core { () throws(CoreError) in try scene.timeParent(of: id) }
        let parentTime = try parent.map { p throws(ProtocolError) in try core { () throws(CoreError) in try scene.convertTime(now, from: nil, to: p) } } ?? now
        let local = timing.localTime(fromParent: parentTime)
        var quiet = Transaction(disableActions: true)
        if speed == 0 {
            quiet.set(id, "speed", .number(0))
            quiet.set(id, "timeOffset", .number(local))
        } else {
            // The local time continues only if the moved beginTime is a number the scene
            // holds: a speed too near 0 is the client's "speed" at fault, not beginTime.
            let beginTime = parentTime - local / speed
            guard beginTime.isFinite, abs(beginTime) <= maximumMagnitude else {
                let room = maximumMagnitude - abs(parentTime)
                let least = room > 0 ? abs(local) / room : .infinity
                let accepted = least < 1000 ? "0 (a pause) or of a magnitude within \(Self.roundedUp(least))…1000" : "0 (a pause)"
                throw ProtocolError(
                    .invalidValue,
                    "layer.speed: \"speed\" \(JSON.number(speed).text) is too near 0: layer '\(id)' is at local time \(JSON.number(local).text) s, and its time continues from there only at a speed of \(accepted)"
                )
            }
            quiet.set(id, "speed", .number(speed))
            quiet.set(id, "timeOffset", .number(0))
            quiet.set(id, "beginTime", .number(beginTime))
        }
        tx.nest(quiet)
        return .object(["layer": .string(id), "time": .number(local)])
    }

    /// A positive `x` rounded up to two significant digits, as text such as `2.1e-9`.
    static func roundedUp(_ x: Double) -> String {
        guard x.isFinite, x > 0 else { return x == 0 ? "0" : "\(x)" }
        var mantissa = x * (1 + 1e-9), exponent = 1
        while mantissa >= 100 { mantissa /= 10; exponent += 1 }
        while mantissa < 10 { mantissa *= 10; exponent -= 1 }
        var digits = Int(mantissa.rounded(.up))
        if digits == 100 { digits = 10; exponent += 1 }
        return digits % 10 == 0 ? "\(digits / 10)e\(exponent)" : "\(digits / 10).\(digits % 10)e\(exponent)"
    }

    /// An animation from `from` to `to` at `path`, timed and curved as `layer.set`'s
    /// template (a basic or spring one) says.
    private func template(_ template: AnimationTemplate, path: KeyPath, from: Value, to: Value) throws(ProtocolError) -> Animation {
        var template = template
        template.keyPath = path
        let description = try AnimationDescription(template: template, springDefaults: host.settings.spring) { _ in (to.type, nil) }
        var animation = description.animation
        if case .spring(_, let spring) = animation.kind {
            animation.kind = .spring(Animation.Endpoints(from: from, to: to), spring)
        } else {
            animation.kind = .basic(Animation.Endpoints(from: from, to: to))
        }
        if let delay = description.delay { animation.timing.beginTime = now + delay }
        return animation
    }

    private func keyPath(_ text: String) throws(ProtocolError) -> KeyPath {
        do { return try KeyPath(parsing: text) } catch { throw ProtocolError(error) }
    }

    private func kind(of id: String) throws(ProtocolError) -> LayerKind {
        if let pending = pendingKinds[id] { return pending }
        return try core { () throws(CoreError) in try scene.kind(of: id) }
    }

    /// For an animation of layer `id` refused for a missing key path: `unknown_property`
    /// with a suggestion when a key path in it (a group's children's too) is a near miss
    /// of a property of the layer's kind, else nil.
    private func nearMiss(in template: AnimationTemplate, of id: String) throws(ProtocolError) -> ProtocolError? {
        let kind = try kind(of: id)
        if let path = template.keyPath, (try? shape(of: id, at: path)) == nil, let suggestion = kind.nearMiss(for: path.property) {
            return ProtocolError(CoreError.unknownProperty(path.property, layer: id, kind: kind.name, suggestion: suggestion))
        }
        if case .group(let children) = template.kind {
            for child in children {
                if let found = try nearMiss(in: child, of: id) { return found }
            }
        }
        return nil
    }

    /// The shape a value at `path` of layer `id` must have: the kind's for built-in
    /// properties, the current value's for existing custom ones, none (inferred) for new.
    private func shape(of id: String, at path: KeyPath) throws(ProtocolError) -> (type: ValueType, element: ValueType?)? {
        let kind = try kind(of: id)
        if let shape = kind.valueShape(at: path) { return shape }
        if let pending = pendingCustom[id]?[path.description] { return (pending.type, nil) }
        if let existing = try? scene.modelValue(path, of: id) { return (existing.type, nil) }
        if let type = kind.customShape?(path) { return (type, nil) }
        return nil
    }
}
