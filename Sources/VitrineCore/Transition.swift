/// CATransition: a layer's old rendering animated out and its new one in.
///
/// Added to a layer in a transaction (`Animation.transition`), it takes the layer's subtree
/// as it was drawn before that transaction's changes — its contents, sublayers, hidden
/// state, any displayed property — and, while it runs, the renderer draws that picture
/// leaving and what the layer shows now arriving.
public struct Transition: Hashable, Sendable {
    /// How the old and new renderings change places (CATransitionType).
    public enum Style: String, CaseIterable, Sendable {
        /// The new rendering dissolves in as the old one dissolves out.
        case fade
        /// The new rendering slides in over the old one, which stays.
        case moveIn
        /// The new rendering slides in and pushes the old one out.
        case push
        /// The old rendering slides out, uncovering the new one.
        case reveal
    }

    /// Where the motion comes from (CATransitionSubtype): `fromRight` moves both renderings
    /// leftwards, the new one coming in at the right edge. Directions are in the layer's
    /// own space, y down (as on iOS).
    public enum Direction: String, CaseIterable, Sendable {
        case fromLeft, fromRight, fromTop, fromBottom
    }

    public var style: Style
    public var direction: Direction
    /// The part of the transition shown at its start and at its end (0…1).
    public var startProgress: Double
    public var endProgress: Double

    public init(_ style: Style, direction: Direction = .fromLeft, startProgress: Double = 0, endProgress: Double = 1) {
        self.style = style
        self.direction = direction
        self.startProgress = startProgress
        self.endProgress = endProgress
    }

    /// Throws unless the progress bounds lie in 0…1 with the start not after the end.
    func validate() throws(CoreError) {
        guard (0...1).contains(startProgress), (0...1).contains(endProgress), startProgress <= endProgress else {
            throw .invalidAnimation("startProgress and endProgress lie within 0…1, the start not after the end")
        }
    }

    /// The way the renderings move over the whole transition, in the layer's space: the
    /// layer's width or height against the direction they come from.
    public func travel(bounds: Size) -> Size {
        switch direction {
        case .fromLeft: Size(width: bounds.width, height: 0)
        case .fromRight: Size(width: -bounds.width, height: 0)
        case .fromTop: Size(width: 0, height: bounds.height)
        case .fromBottom: Size(width: 0, height: -bounds.height)
        }
    }

    /// The offsets of the old and the new rendering, as fractions of `travel`, at
    /// `progress`, and whether the old one is drawn over the new.
    public func offsets(at progress: Double) -> (old: Double, new: Double, oldOnTop: Bool) {
        switch style {
        case .fade: (0, 0, false)
        case .moveIn: (0, progress - 1, false)
        case .push: (progress, progress - 1, false)
        case .reveal: (progress, 0, true)
        }
    }
}

extension Animation {
    /// A CATransition, without a key path; its curve and timing are an animation's.
    public static func transition(_ transition: Transition, duration: Double = 0, timingFunction: TimingFunction? = nil) -> Animation {
        Animation(kind: .transition(transition), keyPath: nil, timing: MediaTiming(duration: duration), timingFunction: timingFunction)
    }

    /// The key transitions are added under unless another is given (kCATransition).
    public static let transitionKey = "transition"
}

/// A transition running on a layer in a render tree: what the renderer needs to draw it.
public struct TransitionFrame: Sendable, Equatable {
    public let transition: Transition
    /// How far it has come, 0…1: the animation's curve applied, within startProgress…endProgress.
    public let progress: Double
    /// The animation's id: the same in every tree while the transition runs.
    public let id: UInt64
    /// The layer's subtree as drawn before the transaction that added the transition, its
    /// first node the layer (screen-space geometry of that time); nil when it was not drawn.
    public let outgoing: RenderTree?

    public static func == (a: Self, b: Self) -> Bool { a.id == b.id && a.progress == b.progress && a.transition == b.transition }
}

extension RenderTree.Node {
    /// How far, in screen pixels, a transition on this layer moves the renderings over its
    /// whole course (its `travel` through the layer's transform).
    public func travel(of transition: Transition) -> Point {
        let t = transition.travel(bounds: values.rect(.bounds).size), m = transform
        return Point(x: m.a * t.width + m.c * t.height, y: m.b * t.width + m.d * t.height)
    }
}

extension Scene {
    /// The transition `layer` shows at its local time `localTime`: the last one added
    /// whose active interval (or fill) holds the time; nil when none does.
    static func transitionFrame(of layer: Layer, localTime: Double?) -> TransitionFrame? {
        guard let t = localTime else { return nil }
        for attached in layer.animations.reversed() where attached.track.isTransition {
            let animation = attached.track.animation
            guard case .transition(let transition) = animation.kind, let (basic, _) = animation.timing.basicTime(fromParent: t) else { continue }
            let duration = animation.timing.duration
            var progress = duration > 0 ? basic / duration : 1
            if let tf = animation.timingFunction { progress = tf.progress(at: progress) }
            progress = transition.startProgress + (transition.endProgress - transition.startProgress) * min(1, max(0, progress))
            return TransitionFrame(transition: transition, progress: progress, id: attached.id, outgoing: attached.track.outgoing)
        }
        return nil
    }

    /// The subtrees that the transitions `transaction` adds will animate out: each target
    /// layer's rendering at media time `time`, before anything in the transaction changes.
    func outgoingRenderings(for transaction: Transaction, at time: Double) -> [String: RenderTree] {
        var result: [String: RenderTree] = [:]
        var pending = [transaction]
        var trees: [String: RenderTree] = [:]
        while let tx = pending.popLast() {
            for op in tx.operations {
                switch op {
                case .nested(let inner):
                    pending.append(inner)
                case .addAnimation(let id, _, let animation):
                    guard case .transition = animation.kind, result[id] == nil, let layer = layers[id], let root = layer.ancestry.first,
                        root.rootOfOutput != nil
                    else { continue }
                    if trees[root.id] == nil { trees[root.id] = try? renderTreeBuiltWhole(root: root.id, at: time) }
                    if let tree = trees[root.id], let subtree = tree.subtree(of: ObjectIdentifier(layer)) { result[id] = subtree }
                default:
                    continue
                }
            }
        }
        return result
    }
}

extension RenderTree {
    /// The nodes of the first node showing `layer` and its descendants, as a tree of their
    /// own (the same screen); nil when the layer is not drawn.
    func subtree(of layer: ObjectIdentifier) -> RenderTree? {
        guard let start = nodes.firstIndex(where: { $0.content.layer == layer }) else { return nil }
        let end = nodes[start].subtreeEnd, offset = Int32(-start)
        var picked: [Node] = []
        picked.reserveCapacity(end - start)
        for i in start..<end {
            picked.append(nodes[i].shifted(by: offset, parent: i == start ? -1 : nodes[i].parentIndex + offset))
        }
        return RenderTree(output: output, size: size, nodes: picked)
    }
}

extension TreeBuilder {
    /// Widens the visual bounds of the nodes from `start` on that run a transition to all
    /// their renderings can cover while it runs: the old and new subtrees, moved by up to
    /// the whole travel either way, inside the clip.
    mutating func sweepTransitions(from start: Int) {
        for i in stride(from: nodes.count - 1, through: start, by: -1) {
            guard let frame = nodes[i].content.transition else { continue }
            var area = Rect.null
            for k in i..<nodes[i].subtreeEnd { area = area.union(nodes[k].visualBounds) }
            if let old = frame.outgoing { for node in old.nodes { area = area.union(node.visualBounds) } }
            guard !area.isNull else { continue }
            let d = nodes[i].travel(of: frame.transition)
            let swept = area.union(area.offsetBy(dx: d.x, dy: d.y)).union(area.offsetBy(dx: -d.x, dy: -d.y))
            nodes[i].visualBounds = swept.intersection(nodes[i].plane == nil ? nodes[i].clip : screen).integral
        }
    }
}
