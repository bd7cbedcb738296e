/// The last render tree of one output, kept so that the next one can reuse it.
///
/// Between two changes of the tree's shape (layers added, removed or moved, a zPosition
/// set, an animation added, started, ended or removed, a root resized —
/// `Scene.treeGeneration` counts them) a tree at a new time is the old one with a few
/// subtrees built again in place: those of the animated layers, and those of the layers
/// whose model values a commit changed since the last tree. That holds as long as every
/// node keeps its visibility: a layer that appears or vanishes moves the indices of the
/// nodes after it, and then the tree is built whole.
///
/// The tree before the last one, once its user has dropped it, becomes the next tree
/// without a copy: its animated subtrees are built again, with the subtrees the last
/// update changed (which it lacks) and those changed since.
struct RenderCache {
    /// The id of the output's root layer.
    let root: String
    /// The scene's `treeGeneration` the tree was built at.
    let generation: UInt64
    /// The full build (`Scene.fullBuilds`) the tree started from; the `renderSlot` of
    /// the layers it placed.
    let build: UInt64
    private(set) var tree: RenderTree
    /// What each node with sublayers passed down, as of `tree`.
    private var frames: [TreeBuilder.ParentFrame]
    /// The nodes of the tree before `tree`: they differ from `tree`'s in the animated
    /// subtrees and in `spareStale`.
    private var spare: [RenderTree.Node]?
    /// The subtrees of changed layers that the last update built into `tree` and not into
    /// `spare`.
    private var spareStale: [Rebuild] = []
    /// The subtrees of the tree's animated layers (whose ancestors are all visible), in
    /// drawing order: built again for every tree.
    private let animated: [Rebuild]
    /// How many of `Scene.changedLayers` the tree already shows.
    var changesSeen: Int
    /// The builder of the last update, kept for its arrays' storage.
    private var scratch: TreeBuilder?

    init(
        root: String, generation: UInt64, build: UInt64, tree: RenderTree, frames: [TreeBuilder.ParentFrame], animated: [TreeBuilder.AnimatedLayer],
        changesSeen: Int
    ) {
        self.root = root
        self.generation = generation
        self.build = build
        self.tree = tree
        self.frames = frames
        self.animated = animated.map { Rebuild(layer: $0.layer, node: $0.node, parentFrame: $0.parentFrame, wasHidden: !$0.isVisible) }
        self.changesSeen = changesSeen
    }

    /// A subtree to build again: its root layer, node and parent's frame.
    private struct Rebuild {
        let layer: Layer
        let node: Int32
        let parentFrame: Int32
        /// The layer was not drawn in the last tree (its ancestors were).
        let wasHidden: Bool
    }

    /// Brings the tree to media time `time` and to the model values of `changed` (the
    /// scene's log of layers whose values commits changed; the tree has seen the first
    /// `changesSeen`). Returns false, leaving the tree as it was, when the whole tree
    /// must be built.
    mutating func update(at time: Double, changed: [Layer], scene: Scene) -> Bool {
        let fresh = changed[changesSeen...]
        guard !animated.isEmpty || !fresh.isEmpty else { return true }
        var changes: [Rebuild] = []
        for layer in fresh {
            if let slot = layer.renderSlot, slot.build == build {
                changes.append(Rebuild(layer: layer, node: slot.node, parentFrame: slot.parentFrame, wasHidden: false))
            } else if let parent = layer.parent, let slot = parent.renderSlot, slot.build == build, slot.ownFrame >= 0 {
                // Not drawn, under a drawn parent: it hid itself, and may show now.
                changes.append(Rebuild(layer: layer, node: -1, parentFrame: slot.ownFrame + (parent.maskLayer == nil ? 0 : 1), wasHidden: true))
            } else if let host = layer.maskHost, let slot = host.renderSlot, slot.build == build, slot.ownFrame >= 0 {
                // The same for a mask, whose frame is the first its layer passes down.
                changes.append(Rebuild(layer: layer, node: -1, parentFrame: slot.ownFrame, wasHidden: true))
            }
        }
        var work = animated
        var nodes: [RenderTree.Node]
        if let reused = spare.take() {
            nodes = reused
            work += spareStale
        } else {
            nodes = tree.nodes
        }
        if work.count > animated.count || !changes.isEmpty {
            work += changes
            work.sort { $0.node < $1.node }
        }
        var builder = scratch.take() ?? TreeBuilder(screen: tree.screen, capacity: 16, build: nil, stamp: 0)
        builder.stamp = scene.treeStamps
        var covered: Int32 = 0
        for item in work where item.node >= covered || item.node < 0 {
            // The parent's frame goes straight into the builder's frames, its time brought
            // to `time`.
            let hasParent = item.parentFrame >= 0
            builder.frames.removeAll(keepingCapacity: true)
            if hasParent {
                builder.frames.append(frames[Int(item.parentFrame)])
                builder.frames[0].localTime = builder.frames[0].isMediaTime ? time : scene.localTime(of: item.layer.timeParent!, at: time)
            }
            guard !item.wasHidden else {
                let parent = hasParent ? builder.frames[0] : nil
                let g = TreeBuilder.present(item.layer, parentTime: parent.map(\.localTime) ?? time).geometry
                if !g.isHidden && g.opacity > 0 && (g.isDoubleSided || TreeBuilder.facesViewer(g, under: parent)) { return false }
                continue
            }
            let start = Int(item.node), end = nodes[start].subtreeEnd
            builder.nodes.removeAll(keepingCapacity: true)
            builder.build(from: item.layer, withParentFrame: hasParent, at: time)
            guard storeRebuilt(builder, at: start, of: item.layer, parentFrames: hasParent ? 1 : 0, into: &nodes) else {
                return false
            }
            covered = Int32(end)
        }
        spare = tree.nodes
        spareStale = changes.filter { !$0.wasHidden }
        tree.nodes = nodes
        changesSeen = changed.count
        builder.nodes.removeAll(keepingCapacity: true)
        scratch = builder
        return true
    }

    /// Puts a rebuilt subtree's nodes at `start` and its frames where the subtree's
    /// were; false when the subtree holds other layers than before. The builder's first
    /// `parentFrames` frames (0 or 1) are the parent's, not the subtree's.
    private mutating func storeRebuilt(
        _ builder: TreeBuilder, at start: Int, of layer: Layer, parentFrames: Int, into nodes: inout [RenderTree.Node]
    ) -> Bool {
        guard builder.nodes.count == nodes[start].subtreeEnd - start else { return false }
        let offset = Int32(start)
        let sameShape = nodes.withUnsafeMutableBufferPointer { nodes in
            builder.nodes.withUnsafeBufferPointer { rebuilt in
                for (i, node) in rebuilt.enumerated() {
                    guard node.content === nodes[start + i].content || node.id == nodes[start + i].id else { return false }
                    nodes[start + i] = node.shifted(by: offset, parent: i == 0 ? node.parentIndex : node.parentIndex + offset)
                }
                return true
            }
        }
        guard sameShape else { return false }
        // The subtree's frames, in the order the full build made them.
        let own = builder.frames.count - parentFrames
        guard own > 0 else { return true }
        guard let slot = layer.renderSlot, slot.build == build, slot.ownFrame >= 0, Int(slot.ownFrame) + own <= frames.count else {
            return false
        }
        let first = slot.ownFrame
        for k in 0..<own {
            frames[Int(first) + k] = builder.frames[parentFrames + k].shifted(by: offset)
        }
        return true
    }
}

extension RenderTree.Node {
    /// The node moved `offset` places down the tree, under the node at `parent`.
    func shifted(by offset: Int32, parent: Int32) -> Self {
        Self(
            content: content, transform: transform, inheritedOpacity: inheritedOpacity, clip: clip,
            visualBounds: visualBounds, extras: extras, isMask: isMask, hasMask: hasMask, parentIndex: parent,
            end: end + offset, stamp: stamp)
    }
}

extension TreeBuilder.ParentFrame {
    /// The frame of a node moved `offset` places down the tree.
    func shifted(by offset: Int32) -> Self {
        Self(
            node: node + offset, localTime: localTime, isMediaTime: isMediaTime, transform: transform,
            sublayerTransform: sublayerTransform, childClip: childClip, opacity: opacity, inheritedOpacity: inheritedOpacity,
            spread: spread, shelter: shelter, tint: tint, isReplicated: isReplicated, perspective: perspective, isMask: isMask)
    }
}
