/// The last render tree of one output, kept so that the next one can reuse it.
///
/// Between two changes of the scene (a commit, an animation added, started, ended or
/// removed, a root resized — `Scene.treeGeneration` counts them) only time moves, and
/// time changes nothing but the presentation of animated layers and their subtrees.
/// So a tree at a new time is the old one with those subtrees built again in place, as
/// long as every animated layer keeps its visibility: a layer that appears or vanishes
/// moves the indices of the nodes after it, and then the tree is built whole.
///
/// Two trees of one generation differ only in their animated subtrees, so the tree
/// before last, once its user has dropped it, becomes the next one by rebuilding those.
struct RenderCache {
    /// The scene's `treeGeneration` the tree was built at.
    let generation: UInt64
    private(set) var tree: RenderTree
    /// The nodes of the tree before `tree`: once its user lets go of them they are
    /// updated in place for the next tree, instead of copying `tree`'s.
    private var spare: [RenderTree.Node]?
    /// The tree's animated layers whose ancestors are all visible, in drawing order.
    let animated: [TreeBuilder.AnimatedLayer]

    init(generation: UInt64, tree: RenderTree, animated: [TreeBuilder.AnimatedLayer]) {
        self.generation = generation
        self.tree = tree
        self.animated = animated
    }

    /// Brings the tree to media time `time` by building the animated subtrees again.
    /// Returns false, leaving the tree as it was, when a layer's visibility changed and
    /// the whole tree must be built.
    mutating func update(at time: Double, scene: Scene) -> Bool {
        guard !animated.isEmpty else { return true }
        var nodes = spare.take() ?? tree.nodes
        var builder = TreeBuilder(screen: tree.screen, capacity: 16, recording: false)
        var covered: Int32 = 0
        for record in animated where record.node >= covered {
            let layer = record.layer
            var parent = record.parent
            if let frame = parent {
                parent!.localTime = frame.isMediaTime ? time : scene.localTime(of: layer.parent!, at: time)
            }
            guard record.isVisible else {
                let (_, g, _) = TreeBuilder.present(layer, parentTime: parent.map(\.localTime) ?? time)
                if !g.isHidden && g.opacity > 0 { return false }
                continue
            }
            let start = Int(record.node), end = nodes[start].subtreeEnd
            builder.nodes.removeAll(keepingCapacity: true)
            builder.build(from: layer, parent: parent, at: time)
            guard builder.nodes.count == end - start else { return false }
            let sameShape = nodes.withUnsafeMutableBufferPointer { nodes in
                builder.nodes.withUnsafeBufferPointer { rebuilt in
                    for (i, node) in rebuilt.enumerated() {
                        guard node.content === nodes[start + i].content || node.id == nodes[start + i].id else { return false }
                        let parentIndex = i == 0 ? node.parentIndex : node.parentIndex + Int32(start)
                        nodes[start + i] = node.shifted(by: Int32(start), parent: parentIndex)
                    }
                    return true
                }
            }
            guard sameShape else { return false }
            covered = Int32(end)
        }
        spare = tree.nodes
        tree.nodes = nodes
        return true
    }
}

extension RenderTree.Node {
    /// The node moved `offset` places down the tree, under the node at `parent`.
    func shifted(by offset: Int32, parent: Int32) -> Self {
        Self(content: content, transform: transform, inheritedOpacity: inheritedOpacity, clip: clip,
             visualBounds: visualBounds, parentIndex: parent, end: end + offset)
    }
}
