/// The layer tree and everything that animates it: Vitrine's model.
///
/// A scene has no clock and does no I/O: every question about what is shown takes the
/// time as an argument, in seconds of media time (the global timeline that root layers'
/// parent time is). It is not thread-safe; one owner (the compositor's serial executor)
/// changes and reads it.
///
/// ```swift
/// let scene = Scene()
/// try scene.addRoot(id: "screen", output: "HDMI-A-1", size: Size(width: 1920, height: 1080))
/// var tx = Transaction()
/// tx.add(layer: "box", kind: "layer", parent: "screen", properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 100))])
/// tx.set("box", "position", .point(Point(x: 200, y: 200)))
/// try scene.commit(tx, at: 0)
/// let p = try scene.presentationValue("position", of: "box", at: 0.1)
/// ```
public final class Scene {
    /// Defaults that the configuration file sets.
    /// These defaults are the configuration file's too (`[animation]`, `[limits]`): an
    /// empty file gives a scene configured as `Configuration()`.
    public struct Configuration: Sendable {
        /// Seconds an implicit animation (and an animation of duration 0) lasts.
        public var implicitDuration: Double = 0.25
        /// The curve of implicit animations when the transaction names none.
        public var implicitTimingFunction: TimingFunction = .default
        /// The most layers the scene holds.
        public var maximumLayers = 10_000
        /// The most animations one layer holds.
        public var maximumAnimationsPerLayer = 1_000
        /// The most bytes of text, custom values and animation values (`heapBytes`) the
        /// layers hold together.
        public var maximumValueBytes = 64 << 20

        public init() {}
    }

    public var configuration: Configuration
    var layers: [String: Layer] = [:]
    var roots: [Layer] = []
    public private(set) var kinds: [String: LayerKind] = ["layer": .layer, "gradient": .gradient, LayerKind.replicatorName: .replicator]
    /// Layers that have at least one animation, so that time only visits those.
    var animatedLayers: [String: Layer] = [:]
    /// Per open transaction: the animations it waits for.
    var transactionWaits: [UInt64: Set<UInt64>] = [:]
    var pendingEvents: [SceneEvent] = []
    var nextAnimationID: UInt64 = 1
    var nextTransactionID: UInt64 = 1
    /// Undo steps of the transaction being committed; nil outside a commit.
    var undoLog: [() -> Void]?
    /// The transaction being committed; its completion waits for the commit's end.
    var committingTransaction: UInt64?
    /// Counts the changes to the shape of render trees: layers added, removed or moved,
    /// zPositions set, animation lists changed, roots added or resized.
    var treeGeneration: UInt64 = 0
    /// Layers whose model values or display keys commits changed since the render trees
    /// last took them in, oldest first; emptied when the shape changes.
    var changedLayers: [Layer] = []
    /// During a commit: the renderings its transitions animate out, by layer id.
    var outgoing: [String: RenderTree] = [:]
    /// Render trees built whole so far.
    var fullBuilds: UInt64 = 0
    /// Render trees built or updated so far: the stamp of the nodes each one makes.
    var treeStamps: UInt64 = 0
    /// Per output root (one or two): its last render tree, for the next one to reuse.
    var renderCaches: [RenderCache] = []
    /// Render trees built by reusing the previous one, for tests and diagnostics.
    var treesReused = 0
    /// Bytes of text, custom values and animation values the layers hold (`heapBytes` of
    /// their model values and attached animations).
    public internal(set) var valueBytes = 0

    /// Counts `valueBytes` afresh (after layers were put in place other than by commits).
    func recountValueBytes() {
        valueBytes = layers.values.reduce(0) { $0 + $1.model.heapBytes + $1.animations.reduce(0) { $0 + $1.track.heapBytes } }
    }
    /// Set by `advance(to:)`: some animation has not yet ended.
    public internal(set) var isAnimating = false
    /// Counts the changes that a snapshot would see: committed transactions, restores and
    /// roots added or resized (time moving on does not count).
    public internal(set) var revision: UInt64 = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Makes a layer kind available to `Transaction.add(layer:kind:…)`.
    public func register(_ kind: LayerKind) {
        kinds[kind.name] = kind
    }

    /// Adds the root layer of an output: its bounds are the screen, origin top-left.
    public func addRoot(id: String, output: String, size: Size) throws(CoreError) {
        try validateNewID(id)
        treeChanged()
        revision &+= 1
        let root = Layer(id: id, kind: .layer)
        root.rootOfOutput = output
        root.model.base[BaseProperty.bounds.slot] = .rect(Rect(origin: .zero, size: size))
        root.model.base[BaseProperty.position.slot] = .point(Point(x: size.width / 2, y: size.height / 2))
        layers[id] = root
        roots.append(root)
        valueBytes += root.model.heapBytes
    }

    /// Changes the size of an output's root layer (a mode change, a rotation).
    public func resizeRoot(id: String, size: Size) throws(CoreError) {
        let root = try layer(id)
        guard root.rootOfOutput != nil else { throw .unknownLayer(id) }
        treeChanged()
        revision &+= 1
        root.model.base[BaseProperty.bounds.slot] = .rect(Rect(origin: .zero, size: size))
        root.model.base[BaseProperty.position.slot] = .point(Point(x: size.width / 2, y: size.height / 2))
    }

    /// Removes an output's root layer and everything under it, as when its output is gone
    /// for good: its sublayers, their masks and every animation on them (stopped
    /// unfinished, so that their transactions complete; the events come with the next
    /// `advance`). The ids are free again and commands that name them fail with
    /// `unknownLayer`.
    public func removeRoot(id: String, at time: Double) throws(CoreError) {
        let root = try layer(id)
        guard root.rootOfOutput != nil else { throw .invalidValue(keyPath: "root", "'\(id)' is not an output's root layer") }
        var tx = Transaction(disableActions: true)
        if let mask = root.maskLayer {
            tx.set(id, "mask", .string(""))
            tx.remove(layer: mask.id)
        }
        for sublayer in root.sublayers { tx.remove(layer: sublayer.id) }
        tx.operations.append(.removeAllAnimations(layer: id))
        try commit(tx, at: time)
        treeChanged()
        revision &+= 1
        valueBytes -= root.model.heapBytes
        layers[id] = nil
        animatedLayers[id] = nil
        roots.removeAll { $0 === root }
    }

    /// Records a change to the shape of render trees: the next ones are built whole.
    func treeChanged() {
        treeGeneration &+= 1
        changedLayers.removeAll()
        renderCaches.removeAll()
    }

    /// Records that `layer`'s model values or display keys changed: the next render tree
    /// builds its subtree again. Under a replicator, or of one (whose copies may come and
    /// go), the tree is built whole.
    func layerChanged(_ layer: Layer) {
        if layer.kindName == LayerKind.replicatorName || layer.replicatingAncestor != nil {
            treeChanged()
            return
        }
        changedLayers.append(layer)
    }

    // MARK: Reading the tree

    /// The ids of the output root layers, in the order added.
    public var rootIDs: [String] { roots.map(\.id) }
    /// The output whose root layer `id` is; nil when it is none's.
    public func output(ofRoot id: String) -> String? { layers[id]?.rootOfOutput }
    public var layerCount: Int { layers.count }
    public func contains(_ id: String) -> Bool { layers[id] != nil }
    /// True while any layer has an animation attached.
    public var hasAnimations: Bool { !animatedLayers.isEmpty }

    public func kind(of id: String) throws(CoreError) -> LayerKind { try layer(id).kind }
    public func parent(of id: String) throws(CoreError) -> String? { try layer(id).parent?.id }
    /// The layer whose time a layer's parent time is: its parent, or for a mask the layer
    /// it masks; nil for a root or a layer outside the tree that masks nothing.
    public func timeParent(of id: String) throws(CoreError) -> String? { try layer(id).timeParent?.id }
    public func sublayers(of id: String) throws(CoreError) -> [String] { try layer(id).sublayers.map(\.id) }

    /// The model values of a layer.
    public func modelValues(of id: String) throws(CoreError) -> PropertyValues { try layer(id).model }

    /// The model value at `keyPath`.
    public func modelValue(_ keyPath: KeyPath, of id: String) throws(CoreError) -> Value {
        let layer = try layer(id)
        guard let target = layer.target(for: keyPath, create: false), let v = layer.model.value(at: target) else {
            throw .unknownKeyPath(keyPath.description, layer: id)
        }
        return v
    }

    /// The key → rule map of a layer's actions, its `actionsFrom` and its policy.
    public func actionRules(of id: String) throws(CoreError) -> (actions: [String: ActionRule], from: String?, policy: ActionPolicy) {
        let layer = try layer(id)
        return (layer.actions, layer.actionsFrom, layer.actionPolicy)
    }

    /// The custom keys marked as affecting display.
    public func displayKeys(of id: String) throws(CoreError) -> Set<String> { try layer(id).displayKeys }

    /// A description of an attached animation.
    public struct AnimationInfo: Sendable, Hashable {
        public let id: UInt64
        public let key: String
        /// The animation as resolved when added: durations filled in, begin time in the
        /// layer's local time.
        public let animation: Animation
        public let transaction: UInt64?
    }

    /// The animations of a layer, in the order added.
    public func animations(of id: String) throws(CoreError) -> [AnimationInfo] {
        try layer(id).animations.map { AnimationInfo(id: $0.id, key: $0.key, animation: $0.track.animation, transaction: $0.transaction) }
    }

    func layer(_ id: String) throws(CoreError) -> Layer {
        guard let layer = layers[id] else { throw .unknownLayer(id) }
        return layer
    }

    func validateNewID(_ id: String) throws(CoreError) {
        try Self.validateID(id)
        guard layers[id] == nil else { throw .duplicateLayer(id) }
    }

    /// Throws unless `id` is 1–128 of the characters a layer id may hold.
    static func validateID(_ id: String) throws(CoreError) {
        let allowed = id.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 95 || c == 58 || c == 46
        }
        guard (1...128).contains(id.utf8.count), allowed else { throw .invalidLayerID(id) }
    }

    // MARK: Geometry

    /// The transform from a layer's bounds space to its parent's bounds space:
    /// about the anchor point, then to `position`, then the parent's sublayerTransform.
    static func transformToParent(_ v: PropertyValues, parent: PropertyValues?) -> AffineTransform {
        let bounds = v.rect(.bounds), anchor = v.point(.anchorPoint), position = v.point(.position)
        let ax = bounds.origin.x + anchor.x * bounds.size.width, ay = bounds.origin.y + anchor.y * bounds.size.height
        let t = v.transform(.transform)
        var m =
            t.isIdentity
            ? AffineTransform(translationX: position.x - ax, y: position.y - ay)
            : AffineTransform(translationX: -ax, y: -ay).concatenating(t).concatenating(AffineTransform(translationX: position.x, y: position.y))
        if let parent, let s = sublayerMatrix(parent) { m = m.concatenating(s) }
        return m
    }

    /// A layer's sublayerTransform about its anchor point, or nil when it is the identity.
    static func sublayerMatrix(_ v: PropertyValues) -> AffineTransform? {
        let s = v.transform(.sublayerTransform)
        guard !s.isIdentity else { return nil }
        let b = v.rect(.bounds), a = v.point(.anchorPoint)
        let px = b.origin.x + a.x * b.size.width, py = b.origin.y + a.y * b.size.height
        return AffineTransform(translationX: -px, y: -py).concatenating(s).concatenating(AffineTransform(translationX: px, y: py))
    }

    /// A layer's own placement in its parent's space as a 4×4 transform (about the anchor
    /// point, then to `position` and `zPosition`) when its transform is not affine, and
    /// its sublayerTransform about the anchor point when that is not affine.
    static func placement3D(_ v: PropertyValues) -> Placement3D? {
        let t = v[.transform], s = v[.sublayerTransform]
        guard t.transform == nil || s.transform == nil else { return nil }
        let b = v.rect(.bounds), a = v.point(.anchorPoint), p = v.point(.position)
        let ax = b.origin.x + a.x * b.size.width, ay = b.origin.y + a.y * b.size.height
        let own =
            t.transform == nil
            ? t.transform3D.map {
                Transform3D(translationX: -ax, y: -ay).concatenating($0).concatenating(Transform3D(translationX: p.x, y: p.y, z: v.number(.zPosition)))
            } : nil
        let sublayer =
            s.transform == nil
            ? s.transform3D.map {
                Transform3D(translationX: -ax, y: -ay).concatenating($0).concatenating(Transform3D(translationX: ax, y: ay))
            } : nil
        return Placement3D(own: own, sublayer: sublayer)
    }

    /// The transform from a layer's space to its tree's root space, from model values, or
    /// from presentation values at `time`.
    func transformToRoot(_ layer: Layer, at time: Double?) -> AffineTransform {
        let chain = layer.ancestry
        let values: [PropertyValues] =
            if let time {
                zip(chain, localTimes(of: chain, at: time)).map { Self.presentation(of: $0, localTime: $1) }
            } else {
                chain.map(\.model)
            }
        var m = AffineTransform.identity
        for i in stride(from: values.count - 1, to: 0, by: -1) {
            // A mask is placed in its layer's space, without that layer's sublayerTransform.
            m = m.concatenating(Self.transformToParent(values[i], parent: chain[i].parent == nil ? nil : values[i - 1]))
        }
        return m
    }

    /// The transform from layer `from`'s space to layer `to`'s (nil is the root space of
    /// the other layer's tree), as CALayer's convert(_:from:) — through anchor points,
    /// positions, transforms and sublayer transforms. With `time`, presentation geometry.
    public func transform(from: String?, to: String?, at time: Double? = nil) throws(CoreError) -> AffineTransform {
        let a = try from.map { id throws(CoreError) in try layer(id) }
        let b = try to.map { id throws(CoreError) in try layer(id) }
        let aToRoot = a.map { transformToRoot($0, at: time) } ?? .identity
        let bToRoot = b.map { transformToRoot($0, at: time) } ?? .identity
        guard let rootToB = bToRoot.inverted else {
            throw .invalidValue(keyPath: "transform", "layer '\(to ?? "")' is collapsed to zero size; points cannot be converted into it")
        }
        return aToRoot.concatenating(rootToB)
    }

    /// A point in layer `from`'s coordinates, in layer `to`'s.
    public func convert(_ point: Point, from: String?, to: String?, at time: Double? = nil) throws(CoreError) -> Point {
        try transform(from: from, to: to, at: time).apply(to: point)
    }

    /// The bounding box, in layer `to`'s coordinates, of a rect in layer `from`'s.
    public func convert(_ rect: Rect, from: String?, to: String?, at time: Double? = nil) throws(CoreError) -> Rect {
        try transform(from: from, to: to, at: time).boundingBox(of: rect)
    }
}

/// Something that happened in the scene that clients may want to hear of.
public enum SceneEvent: Hashable, Sendable {
    /// An animation's active interval began.
    case animationStarted(layer: String, key: String, animation: UInt64)
    /// An animation ended: `finished` when it ran to its end, false when it was removed
    /// or replaced first (animationDidStop:finished:).
    case animationStopped(layer: String, key: String, animation: UInt64, finished: Bool)
    /// Every animation a transaction added has stopped (at once if it added none).
    case transactionCompleted(transaction: UInt64)
}
