/// A layer's property values: the kind's slots and the custom keys.
///
/// The same shape holds model values and presentation values. Presentation values keep
/// the model's slot array and list the animated slots beside it, so that evaluating an
/// animated layer copies one value, not every slot.
public struct PropertyValues: Hashable, Sendable {
    /// The model's slot values.
    var base: [Value]
    /// Slots whose presentation differs from `base`, by slot; few, so a list.
    var overrides: [SlotValue] = []
    /// Custom properties by top-level key; nested keys live in dictionaries.
    public var custom: [String: Value]

    /// Values with `slots` as the model's and no animated ones.
    public init(slots: [Value], custom: [String: Value]) {
        base = slots
        self.custom = custom
    }

    /// One value per property of the layer's kind, in slot order.
    public var slots: [Value] {
        get {
            guard !overrides.isEmpty else { return base }
            var merged = base
            for o in overrides { merged[o.slot] = o.value }
            return merged
        }
        set {
            base = newValue
            overrides = []
        }
    }

    /// The value in slot `i`.
    @inline(__always) public subscript(slot i: Int) -> Value {
        if !overrides.isEmpty, let o = overrides.first(where: { $0.slot == i }) { return o.value }
        return base[i]
    }

    /// The value of a base property.
    @inline(__always) public subscript(_ p: BaseProperty) -> Value { self[slot: p.rawValue] }

    /// What the values hold beyond their fixed size (`Value.heapBytes`), custom keys
    /// included.
    public var heapBytes: Int {
        var total = 0
        for value in slots { total += value.heapBytes }
        for (key, value) in custom { total += 32 + key.utf8.count + value.heapBytes }
        return total
    }

    public func number(_ p: BaseProperty) -> Double { self[p].number ?? 0 }
    public func bool(_ p: BaseProperty) -> Bool { self[p].bool ?? false }
    public func color(_ p: BaseProperty) -> Color { self[p].color ?? .clear }
    public func rect(_ p: BaseProperty) -> Rect { self[p].rect ?? .zero }
    public func point(_ p: BaseProperty) -> Point { self[p].point ?? .zero }
    public func size(_ p: BaseProperty) -> Size { self[p].size ?? .zero }
    public func transform(_ p: BaseProperty) -> AffineTransform { self[p].transform ?? .identity }
    public func string(_ p: BaseProperty) -> String { self[p].string ?? "" }

    /// True when every slot shows the same value in both (custom keys are not compared).
    func sameSlots(as other: PropertyValues) -> Bool {
        overrides == other.overrides && base == other.base
    }

    /// The slots whose values differ between the two, in increasing order (custom keys
    /// are not compared). Both must hold values of the same layer kind.
    public func differingSlots(from other: PropertyValues) -> [Int] {
        let count = max(base.count, other.base.count)
        if overrides.isEmpty && other.overrides.isEmpty {
            // Values of the same layer usually share the model's slot array: then the
            // comparison does not read it.
            if base == other.base { return [] }
            return (0..<count).filter { $0 >= base.count || $0 >= other.base.count || base[$0] != other.base[$0] }
        }
        let a = slots, b = other.slots
        return (0..<count).filter { $0 >= a.count || $0 >= b.count || a[$0] != b[$0] }
    }

    /// The layer's timing, read from its timing properties.
    public var timing: MediaTiming {
        MediaTiming(
            beginTime: number(.beginTime), duration: number(.duration), speed: number(.speed),
            timeOffset: number(.timeOffset), repeatCount: number(.repeatCount),
            repeatDuration: number(.repeatDuration), autoreverses: bool(.autoreverses),
            fillMode: FillMode(rawValue: string(.fillMode)) ?? .removed)
    }

    func value(at target: PropertyTarget) -> Value? {
        switch target {
        case .slot(let i, let sub):
            return sub.isEmpty ? self[slot: i] : self[slot: i].component(sub[...])
        case .custom(let path):
            return custom[path.property]?.component(path.subpath)
        }
    }

    /// Replaces the value at `target` with what `change` makes of it (nothing when there is
    /// none): one walk down a custom key path instead of `value(at:)` and `set(_:at:)`.
    mutating func update(at target: PropertyTarget, _ change: (Value) -> Value) {
        switch target {
        case .slot:
            guard let value = value(at: target) else { return }
            set(change(value), at: target)
        case .custom(let path):
            _ = custom.updateValue(forKey: path.property) { $0.updateComponent(path.subpath, change) }
        }
    }

    /// Replaces the part `component` of slot `i`'s value with what `change` makes of it,
    /// as `update(at:_:)` does for its key path; false, changing nothing, when the slot's
    /// value is not of the type the part belongs to.
    mutating func update(slot i: Int, component: SlotComponent, _ change: (Value) -> Value) -> Bool {
        var value = self[slot: i]
        guard component.update(&value, change) else { return false }
        setSlot(i, to: value)
        return true
    }

    /// Sets a presentation value: slots go into the overrides, custom keys in place.
    mutating func set(_ value: Value, at target: PropertyTarget) {
        switch target {
        case .slot(let i, let sub):
            guard let v = sub.isEmpty ? value : self[slot: i].settingComponent(sub[...], to: value) else { return }
            setSlot(i, to: v)
        case .custom(let path):
            if path.components.count == 1 {
                custom[path.property] = value
            } else if custom[path.property] != nil {
                // In place: an animated layer sets one nested key per animation per frame.
                _ = custom[path.property]!.setComponent(path.subpath, to: value)
            } else if let v = Value.dictionary([:]).settingComponent(path.subpath, to: value) {
                custom[path.property] = v
            }
        }
    }

    /// Sets slot `i`'s presentation value.
    private mutating func setSlot(_ i: Int, to v: Value) {
        if let k = overrides.firstIndex(where: { $0.slot == i }) {
            overrides[k].value = v
        } else {
            overrides.append(SlotValue(slot: i, value: v))
        }
    }
}

/// A presentation value that differs from the model's.
struct SlotValue: Hashable, Sendable {
    let slot: Int
    var value: Value
}

/// Where a key path points inside `PropertyValues`.
enum PropertyTarget: Hashable, Sendable {
    case slot(Int, [String])
    case custom(KeyPath)
}

/// What a layer does when one of its properties changes (CA's action lookup).
public enum ActionRule: Sendable, Hashable {
    /// No animation (NSNull in CA's actions dictionary).
    case none
    /// This animation, with from / to filled in from the change where unset.
    case animation(Animation)
}

/// How a layer answers for the layers that take their action rules from it.
public enum ActionPolicy: String, Sendable, Hashable, CaseIterable {
    /// CALayer's rule: changes animate implicitly unless actions are disabled.
    case implicit
    /// A UIView backing layer's rule: changes animate only inside a transaction that
    /// explicitly asks for animation.
    case explicitOnly
}

/// A node of the layer tree. The scene owns layers; read them through the scene.
final class Layer {
    let id: String
    let kind: LayerKind
    /// The kind's name, kept apart so that reading it does not touch the kind's tables.
    let kindName: String
    /// The kind's `customPropertiesAffectDisplay`, kept apart for the same reason.
    let customAffectsDisplay: Bool
    /// The kind is the replicator (`LayerKind.replicatorName`).
    let isReplicator: Bool
    /// The kind is the plain layer (`LayerKind.layer`).
    let isPlainLayer: Bool
    var model: PropertyValues {
        didSet {
            timing = model.timing
            let samePath = oldValue.string(.shadowPath) == model.string(.shadowPath)
            geometry = LayerGeometry(model, pathBounds: samePath ? .some(geometry.shadowPathBounds) : nil, reach: kind.contentReach)
            cachedContent = nil
        }
    }
    // What every frame reads of a layer comes first, together: the timing, the links and
    // the animations, then the geometry.
    /// The layer's own timing, kept in step with its timing properties.
    private(set) var timing: MediaTiming
    weak var parent: Layer?
    var sublayers: [Layer] = []
    /// The layer whose `mask` names this one (it has no parent then).
    weak var maskHost: Layer?
    /// The layer this one's `mask` names.
    var maskLayer: Layer?
    /// Where the layer's time and space come from: its parent, or the layer it masks.
    var timeParent: Layer? { parent ?? maskHost }
    /// Animations in the order added.
    var animations: [AttachedAnimation] = [] {
        didSet { hasTransitionAnimation = animations.contains { $0.track.isTransition } }
    }
    /// One of `animations` is a transition (CATransition).
    private(set) var hasTransitionAnimation = false
    /// The render tree's content for the model values, while they last.
    private var cachedContent: RenderTree.Content?
    /// Where the last full build of its output's render tree put it.
    var renderSlot: RenderSlot?
    /// What drawing needs of the model values, kept in step with them so that layers
    /// without animations cost no value decoding per frame.
    private(set) var geometry: LayerGeometry
    var actions: [String: ActionRule] = [:]
    var actionsFrom: String?
    var actionPolicy: ActionPolicy = .implicit
    /// Custom keys whose changes redraw the layer's content (CA's needsDisplayForKey).
    var displayKeys: Set<String> = [] {
        didSet { cachedContent = nil }
    }
    /// The output this layer is the root of, if any.
    var rootOfOutput: String?

    init(id: String, kind: LayerKind) {
        self.id = id
        self.kind = kind
        kindName = kind.name
        customAffectsDisplay = kind.customPropertiesAffectDisplay
        isReplicator = kind.name == LayerKind.replicatorName
        isPlainLayer = kind.name == LayerKind.layer.name
        reachSlots = kind.contentReach.map { Set($0.properties.compactMap(kind.slot(of:))) }
        model = PropertyValues(slots: kind.properties.map(\.defaultValue), custom: [:])
        timing = MediaTiming()
        geometry = LayerGeometry(model, reach: kind.contentReach)
    }

    /// Calls `body` with the model's geometry where it is kept, without copying it (a copy
    /// per layer shows when every layer is visited). `body` must not change the model.
    func withGeometry<R>(_ body: (UnsafePointer<LayerGeometry>) -> R) -> R {
        withUnsafeMutablePointer(to: &geometry) { body(UnsafePointer($0)) }
    }

    /// The slots the kind's content reach depends on; nil when its content stays inside
    /// the bounds.
    let reachSlots: Set<Int>?

    /// The geometry of presentation values `v`.
    func presentedGeometry(_ v: PropertyValues) -> LayerGeometry {
        var g = LayerGeometry(v, model: geometry)
        if let slots = reachSlots, v.overrides.contains(where: { slots.contains($0.slot) }) {
            g.contentReach = kind.contentReach!.area(v)
        }
        return g
    }

    /// What a render tree shows of the layer when nothing animates it: one object for
    /// every tree until the model or the display keys change.
    var modelContent: RenderTree.Content {
        if let content = cachedContent { return content }
        let content = self.content(values: model)
        cachedContent = content
        return content
    }

    /// Render tree content showing presentation values `values` at local time `localTime`,
    /// with the transition running then.
    func animatedContent(_ values: PropertyValues, localTime: Double?) -> RenderTree.Content {
        guard hasTransitionAnimation else { return content(values: values) }
        return content(values: values, transition: Scene.transitionFrame(of: self, localTime: localTime))
    }

    /// Render tree content showing `values`, and `transition` running.
    func content(values: PropertyValues, transition: TransitionFrame?) -> RenderTree.Content {
        RenderTree.Content(
            layer: ObjectIdentifier(self), id: id, kind: kindName, values: values, displayKeys: customAffectsDisplay ? allDisplayKeys : displayKeys,
            transition: transition)
    }

    /// Render tree content showing `values`, without a transition.
    func content(values: PropertyValues) -> RenderTree.Content {
        RenderTree.Content(
            layer: ObjectIdentifier(self), id: id, kind: kindName, values: values, displayKeys: customAffectsDisplay ? allDisplayKeys : displayKeys)
    }

    /// True when `self` is `other` or one of its ancestors.
    func isAncestor(of other: Layer) -> Bool {
        var node: Layer? = other
        while let n = node {
            if n === self { return true }
            node = n.timeParent
        }
        return false
    }

    /// The chain from the root down to `self`.
    var ancestry: [Layer] {
        var chain: [Layer] = []
        var node: Layer? = self
        while let n = node { chain.append(n); node = n.timeParent }
        return chain.reversed()
    }

    /// Where `path` points for this layer, or nil when the layer has no such property.
    /// Keys that are not built-in are custom properties; `create` allows new ones.
    func target(for path: KeyPath, create: Bool) -> PropertyTarget? {
        if let slot = kind.slot(of: path.property) {
            let base = kind.properties[slot].defaultValue
            guard path.components.count == 1 || base.component(path.subpath) != nil else { return nil }
            return .slot(slot, Array(path.subpath))
        }
        if create { return .custom(path) }
        guard let top = model.custom[path.property], top.component(path.subpath) != nil else { return nil }
        return .custom(path)
    }

    func descriptor(for target: PropertyTarget) -> PropertyDescriptor? {
        if case .slot(let i, _) = target { return kind.properties[i] }
        return nil
    }
}

/// An animation attached to a layer, resolved: durations set, begin time absolute in
/// the layer's time, targets found.
struct AttachedAnimation {
    let id: UInt64
    let key: String
    let track: Track
    let transaction: UInt64?
    var hasStarted = false
    var hasFinished = false
}

/// An animation with its key path resolved; groups hold their children's tracks.
/// A class, so that evaluating a frame passes references instead of copying animations.
final class Track: Sendable {
    let animation: Animation
    let target: PropertyTarget?
    /// The part of its slot's value that `target` names past the property, resolved.
    let component: SlotComponent?
    let children: [Track]
    /// What the animation holds beyond its fixed size (`Animation.heapBytes`), counted
    /// against the scene's value budget while it is attached.
    let heapBytes: Int
    /// How the values of its property interpolate.
    let interpolation: PropertyDescriptor.Interpolation
    /// For a transition: the layer's rendering it animates out.
    let outgoing: RenderTree?
    /// A basic or spring animation's from / to / by.
    let endpoints: Animation.Endpoints?
    /// A spring animation's spring.
    let spring: Spring?
    /// The animation is a group (CAAnimationGroup).
    let isGroup: Bool
    /// The animation is a keyframe animation with a rotation mode.
    let rotates: Bool
    /// The animation is a transition (CATransition).
    let isTransition: Bool

    init(
        animation: Animation, target: PropertyTarget?, children: [Track], interpolation: PropertyDescriptor.Interpolation = .values,
        outgoing: RenderTree? = nil
    ) {
        self.animation = animation
        self.target = target
        if case .slot(_, let sub)? = target, !sub.isEmpty { component = SlotComponent(sub) } else { component = nil }
        self.children = children
        self.interpolation = interpolation
        self.outgoing = outgoing
        heapBytes = animation.heapBytes
        switch animation.kind {
        case .group: (isGroup, rotates, isTransition, endpoints, spring) = (true, false, false, nil, nil)
        case .keyframe(let k): (isGroup, rotates, isTransition, endpoints, spring) = (false, k.rotationMode != nil, false, nil, nil)
        case .transition: (isGroup, rotates, isTransition, endpoints, spring) = (false, false, true, nil, nil)
        case .basic(let e): (isGroup, rotates, isTransition, endpoints, spring) = (false, false, false, e, nil)
        case .spring(let e, let s): (isGroup, rotates, isTransition, endpoints, spring) = (false, false, false, e, s)
        }
    }
}

/// The values that place a layer on screen, decoded from its property values.
struct LayerGeometry {
    let bounds: Rect
    /// Bounds space to the parent's space, before the parent's sublayerTransform.
    private(set) var toParent: AffineTransform
    /// The sublayerTransform about the anchor point; nil when it is the identity or not
    /// affine.
    let sublayerMatrix: AffineTransform?
    /// The 4×4 placements, when the transform or the sublayerTransform is not affine
    /// (held apart: most layers have none, and geometry is copied often).
    let placement3D: Placement3D?
    /// Bounds space to the parent's space as a 4×4 transform (about the anchor point,
    /// then to `position` and `zPosition`) when the transform is not affine; nil otherwise.
    var transform3D: Transform3D? { placement3D?.own }
    /// The sublayerTransform about the anchor point when it is not affine; nil otherwise.
    var sublayer3D: Transform3D? { placement3D?.sublayer }
    /// `doubleSided`: drawn (and hit) when it faces away from its parent's plane.
    let isDoubleSided: Bool
    /// `shouldRasterize`: placed on whole pixels while its transform to the screen is a
    /// translation.
    let rasterizes: Bool
    private(set) var opacity: Double
    let isHidden: Bool
    let masksToBounds: Bool
    /// `userInteractionEnabled`: hit testing reaches the layer and its sublayers.
    let isInteractive: Bool
    let zPosition: Double
    /// The shadow's geometry; nil without a visible shadow or a `shadowPath` (held apart:
    /// most layers have neither, and geometry is copied often).
    private let shadow: ShadowGeometry?
    /// The area the shadow can reach, in bounds space; nil without a visible shadow.
    var shadowReach: Rect? { shadow?.reach }
    /// The shadow's offset and radius when it is drawn from what the layer and its
    /// sublayers show (a visible shadow, no `shadowPath`, no `masksToBounds`).
    var contentShadow: (offset: Size, radius: Double)? { shadow?.contentShadow }
    /// The control bounds of the `shadowPath`; nil when there is none (or it is empty).
    var shadowPathBounds: Rect? { shadow?.pathBounds }
    /// Where the kind's content draws beyond the bounds (bounds space); nil for nowhere.
    var contentReach: Rect?

    /// The geometry of presentation values `v` of a layer whose model geometry is
    /// `model`: when the animations touch none of its slots, or only opacity, the
    /// model's, without decoding every slot again.
    init(_ v: PropertyValues, model: LayerGeometry) {
        var touched: UInt64 = 0
        for o in v.overrides where Self.isGeometrySlot(o.slot) { touched |= 1 << UInt64(o.slot) }
        guard touched != 0 else {
            self = model
            return
        }
        guard touched & ~Self.placementSlots == 0, model.placement3D == nil, touched & Self.transformSlot == 0 || v[.transform].transform != nil else {
            // shadowPath does not animate: the model's is the presentation's.
            self.init(v, pathBounds: .some(model.shadowPathBounds))
            contentReach = model.contentReach
            return
        }
        // Only the position, an affine transform or the opacity: the rest is the model's.
        self = model
        if touched & ~Self.opacitySlot != 0 { toParent = Scene.transformToParent(v, parent: nil) }
        if touched & Self.opacitySlot != 0 { opacity = v.number(.opacity) }
    }

    private static let opacitySlot: UInt64 = 1 << UInt64(BaseProperty.opacity.slot)
    private static let transformSlot: UInt64 = 1 << UInt64(BaseProperty.transform.slot)
    /// The slots that move a layer without changing its bounds, 3D placement or shadow.
    private static let placementSlots: UInt64 = opacitySlot | transformSlot | 1 << UInt64(BaseProperty.position.slot)

    /// The slots the geometry is decoded from, one bit each.
    private static let slots: UInt64 = [
        BaseProperty.bounds, .position, .anchorPoint, .zPosition, .transform, .sublayerTransform, .opacity, .hidden,
        .masksToBounds, .doubleSided, .shouldRasterize, .shadowColor, .shadowOpacity, .shadowOffset, .shadowRadius, .shadowPath,
    ].reduce(0) { $0 | 1 << UInt64($1.slot) }

    /// Whether the geometry is decoded from slot `slot`.
    @inline(__always) private static func isGeometrySlot(_ slot: Int) -> Bool {
        slot >= 0 && slot < 64 && slots & 1 << UInt64(slot) != 0
    }

    /// The geometry of `v`; `pathBounds`, when given, is the bounds of its `shadowPath`,
    /// known from values with the same one, so that the path is not parsed again.
    init(_ v: PropertyValues, pathBounds: Rect?? = nil, reach: ContentReach? = nil) {
        contentReach = reach?.area(v)
        bounds = v.rect(.bounds)
        toParent = Scene.transformToParent(v, parent: nil)
        sublayerMatrix = Scene.sublayerMatrix(v)
        placement3D = Scene.placement3D(v)
        isDoubleSided = v.bool(.doubleSided)
        rasterizes = v.bool(.shouldRasterize)
        opacity = v.number(.opacity)
        isHidden = v.bool(.hidden)
        masksToBounds = v.bool(.masksToBounds)
        isInteractive = v.bool(.userInteractionEnabled)
        zPosition = v.number(.zPosition)
        let path = pathBounds ?? Self.bounds(ofShadowPath: v.string(.shadowPath))
        if v.number(.shadowOpacity) * v.color(.shadowColor).alpha > 0 {
            let offset = v.size(.shadowOffset), radius = v.number(.shadowRadius), reach = shadowExtent(radius: radius) + 1
            shadow = ShadowGeometry(
                reach: (path ?? bounds).offsetBy(dx: offset.width, dy: offset.height).insetBy(dx: -reach, dy: -reach),
                contentShadow: path == nil && !masksToBounds ? (offset, radius) : nil, pathBounds: path)
        } else {
            shadow = path.map { ShadowGeometry(reach: nil, contentShadow: nil, pathBounds: $0) }
        }
    }

    /// The map from bounds space into the parent's bounds space, flattened as CALayer
    /// flattens a layer into its parent's plane: the layer's placement and the parent's
    /// sublayerTransform (`parent3D` when it is not affine, else `parentAffine`) multiplied
    /// as 4×4 transforms, then z dropped.
    func flattened(parentAffine: AffineTransform?, parent3D: Transform3D?) -> ProjectiveTransform {
        guard transform3D != nil || parent3D != nil else {
            return ProjectiveTransform(parentAffine.map { toParent.concatenating($0) } ?? toParent)
        }
        var own = transform3D ?? Transform3D(toParent)
        if transform3D == nil { own.m43 = zPosition }
        return own.concatenating(parent3D ?? Transform3D(parentAffine ?? .identity)).flattened
    }

    /// The control bounds of SVG path data; nil for none, an empty path or one that does
    /// not parse (the property refuses those).
    static func bounds(ofShadowPath text: String) -> Rect? {
        guard !text.isEmpty, let data = try? PathData(parsing: text) else { return nil }
        let box = data.controlBounds
        return box.isNull ? nil : box
    }
}

/// A layer's shadow geometry (`LayerGeometry.shadowReach`, `contentShadow`, `shadowPathBounds`).
final class ShadowGeometry: Sendable {
    let reach: Rect?
    let contentShadow: (offset: Size, radius: Double)?
    let pathBounds: Rect?

    init(reach: Rect?, contentShadow: (offset: Size, radius: Double)?, pathBounds: Rect?) {
        self.reach = reach
        self.contentShadow = contentShadow
        self.pathBounds = pathBounds
    }
}
