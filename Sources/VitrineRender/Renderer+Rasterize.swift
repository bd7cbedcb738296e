import VitrineCore
import VitrineRaster

/// A layer drawn with its sublayers into a bitmap (`shouldRasterize`), and what it was
/// drawn from.
struct RasterizedLayer {
    let surface: Surface
    /// The bitmap's top-left pixel relative to the layer's translation to the screen.
    let origin: PixelRect
    let source: RasterSource
    /// The last `Renderer.renders` that drew it.
    var lastUsed: UInt64
}

/// What a rasterized layer's bitmap shows: the layer's values but those that only place
/// it or fade it (its place is its translation, which the bitmap leaves out), its
/// sublayers by identity (a node's content object changes whenever its values do), where
/// each node lies relative to the layer, and what the subtree shows beyond its values.
struct RasterSource {
    let contents: [RenderTree.Content]
    let transforms: [AffineTransform]
    let versions: [AnyHashable]
    /// Per node, where it draws relative to the layer's translation (its shadow included).
    let boxes: [Rect]
    /// Per node, its layer's id and the end of its subtree, relative to the layer's node.
    let ids: [String]
    let ends: [Int]
    /// Whether a node casts a shadow drawn from its sublayers' pixels.
    let shadowsSublayers: Bool

    /// The layer's slots that move or fade its bitmap without changing it.
    private static let placementSlots: Set<Int> = Set(
        [
            BaseProperty.position, .anchorPoint, .zPosition, .transform, .opacity, .hidden, .allowsGroupOpacity,
            .beginTime, .speed, .timeOffset, .duration, .repeatCount, .repeatDuration, .autoreverses, .fillMode,
        ].map(\.slot))

    /// Whether a bitmap drawn from `self` shows `other`. Where nodes lie is compared to a
    /// millionth of a pixel: the same offset added to a new translation and taken off again
    /// may differ in its last bits.
    func shows(_ other: RasterSource) -> Bool {
        guard contents.count == other.contents.count, versions == other.versions, placesOnly(other) else { return false }
        for k in 1..<contents.count where contents[k] !== other.contents[k] { return false }
        for (a, b) in zip(transforms, other.transforms) where !Self.same(a, b) { return false }
        return true
    }

    /// The rectangles (relative to the layer's translation) where a bitmap drawn from
    /// `self` differs from one drawn from `other`, when the layer itself and the shape of
    /// its tree are the same and only sublayers changed; nil when it must be drawn whole.
    /// A changed sublayer's pixels and its own sublayers', before and after, are redrawn.
    func changes(to other: RasterSource) -> [Rect]? {
        guard contents.count == other.contents.count, ends == other.ends, ids == other.ids, versions == other.versions, !shadowsSublayers,
            !other.shadowsSublayers, placesOnly(other)
        else { return nil }
        var rects: [Rect] = []
        var k = 1
        while k < contents.count {
            if contents[k] !== other.contents[k] || !Self.same(transforms[k], other.transforms[k]) {
                for j in k..<ends[k] { rects += [boxes[j], other.boxes[j]] }
                k = ends[k]
            } else {
                k += 1
            }
        }
        return rects
    }

    /// Whether the layer's own values differ only where they place or fade its bitmap.
    private func placesOnly(_ other: RasterSource) -> Bool {
        guard let x = contents.first, let y = other.contents.first else { return false }
        return x === y
            || (x.kind == y.kind && x.values.custom == y.values.custom
                && x.values.differingSlots(from: y.values).allSatisfy(Self.placementSlots.contains))
    }

    private static func same(_ a: AffineTransform, _ b: AffineTransform) -> Bool {
        abs(a.a - b.a) < 1e-9 && abs(a.b - b.b) < 1e-9 && abs(a.c - b.c) < 1e-9 && abs(a.d - b.d) < 1e-9 && abs(a.tx - b.tx) < 1e-6
            && abs(a.ty - b.ty) < 1e-6
    }
}

/// `shouldRasterize`: a layer whose transform to the screen is a whole-pixel translation
/// (the render tree places it so) is drawn with its sublayers into a bitmap once, and the
/// bitmap is composited while only its place or opacity changes — a keyboard sliding in
/// costs a copy per frame, not its keys and labels. Bitmaps not drawn for a few renders
/// are dropped; a layer whose bitmap would pass the memory bound is drawn as usual.
extension Renderer {
    /// The most pixels rasterized layers keep in all (64 MB).
    static let rasterizedPixelLimit = 16 << 20

    /// Draws node `i` and its sublayers from its bitmap, made now if its source changed;
    /// false when the layer cannot be drawn so (it is drawn as usual then).
    func drawRasterized(_ pass: Pass, _ i: Int, on surface: Surface, offset: AffineTransform, clip: Clip, opacity: Double) -> Bool {
        let node = pass.tree.nodes[i], t = node.transform
        guard isWholePixelTranslation(t), isWholePixelTranslation(offset), !node.hasMask, node.tint == nil, node.plane == nil else { return false }
        for j in i..<node.subtreeEnd {
            let n = pass.tree.nodes[j]
            if n.plane != nil || n.content.transition != nil || n.hasMask { return false }
        }
        var boxes: [Rect] = []
        boxes.reserveCapacity(node.subtreeEnd - i)
        var local = Rect.null
        for j in i..<node.subtreeEnd {
            let box = unclippedReach(pass.tree.nodes[j]).union(pass.reach[j])
            boxes.append(box)
            local = local.union(box)
        }
        guard !local.isNull, local.minX.isFinite, local.minY.isFinite, local.maxX.isFinite, local.maxY.isFinite else { return false }
        let frame = PixelRect(covering: local.offsetBy(dx: -t.tx, dy: -t.ty))
        let toLocal = AffineTransform(translationX: -t.tx, y: -t.ty)
        let nodes = pass.tree.nodes[i..<node.subtreeEnd]
        let source = RasterSource(
            contents: nodes.map(\.content), transforms: nodes.map { $0.transform.concatenating(toLocal) }, versions: contentVersions(pass, i),
            boxes: boxes.map { $0.offsetBy(dx: -t.tx, dy: -t.ty) }, ids: nodes.map(\.id), ends: nodes.map { $0.subtreeEnd - i },
            shadowsSublayers: nodes.contains { $0.shadowsSublayers })
        var entry = rasterized[node.id]
        if entry == nil || entry!.origin != frame || !entry!.source.shows(source) {
            let others = rasterized.reduce(0) { $0 + ($1.key == node.id ? 0 : $1.value.origin.width * $1.value.origin.height) }
            guard others + frame.width * frame.height <= Self.rasterizedPixelLimit else {
                rasterized[node.id] = nil
                return false
            }
            let kept = entry.flatMap { $0.origin == frame ? $0 : nil }
            let bitmap = kept?.surface ?? Surface(width: frame.width, height: frame.height)
            // The whole layer, also where it is off the screen now: where it goes next.
            var reach = pass.reach
            reach.replaceSubrange(i..<node.subtreeEnd, with: boxes)
            let toBitmap = AffineTransform(translationX: -t.tx - Double(frame.x), y: -t.ty - Double(frame.y))
            let areas = kept.flatMap { redrawnAreas($0.source.changes(to: source), in: frame) } ?? [bitmap.bounds]
            for area in areas {
                if kept != nil { bitmap.clear(clip: area) }
                let onScreen = Rect(
                    x: Double(area.x + frame.x) + t.tx, y: Double(area.y + frame.y) + t.ty, width: Double(area.width), height: Double(area.height))
                let part = Pass(tree: pass.tree, reach: reach, contents: pass.contents, area: onScreen, planes: pass.planes)
                drawContents(part, i, on: bitmap, offset: toBitmap, clip: Clip(rect: area), opacity: 1)
            }
            entry = RasterizedLayer(surface: bitmap, origin: frame, source: source, lastUsed: renders)
        }
        entry!.lastUsed = renders
        rasterized[node.id] = entry
        surface.composite(entry!.surface, x: Int(t.tx + offset.tx) + frame.x, y: Int(t.ty + offset.ty) + frame.y, opacity: opacity, clip: clip)
        return true
    }

    /// The bitmap's pixels to draw again for `changes` (relative to the layer's
    /// translation; the bitmap's top-left pixel there is `frame`'s), merged as screen
    /// damage is (`mergeDamage`); nil (the whole bitmap) when they would cover most of it.
    private func redrawnAreas(_ changes: [Rect]?, in frame: PixelRect) -> [PixelRect]? {
        guard let changes else { return nil }
        let bitmap = PixelRect(x: 0, y: 0, width: frame.width, height: frame.height)
        let inBitmap = changes.filter { !$0.isNull }.map { $0.offsetBy(dx: Double(-frame.x), dy: Double(-frame.y)) }
        let areas = mergeDamage(inBitmap).map { PixelRect(covering: $0).intersection(bitmap) }.filter { !$0.isEmpty }
        guard areas.reduce(0, { $0 + $1.width * $1.height }) * 2 < frame.width * frame.height else { return nil }
        return areas
    }

    /// Drops the bitmaps of layers the last few renders did not draw.
    func forgetUnusedRasterizations() {
        rasterized = rasterized.filter { renders - $0.value.lastUsed <= 8 }
    }

    /// Where `node` draws on the screen or off it: its bounds and its shadow (its visual
    /// bounds stop at the screen's edge).
    private func unclippedReach(_ node: RenderTree.Node) -> Rect {
        let v = node.values, bounds = v.rect(.bounds)
        var box = node.transform.boundingBox(of: bounds).insetBy(dx: -1, dy: -1)
        if v.number(.shadowOpacity) > 0, v.color(.shadowColor).alpha > 0 {
            let offset = v.size(.shadowOffset), extent = shadowExtent(radius: v.number(.shadowRadius)) + 2
            box = box.union(node.transform.boundingBox(of: bounds.offsetBy(dx: offset.width, dy: offset.height).insetBy(dx: -extent, dy: -extent)))
        }
        return box
    }

    private func isWholePixelTranslation(_ t: AffineTransform) -> Bool {
        t.a == 1 && t.d == 1 && t.b == 0 && t.c == 0 && t.tx == t.tx.rounded() && t.ty == t.ty.rounded() && abs(t.tx) < 1e9 && abs(t.ty) < 1e9
    }
}
