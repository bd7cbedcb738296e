import Glibc

/// Layers seen in perspective. A layer whose map into its parent's plane (its placement
/// and the parent's sublayerTransform, as 4×4 transforms, z dropped) is not affine is drawn
/// as CALayer flattens it: it and its sublayers are drawn in its own plane, whose pixels
/// its node's `transform` maps its bounds to, and that plane is mapped through its
/// `projection` into the pixels its parent is drawn in. Nothing is sorted by depth across
/// siblings: they are drawn in zPosition order, each flattened in turn.
extension RenderTree {
    /// How a node in perspective is drawn: its layer's plane, or the plane of the nearest
    /// ancestor seen in perspective.
    public final class Plane: Sendable {
        /// From the pixels the node is drawn in (its `transform`'s target) to the screen's.
        public let toScreen: ProjectiveTransform
        /// For the layer seen in perspective itself: from the pixels of its plane to those
        /// its parent is drawn in; nil for a layer drawn within an ancestor's plane.
        public let projection: ProjectiveTransform?
        /// Its visual bounds in the pixels it is drawn in (`visualBounds` are the screen's).
        public let drawingBounds: Rect

        init(toScreen: ProjectiveTransform, projection: ProjectiveTransform?, drawingBounds: Rect) {
            self.toScreen = toScreen
            self.projection = projection
            self.drawingBounds = drawingBounds
        }

        /// The same drawing, compared by value.
        func same(as other: Plane?) -> Bool {
            guard let other else { return false }
            return toScreen == other.toScreen && projection == other.projection && drawingBounds == other.drawingBounds
        }
    }

    /// The clip of a layer drawn in its own plane: nothing in that plane confines it.
    public static let unclipped = Rect(x: -1e9, y: -1e9, width: 2e9, height: 2e9)
}

/// A layer's 4×4 placements (`LayerGeometry.transform3D`, `sublayer3D`).
final class Placement3D: Sendable {
    let own: Transform3D?
    let sublayer: Transform3D?
    /// `own` is not nil: read without copying it.
    let hasOwn: Bool
    /// `sublayer` is not nil: read without copying it.
    let hasSublayer: Bool

    init(own: Transform3D?, sublayer: Transform3D?) {
        hasOwn = own != nil
        hasSublayer = sublayer != nil
        self.own = own
        self.sublayer = sublayer
    }
}

/// What a layer passes down to its sublayers about perspective
/// (`TreeBuilder.ParentFrame.sublayer3D`, `plane`, `screenClip`).
final class FramePerspective: Sendable {
    let sublayer3D: Transform3D?
    let plane: ProjectiveTransform?
    let screenClip: Rect?
    /// `sublayer3D` is not nil: read without copying it.
    let hasSublayer3D: Bool

    private init(sublayer3D: Transform3D?, plane: ProjectiveTransform?, screenClip: Rect?) {
        hasSublayer3D = sublayer3D != nil
        self.sublayer3D = sublayer3D
        self.plane = plane
        self.screenClip = screenClip
    }

    /// Nil when there is nothing to pass down.
    static func make(sublayer3D: Transform3D?, plane: ProjectiveTransform?, screenClip: Rect?) -> FramePerspective? {
        sublayer3D == nil && plane == nil && screenClip == nil ? nil : FramePerspective(sublayer3D: sublayer3D, plane: plane, screenClip: screenClip)
    }
}

extension TreeBuilder {
    /// True unless a layer with geometry `g` under `parent` (nil for an output's root)
    /// faces away from its parent's plane: its bounds appear mirrored there.
    static func facesViewer(_ g: LayerGeometry, under parent: ParentFrame?) -> Bool {
        g.flattened(parentAffine: parent?.sublayerTransform, parent3D: parent?.sublayer3D).showsFront
    }

    /// The transform and projection of a layer with geometry `g` under `parent` (nil for
    /// an output's root) whose map into the parent's plane may not be affine: when the
    /// whole map into the parent's pixels is affine, that and no projection; otherwise a
    /// uniform scale into the layer's own plane (its pixels about as fine as the screen's
    /// where the layer is nearest) and the projection from there into the parent's pixels.
    static func place(_ g: LayerGeometry, under parent: ParentFrame?) -> (AffineTransform, ProjectiveTransform?) {
        let flat = g.flattened(parentAffine: parent?.sublayerTransform, parent3D: parent?.sublayer3D)
        let full = parent.map { flat.concatenating($0.transform) } ?? flat
        if let affine = full.affine { return (affine, nil) }
        let s = planeScale(full.concatenating(parent?.plane ?? .identity), over: g.bounds)
        return (AffineTransform(scaleX: s, y: s), ProjectiveTransform(AffineTransform(scaleX: 1 / s, y: 1 / s)).concatenating(full))
    }

    /// The scale at which a layer's plane is drawn: the largest stretch of `toScreen` at a
    /// visible corner of `bounds`, rounded to a quarter power of two (so that a turning
    /// layer is not drawn at a new scale every frame), within 1/4…4.
    static func planeScale(_ toScreen: ProjectiveTransform, over bounds: Rect) -> Double {
        var stretch = 0.0
        for p in [(bounds.minX, bounds.minY), (bounds.maxX, bounds.minY), (bounds.minX, bounds.maxY), (bounds.maxX, bounds.maxY)] {
            let (x, y, w) = toScreen.homogeneous(p.0, p.1)
            guard w > 1e-9 else { continue }
            let u = x / w, v = y / w, m = toScreen
            let dx = (m.m11 - u * m.m14, m.m12 - v * m.m14), dy = (m.m21 - u * m.m24, m.m22 - v * m.m24)
            let k = max((dx.0 * dx.0 + dx.1 * dx.1).squareRoot(), (dy.0 * dy.0 + dy.1 * dy.1).squareRoot()) / w
            if k.isFinite { stretch = max(stretch, k) }
        }
        guard stretch > 0 else { return 1 }
        return exp2(min(2, max(-2, (log2(stretch) * 4).rounded() / 4)))
    }
}
