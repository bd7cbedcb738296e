/// Taking the whole scene as a value and rebuilding it from one: what the daemon's scene
/// journal saves and restores.
extension Scene {
    /// Everything that decides what a scene shows now and later: the layers under each
    /// output root with their model values, timing, action rules and display keys, every
    /// attached animation with its resolved timing (begin times absolute in its layer's
    /// time), and the id counters. It holds no time: animations keep their place on the
    /// media timeline, so a scene restored from a snapshot shows at media time t what the
    /// original showed at t.
    public struct Snapshot: Sendable, Hashable {
        /// One layer.
        public struct LayerState: Sendable, Hashable {
            /// The layer's id.
            public var id: String
            /// The kind's name (`layer`, `text`, `rolling-number`, …).
            public var kind: String
            /// The parent's id; nil for an output's root layer and for a layer outside the
            /// tree.
            public var parent: String?
            /// The layer is outside the tree (added without a parent: a mask, or one to be).
            public var isDetached: Bool
            /// The built-in properties whose model values differ from the kind's
            /// defaults, by property name.
            public var properties: [String: Value]
            /// Custom properties by top-level key.
            public var custom: [String: Value]
            /// The actions map: key path or property → rule.
            public var actions: [String: ActionRule]
            /// The layer whose action rules answer first.
            public var actionsFrom: String?
            /// Whether changes animate implicitly or only in an animated transaction.
            public var actionPolicy: ActionPolicy
            /// Custom keys whose changes redraw the layer.
            public var displayKeys: Set<String>
            /// Attached animations, in the order added.
            public var animations: [AnimationState]

            /// A layer of `kind` with every property at its default and nothing attached.
            public init(
                id: String, kind: String = "layer", parent: String?, isDetached: Bool = false, properties: [String: Value] = [:],
                custom: [String: Value] = [:], actions: [String: ActionRule] = [:], actionsFrom: String? = nil, actionPolicy: ActionPolicy = .implicit,
                displayKeys: Set<String> = [], animations: [AnimationState] = []
            ) {
                (self.id, self.kind, self.parent, self.properties, self.custom) = (id, kind, parent, properties, custom)
                self.isDetached = isDetached
                (self.actions, self.actionsFrom, self.actionPolicy, self.displayKeys, self.animations) =
                    (actions, actionsFrom, actionPolicy, displayKeys, animations)
            }
        }

        /// One attached animation.
        public struct AnimationState: Sendable, Hashable {
            /// The animation's id, as events name it.
            public var id: UInt64
            /// The key it is attached under.
            public var key: String
            /// As resolved when added: durations filled in, begin time in the layer's time.
            public var animation: Animation
            /// The transaction that added it, whose completion waits for it.
            public var transaction: UInt64?
            /// `animationStarted` has been reported.
            public var hasStarted: Bool
            /// It has ended (and, kept by `isRemovedOnCompletion` false, still shows).
            public var hasFinished: Bool

            public init(id: UInt64, key: String, animation: Animation, transaction: UInt64?, hasStarted: Bool, hasFinished: Bool) {
                (self.id, self.key, self.animation, self.transaction) = (id, key, animation, transaction)
                (self.hasStarted, self.hasFinished) = (hasStarted, hasFinished)
            }
        }

        /// Every layer, each after its parent, siblings in drawing order (bottom first).
        /// Root layers come first in their trees and are matched by id when restoring;
        /// the layers outside the tree (masks) and theirs follow, by id.
        public var layers: [LayerState]
        /// The id the next animation gets.
        public var nextAnimationID: UInt64
        /// The id the next transaction gets.
        public var nextTransactionID: UInt64

        public init(layers: [LayerState], nextAnimationID: UInt64 = 1, nextTransactionID: UInt64 = 1) {
            self.layers = layers
            self.nextAnimationID = nextAnimationID
            self.nextTransactionID = nextTransactionID
        }
    }

    /// The scene as a value.
    public func snapshot() -> Snapshot {
        var states: [Snapshot.LayerState] = []
        states.reserveCapacity(layers.count)
        let detached = layers.values.filter { $0.parent == nil && $0.rootOfOutput == nil }.sorted { $0.id > $1.id }
        var stack = detached + roots.reversed()
        while let layer = stack.popLast() {
            var properties: [String: Value] = [:]
            for (slot, descriptor) in layer.kind.properties.enumerated() where layer.model.base[slot] != descriptor.defaultValue {
                properties[descriptor.name] = layer.model.base[slot]
            }
            states.append(
                Snapshot.LayerState(
                    id: layer.id, kind: layer.kindName, parent: layer.parent?.id, isDetached: layer.parent == nil && layer.rootOfOutput == nil,
                    properties: properties, custom: layer.model.custom,
                    actions: layer.actions, actionsFrom: layer.actionsFrom, actionPolicy: layer.actionPolicy, displayKeys: layer.displayKeys,
                    animations: layer.animations.map {
                        Snapshot.AnimationState(
                            id: $0.id, key: $0.key, animation: $0.track.animation, transaction: $0.transaction,
                            hasStarted: $0.hasStarted, hasFinished: $0.hasFinished)
                    }))
            stack.append(contentsOf: layer.sublayers.reversed())
        }
        return Snapshot(layers: states, nextAnimationID: nextAnimationID, nextTransactionID: nextTransactionID)
    }

    /// Replaces the scene with `snapshot`: every layer that is not an output root goes,
    /// the snapshot's layers are built under the roots it names, and the roots take its
    /// values, rules and animations, except their bounds and position, which stay the
    /// output's. Roots it does not name are left empty.
    ///
    /// Everything is checked before anything changes: an unknown kind or root, a parent
    /// that does not come before its layer, an id given twice, a value the property does
    /// not take, an animation that cannot be resolved again, or more layers or animations
    /// than the configuration allows throw, and the scene stays as it was. The replaced
    /// layers' animations stop without events; events already queued stay queued.
    public func restore(_ snapshot: Snapshot) throws(CoreError) {
        var built: [String: Layer] = [:]
        var order: [(layer: Layer, parent: Layer?)] = []
        var rootStates: [(Layer, PropertyValues, Snapshot.LayerState)] = []
        var animationIDs = Set<UInt64>()
        var lastAnimation: UInt64 = 0, lastTransaction: UInt64 = 0
        guard snapshot.layers.count - snapshot.layers.count(where: { $0.parent == nil && !$0.isDetached }) + roots.count <= configuration.maximumLayers
        else {
            throw .limitExceeded("the snapshot holds more than the scene's maximum of \(configuration.maximumLayers) layers (limits.layers)")
        }
        for state in snapshot.layers {
            let layer: Layer
            if state.parent == nil, !state.isDetached {
                guard let root = layers[state.id], root.rootOfOutput != nil, built[state.id] == nil else { throw .unknownLayer(state.id) }
                guard root.kindName == state.kind else {
                    throw .invalidValue(keyPath: "kind", "the root layer '\(state.id)' is a \(root.kindName), not a \(state.kind)")
                }
                layer = root
            } else {
                guard built[state.id] == nil, layers[state.id]?.rootOfOutput == nil else { throw .duplicateLayer(state.id) }
                try Self.validateID(state.id)
                guard let kind = kinds[state.kind] else { throw .unknownKind(state.kind, known: kinds.keys.sorted()) }
                guard state.isDetached || built[state.parent!] != nil else {
                    throw .invalidValue(keyPath: "parent", "layer '\(state.id)' comes before its parent '\(state.parent!)' or that parent does not exist")
                }
                layer = Layer(id: state.id, kind: kind)
            }
            built[state.id] = layer
            let model = try Self.restoredModel(state, kind: layer.kind, keeping: state.parent == nil && !state.isDetached ? layer.model : nil)
            if state.parent == nil, !state.isDetached {
                rootStates.append((layer, model, state))
            } else {
                layer.model = model
                order.append((layer, state.parent.map { built[$0]! }))
            }
            guard state.animations.count <= configuration.maximumAnimationsPerLayer else {
                throw .limitExceeded(
                    "layer '\(state.id)' has more than its maximum of \(configuration.maximumAnimationsPerLayer) animations (limits.animations_per_layer)")
            }
            for rule in state.actions.values {
                if case .animation(let a) = rule {
                    _ = try resolve(a, on: layer, settings: restoreSettings, parentDuration: nil, beginAt: 0, checkTarget: false)
                }
            }
            for a in state.animations {
                guard animationIDs.insert(a.id).inserted, state.animations.count(where: { $0.key == a.key }) == 1 else {
                    throw .invalidAnimation("animation \(a.id) '\(a.key)' of layer '\(state.id)' is given twice")
                }
                lastAnimation = max(lastAnimation, a.id)
                lastTransaction = max(lastTransaction, a.transaction ?? 0)
            }
        }
        let masks = try Self.restoredMasks(snapshot, built: built)
        // Tracks need the layers' kinds and values in place: resolved after the checks
        // above, still before the scene changes.
        var attached: [(Layer, [AttachedAnimation])] = []
        for state in snapshot.layers {
            let layer = built[state.id]!
            if let source = state.actionsFrom, built[source] == nil { throw .unknownLayer(source) }
            var list: [AttachedAnimation] = []
            for a in state.animations {
                let track = try restoredTrack(a.animation, on: layer)
                list.append(
                    AttachedAnimation(id: a.id, key: a.key, track: track, transaction: a.transaction, hasStarted: a.hasStarted, hasFinished: a.hasFinished))
            }
            attached.append((layer, list))
        }
        let unnamedRoots = roots.filter { built[$0.id] == nil }
        let bytes =
            order.reduce(0) { $0 + $1.layer.model.heapBytes } + rootStates.reduce(0) { $0 + $1.1.heapBytes }
            + unnamedRoots.reduce(0) { $0 + $1.model.heapBytes }
        guard bytes <= configuration.maximumValueBytes else {
            throw .limitExceeded("the snapshot's text and custom values hold \(bytes >> 10) KB, over the scene's \(configuration.maximumValueBytes >> 10) KB")
        }
        for root in roots {
            root.sublayers = []
            root.animations = []
        }
        for root in unnamedRoots {
            root.actions = [:]
            root.actionsFrom = nil
            root.actionPolicy = .implicit
            root.displayKeys = []
        }
        for (root, model, _) in rootStates { root.model = model }
        layers = Dictionary(uniqueKeysWithValues: roots.map { ($0.id, $0) })
        for (layer, parent) in order {
            parent?.sublayers.append(layer)
            layer.parent = parent
            layers[layer.id] = layer
        }
        for root in roots { root.maskLayer = nil }
        for (host, mask) in masks {
            host.maskLayer = mask
            mask.maskHost = host
        }
        animatedLayers = [:]
        transactionWaits = [:]
        for (state, (layer, list)) in zip(snapshot.layers, attached) {
            layer.actions = state.actions
            layer.actionsFrom = state.actionsFrom
            layer.actionPolicy = state.actionPolicy
            layer.displayKeys = state.displayKeys
            layer.animations = list
            updateAnimatedIndex(layer)
            for a in list where !a.hasFinished {
                if let tx = a.transaction { transactionWaits[tx, default: []].insert(a.id) }
            }
        }
        nextAnimationID = max(snapshot.nextAnimationID, lastAnimation + 1, nextAnimationID)
        nextTransactionID = max(snapshot.nextTransactionID, lastTransaction + 1, nextTransactionID)
        isAnimating = attached.contains { $0.1.contains { !$0.hasFinished } }
        recountValueBytes()
        treeChanged()
        revision &+= 1
    }

    /// The pairs of a layer and its mask that the snapshot's `mask` values name, checked as
    /// setting `mask` checks them.
    private static func restoredMasks(_ snapshot: Snapshot, built: [String: Layer]) throws(CoreError) -> [(Layer, Layer)] {
        var hostOf: [String: String] = [:]
        var parentOf: [String: String] = [:]
        let detached = Set(snapshot.layers.filter(\.isDetached).map(\.id))
        for state in snapshot.layers {
            if let parent = state.parent { parentOf[state.id] = parent }
            guard case .string(let mask)? = state.properties[BaseProperty.mask.descriptor.name], !mask.isEmpty else { continue }
            guard built[mask] != nil else { throw .invalidValue(keyPath: "mask", "layer '\(state.id)' is masked by '\(mask)', which the snapshot lacks") }
            guard detached.contains(mask), mask != state.id else {
                throw .invalidValue(keyPath: "mask", "layer '\(state.id)' is masked by '\(mask)', which is not a layer outside the tree")
            }
            guard hostOf[mask] == nil else { throw .invalidValue(keyPath: "mask", "'\(mask)' masks two layers") }
            hostOf[mask] = state.id
        }
        // Up through parents and the layers masked: every walk must reach a root.
        for start in hostOf.keys {
            var node: String? = start, steps = 0
            while let n = node {
                steps += 1
                guard steps <= snapshot.layers.count else { throw .invalidValue(keyPath: "mask", "the masks of '\(start)' and its layers form a cycle") }
                node = parentOf[n] ?? hostOf[n]
            }
        }
        return hostOf.map { (built[$0.value]!, built[$0.key]!) }
    }

    /// The settings used to resolve restored animations again: only a duration of 0
    /// would read them, and a resolved animation has none.
    private var restoreSettings: TransactionSettings {
        TransactionSettings(duration: configuration.implicitDuration, timingFunction: nil, disableActions: true, isAnimated: false)
    }

    /// Model values from a layer state, checked as a commit checks them. A root keeps
    /// `keeping`'s bounds and position (its output's).
    private static func restoredModel(_ state: Snapshot.LayerState, kind: LayerKind, keeping: PropertyValues?) throws(CoreError) -> PropertyValues {
        var values = PropertyValues(slots: kind.properties.map(\.defaultValue), custom: [:])
        for (name, value) in state.properties.sorted(by: { $0.key < $1.key }) {
            guard let slot = kind.slot(of: name), kind.properties[slot].name == name else { throw .unknownKeyPath(name, layer: state.id) }
            try kind.properties[slot].validate(value, at: KeyPath(components: [name]))
            values.base[slot] = value
        }
        for (key, value) in state.custom.sorted(by: { $0.key < $1.key }) {
            guard !key.isEmpty, !key.contains("."), kind.slot(of: key) == nil else {
                throw .invalidKeyPath(key, "a custom property of layer '\(state.id)' is a name without dots that is not a built-in property")
            }
            try validateNumbers(value, at: KeyPath(components: [key]))
            values.custom[key] = value
        }
        if let keeping {
            for p in [BaseProperty.bounds, .position] { values.base[p.slot] = keeping.base[p.slot] }
        }
        return values
    }

    /// The track of a restored animation: resolved again (which changes nothing in an
    /// animation resolved once, and fills in a group's children as when it was added),
    /// with each key path's target found as when it was added.
    private func restoredTrack(_ animation: Animation, on layer: Layer) throws(CoreError) -> Track {
        func retarget(_ track: Track) throws(CoreError) -> Track {
            if case .group = track.animation.kind {
                var children: [Track] = []
                for child in track.children { children.append(try retarget(child)) }
                return Track(animation: track.animation, target: nil, children: children)
            }
            guard let path = track.animation.keyPath, !path.components.contains(""), let target = layer.target(for: path, create: true) else {
                throw .unknownKeyPath(track.animation.keyPath?.description ?? "", layer: layer.id)
            }
            if case .slot = target, let expected = layer.descriptor(for: target)?.defaultValue.component(path.subpath),
                let wrong = track.animation.values.first(where: { $0.type != expected.type })
            {
                throw .typeMismatch(keyPath: path.description, expected: expected.type.phrase, got: wrong.type.phrase)
            }
            return Track(
                animation: track.animation, target: target, children: [], interpolation: layer.descriptor(for: target)?.interpolation ?? .values)
        }
        return try retarget(resolve(animation, on: layer, settings: restoreSettings, parentDuration: nil, beginAt: nil, checkTarget: false))
    }
}

extension Scene.Snapshot {
    /// The snapshot without the trees of output roots that are not in `roots` (a screen
    /// unplugged since it was taken): their layers, the masks of those layers and what
    /// hangs under those masks are left out, and a kept layer taking its actions from a
    /// left-out one answers for itself. `leftOut` counts the layers left out per missing
    /// root.
    public func keeping(roots: Set<String>) -> (snapshot: Self, leftOut: [String: Int]) {
        var top: [String: String] = [:]
        for state in layers {
            if state.isDetached {
                top[state.id] = state.id
            } else if let parent = state.parent {
                top[state.id] = top[parent] ?? parent
            } else {
                top[state.id] = state.id
            }
        }
        let rootIDs = Set(layers.filter { $0.parent == nil && !$0.isDetached }.map(\.id))
        var missing = rootIDs.subtracting(roots)
        guard !missing.isEmpty else { return (self, [:]) }
        let maskName = BaseProperty.mask.descriptor.name
        while true {
            let masks = layers.filter { missing.contains(top[$0.id] ?? "") }.compactMap { state -> String? in
                guard case .string(let mask)? = state.properties[maskName], !mask.isEmpty else { return nil }
                return mask
            }
            let more = Set(masks).subtracting(missing)
            if more.isEmpty { break }
            missing.formUnion(more)
        }
        var leftOut: [String: Int] = [:]
        var kept: [LayerState] = []
        for state in layers {
            if let t = top[state.id], missing.contains(t) {
                if rootIDs.contains(t), t != state.id { leftOut[t, default: 0] += 1 }
                continue
            }
            kept.append(state)
        }
        let keptIDs = Set(kept.map(\.id))
        for i in kept.indices where kept[i].actionsFrom.map({ !keptIDs.contains($0) }) == true { kept[i].actionsFrom = nil }
        var snapshot = self
        snapshot.layers = kept
        return (snapshot, leftOut)
    }
}
