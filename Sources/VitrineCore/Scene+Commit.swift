/// Committing transactions: validation, implicit actions, and undo on failure.
extension Scene {
    /// Applies a transaction atomically at media time `time` and returns its id.
    ///
    /// Every operation is checked as it is applied; if one fails, everything the
    /// transaction did is rolled back and the error is thrown, so the scene is as before.
    /// Animations without a begin time begin at `time`. When every animation the
    /// transaction added has stopped, a `transactionCompleted` event follows (at once if
    /// it added none).
    @discardableResult
    public func commit(_ transaction: Transaction, at time: Double) throws(CoreError) -> UInt64 {
        guard time.isFinite else { throw .invalidTiming("the commit time must be finite") }
        let id = nextTransactionID
        nextTransactionID += 1
        let eventCount = pendingEvents.count
        let waitsBefore = transactionWaits
        undoLog = []
        committingTransaction = id
        transactionWaits[id] = []
        defer {
            undoLog = nil
            committingTransaction = nil
        }
        let base = TransactionSettings(duration: configuration.implicitDuration, timingFunction: nil, disableActions: false, isAnimated: false)
        let valueBytesBefore = valueBytes
        outgoing = outgoingRenderings(for: transaction, at: time)
        defer { outgoing = [:] }
        do throws(CoreError) {
            try apply(transaction, settings: base.inheriting(transaction), transaction: id, time: time)
            if valueBytes > configuration.maximumValueBytes, valueBytes > valueBytesBefore {
                throw CoreError.limitExceeded(
                    "the layers' text, custom values and animation values would hold \(valueBytes >> 10) KB, over the scene's \(configuration.maximumValueBytes >> 10) KB (limits.scene_mb); remove layers, properties or animations, or use shorter values"
                )
            }
        } catch {
            valueBytes = valueBytesBefore
            for undo in undoLog!.reversed() { undo() }
            pendingEvents.removeSubrange(eventCount...)
            transactionWaits = waitsBefore
            throw error
        }
        revision &+= 1
        if transactionWaits[id]?.isEmpty ?? true {
            transactionWaits[id] = nil
            pendingEvents.append(.transactionCompleted(transaction: id))
        }
        return id
    }

    private func apply(_ tx: Transaction, settings: TransactionSettings, transaction: UInt64, time: Double) throws(CoreError) {
        if let d = tx.animationDuration, !(d.isFinite && d >= 0 && d <= 1e6) {
            throw .invalidTiming("animationDuration must be a number of seconds within 0…1000000")
        }
        for op in tx.operations {
            switch op {
            case .addLayer(let id, let kind, let parent, let placement, let properties):
                try addLayer(id: id, kind: kind, parent: parent, placement: placement, properties: properties)
            case .removeLayer(let id):
                try removeLayer(id)
            case .moveLayer(let id, let parent, let placement):
                try moveLayer(id, parent: parent, placement: placement)
            case .set(let id, let keyPath, let value):
                try set(keyPath, value, of: try layer(id), settings: settings, transaction: transaction, time: time)
            case .addAnimation(let id, let key, let animation):
                let layer = try layer(id)
                let track = try resolve(animation, on: layer, settings: settings, parentDuration: nil, beginAt: currentTime(of: layer, at: time))
                try attach(track, key: key, to: layer, transaction: transaction)
            case .removeAnimation(let id, let key):
                let layer = try layer(id)
                guard let index = layer.animations.firstIndex(where: { $0.key == key }) else {
                    throw .unknownAnimation(key: key, layer: id)
                }
                var list = layer.animations
                stopped(list.remove(at: index), on: layer, finished: false)
                setAnimations(list, of: layer)
            case .removeAllAnimations(let id):
                let layer = try layer(id)
                for attached in layer.animations { stopped(attached, on: layer, finished: false) }
                setAnimations([], of: layer)
            case .setActions(let id, let actions):
                let layer = try layer(id)
                for case .animation(let a)? in actions.values {
                    _ = try resolve(a, on: layer, settings: settings, parentDuration: nil, beginAt: 0, checkTarget: false)
                }
                let old = layer.actions
                undoLog!.append { layer.actions = old }
                for (key, rule) in actions { layer.actions[key] = rule }
            case .setActionsFrom(let id, let source):
                let layer = try layer(id)
                if let source { _ = try self.layer(source) }
                let old = layer.actionsFrom
                undoLog!.append { layer.actionsFrom = old }
                layer.actionsFrom = source
            case .setActionPolicy(let id, let policy):
                let layer = try layer(id)
                let old = layer.actionPolicy
                undoLog!.append { layer.actionPolicy = old }
                layer.actionPolicy = policy
            case .setDisplayKeys(let id, let keys):
                let layer = try layer(id)
                let old = layer.displayKeys
                undoLog!.append { layer.displayKeys = old }
                layer.displayKeys = keys
                layerChanged(layer)
            case .nested(let inner):
                try apply(inner, settings: settings.inheriting(inner), transaction: transaction, time: time)
            }
        }
    }

    // MARK: Tree changes

    private func addLayer(id: String, kind: String, parent: String?, placement: Transaction.Placement, properties: [(KeyPath, Value)]) throws(CoreError) {
        try validateNewID(id)
        guard let kind = kinds[kind] else { throw .unknownKind(kind, known: kinds.keys.sorted()) }
        guard layers.count < configuration.maximumLayers else {
            throw .limitExceeded("the scene holds its maximum of \(configuration.maximumLayers) layers (limits.layers); remove some first")
        }
        let parentLayer = try parent.map { p throws(CoreError) in try self.layer(p) }
        let layer = Layer(id: id, kind: kind)
        for (path, value) in properties {
            guard !path.components.contains("") else {
                throw .invalidKeyPath(path.description, "a key path is one or more names joined by dots, such as position.x")
            }
            guard let target = layer.target(for: path, create: true) else { throw .unknownKeyPath(path.description, layer: id) }
            if case .custom = target { try layer.checkNewCustomKey(path) }
            layer.model = try layer.model.validatedSetting(value, at: target, path: path, descriptor: layer.descriptor(for: target))
        }
        let index = try parentLayer.map { p throws(CoreError) in try self.index(for: placement, in: p, moving: nil) }
        valueBytes += layer.model.heapBytes
        layers[id] = layer
        undoLog!.append { [unowned self] in self.layers[id] = nil }
        if let parentLayer, let index {
            insert(layer, into: parentLayer, at: index)
        } else {
            treeChanged()
        }
        if !layer.model.string(.mask).isEmpty { try linkMask(of: layer) }
    }

    private func removeLayer(_ id: String) throws(CoreError) {
        let layer = try layer(id)
        guard layer.rootOfOutput == nil else { throw .rootLayer(id) }
        if let host = layer.maskHost { unsetMask(of: host) }
        var stack = [layer]
        while let node = stack.popLast() {
            stack.append(contentsOf: node.sublayers)
            if let mask = node.maskLayer { stack.append(mask) }
            for attached in node.animations { stopped(attached, on: node, finished: false) }
            setAnimations([], of: node)
            valueBytes -= node.model.heapBytes
            layers[node.id] = nil
            undoLog!.append { [unowned self] in self.layers[node.id] = node }
        }
        detach(layer)
    }

    private func moveLayer(_ id: String, parent: String, placement: Transaction.Placement) throws(CoreError) {
        let layer = try layer(id)
        guard layer.rootOfOutput == nil else { throw .rootLayer(id) }
        let newParent = try self.layer(parent)
        if let host = layer.maskHost {
            throw .invalidValue(
                keyPath: "parent", "'\(id)' is the mask of '\(host.id)' and cannot also be in the tree; set the mask of '\(host.id)' to \"\" first")
        }
        guard !layer.isAncestor(of: newParent) else { throw .cycle(layer: id, parent: parent) }
        if case .above(let s) = placement, s == id { return }
        if case .below(let s) = placement, s == id { return }
        detach(layer)
        insert(layer, into: newParent, at: try index(for: placement, in: newParent, moving: layer))
    }

    private func index(for placement: Transaction.Placement, in parent: Layer, moving: Layer?) throws(CoreError) -> Int {
        func sibling(_ id: String) throws(CoreError) -> Int {
            guard let i = parent.sublayers.firstIndex(where: { $0.id == id }) else {
                throw layers[id] == nil ? .unknownLayer(id) : .invalidValue(keyPath: "placement", "'\(id)' is not a sublayer of '\(parent.id)'")
            }
            return i
        }
        switch placement {
        case .top: return parent.sublayers.count
        case .bottom: return 0
        case .index(let i): return min(max(i, 0), parent.sublayers.count)
        case .above(let id): return try sibling(id) + 1
        case .below(let id): return try sibling(id)
        }
    }

    private func insert(_ layer: Layer, into parent: Layer, at index: Int) {
        treeChanged()
        parent.sublayers.insert(layer, at: index)
        layer.parent = parent
        undoLog!.append {
            parent.sublayers.remove(at: index)
            layer.parent = nil
        }
    }

    private func detach(_ layer: Layer) {
        guard let parent = layer.parent, let index = parent.sublayers.firstIndex(where: { $0 === layer }) else { return }
        treeChanged()
        parent.sublayers.remove(at: index)
        layer.parent = nil
        undoLog!.append {
            parent.sublayers.insert(layer, at: index)
            layer.parent = parent
        }
    }

    // MARK: Property changes and implicit actions

    private func set(_ path: KeyPath, _ value: Value, of layer: Layer, settings: TransactionSettings, transaction: UInt64, time: Double) throws(CoreError) {
        guard let target = layer.target(for: path, create: true) else { throw .unknownKeyPath(path.description, layer: layer.id) }
        // Only a key about to become a new custom one is compared with the built-in names.
        if case .custom = target { try layer.checkNewCustomKey(path) }
        let descriptor = layer.descriptor(for: target)
        let newModel = try layer.model.validatedSetting(value, at: target, path: path, descriptor: descriptor)
        let localTime = currentTime(of: layer, at: time)
        let shown = Self.presentation(of: layer, localTime: localTime).value(at: target)
        let old = layer.model
        undoLog!.append { layer.model = old }
        valueBytes += newModel.heapBytes - old.heapBytes
        layer.model = newModel
        if case .slot(BaseProperty.mask.slot, _) = target {
            try linkMask(of: layer)
        } else if case .slot(BaseProperty.zPosition.slot, _) = target {
            // zPosition orders siblings: the tree's shape may change.
            treeChanged()
        } else {
            layerChanged(layer)
        }
        guard let shown, shown != value, shown.type == value.type,
            var animation = action(for: path, of: layer, descriptor: descriptor, settings: settings)
        else { return }
        animation.keyPath = path
        switch animation.kind {
        case .basic(let e) where e.from == nil && e.to == nil && e.by == nil:
            animation.kind = .basic(Animation.Endpoints(from: shown))
        case .spring(let e, let s) where e.from == nil && e.to == nil && e.by == nil:
            animation.kind = .spring(Animation.Endpoints(from: shown), s)
        default:
            break
        }
        let track = try resolve(animation, on: layer, settings: settings, parentDuration: nil, beginAt: localTime)
        try attach(track, key: path.description, to: layer, transaction: transaction)
    }

    /// CA's action lookup: the layer named by `actionsFrom` answers first (its actions
    /// map, then its policy if `explicitOnly`), then the layer's own actions map (the key
    /// path, then its property), then its policy, then the property's default action.
    private func action(for path: KeyPath, of layer: Layer, descriptor: PropertyDescriptor?, settings: TransactionSettings) -> Animation? {
        if settings.disableActions { return nil }
        if let descriptor, !descriptor.isAnimatable { return nil }
        let keys = [path.description, path.property]
        let standard = Animation.basic(path, timingFunction: settings.timingFunction ?? configuration.implicitTimingFunction)
        func rule(_ source: Layer) -> ActionRule? {
            keys.lazy.compactMap { source.actions[$0] }.first
        }
        func resolved(_ rule: ActionRule) -> Animation? {
            if case .animation(let a) = rule { return a }
            return nil
        }
        if let sourceID = layer.actionsFrom, let source = layers[sourceID] {
            if let r = rule(source) { return resolved(r) }
            if source.actionPolicy == .explicitOnly { return settings.isAnimated ? standard : nil }
        }
        if let r = rule(layer) { return resolved(r) }
        if layer.actionPolicy == .explicitOnly { return settings.isAnimated ? standard : nil }
        return descriptor?.hasImplicitAction == true ? standard : nil
    }

    // MARK: Animations

    /// The layer's local time at media time `time` (the plain formula through inactive
    /// ancestors): where an animation without a begin time begins.
    func currentTime(of layer: Layer, at time: Double) -> Double {
        localTime(of: layer, at: time) ?? (try? convertTime(time, from: nil, to: layer.id)) ?? time
    }

    /// Checks an animation against the layer and fills in what CA fills in when it is
    /// added: a duration (the spring's settling duration, the group's, or the
    /// transaction's), the begin time, and the key path's target.
    func resolve(
        _ animation: Animation, on layer: Layer, settings: TransactionSettings, parentDuration: Double?, beginAt now: Double?, checkTarget: Bool = true
    ) throws(CoreError) -> Track {
        var a = animation
        let t = a.timing
        guard [t.beginTime, t.duration, t.speed, t.timeOffset, t.repeatDuration].allSatisfy({ $0.isFinite && abs($0) <= maximumMagnitude }),
            t.duration >= 0, t.repeatDuration >= 0, abs(t.speed) <= 1000, t.repeatCount >= 0, !t.repeatCount.isNaN
        else {
            throw .invalidTiming("durations and repeats must be finite and ≥ 0, speed within ±1000, times within ±1e9")
        }
        if a.timing.duration == 0 {
            if case .spring(_, let spring) = a.kind {
                a.timing.duration = spring.settlingDuration
            } else {
                a.timing.duration = parentDuration ?? settings.duration
            }
        }
        a.timing.duration = max(a.timing.duration, 1e-6)
        if let now, a.timing.beginTime == 0 { a.timing.beginTime = now }
        if case .basic = a.kind, a.timingFunction == nil, parentDuration == nil { a.timingFunction = settings.timingFunction }
        if case .transition(let transition) = a.kind {
            guard a.keyPath == nil, parentDuration == nil else { throw .invalidAnimation("a transition has no key path and is not in a group") }
            try transition.validate()
            return Track(animation: a, target: nil, children: [], outgoing: outgoing[layer.id])
        }
        if case .group(let children) = a.kind {
            guard a.keyPath == nil else { throw .invalidAnimation("a group has no key path; its children have") }
            var tracks: [Track] = []
            for child in children {
                tracks.append(try resolve(child, on: layer, settings: settings, parentDuration: a.timing.duration, beginAt: nil, checkTarget: checkTarget))
            }
            return Track(animation: a, target: nil, children: tracks)
        }
        guard let path = a.keyPath else { throw .invalidAnimation("the animation needs a keyPath") }
        if case .keyframe(let k) = a.kind { try k.validate() }
        if case .spring(let e, _) = a.kind, e.all.isEmpty, checkTarget {
            throw .invalidAnimation("a spring needs a from, to or by value")
        }
        for v in a.values { try validateNumbers(v, at: path) }
        guard checkTarget else { return Track(animation: a, target: nil, children: []) }
        guard let target = layer.target(for: path, create: false), let current = layer.model.value(at: target) else {
            if layer.kind.slot(of: path.property) == nil { try layer.checkNewCustomKey(path) }
            throw .unknownKeyPath(path.description + " (set a custom property before animating it)", layer: layer.id)
        }
        if let d = layer.descriptor(for: target), !d.isAnimatable { throw .notAnimatable(path.description) }
        for v in a.values where v.type != current.type {
            throw .typeMismatch(keyPath: path.description, expected: current.type.phrase, got: v.type.phrase)
        }
        // As for a set value: an array's elements must be of the property's element type
        // (a gradient's colours), or the frames between would draw nothing.
        if path.components.count == 1, let element = layer.descriptor(for: target)?.elementType {
            for v in a.values {
                if let bad = v.array?.first(where: { $0.type != element }) {
                    throw .typeMismatch(keyPath: path.description, expected: "an array of \(element)s", got: "an array holding \(bad.type.phrase)")
                }
            }
        }
        return Track(animation: a, target: target, children: [], interpolation: layer.descriptor(for: target)?.interpolation ?? .values)
    }

    private func attach(_ track: Track, key: String?, to layer: Layer, transaction: UInt64) throws(CoreError) {
        let id = nextAnimationID
        nextAnimationID += 1
        let key = key ?? "animation-\(id)"
        var list = layer.animations
        if let index = list.firstIndex(where: { $0.key == key }) {
            stopped(list.remove(at: index), on: layer, finished: false)
        }
        guard list.count < configuration.maximumAnimationsPerLayer else {
            throw .limitExceeded(
                "layer '\(layer.id)' holds its maximum of \(configuration.maximumAnimationsPerLayer) animations (limits.animations_per_layer); remove some first"
            )
        }
        list.append(AttachedAnimation(id: id, key: key, track: track, transaction: transaction))
        setAnimations(list, of: layer)
        transactionWaits[transaction, default: []].insert(id)
    }

    /// Replaces a layer's animation list (with undo during a commit) and keeps the index
    /// of animated layers current.
    func setAnimations(_ list: [AttachedAnimation], of layer: Layer) {
        let old = layer.animations
        valueBytes += list.reduce(0) { $0 + $1.track.heapBytes } - old.reduce(0) { $0 + $1.track.heapBytes }
        layer.animations = list
        treeChanged()
        updateAnimatedIndex(layer)
        undoLog?.append { [unowned self] in
            layer.animations = old
            self.updateAnimatedIndex(layer)
        }
    }

    func updateAnimatedIndex(_ layer: Layer) {
        animatedLayers[layer.id] = (layer.animations.isEmpty || layers[layer.id] !== layer) ? nil : layer
    }

    /// Records that an animation stopped and completes its transaction if it was the
    /// last one that transaction waited for.
    func stopped(_ attached: AttachedAnimation, on layer: Layer, finished: Bool) {
        // A kept animation (isRemovedOnCompletion false) reported its stop when it ended.
        guard !attached.hasFinished else { return }
        pendingEvents.append(.animationStopped(layer: layer.id, key: attached.key, animation: attached.id, finished: finished))
        guard let tx = attached.transaction, transactionWaits[tx] != nil else { return }
        transactionWaits[tx]!.remove(attached.id)
        if transactionWaits[tx]!.isEmpty, tx != committingTransaction {
            transactionWaits[tx] = nil
            pendingEvents.append(.transactionCompleted(transaction: tx))
        }
    }
}

extension PropertyValues {
    /// These values with `value` at `target`, after checking it against the property's
    /// descriptor (or, for custom keys, that it is finite and fits the existing shape).
    func validatedSetting(_ value: Value, at target: PropertyTarget, path: KeyPath, descriptor: PropertyDescriptor?) throws(CoreError) -> PropertyValues {
        if let descriptor {
            try descriptor.validate(value, at: path)
        } else {
            try validateNumbers(value, at: path)
        }
        var copy = self
        switch target {
        case .slot(let i, let sub):
            guard let v = sub.isEmpty ? value : base[i].settingComponent(sub[...], to: value) else {
                throw .invalidKeyPath(path.description, "\(path.property) has no part '\(sub.joined(separator: "."))'")
            }
            copy.base[i] = v
        case .custom(let p):
            if p.components.count == 1 {
                copy.custom[p.property] = value
            } else {
                guard let v = (custom[p.property] ?? .dictionary([:])).settingComponent(p.subpath, to: value) else {
                    throw Self.pathMismatch(p, in: custom[p.property])
                }
                copy.custom[p.property] = v
            }
        }
        return copy
    }

    /// Why custom key path `path` names no place for a value in `top` (the property's
    /// value, if any): an index that is not one of an array's, or a part of a value that
    /// has no parts.
    private static func pathMismatch(_ path: KeyPath, in top: Value?) -> CoreError {
        var value = top
        var prefix = [path.property]
        for part in path.subpath {
            if case .array(let items) = value, Value.index(part).map({ $0 >= items.count }) ?? true {
                let name = prefix.joined(separator: ".")
                let range = items.isEmpty ? "it is empty" : "0…\(items.count - 1), without leading zeros"
                return .typeMismatch(
                    keyPath: path.description,
                    expected: "an index of the \(items.count)-element array '\(name)' (\(range); a key path does not grow an array)",
                    got: "'\(part)'")
            }
            guard let next = value?.component([part]) else { break }
            value = next
            prefix.append(part)
        }
        return .typeMismatch(
            keyPath: path.description, expected: "a path through objects and array indices", got: "a path into \(value?.type.phrase ?? "nothing")")
    }
}
