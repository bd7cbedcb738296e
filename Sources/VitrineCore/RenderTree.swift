/// The presentation tree of one output at one time, flattened in drawing order: what the
/// rasterizer draws and what damage is computed from.
public struct RenderTree: Sendable {
    /// One visible layer.
    public struct Node: Sendable {
        public let id: String
        public let kind: String
        /// Index of the parent node; nil for the root.
        public let parent: Int?
        /// Presentation values at the tree's time.
        public let values: PropertyValues
        /// Custom keys whose changes redraw the layer; `*` for all of them.
        public let displayKeys: Set<String>
        /// From the layer's bounds space to screen pixels.
        public let transform: AffineTransform
        /// The product of the ancestors' opacities (not the layer's own).
        public let inheritedOpacity: Double
        /// The screen-space box that ancestors with masksToBounds confine it to.
        public let clip: Rect
        /// Screen pixels its own drawing (bounds, border, shadow) can touch, whole pixels.
        public let visualBounds: Rect
        /// One past the index of its last descendant: its subtree is `index..<subtreeEnd`.
        public internal(set) var subtreeEnd: Int
    }

    public let output: String
    /// The screen in pixels (the root layer's bounds size).
    public let size: Size
    public internal(set) var nodes: [Node]

    /// The screen rectangle.
    public var screen: Rect { Rect(origin: .zero, size: size) }
}

/// The display keys of a layer whose every custom property affects its content.
private let allDisplayKeys: Set<String> = ["*"]

/// How far a shadow reaches past its shape: three standard deviations, with
/// σ = shadowRadius / 2 (the rasterizer blurs with the same σ).
public func shadowExtent(radius: Double) -> Double { 1.5 * radius }

extension Scene {
    /// The render tree of the output whose root layer is `rootID`, at media time `time`.
    /// Hidden layers and layers with opacity 0 are left out with their sublayers;
    /// sublayers are drawn in order of zPosition, then in their order.
    public func renderTree(root rootID: String, at time: Double) throws(CoreError) -> RenderTree {
        let root = try layer(rootID)
        guard root.rootOfOutput != nil else { throw .unknownLayer(rootID) }
        let size = root.model.rect(.bounds).size
        let screen = Rect(origin: .zero, size: size)
        var nodes: [RenderTree.Node] = []
        nodes.reserveCapacity(layers.count)
        var parents: [Int] = []
        parents.reserveCapacity(layers.count)
        var frames: [ParentFrame] = []
        frames.reserveCapacity(layers.count)
        var stack: [(Layer, Int?)] = [(root, nil)]
        while let (layer, parentIndex) = stack.popLast() {
            let parent = parentIndex.map { frames[$0] }
            let localTime = Self.layerTime(layer.timing, parentTime: parent == nil ? time : parent!.localTime)
            let values = presentation(of: layer, localTime: localTime)
            let g = layer.animations.isEmpty ? layer.geometry : LayerGeometry(values)
            guard !g.isHidden, g.opacity > 0 else { continue }
            var toScreen = g.toParent
            if let parent {
                if let s = parent.sublayerTransform { toScreen = toScreen.concatenating(s) }
                toScreen = toScreen.concatenating(parent.transform)
            }
            let clip = parent?.childClip ?? screen
            let box = toScreen.boundingBox(of: g.bounds)
            var visual = box.insetBy(dx: -1, dy: -1)
            if let shadow = g.shadowReach, !g.masksToBounds {
                visual = visual.union(toScreen.boundingBox(of: shadow))
            }
            let index = nodes.count
            parents.append(parent?.node ?? 0)
            let inherited = parent.map { $0.inheritedOpacity * $0.opacity } ?? 1
            nodes.append(RenderTree.Node(
                id: layer.id, kind: layer.kindName, parent: parent?.node, values: values,
                displayKeys: layer.customAffectsDisplay ? allDisplayKeys : layer.displayKeys, transform: toScreen, inheritedOpacity: inherited,
                clip: clip, visualBounds: visual.intersection(clip).integral, subtreeEnd: index + 1))
            if !layer.sublayers.isEmpty {
                frames.append(ParentFrame(
                    node: index, localTime: localTime, transform: toScreen, sublayerTransform: g.sublayerMatrix,
                    childClip: g.masksToBounds ? clip.intersection(box.integral) : clip, opacity: g.opacity, inheritedOpacity: inherited))
                for sublayer in drawingOrder(layer.sublayers).reversed() {
                    stack.append((sublayer, frames.count - 1))
                }
            }
        }
        var ends = Array(1...max(nodes.count, 1))
        for i in stride(from: parents.count - 1, to: 0, by: -1) where ends[i] > ends[parents[i]] {
            ends[parents[i]] = ends[i]
        }
        for i in nodes.indices where ends[i] != i + 1 { nodes[i].subtreeEnd = ends[i] }
        return RenderTree(output: root.rootOfOutput!, size: size, nodes: nodes)
    }

    /// What a layer passes down to its sublayers while the tree is built.
    private struct ParentFrame {
        let node: Int
        let localTime: Double?
        let transform: AffineTransform
        let sublayerTransform: AffineTransform?
        let childClip: Rect
        let opacity: Double
        let inheritedOpacity: Double
    }

    /// Sublayers sorted by their model zPosition, keeping their order among equals.
    private func drawingOrder(_ sublayers: [Layer]) -> [Layer] {
        guard sublayers.contains(where: { $0.geometry.zPosition != 0 }) else { return sublayers }
        return sublayers.enumerated().sorted { a, b in
            let za = a.element.geometry.zPosition, zb = b.element.geometry.zPosition
            return za != zb ? za < zb : a.offset < b.offset
        }.map(\.element)
    }
}
