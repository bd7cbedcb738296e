extension LayerKind {
    /// The name of CAReplicatorLayer's kind.
    public static let replicatorName = "replicator"

    /// CAReplicatorLayer: draws its sublayers `instanceCount` times. Copy i is moved by
    /// `instanceTransform` applied i times about the layer's anchor point, shows its
    /// sublayers' animations `i × instanceDelay` seconds late, and is multiplied by
    /// `instanceColor` plus i times the colour offsets.
    public static let replicator = LayerKind(
        name: replicatorName,
        extraProperties: [
            PropertyDescriptor("instanceCount", .number(1), animatable: false, range: 0...Double(ReplicatorInstances.maximumCount), integer: true),
            PropertyDescriptor("instanceTransform", .transform(.identity)),
            PropertyDescriptor("instanceDelay", .number(0)),
            PropertyDescriptor("instanceColor", .color(.white)),
            PropertyDescriptor("instanceRedOffset", .number(0)),
            PropertyDescriptor("instanceGreenOffset", .number(0)),
            PropertyDescriptor("instanceBlueOffset", .number(0)),
            PropertyDescriptor("instanceAlphaOffset", .number(0)),
        ])
}

/// What a replicator layer makes of its sublayers: how many copies, and how each is
/// placed, delayed and coloured.
public struct ReplicatorInstances: Sendable {
    /// The most copies a replicator makes (each copy adds its sublayers' nodes to the
    /// render tree).
    public static let maximumCount = 1000

    public let count: Int
    /// The instance transform about the replicator's anchor point, in its bounds space.
    let step: AffineTransform
    public let delay: Double
    let color: Color
    let colorOffset: Color

    /// The copies described by a replicator's presentation values `v`.
    public init(_ v: PropertyValues) {
        let kind = LayerKind.replicator
        func slot(_ name: String) -> Value { v[slot: kind.slot(of: name)!] }
        count = Int(max(0, min(Double(Self.maximumCount), slot("instanceCount").number ?? 1)))
        let t = slot("instanceTransform").transform ?? .identity
        let b = v.rect(.bounds), a = v.point(.anchorPoint)
        let px = b.origin.x + a.x * b.size.width, py = b.origin.y + a.y * b.size.height
        step = t.isIdentity ? .identity : AffineTransform(translationX: -px, y: -py).concatenating(t).concatenating(AffineTransform(translationX: px, y: py))
        delay = slot("instanceDelay").number ?? 0
        color = slot("instanceColor").color ?? .white
        colorOffset = Color(
            red: slot("instanceRedOffset").number ?? 0, green: slot("instanceGreenOffset").number ?? 0,
            blue: slot("instanceBlueOffset").number ?? 0, alpha: slot("instanceAlphaOffset").number ?? 0)
    }

    /// The colour copy `i` is multiplied by (`instanceColor` plus `i` times the offsets,
    /// each component clamped to 0…1); nil when it is opaque white and changes nothing.
    public func tint(of i: Int) -> Color? {
        let n = Double(i), o = colorOffset
        let c = Color(red: color.red + n * o.red, green: color.green + n * o.green, blue: color.blue + n * o.blue, alpha: color.alpha + n * o.alpha).clamped
        return c == .white ? nil : c
    }

    /// The transforms of the copies, in order: the identity, then each the one before
    /// followed by the instance transform (copy i is moved by it i times).
    func transforms() -> [AffineTransform] {
        var result: [AffineTransform] = []
        result.reserveCapacity(count)
        var m = AffineTransform.identity
        for _ in 0..<count {
            result.append(m)
            m = m.concatenating(step)
        }
        return result
    }
}

extension Layer {
    /// The outermost replicator among the layer's ancestors (not the layer itself; through
    /// masks to the layers they mask); nil when it is drawn once.
    var replicatingAncestor: Layer? {
        var found: Layer?
        var node = timeParent
        while let n = node {
            if n.kindName == LayerKind.replicatorName { found = n }
            node = n.timeParent
        }
        return found
    }

    /// True when the layer or one of its descendants (its mask's too) has animations attached.
    var subtreeIsAnimated: Bool {
        if !animations.isEmpty { return true }
        return sublayers.contains { $0.subtreeIsAnimated } || maskLayer?.subtreeIsAnimated == true
    }
}

extension TreeBuilder.ParentFrame {
    /// The frame a replicator passes to one copy of its sublayers: `m` applied after its
    /// sublayerTransform, and its time `delay` seconds behind.
    func moved(by m: AffineTransform, delay: Double) -> Self {
        Self(
            node: node, localTime: localTime.map { $0 - delay }, isMediaTime: isMediaTime && delay == 0, transform: transform,
            sublayerTransform: sublayer3D == nil ? (sublayerTransform ?? .identity).concatenating(m) : nil, childClip: childClip, opacity: opacity,
            inheritedOpacity: inheritedOpacity, spread: spread, shelter: shelter, tint: tint, isReplicated: isReplicated,
            perspective: FramePerspective.make(sublayer3D: sublayer3D?.concatenating(Transform3D(m)), plane: plane, screenClip: screenClip),
            isMask: isMask)
    }
}
