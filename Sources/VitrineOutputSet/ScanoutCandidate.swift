import VitrineCore
import VitrineRender

/// Which layer of a frame, if any, an output can show as a client's buffer in place of a
/// composited frame (direct scan-out), so that the screen shows exactly what composition
/// would have drawn.
///
/// The candidate is the topmost node that draws anything on the screen; it qualifies when
/// it is a buffer of the screen's size placed 1:1 over the whole screen: a translation
/// only, at opacity 1 (its own and its ancestors'), without mask, tint, perspective,
/// transition, corner radius, border or shadow, and with no ancestor that rounds or
/// masks it. A buffer with alpha qualifies only over black (nothing but black or clear
/// backgrounds under it, and a black clear colour): the screen shows its premultiplied
/// pixels as they are, which is what they give over black.
public enum ScanoutCandidate {
    /// The size of a node's client buffer, and whether it is opaque.
    public struct Buffer: Equatable {
        public let width: Int
        public let height: Int
        public let isOpaque: Bool

        public init(width: Int, height: Int, isOpaque: Bool) {
            (self.width, self.height, self.isOpaque) = (width, height, isOpaque)
        }
    }

    /// The index of the node of `tree` an output showing `screen` (in the tree's space)
    /// can show directly, or nil. `buffer` gives the client buffer a node shows (nil for
    /// none); `clearIsBlack`: the renderer clears to opaque black.
    public static func find(in tree: RenderTree, screen: Rect, clearIsBlack: Bool, buffer: (RenderTree.Node) -> Buffer?) -> Int? {
        guard let top = tree.nodes.indices.reversed().first(where: { drawsAnything(tree.nodes[$0], on: screen) }) else { return nil }
        let node = tree.nodes[top]
        guard let shown = buffer(node), Double(shown.width) == screen.size.width, Double(shown.height) == screen.size.height,
            isPlain(node), coversExactly(node, screen, shown)
        else { return nil }
        var parent = node.parent
        while let p = parent {
            let ancestor = tree.nodes[p]
            if ancestor.hasMask || ancestor.tint != nil || ancestor.content.transition != nil { return nil }
            if ancestor.values.bool(.masksToBounds), ancestor.values.number(.cornerRadius) > 0 { return nil }
            parent = ancestor.parent
        }
        if !shown.isOpaque {
            guard clearIsBlack, isBlackOrClear(node.values.color(.backgroundColor)) else { return nil }
            for i in 0..<top where drawsAnything(tree.nodes[i], on: screen) {
                guard drawsBlackOnly(tree.nodes[i]) else { return nil }
            }
        }
        return top
    }

    /// Whether `node` may paint a pixel of `screen`.
    private static func drawsAnything(_ node: RenderTree.Node, on screen: Rect) -> Bool {
        guard !node.isMask, node.inheritedOpacity > 0, node.values.number(.opacity) > 0, node.visualBounds.intersects(screen) else { return false }
        return !(node.kind == LayerKind.layer.name && isBare(node) && node.values.color(.backgroundColor).clamped.alpha <= 0)
    }

    /// A plain layer with no border, shadow or contents: it paints its background only.
    private static func isBare(_ node: RenderTree.Node) -> Bool {
        let v = node.values
        return (v.number(.borderWidth) <= 0 || v.color(.borderColor).clamped.alpha <= 0) && v.number(.shadowOpacity) <= 0 && v.string(.contents).isEmpty
    }

    private static func drawsBlackOnly(_ node: RenderTree.Node) -> Bool {
        node.kind == LayerKind.layer.name && isBare(node) && node.tint == nil && isBlackOrClear(node.values.color(.backgroundColor))
    }

    private static func isBlackOrClear(_ color: Color) -> Bool {
        let c = color.clamped
        return c.alpha <= 0 || (c.red <= 0 && c.green <= 0 && c.blue <= 0)
    }

    /// Drawn as it is: full opacity, nothing that changes its pixels or its edges.
    private static func isPlain(_ node: RenderTree.Node) -> Bool {
        let v = node.values
        return node.inheritedOpacity == 1 && v.number(.opacity) == 1 && !node.hasMask && node.tint == nil && node.plane == nil
            && node.content.transition == nil && v.number(.cornerRadius) <= 0 && isBare(node)
    }

    /// Its bounds land on `screen` exactly, pixel for pixel, and nothing clips them.
    private static func coversExactly(_ node: RenderTree.Node, _ screen: Rect, _ shown: Buffer) -> Bool {
        let t = node.transform, bounds = node.values.rect(.bounds)
        guard t.a == 1, t.b == 0, t.c == 0, t.d == 1, bounds.size.width == Double(shown.width), bounds.size.height == Double(shown.height) else {
            return false
        }
        return t.boundingBox(of: bounds) == screen && node.clip.contains(screen)
    }
}
