/// An atomic batch of scene changes, as CATransaction: committed whole or not at all.
///
/// Settings left nil are inherited from the enclosing transaction (or the scene's
/// configuration). Nested batches are operations of their parent.
public struct Transaction: Sendable {
    /// Duration of implicit animations and of added animations whose duration is 0.
    public var animationDuration: Double?
    /// Curve of implicit animations and of added animations that name none.
    public var timingFunction: TimingFunction?
    /// Property changes do not animate implicitly.
    public var disableActions: Bool?
    /// The batch explicitly asks for animation (as UIView.animate does): layers whose
    /// action policy is `explicitOnly` animate only in such a batch.
    public var isAnimated: Bool?
    public var operations: [Operation] = []

    public init(animationDuration: Double? = nil, timingFunction: TimingFunction? = nil, disableActions: Bool? = nil, isAnimated: Bool? = nil) {
        self.animationDuration = animationDuration
        self.timingFunction = timingFunction
        self.disableActions = disableActions
        self.isAnimated = isAnimated
    }

    /// Where a layer goes among its new siblings.
    public enum Placement: Sendable, Hashable {
        /// Above all siblings (last drawn).
        case top
        /// Below all siblings.
        case bottom
        /// At this index of the sublayers (clamped).
        case index(Int)
        case above(String)
        case below(String)
    }

    /// One change.
    public enum Operation: Sendable {
        /// Adds a layer under `parent`, or outside the tree when it is nil: such a layer is
        /// not drawn until it becomes another layer's `mask`.
        case addLayer(id: String, kind: String, parent: String?, placement: Placement, properties: [(KeyPath, Value)])
        /// Removes the layer and its subtree; their animations stop unfinished.
        case removeLayer(String)
        case moveLayer(String, parent: String, placement: Placement)
        /// Sets a model value; animates by the layer's action rules unless disabled.
        case set(layer: String, keyPath: KeyPath, value: Value)
        /// Adds an animation under a key (nil picks a unique one), replacing any under it.
        case addAnimation(layer: String, key: String?, animation: Animation)
        case removeAnimation(layer: String, key: String)
        case removeAllAnimations(layer: String)
        /// Sets (or with nil, deletes) entries of a layer's actions map.
        case setActions(layer: String, actions: [String: ActionRule?])
        /// Makes a layer take its action rules from another layer (nil: its own).
        case setActionsFrom(layer: String, source: String?)
        case setActionPolicy(layer: String, policy: ActionPolicy)
        /// Marks custom keys whose changes redraw the layer (needsDisplayForKey).
        case setDisplayKeys(layer: String, keys: Set<String>)
        case nested(Transaction)
    }

    /// Adds a layer under `parent`; with nil, outside the tree (a mask to be).
    public mutating func add(layer id: String, kind: String = "layer", parent: String?, placement: Placement = .top, properties: [String: Value] = [:]) {
        // Empty parts are kept so that the commit rejects "", "a..b" or ".a" instead of guessing.
        let props = properties.sorted { $0.key < $1.key }.map {
            (KeyPath(components: $0.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)), $0.value)
        }
        operations.append(.addLayer(id: id, kind: kind, parent: parent, placement: placement, properties: props))
    }

    public mutating func set(_ layer: String, _ keyPath: KeyPath, _ value: Value) {
        operations.append(.set(layer: layer, keyPath: keyPath, value: value))
    }

    public mutating func addAnimation(_ animation: Animation, forKey key: String? = nil, to layer: String) {
        operations.append(.addAnimation(layer: layer, key: key, animation: animation))
    }

    public mutating func remove(layer: String) { operations.append(.removeLayer(layer)) }

    public mutating func move(layer: String, to parent: String, placement: Placement = .top) {
        operations.append(.moveLayer(layer, parent: parent, placement: placement))
    }

    public mutating func nest(_ transaction: Transaction) { operations.append(.nested(transaction)) }
}

/// The settings in force for one (possibly nested) batch.
struct TransactionSettings {
    var duration: Double
    var timingFunction: TimingFunction?
    var disableActions: Bool
    var isAnimated: Bool

    func inheriting(_ tx: Transaction) -> TransactionSettings {
        TransactionSettings(
            duration: tx.animationDuration ?? duration, timingFunction: tx.timingFunction ?? timingFunction,
            disableActions: tx.disableActions ?? disableActions, isAnimated: tx.isAnimated ?? isAnimated)
    }
}
