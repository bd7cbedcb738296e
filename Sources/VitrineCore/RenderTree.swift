/// The presentation tree of one output at one time, flattened in drawing order: what the
/// rasterizer draws and what damage is computed from.
public struct RenderTree: Sendable {
    /// What a node shows of its layer: identity, kind and presentation values. A layer
    /// without running animations hands the same object to every tree until its model
    /// changes, so that building a tree copies one reference per layer and damage can
    /// tell an unchanged layer by identity.
    public final class Content: Sendable {
        public let id: String
        public let kind: String
        /// Presentation values at the tree's time.
        public let values: PropertyValues
        /// Custom keys whose changes redraw the layer; `*` for all of them.
        public let displayKeys: Set<String>
        /// A transition running on the layer (CATransition).
        public let transition: TransitionFrame?
        /// The layer shown: the same in every tree for as long as the layer lives.
        let layer: ObjectIdentifier
        /// `transition` is not nil: read without copying it.
        let hasTransition: Bool
        /// The transition animates an old rendering out.
        let hasOutgoing: Bool

        init(layer: ObjectIdentifier, id: String, kind: String, values: PropertyValues, displayKeys: Set<String>, transition: TransitionFrame?) {
            self.layer = layer
            self.id = id
            self.kind = kind
            self.values = values
            self.displayKeys = displayKeys
            hasTransition = transition != nil
            hasOutgoing = transition?.outgoing != nil
            self.transition = transition
        }

        init(layer: ObjectIdentifier, id: String, kind: String, values: PropertyValues, displayKeys: Set<String>) {
            self.layer = layer
            self.id = id
            self.kind = kind
            self.values = values
            self.displayKeys = displayKeys
            hasTransition = false
            hasOutgoing = false
            transition = nil
        }
    }

    /// One visible layer.
    public struct Node: Sendable {
        /// The layer's identity and presentation values.
        public let content: Content
        /// Index of the parent node; nil for the root.
        public var parent: Int? { parentIndex < 0 ? nil : Int(parentIndex) }
        /// From the layer's bounds space to the pixels it is drawn in: the screen's, or
        /// when it or an ancestor is seen in perspective, those of that layer's plane
        /// (`plane`).
        public let transform: AffineTransform
        /// The product of the ancestors' opacities (not the layer's own).
        public let inheritedOpacity: Double
        /// The box that ancestors with masksToBounds confine it to, in the pixels it is
        /// drawn in.
        public let clip: Rect
        /// Screen pixels its own drawing (bounds, border, shadow) can touch, whole pixels,
        /// grown by `shadowSpread`; for a layer running a transition, everything its old and
        /// new renderings can cover while they move.
        public internal(set) var visualBounds: Rect
        /// How far the shadows drawn from its pixels can reach past them: those of the
        /// ancestors (and its own) whose shadows are drawn from what their subtrees show,
        /// unless it lies where the nearest such ancestor's background is opaque.
        public var shadowSpread: ShadowSpread { extras?.shadowSpread ?? .zero }
        /// Its shadow is drawn from what it shows (not from its bounds or a path).
        var castsFromContent: Bool { extras?.castsFromContent ?? false }
        /// Its shadow is drawn from what it and its sublayers show: it has sublayers, shown
        /// or not, so that the way its shadow is drawn does not change when one hides.
        public var shadowsSublayers: Bool { extras?.shadowsSublayers ?? false }
        /// The colour a replicator multiplies this copy of its sublayer (and its subtree)
        /// by; nil when there is none.
        public var tint: Color? { extras?.tint }
        /// Where it is drawn when it or an ancestor is seen in perspective; nil when it is
        /// drawn straight on the screen.
        public var plane: Plane? { extras?.plane }
        /// What few nodes have (shadows drawn from content, a tint, a plane); nil when it
        /// has none of it. Held apart: nodes are copied and compared by the thousand.
        let extras: Extras?
        /// Its layer is the mask of its parent node's layer: it is drawn only into that
        /// layer's mask, not on screen.
        public let isMask: Bool
        /// Its layer has a mask: what it and its sublayers draw shows only through the
        /// mask's alpha — its mask's node is the first after it, and when there is none
        /// (the mask is hidden) nothing shows.
        public let hasMask: Bool
        /// One past the index of its last descendant: its subtree is `index..<subtreeEnd`.
        public var subtreeEnd: Int { Int(end) }
        let parentIndex: Int32
        var end: Int32
        /// The tree (`Scene.treeStamps`) that built it: a node with the same content, parent
        /// and stamp in another tree of the scene is a copy of it.
        let stamp: UInt64

        public var id: String { content.id }
        public var kind: String { content.kind }
        /// Presentation values at the tree's time.
        public var values: PropertyValues { content.values }
        /// Custom keys whose changes redraw the layer; `*` for all of them.
        public var displayKeys: Set<String> { content.displayKeys }
    }

    /// A node's rarely set properties (`Node.shadowSpread`, `castsFromContent`,
    /// `shadowsSublayers`, `tint`, `plane`).
    final class Extras: Sendable {
        let shadowSpread: ShadowSpread
        let castsFromContent: Bool
        let shadowsSublayers: Bool
        let tint: Color?
        let plane: Plane?

        init(shadowSpread: ShadowSpread, castsFromContent: Bool, shadowsSublayers: Bool, tint: Color?, plane: Plane?) {
            self.shadowSpread = shadowSpread
            self.castsFromContent = castsFromContent
            self.shadowsSublayers = shadowsSublayers
            self.tint = tint
            self.plane = plane
        }
    }

    public let output: String
    /// The screen in pixels (the root layer's bounds size).
    public let size: Size
    public internal(set) var nodes: [Node]

    /// The screen rectangle.
    public var screen: Rect { Rect(origin: .zero, size: size) }
}

extension RenderTree.Node {
    /// A node with these properties; the rare ones are held apart when any is set.
    init(
        content: RenderTree.Content, transform: AffineTransform, inheritedOpacity: Double, clip: Rect, visualBounds: Rect,
        shadowSpread: ShadowSpread, castsFromContent: Bool, shadowsSublayers: Bool, tint: Color?, isMask: Bool, hasMask: Bool,
        plane: RenderTree.Plane?, parentIndex: Int32, end: Int32, stamp: UInt64
    ) {
        let plain = shadowSpread == .zero && !castsFromContent && !shadowsSublayers && tint == nil && plane == nil
        self.init(
            content: content, transform: transform, inheritedOpacity: inheritedOpacity, clip: clip, visualBounds: visualBounds,
            extras: plain
                ? nil
                : RenderTree.Extras(
                    shadowSpread: shadowSpread, castsFromContent: castsFromContent, shadowsSublayers: shadowsSublayers, tint: tint, plane: plane),
            isMask: isMask, hasMask: hasMask, parentIndex: parentIndex, end: end, stamp: stamp)
    }
}

/// The display keys of a layer whose every custom property affects its content.
let allDisplayKeys: Set<String> = ["*"]

/// How far the shadows cast from a layer's pixels reach past them on screen, on each
/// side: a shadow drawn from what a layer and its sublayers show is the alpha of those
/// pixels moved by the shadow's offset and blurred, so whatever changes them changes
/// the shadow that far away.
public struct ShadowSpread: Hashable, Sendable {
    /// Pixels past each edge of what is drawn.
    public var left, top, right, bottom: Float

    /// A spread of so many pixels past each edge.
    public init(left: Float, top: Float, right: Float, bottom: Float) {
        (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
    }

    /// No shadow reaches past the pixels.
    public static let zero = ShadowSpread(left: 0, top: 0, right: 0, bottom: 0)

    /// The spread of a shadow moved by `offset` and blurred `extent` pixels past it
    /// (screen space).
    init(offset: Point, extent: Double) {
        func f(_ v: Double) -> Float { Float(min(1e7, v.isFinite ? v : 1e7)) }
        self.init(
            left: f(max(0, -offset.x) + extent), top: f(max(0, -offset.y) + extent),
            right: f(max(0, offset.x) + extent), bottom: f(max(0, offset.y) + extent))
    }

    /// Both spreads in turn: the shadow of a shadow.
    static func + (a: ShadowSpread, b: ShadowSpread) -> ShadowSpread {
        ShadowSpread(left: a.left + b.left, top: a.top + b.top, right: a.right + b.right, bottom: a.bottom + b.bottom)
    }

    /// `rect` grown by the spread (whole pixels outward); `rect` itself when zero.
    public func grow(_ rect: Rect) -> Rect {
        guard self != .zero, !rect.isNull else { return rect }
        let x0 = rect.minX - Double(left), y0 = rect.minY - Double(top)
        return Rect(x: x0, y: y0, width: rect.maxX + Double(right) - x0, height: rect.maxY + Double(bottom) - y0).integral
    }
}

/// How far a shadow reaches past its shape: three standard deviations, with
/// σ = shadowRadius / 2 (the rasterizer blurs with the same σ).
public func shadowExtent(radius: Double) -> Double { 1.5 * radius }

extension Scene {
    /// The render tree of the output whose root layer is `rootID`, at media time `time`.
    /// Hidden layers and layers with opacity 0 are left out with their sublayers;
    /// sublayers are drawn in order of zPosition, then in their order.
    ///
    /// While nothing but time changes, only the subtrees of animated layers are built
    /// again: the rest of the previous tree of the same root is reused.
    public func renderTree(root rootID: String, at time: Double) throws(CoreError) -> RenderTree {
        // The cache is found without hashing (an output or two), and updated in place. A
        // cache of the current generation has a root that still exists: removing a layer
        // starts a new generation.
        treeStamps &+= 1
        if let i = renderCaches.firstIndex(where: { $0.root == rootID }), renderCaches[i].generation == treeGeneration,
            renderCaches[i].update(at: time, changed: changedLayers, scene: self)
        {
            treesReused += 1
            forgetConsumedChanges()
            return renderCaches[i].tree
        }
        let root = try layer(rootID)
        guard let output = root.rootOfOutput else { throw .unknownLayer(rootID) }
        let size = root.model.rect(.bounds).size
        fullBuilds &+= 1
        var builder = TreeBuilder(screen: Rect(origin: .zero, size: size), capacity: layers.count, build: fullBuilds, stamp: treeStamps)
        builder.build(from: root, parent: nil, at: time)
        let tree = RenderTree(output: output, size: size, nodes: builder.nodes)
        renderCaches.removeAll { $0.root == rootID }
        renderCaches.append(
            RenderCache(
                root: rootID, generation: treeGeneration, build: fullBuilds, tree: tree, frames: builder.frames, animated: builder.records,
                changesSeen: changedLayers.count))
        forgetConsumedChanges()
        return tree
    }

    /// The render tree built whole, touching no cache: what `renderTree(root:at:)` must
    /// equal, for tests.
    func renderTreeBuiltWhole(root rootID: String, at time: Double) throws(CoreError) -> RenderTree {
        let root = try layer(rootID)
        guard let output = root.rootOfOutput else { throw .unknownLayer(rootID) }
        let size = root.model.rect(.bounds).size
        treeStamps &+= 1
        var builder = TreeBuilder(screen: Rect(origin: .zero, size: size), capacity: layers.count, build: nil, stamp: treeStamps)
        builder.build(from: root, parent: nil, at: time)
        return RenderTree(output: output, size: size, nodes: builder.nodes)
    }

    /// Drops the changed layers every output's tree has taken in.
    private func forgetConsumedChanges() {
        // Frames of an animation change no model values: nothing to forget, no array made.
        guard !changedLayers.isEmpty, let seen = renderCaches.lazy.map(\.changesSeen).min(), seen > 0 else { return }
        changedLayers.removeFirst(seen)
        for i in renderCaches.indices { renderCaches[i].changesSeen -= seen }
    }
}

/// Where a layer's node was in the last full build of the tree it belongs to.
struct RenderSlot {
    /// The full build (`Scene.fullBuilds`) that placed it.
    let build: UInt64
    let node: Int32
    /// Its parent's frame in that build's frames; -1 for an output's root layer.
    let parentFrame: Int32
    /// The first frame it passes down: its mask's, when it has one (the sublayers' is the
    /// next), else its sublayers'; -1 when it has neither.
    let ownFrame: Int32
}

/// Builds a render tree, or one subtree of it, depth first without recursion. The scene
/// owns every layer for the duration of a build, so the pending stack holds them unretained.
struct TreeBuilder {
    /// What a layer passes down to its sublayers.
    struct ParentFrame {
        let node: Int32
        var localTime: Double?
        /// Every layer from the root to this one has the identity timing: its local
        /// time is media time.
        let isMediaTime: Bool
        let transform: AffineTransform
        let sublayerTransform: AffineTransform?
        let childClip: Rect
        let opacity: Double
        let inheritedOpacity: Double
        /// The shadow spread its sublayers' pixels have (`RenderTree.Node.shadowSpread`).
        let spread: ShadowSpread
        /// Where the background of the nearest layer whose shadow is drawn from content
        /// (this one or an ancestor) is opaque, on screen; `.null` for nowhere.
        let shelter: Rect
        /// The colour a replicator multiplies its sublayers in this copy by.
        var tint: Color? = nil
        /// The sublayers are drawn in copies made by a replicator (this layer or an
        /// ancestor): they are built again with it, not on their own.
        var isReplicated = false
        /// What perspective passes down, when any does (held apart: frames are copied).
        var perspective: FramePerspective? = nil
        /// The frame a layer passes to its mask: the layers under it are masks.
        var isMask = false
        /// The sublayerTransform about the anchor point when it is not affine (then
        /// `sublayerTransform` is nil).
        var sublayer3D: Transform3D? { perspective?.sublayer3D }
        /// From the pixels the sublayers are drawn in to the screen's, when they are drawn
        /// in a plane seen in perspective; nil when they are drawn on the screen.
        var plane: ProjectiveTransform? { perspective?.plane }
        /// With `plane`: the screen box that that plane's layer is confined to.
        var screenClip: Rect? { perspective?.screenClip }
    }

    /// An animated layer met while building: where its node is (or would be) and what
    /// its parent passed down, so that its subtree can be built again alone.
    struct AnimatedLayer {
        let layer: Layer
        /// Its node's index; when it is not drawn, the index its node would have.
        let node: Int32
        /// Its own presentation made it visible (its ancestors are always visible).
        let isVisible: Bool
        /// Its parent's frame; -1 for an output's root layer.
        let parentFrame: Int32
    }

    let screen: Rect
    var nodes: [RenderTree.Node] = []
    var frames: [ParentFrame] = []
    var stack: [(layer: Unmanaged<Layer>, frame: Int32)] = []
    /// Animated layers in drawing order, when building a whole tree.
    var records: [AnimatedLayer] = []
    /// The full build this is, stamped on every layer it places; nil for a subtree.
    let build: UInt64?
    /// A node built runs a transition.
    var hasTransitions = false
    /// The stamp of the nodes it builds (`RenderTree.Node.stamp`).
    var stamp: UInt64

    init(screen: Rect, capacity: Int, build: UInt64?, stamp: UInt64) {
        self.screen = screen
        self.build = build
        self.stamp = stamp
        nodes.reserveCapacity(capacity)
        frames.reserveCapacity(capacity / 2 + 1)
        stack.reserveCapacity(64)
    }

    /// Builds the subtree of `root`, whose parent passes down `parent` (nil for an
    /// output's root layer), after any nodes already built.
    mutating func build(from root: Layer, parent: ParentFrame?, at time: Double) {
        frames.removeAll(keepingCapacity: true)
        if let parent { frames.append(parent) }
        build(from: root, withParentFrame: parent != nil, at: time)
    }

    /// Builds the subtree of `root` after any nodes already built, under the parent's
    /// frame when `withParentFrame` (then `frames` holds it alone) or as an output's root
    /// layer (then `frames` is empty).
    mutating func build(from root: Layer, withParentFrame: Bool, at time: Double) {
        stack.append((Unmanaged.passUnretained(root), withParentFrame ? 0 : -1))
        while let (ref, frame) = stack.popLast() {
            visit(ref.takeUnretainedValue(), frame: Int(frame), time: time)
        }
        closeSubtrees()
        if hasTransitions {
            sweepTransitions(from: 0)
            hasTransitions = false
        }
    }

    /// The presentation content and geometry of `layer` under a parent whose local time
    /// is `parentTime`, with the layer's own local time.
    static func present(_ layer: Layer, parentTime: Double?) -> Presented {
        let localTime = Scene.layerTime(layer.timing, parentTime: parentTime)
        if layer.animations.isEmpty || localTime == nil {
            return Presented(content: layer.modelContent, geometry: layer.geometry, localTime: localTime)
        }
        let values = Scene.presentation(of: layer, localTime: localTime)
        return Presented(content: layer.animatedContent(values, localTime: localTime), geometry: layer.presentedGeometry(values), localTime: localTime)
    }

    /// A layer's presentation content and geometry, and its local time. A struct, not a
    /// tuple: a tuple of these is copied through the runtime's generic witnesses.
    struct Presented {
        let content: RenderTree.Content
        let geometry: LayerGeometry
        let localTime: Double?
    }

    /// Adds the node of `layer`, whose parent's frame is `frames[frame]` (none when
    /// negative), and queues its sublayers. The parent's frame is read in place: frames
    /// are large, and a copy per layer shows in the profile. So is a layer's model
    /// geometry, when it is its presentation's.
    private mutating func visit(_ layer: Layer, frame f: Int, time: Double) {
        // As `present`, without a copy of the geometry into its result and out again.
        let localTime = Scene.layerTime(layer.timing, parentTime: f >= 0 ? frames[f].localTime : time)
        if layer.animations.isEmpty || localTime == nil {
            let content = layer.modelContent
            layer.withGeometry { visit(layer, content, $0, localTime: localTime, frame: f) }
        } else {
            let values = Scene.presentation(of: layer, localTime: localTime)
            let content = layer.animatedContent(values, localTime: localTime)
            var g = layer.presentedGeometry(values)
            withUnsafePointer(to: &g) { visit(layer, content, $0, localTime: localTime, frame: f) }
        }
    }

    /// `visit` for a layer whose presentation shows `content` with geometry `g.pointee` at
    /// local time `localTime`.
    private mutating func visit(_ layer: Layer, _ content: RenderTree.Content, _ g: UnsafePointer<LayerGeometry>, localTime: Double?, frame f: Int) {
        let hasParent = f >= 0
        let visible =
            !g.pointee.isHidden && g.pointee.opacity > 0 && (g.pointee.isDoubleSided || Self.facesViewer(g.pointee, under: hasParent ? frames[f] : nil))
        // A layer that hid itself in the transaction of its transition stays, without its
        // sublayers, while its old rendering leaves.
        let leaving = !visible && content.hasOutgoing
        let isReplicator = layer.isReplicator, replicated = hasParent && frames[f].isReplicated
        if build != nil, !replicated, !layer.animations.isEmpty || (isReplicator && layer.subtreeIsAnimated) {
            records.append(AnimatedLayer(layer: layer, node: Int32(nodes.count), isVisible: visible || leaving, parentFrame: Int32(f)))
        }
        guard visible || leaving else { return }
        if content.hasTransition { hasTransitions = true }
        var toScreen = g.pointee.toParent, projection: ProjectiveTransform?
        if g.pointee.placement3D?.hasOwn != true, !hasParent || frames[f].perspective?.hasSublayer3D != true {
            if hasParent {
                if let s = frames[f].sublayerTransform { toScreen = toScreen.concatenating(s) }
                toScreen = toScreen.concatenating(frames[f].transform)
            }
            if g.pointee.rasterizes, toScreen.a == 1, toScreen.d == 1, toScreen.isAxisAligned {
                (toScreen.tx, toScreen.ty) = (toScreen.tx.rounded(), toScreen.ty.rounded())
            }
        } else {
            (toScreen, projection) = Self.place(g.pointee, under: hasParent ? frames[f] : nil)
        }
        let parentPlane = hasParent ? frames[f].plane : nil
        let plane = projection.map { p in parentPlane.map { p.concatenating($0) } ?? p } ?? parentPlane
        let clip = projection != nil ? RenderTree.unclipped : hasParent ? frames[f].childClip : screen
        let screenClip = projection == nil ? (hasParent ? frames[f].screenClip : nil) : hasParent ? frames[f].screenClip ?? frames[f].childClip : screen
        let box = toScreen.boundingBox(of: g.pointee.bounds)
        var visual = box.insetBy(dx: -1, dy: -1)
        if let reach = g.pointee.contentReach {
            visual = visual.union(toScreen.boundingBox(of: reach).insetBy(dx: -1, dy: -1))
        }
        if let shadow = g.pointee.shadowReach, !g.pointee.masksToBounds {
            visual = visual.union(toScreen.boundingBox(of: shadow))
        }
        let sublayers = leaving ? [] : layer.sublayers, mask = leaving ? nil : layer.maskLayer
        let inheritedSpread = hasParent ? frames[f].spread : .zero, shelter = hasParent ? frames[f].shelter : .null
        var own = ShadowSpread.zero, childShelter = shelter
        // A plain layer without sublayers or contents casts the shadow of its bounds,
        // which `shadowReach` already holds.
        if let cast = g.pointee.contentShadow, !sublayers.isEmpty || !layer.isPlainLayer || !content.values.string(.contents).isEmpty {
            own = Self.spread(of: cast, under: toScreen)
            childShelter = Self.opaqueBox(content.values, bounds: g.pointee.bounds, under: toScreen)
        }
        // Where the nearest shadow drawn from content has an opaque background, what is
        // drawn over it changes neither that shadow nor those of the layers above.
        let sheltered = !shelter.isNull && shelter.contains(own.grow(visual))
        let spread = sheltered ? own : inheritedSpread + own
        visual = spread.grow(visual)
        let index = Int32(nodes.count)
        let inherited = hasParent ? frames[f].inheritedOpacity * frames[f].opacity : 1
        var shown = visual.intersection(clip).integral, drawing: RenderTree.Plane?
        if let plane {
            drawing = RenderTree.Plane(toScreen: plane, projection: projection, drawingBounds: shown)
            shown = plane.boundingBox(of: shown).intersection(screenClip ?? screen).integral
        }
        nodes.append(
            RenderTree.Node(
                content: content, transform: toScreen, inheritedOpacity: inherited, clip: clip,
                visualBounds: shown, shadowSpread: spread, castsFromContent: own != .zero,
                shadowsSublayers: own != .zero && !sublayers.isEmpty, tint: hasParent ? frames[f].tint : nil,
                isMask: hasParent && frames[f].isMask, hasMask: mask != nil, plane: drawing, parentIndex: hasParent ? frames[f].node : -1,
                end: index + 1, stamp: stamp))
        if let build, !replicated {
            let ownFrame = sublayers.isEmpty && mask == nil ? -1 : Int32(frames.count)
            layer.renderSlot = RenderSlot(build: build, node: index, parentFrame: Int32(f), ownFrame: ownFrame)
        }
        guard !sublayers.isEmpty || mask != nil else { return }
        let isMediaTime = (hasParent ? frames[f].isMediaTime : true) && layer.timing.isIdentity
        if mask != nil {
            // In the layer's space (without its sublayerTransform and masksToBounds), at
            // full opacity, untinted. Queued last, its nodes come first after the layer's.
            var maskFrame = ParentFrame(
                node: index, localTime: localTime, isMediaTime: isMediaTime, transform: toScreen, sublayerTransform: nil, childClip: clip,
                opacity: 1, inheritedOpacity: 1, spread: inheritedSpread, shelter: shelter,
                perspective: FramePerspective.make(sublayer3D: nil, plane: plane, screenClip: screenClip))
            maskFrame.isReplicated = replicated
            maskFrame.isMask = true
            frames.append(maskFrame)
        }
        let maskFrame = Int32(frames.count - 1)
        defer {
            if let mask { stack.append((Unmanaged.passUnretained(mask), maskFrame)) }
        }
        let ownFrame = ParentFrame(
            node: index, localTime: localTime, isMediaTime: isMediaTime, transform: toScreen, sublayerTransform: g.pointee.sublayerMatrix,
            childClip: g.pointee.masksToBounds ? clip.intersection(box.integral) : clip, opacity: g.pointee.opacity, inheritedOpacity: inherited,
            spread: inheritedSpread + own, shelter: childShelter, isReplicated: replicated,
            perspective: FramePerspective.make(
                sublayer3D: g.pointee.placement3D?.hasSublayer == true ? g.pointee.sublayer3D : nil, plane: plane, screenClip: screenClip))
        if isReplicator {
            replicate(sublayers, of: ownFrame, ReplicatorInstances(content.values))
            return
        }
        frames.append(ownFrame)
        let frame = Int32(frames.count - 1)
        if sublayers.contains(where: { $0.geometry.zPosition != 0 }) {
            for sublayer in Self.drawingOrder(sublayers).reversed() {
                stack.append((Unmanaged.passUnretained(sublayer), frame))
            }
        } else {
            for i in sublayers.indices.reversed() {
                stack.append((Unmanaged.passUnretained(sublayers[i]), frame))
            }
        }
    }

    /// Queues the copies of a replicator's `sublayers`, each under its own variant of the
    /// replicator's `frame`: moved by the instance transform applied i times (after the
    /// replicator's sublayerTransform), its time `i × delay` behind, with its tint. Copy 0
    /// is drawn first, under the others.
    private mutating func replicate(_ sublayers: [Layer], of frame: ParentFrame, _ instances: ReplicatorInstances) {
        let first = frames.count
        let order = sublayers.contains(where: { $0.geometry.zPosition != 0 }) ? Self.drawingOrder(sublayers) : sublayers
        for (i, m) in instances.transforms().enumerated() {
            var copy = frame
            copy.isReplicated = true
            copy.tint = instances.tint(of: i)
            if i > 0 {
                copy = copy.moved(by: m, delay: Double(i) * instances.delay)
            }
            frames.append(copy)
        }
        for i in stride(from: instances.count - 1, through: 0, by: -1) {
            for sublayer in order.reversed() {
                stack.append((Unmanaged.passUnretained(sublayer), Int32(first + i)))
            }
        }
    }

    /// The screen spread of a shadow with `offset` and `radius` in the space of a layer
    /// drawn through `toScreen`: the offset turns and scales with the layer, and the blur
    /// reaches 3σ (σ = radius / 2 times the layer's scale, at most 256) and a pixel more.
    static func spread(of shadow: (offset: Size, radius: Double), under toScreen: AffineTransform) -> ShadowSpread {
        let t = toScreen, o = shadow.offset
        let offset = Point(x: t.a * o.width + t.c * o.height, y: t.b * o.width + t.d * o.height)
        let scale = abs(t.determinant).squareRoot()
        let sigma = min(256, max(0, shadow.radius / 2) * (scale.isFinite ? scale : 1))
        return ShadowSpread(offset: offset, extent: (3 * sigma).rounded(.up) + 1)
    }

    /// Where the background of a layer with values `v` drawn through `toScreen` is surely
    /// opaque, on screen: its bounds less the rounded corners; `.null` unless the colour
    /// is opaque and the transform keeps rectangles upright.
    static func opaqueBox(_ v: PropertyValues, bounds: Rect, under toScreen: AffineTransform) -> Rect {
        guard toScreen.isAxisAligned, v.color(.backgroundColor).clamped.alpha >= 1 else { return .null }
        let radius = min(v.number(.cornerRadius), bounds.width / 2, bounds.height / 2)
        // A rounded corner leaves (1 − 1/√2)·r of the diagonal uncovered; a pixel more for
        // anti-aliasing.
        let inset = max(0, radius) * 0.293 * max(abs(toScreen.a), abs(toScreen.d)) + 1
        let box = toScreen.boundingBox(of: bounds).insetBy(dx: inset, dy: inset)
        return box.isEmpty ? .null : box
    }

    /// Sets each node's subtree end: a node's subtree ends where its last descendant's
    /// does. Parents outside the built nodes (a subtree's root's) are left alone.
    private mutating func closeSubtrees() {
        nodes.withUnsafeMutableBufferPointer { nodes in
            for i in stride(from: nodes.count - 1, to: 0, by: -1) {
                let p = Int(nodes[i].parentIndex)
                if nodes[i].end > nodes[p].end { nodes[p].end = nodes[i].end }
            }
        }
    }

    /// Sublayers sorted by their model zPosition, keeping their order among equals.
    static func drawingOrder(_ sublayers: [Layer]) -> [Layer] {
        sublayers.enumerated().sorted { a, b in
            let za = a.element.geometry.zPosition, zb = b.element.geometry.zPosition
            return za != zb ? za < zb : a.offset < b.offset
        }.map(\.element)
    }
}
