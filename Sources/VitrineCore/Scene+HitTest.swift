/// Where a point falls in the layer tree: the layer hit, and the point in that layer's
/// own coordinates (its bounds' space, as CALayer's convert(_:from:) gives it).
public struct HitTestResult: Hashable, Sendable {
    public let layer: String
    public let point: Point

    public init(layer: String, point: Point) {
        self.layer = layer
        self.point = point
    }
}

/// Hit testing and the conversions input needs, on presentation geometry: a point in an
/// output's pixels (the screen its render tree is drawn on) at a media time.
///
/// The geometry is the render tree's: the same presentation values at the same time, the
/// same transform products (`LayerGeometry.toParent`, the parent's sublayer transform,
/// the parent's screen transform), the same drawing order (model zPosition, then order).
extension Scene {
    /// The layer at `point` (the output's pixels) of the output whose root layer is
    /// `root`, at media time `time`, by CALayer.hitTest's rules: sublayers are searched
    /// front to back (the last drawn first) before the layer itself; the first whose
    /// bounds hold the point is hit. A layer that is hidden, nearly transparent (opacity
    /// below 0.01, as UIKit) or has `userInteractionEnabled` false is passed over with its
    /// sublayers, as is one whose transform is singular; a layer with `masksToBounds`
    /// holds its sublayers (and itself) to its bounds with the corners it rounds cut away,
    /// as the renderer clips them. A layer seen in perspective takes the point mapped back
    /// through its projection, and is passed over with its sublayers where that point is
    /// behind the eye, or when it is not `doubleSided` and faces away (as the renderer
    /// leaves it out). The root, when nothing in front of it is, is hit
    /// anywhere on the screen. Nil when the point is off the screen or not finite, or
    /// `root` is no output's root.
    public func hitTest(_ point: Point, root: String, at time: Double) -> HitTestResult? {
        guard point.x.isFinite, point.y.isFinite, time.isFinite, let rootLayer = layers[root], rootLayer.rootOfOutput != nil,
            Rect(origin: .zero, size: rootLayer.model.rect(.bounds).size).contains(point)
        else { return nil }
        var search = HitSearch(time: time)
        return search.run(from: rootLayer, screenPoint: point)
    }

    /// A point in the pixels of the output whose root layer is `root`, in the coordinates
    /// of `layer` (its bounds' space), on presentation geometry at `time`; nil when the
    /// layer is not in that output's tree, or is collapsed so that no point maps into it.
    public func convert(_ point: Point, fromRoot root: String, to layer: String, at time: Double) -> Point? {
        if let t = screenTransform(of: layer, root: root, at: time) {
            guard let p = t.inverted?.apply(to: point), p.x.isFinite, p.y.isFinite else { return nil }
            return p
        }
        guard let m = screenProjection(of: layer, root: root, at: time), let p = HitSearch.unproject(point, through: m) else { return nil }
        return p
    }

    /// A point in the coordinates of `layer`, in the pixels of the output whose root
    /// layer is `root`, on presentation geometry at `time`; nil when the layer is not in
    /// that output's tree.
    public func convert(_ point: Point, from layer: String, toRoot root: String, at time: Double) -> Point? {
        let p = screenTransform(of: layer, root: root, at: time)?.apply(to: point) ?? screenProjection(of: layer, root: root, at: time)?.apply(to: point)
        guard let p, p.x.isFinite, p.y.isFinite else { return nil }
        return p
    }

    /// The map from `layer`'s bounds space to the pixels of the output whose root layer is
    /// `root`, on presentation geometry at media time `time`, with the perspective of the
    /// layers seen in perspective on the way (each flattened into its parent's plane, as
    /// drawn). Nil when the layer is not in that output's tree.
    public func screenProjection(of layer: String, root: String, at time: Double) -> ProjectiveTransform? {
        guard time.isFinite, let target = layers[layer], let rootLayer = layers[root], rootLayer.rootOfOutput != nil else { return nil }
        let chain = target.ancestry
        guard chain.first === rootLayer else { return nil }
        var toScreen = ProjectiveTransform.identity, parent: LayerGeometry?, parentTime: Double? = time
        for node in chain {
            let presented = TreeBuilder.present(node, parentTime: parentTime)
            let g = presented.geometry
            let h =
                node.parent == nil
                ? g.flattened(parentAffine: nil, parent3D: nil) : g.flattened(parentAffine: parent?.sublayerMatrix, parent3D: parent?.sublayer3D)
            toScreen = h.concatenating(toScreen)
            parent = g
            parentTime = presented.localTime
        }
        return toScreen
    }

    /// The transform from `layer`'s bounds space to the pixels of the output whose root
    /// layer is `root`, on presentation geometry at media time `time`: the render tree's
    /// `Node.transform` for the layer at that time. Nil when the layer is not in that
    /// output's tree, or is seen in perspective (see `screenProjection(of:root:at:)`).
    public func screenTransform(of layer: String, root: String, at time: Double) -> AffineTransform? {
        guard time.isFinite, let target = layers[layer], let rootLayer = layers[root], rootLayer.rootOfOutput != nil else { return nil }
        let chain = target.ancestry
        guard chain.first === rootLayer else { return nil }
        var toScreen = AffineTransform.identity, sublayerMatrix: AffineTransform?, parentTime: Double? = time, flat = true
        for (i, node) in chain.enumerated() {
            let presented = TreeBuilder.present(node, parentTime: parentTime)
            var m = presented.geometry.toParent
            if let s = sublayerMatrix, node.parent != nil { m = m.concatenating(s) }
            toScreen = i == 0 ? m : m.concatenating(toScreen)
            sublayerMatrix = presented.geometry.sublayerMatrix
            flat = flat && presented.geometry.transform3D == nil && (i == chain.count - 1 || presented.geometry.sublayer3D == nil)
            parentTime = presented.localTime
        }
        guard flat else { return screenProjection(of: layer, root: root, at: time)?.affine }
        return toScreen
    }
}

/// Opacity below which a layer takes no touches (UIKit's alpha threshold).
let minimumHitOpacity = 0.01

/// One hit test: a depth-first search without recursion, front to back, that decodes the
/// presentation of only the layers it reaches.
struct HitSearch {
    /// What a layer passes down to its sublayers: the point in their parent's space (the
    /// layer's bounds space with its sublayerTransform undone) and its local time.
    struct Frame {
        let point: Point
        let localTime: Double?
        /// The parent's 4×4 placements: when its sublayerTransform is not affine, `point`
        /// is in the parent's bounds space, not undone through it.
        var parent3D: Placement3D? = nil
        var sublayer3D: Transform3D? { parent3D?.sublayer }
        /// The parent's affine sublayerTransform mirrors what it holds.
        var mirrors = false
    }

    /// A layer to search, under the frame `frame` (-1: an output's root, under the
    /// screen); or, with `own`, the layer itself to try once its sublayers were.
    struct Step {
        let layer: Unmanaged<Layer>
        let frame: Int32
        let own: Point?
    }

    let time: Double
    var frames: [Frame] = []
    var stack: [Step] = []

    init(time: Double) {
        self.time = time
    }

    /// The layer hit at `screenPoint` in the tree of `root`.
    mutating func run(from root: Layer, screenPoint: Point) -> HitTestResult? {
        frames.append(Frame(point: screenPoint, localTime: time))
        stack.append(Step(layer: Unmanaged.passUnretained(root), frame: 0, own: nil))
        while let step = stack.popLast() {
            if let p = step.own { return HitTestResult(layer: step.layer.takeUnretainedValue().id, point: p) }
            // Unretained: layers that are weakly referenced (parents) are slow to retain.
            step.layer._withUnsafeGuaranteedRef { visit($0, frame: Int(step.frame)) }
        }
        return nil
    }

    /// Queues `layer` itself, when the point is in its bounds, under its sublayers, front
    /// most on top, unless the layer is passed over. The presentation is decoded only for
    /// an animated layer; the others' model geometry is read in place, and so is the
    /// parent's frame (`frames[f]`).
    private mutating func visit(_ layer: Layer, frame f: Int) {
        // Not animatable: the model's value is the presentation's.
        guard layer.geometry.isInteractive else { return }
        let localTime = Scene.layerTime(layer.timing, parentTime: frames[f].localTime)
        if layer.animations.isEmpty || localTime == nil {
            layer.withGeometry { visit(layer, $0, presentation: nil, localTime: localTime, frame: f) }
        } else {
            let values = Scene.presentation(of: layer, localTime: localTime)
            var g = LayerGeometry(values, model: layer.geometry)
            withUnsafePointer(to: &g) { visit(layer, $0, presentation: values, localTime: localTime, frame: f) }
        }
    }

    /// `visit` for a layer whose presentation has geometry `g.pointee` and values
    /// `presentation` (nil: the model's), under a parent that passes down `frames[f]`.
    private mutating func visit(_ layer: Layer, _ g: UnsafePointer<LayerGeometry>, presentation: PropertyValues?, localTime: Double?, frame f: Int) {
        guard !g.pointee.isHidden, g.pointee.opacity >= minimumHitOpacity else { return }
        let p: Point
        if g.pointee.placement3D?.hasOwn != true, frames[f].parent3D?.hasSublayer != true {
            let toParent = g.pointee.toParent
            guard let fromParent = toParent.inverted else { return }
            if !g.pointee.isDoubleSided, (toParent.determinant > 0) == frames[f].mirrors { return }
            p = fromParent.apply(to: frames[f].point)
        } else {
            let h = g.pointee.flattened(parentAffine: nil, parent3D: frames[f].sublayer3D)
            guard g.pointee.isDoubleSided || h.showsFront != frames[f].mirrors, let q = Self.unproject(frames[f].point, through: h) else { return }
            p = q
        }
        if g.pointee.masksToBounds, !Self.clipContains(p, bounds: g.pointee.bounds, values: presentation ?? layer.model) { return }
        if g.pointee.bounds.contains(p) {
            stack.append(Step(layer: Unmanaged.passUnretained(layer), frame: -1, own: p))
        }
        let sublayers = layer.sublayers
        guard !sublayers.isEmpty else { return }
        var inner = Frame(point: p, localTime: localTime, parent3D: g.pointee.placement3D)
        if let s = g.pointee.sublayerMatrix {
            guard let undo = s.inverted else { return }
            inner = Frame(point: undo.apply(to: p), localTime: localTime, mirrors: s.determinant < 0)
        }
        frames.append(inner)
        let index = Int32(frames.count - 1)
        // Pushed back to front, so that the front most is searched first.
        if sublayers.contains(where: { $0.geometry.zPosition != 0 }) {
            for sublayer in TreeBuilder.drawingOrder(sublayers) {
                stack.append(Step(layer: Unmanaged.passUnretained(sublayer), frame: index, own: nil))
            }
        } else {
            for sublayer in sublayers {
                stack.append(Step(layer: Unmanaged.passUnretained(sublayer), frame: index, own: nil))
            }
        }
    }

    /// The point that `projection` maps to `q`, when it lies in front of the eye; nil
    /// otherwise.
    static func unproject(_ q: Point, through projection: ProjectiveTransform) -> Point? {
        guard let inverse = projection.inverted else { return nil }
        let (x, y, w) = inverse.homogeneous(q.x, q.y)
        guard w != 0 else { return nil }
        let p = Point(x: x / w, y: y / w)
        guard p.x.isFinite, p.y.isFinite, projection.homogeneous(p.x, p.y).2 > 0 else { return nil }
        return p
    }

    /// True when `p` lies in the shape a `masksToBounds` layer with `values` clips to:
    /// `bounds` with the corners it rounds cut away (radius at most half the shorter
    /// side, `maskedCorners` choosing the corners, as the renderer draws them).
    static func clipContains(_ p: Point, bounds: Rect, values: borrowing PropertyValues) -> Bool {
        guard bounds.contains(p) else { return false }
        let r = min(values.number(.cornerRadius), bounds.width / 2, bounds.height / 2)
        guard r > 0 else { return true }
        let left = p.x < bounds.minX + r, right = p.x > bounds.maxX - r
        let top = p.y < bounds.minY + r, bottom = p.y > bounds.maxY - r
        guard left || right, top || bottom else { return true }
        // maskedCorners: minXMinY 1, maxXMinY 2, minXMaxY 4, maxXMaxY 8.
        let corner = top ? (left ? 1 : 2) : (left ? 4 : 8)
        guard Int(values.number(.maskedCorners)) & corner != 0 else { return true }
        let dx = p.x - (left ? bounds.minX + r : bounds.maxX - r), dy = p.y - (top ? bounds.minY + r : bounds.maxY - r)
        return dx * dx + dy * dy <= r * r
    }
}
