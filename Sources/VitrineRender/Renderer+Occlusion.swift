import VitrineCore
import VitrineRaster

/// Which repaints can skip work: a layer drawn opaque over the whole damage rectangle (a
/// full-screen background colour, gradient, video or window) overwrites every pixel, so
/// filling the rectangle with `clearColor` first, and painting the layers under it, is
/// wasted work.
extension Renderer {
    /// The last node of `tree` (the topmost) that paints every pixel of `area` with an
    /// opaque colour; nil when none does. Nothing drawn before it shows there: neither the
    /// clear nor, in a repaint of `area`, what the nodes before it paint themselves.
    func opaqueOccluder(of area: PixelRect, in tree: RenderTree) -> Int? {
        let rect = area.rect
        return tree.nodes.indices.reversed().first { coversOpaquely($0, rect, tree) }
    }

    /// A node after `above` (the one that paints all of `area`, or -1) that paints most of
    /// `area` (at least half, and no small area) opaquely though not all of it, and the
    /// pixels of `area` it paints whole: a panel sliding over a page, whose damage is its
    /// old and new place together. Repainting those pixels apart skips the page under them.
    func partialOccluder(of area: PixelRect, above: Int, in tree: RenderTree) -> (node: Int, pixels: PixelRect)? {
        guard area.width * area.height >= 128 * 128 else { return nil }
        for i in tree.nodes.indices.reversed() where i > above {
            let node = tree.nodes[i]
            guard node.visualBounds.intersects(area.rect) else { continue }
            let painted = node.transform.boundingBox(of: node.values.rect(.bounds)).intersection(node.clip).intersection(node.visualBounds)
            let inner = PixelRect(inside: painted).intersection(area)
            guard inner.width * inner.height * 2 >= area.width * area.height, inner != area else { continue }
            if coversOpaquely(i, inner.rect, tree) { return (i, inner) }
        }
        return nil
    }

    /// Node `i`'s background, gradient or content (a video frame) fills `rect` (screen
    /// space) with opaque colours:
    /// at full opacity, with square corners, through an axis-aligned transform, and not
    /// narrowed by an ancestor's rounded `masksToBounds`.
    private func coversOpaquely(_ i: Int, _ rect: Rect, _ tree: RenderTree) -> Bool {
        let node = tree.nodes[i]
        guard node.plane == nil, node.visualBounds.contains(rect), node.inheritedOpacity == 1, !node.hasMask, !node.isMask else { return false }
        let v = node.values
        guard v.number(.opacity) == 1, node.tint == nil, node.content.transition == nil, node.transform.isAxisAligned,
            node.clip.contains(rect), v.number(.cornerRadius) <= 0,
            node.transform.boundingBox(of: v.rect(.bounds)).contains(rect)
        else { return false }
        var opaque = v.color(.backgroundColor).clamped.alpha >= 1
        if !opaque, node.kind == LayerKind.gradient.name, let slot = LayerKind.gradient.slot(of: "colors"),
            let colors = v[slot: slot].array?.compactMap(\.color), !colors.isEmpty
        {
            opaque = colors.allSatisfy { $0.clamped.alpha >= 1 }
        }
        if !opaque, let content = contentRenderers[node.kind], content.coversBoundsOpaquely(node) { opaque = true }
        guard opaque else { return false }
        var parent = node.parent
        while let p = parent {
            let pv = tree.nodes[p].values
            if pv.bool(.masksToBounds), pv.number(.cornerRadius) > 0 { return false }
            if tree.nodes[p].tint != nil || tree.nodes[p].content.transition != nil { return false }
            if tree.nodes[p].hasMask || tree.nodes[p].isMask { return false }
            parent = tree.nodes[p].parent
        }
        return true
    }
}
