import VitrineCore
import VitrineRaster

/// Draws a layer kind's own content (text, a rolling number, …) between the layer's
/// background and its sublayers.
public protocol ContentRenderer: AnyObject {
    /// Draws `node`'s content in its bounds space, mapped by `transform` to the surface,
    /// with `opacity` applied, inside `clip`.
    func draw(_ node: RenderTree.Node, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip)

    /// The screen rectangles that can differ between two versions of one layer that kept
    /// its place, transform, opacity and clip and changed only slot values, inside the
    /// layer's visual bounds; nil when the change may reach anywhere in them (the
    /// default). A text renderer, for example, damages only the glyphs that changed.
    func damage(from old: RenderTree.Node, to new: RenderTree.Node) -> [Rect]?

    /// What `node`'s content shows beyond its values (a video's frame), which changes
    /// without the node changing; nil when it is drawn from its values alone (the
    /// default). A shadow drawn from the content is made again when this changes.
    func contentVersion(of node: RenderTree.Node) -> AnyHashable?

    /// True when `node`'s content paints every pixel of its bounds with opaque colour (a
    /// video frame, letterboxed in black), so that nothing under it needs drawing where it
    /// covers a repaint whole; false (the default) when it may leave any pixel uncovered
    /// or translucent.
    func coversBoundsOpaquely(_ node: RenderTree.Node) -> Bool
}

extension ContentRenderer {
    public func damage(from old: RenderTree.Node, to new: RenderTree.Node) -> [Rect]? { nil }
    public func contentVersion(of node: RenderTree.Node) -> AnyHashable? { nil }
    public func coversBoundsOpaquely(_ node: RenderTree.Node) -> Bool { false }
}

/// Draws render trees as Core Animation composites layers: for each layer its shadow,
/// background, contents image, kind content, sublayers, then border; `masksToBounds`
/// clips sublayers (and contents) to the rounded bounds; a layer with opacity < 1 and
/// sublayers is composited offscreen (group opacity).
public final class Renderer {
    /// The opaque colour under everything (the screen of a kiosk is never transparent).
    public var clearColor: PremultipliedColor = .black
    public let images: ImageStore
    /// Blurred shadows kept between frames: a card's shadow is blurred once, not on
    /// every repaint of every damage rectangle it reaches.
    public let shadows = ShadowCache()
    /// Which shadows drawn from content changed lately, and parsed shadow paths.
    let shadowState = ShadowState()
    /// Gradient colour tables kept between frames.
    public let gradients = GradientCache()
    /// Animated pictures on screen, and the clock they play by.
    public let animations = PictureAnimations()
    private(set) var contentRenderers: [String: ContentRenderer] = [:]
    /// The old renderings of the transitions on screen, by animation id.
    var outgoingSnapshots: [UInt64: OutgoingSnapshot] = [:]
    /// The bitmaps of rasterized layers (`shouldRasterize`) on screen, by layer id.
    var rasterized: [String: RasterizedLayer] = [:]
    /// How many times `render` has run.
    var renders: UInt64 = 0
    /// Memory for the masks of masked layers, kept between frames that draw masks.
    let maskScratch = MaskScratch()
    /// The bytes kept for drawing masks between frames: what the last frame's masks
    /// needed, none after a frame that drew no mask.
    public var maskMemory: Int { maskScratch.heldBytes }
    /// Storage for `render`'s per-node lists, kept between frames.
    private var reachScratch: [Rect] = [], contentsScratch: [ContentRenderer?] = []

    public init(images: ImageStore = ImageStore()) {
        self.images = images
    }

    /// Makes `renderer` draw the content of layers of kind `kind`.
    public func register(_ renderer: ContentRenderer, forKind kind: String) {
        contentRenderers[kind] = renderer
    }

    /// The damage between `old` and `new`, two versions of one layer that differ only in
    /// slot values, as narrowed by the content renderer of its kind; nil when it cannot
    /// be narrowed. Pass it to `RenderTree.damage(since:refine:)`.
    public func contentDamage(from old: RenderTree.Node, to new: RenderTree.Node) -> [Rect]? {
        guard old.kind == new.kind, let content = contentRenderers[new.kind] else { return nil }
        return content.damage(from: old, to: new)
    }

    /// Draws `tree` into `surface` (whose pixels map 1:1 to the tree's screen space, or
    /// to `viewport` of it: the surface's top-left pixel is the viewport's origin),
    /// touching only the pixels inside `region` (the surface's pixels).
    public func render(_ tree: RenderTree, into surface: Surface, region: [PixelRect], viewport: PixelRect? = nil) {
        shadowState.beginFrame()
        guard !tree.nodes.isEmpty else {
            for rect in region { surface.fill(rect.intersection(surface.bounds), clearColor, mode: .source) }
            return
        }
        // The per-node lists' storage is kept between frames: taken here, handed back below.
        var reach = reachScratch, contents = contentsScratch
        (reachScratch, contentsScratch) = ([], [])
        defer {
            reach.removeAll(keepingCapacity: true)
            contents.removeAll(keepingCapacity: true)
            (reachScratch, contentsScratch) = (reach, contents)
        }
        let planes = tree.subtreeBounds(into: &reach)
        for node in tree.nodes { contents.append(contentRenderers[node.kind]) }
        renders &+= 1
        defer { maskScratch.endFrame() }
        if !outgoingSnapshots.isEmpty { forgetEndedTransitions() }
        if !rasterized.isEmpty { forgetUnusedRasterizations() }
        let x = viewport?.x ?? 0, y = viewport?.y ?? 0
        let toSurface = AffineTransform(translationX: Double(-x), y: Double(-y))
        for rect in region {
            let area = rect.intersection(surface.bounds)
            guard !area.isEmpty else { continue }
            let seen = area.offsetBy(dx: x, dy: y)
            let occluder = opaqueOccluder(of: seen, in: tree)
            guard let (panel, covered) = partialOccluder(of: seen, above: occluder ?? -1, in: tree) else {
                repaint(area, seen: seen, occluder: occluder, tree, reach, contents, planes, on: surface, offset: toSurface)
                continue
            }
            repaint(covered.offsetBy(dx: -x, dy: -y), seen: covered, occluder: panel, tree, reach, contents, planes, on: surface, offset: toSurface)
            var rest: [PixelRect] = []
            seen.subtracting(covered, into: &rest)
            for piece in rest {
                repaint(piece.offsetBy(dx: -x, dy: -y), seen: piece, occluder: occluder, tree, reach, contents, planes, on: surface, offset: toSurface)
            }
        }
    }

    /// Repaints `area` of `surface` (`seen` in the tree's screen space), over the node
    /// that paints all of it opaquely, if any, or over the clear colour.
    private func repaint(
        _ area: PixelRect, seen: PixelRect, occluder: Int?, _ tree: RenderTree, _ reach: [Rect], _ contents: [ContentRenderer?], _ planes: [Int: Rect],
        on surface: Surface, offset: AffineTransform
    ) {
        if occluder == nil { surface.fill(area, clearColor, mode: .source) }
        var pass = Pass(tree: tree, reach: reach, contents: contents, area: seen.rect, planes: planes)
        pass.occluder = occluder ?? -1
        drawSubtree(pass, 0, on: surface, offset: offset, clip: Clip(rect: area), opacity: 1)
    }

    /// What one repaint of one damage rectangle needs to know.
    struct Pass {
        let tree: RenderTree
        /// Per node: the screen pixels it and its descendants can touch.
        let reach: [Rect]
        /// Per node: the renderer of its kind's content, if any.
        let contents: [ContentRenderer?]
        /// The screen rectangle being repainted.
        let area: Rect
        /// Per node seen in perspective: the pixels of its plane it and its descendants
        /// can touch (`reach` holds their image in its parent's pixels).
        let planes: [Int: Rect]
        /// A node that paints all of `area` opaquely (`opaqueOccluder`), or -1: the nodes
        /// before it paint nothing themselves, its ancestors only their borders (drawn over it).
        var occluder = -1
    }

    /// Draws node `i` and its descendants, compositing offscreen when group opacity
    /// requires it. `offset` maps screen space to `surface` (an offscreen group's).
    func drawSubtree(_ pass: Pass, _ i: Int, on surface: Surface, offset: AffineTransform, clip: Clip, opacity: Double) {
        guard pass.reach[i].intersects(pass.area), pass.tree.nodes[i].subtreeEnd > pass.occluder else { return }
        if let projection = pass.tree.nodes[i].plane?.projection, let reach = pass.planes[i] {
            drawProjected(pass, i, projection, reach: reach, on: surface, offset: offset, clip: clip, opacity: opacity)
        } else {
            drawFlat(pass, i, on: surface, offset: offset, clip: clip, opacity: opacity)
        }
    }

    /// Draws node `i` and its descendants in the pixels they are drawn in, with the
    /// node's transition if it runs one.
    func drawFlat(_ pass: Pass, _ i: Int, on surface: Surface, offset: AffineTransform, clip: Clip, opacity: Double) {
        if let transition = pass.tree.nodes[i].content.transition {
            drawTransition(pass, i, transition, on: surface, offset: offset, clip: clip, opacity: opacity)
        } else {
            drawShown(pass, i, on: surface, offset: offset, clip: clip, opacity: opacity)
        }
    }

    /// Draws node `i` and its descendants as they are now: `drawSubtree` without the
    /// node's transition.
    func drawShown(_ pass: Pass, _ i: Int, on surface: Surface, offset: AffineTransform, clip: Clip, opacity: Double) {
        let node = pass.tree.nodes[i]
        var own = node.values.number(.opacity)
        if let tint = node.tint {
            // A replicator's copy: alpha alone is opacity; a colour multiplies the copy drawn apart.
            guard tint.red == 1, tint.green == 1, tint.blue == 1 else {
                drawTinted(pass, i, tint, on: surface, offset: offset, clip: clip, opacity: opacity * own)
                return
            }
            own *= tint.alpha
        }
        if node.values.bool(.shouldRasterize), drawRasterized(pass, i, on: surface, offset: offset, clip: clip, opacity: opacity * own) {
            return
        } else if node.hasMask {
            drawMasked(pass, i, on: surface, offset: offset, clip: clip, opacity: opacity * own)
        } else if own < 1, node.subtreeEnd > i + 1, node.values.bool(.allowsGroupOpacity) {
            let bounds = PixelRect(covering: pass.reach[i].intersection(pass.area).offsetBy(dx: offset.tx, dy: offset.ty))
                .intersection(clip.rect)
            guard !bounds.isEmpty else { return }
            surface.drawGroup(bounds: bounds, opacity: own * opacity, clip: clip) { group, toGroup in
                let inner = clip.translated(dx: Int(toGroup.tx), dy: Int(toGroup.ty))
                drawContents(pass, i, on: group, offset: offset.concatenating(toGroup), clip: inner, opacity: 1)
            }
        } else {
            drawContents(pass, i, on: surface, offset: offset, clip: clip, opacity: opacity * own)
        }
    }

    /// Draws node `i` and its descendants offscreen, multiplies them by `tint` and
    /// composites them with `opacity`.
    private func drawTinted(_ pass: Pass, _ i: Int, _ tint: Color, on surface: Surface, offset: AffineTransform, clip: Clip, opacity: Double) {
        let bounds = PixelRect(covering: pass.reach[i].intersection(pass.area).offsetBy(dx: offset.tx, dy: offset.ty)).intersection(clip.rect)
        guard !bounds.isEmpty else { return }
        surface.drawGroup(bounds: bounds, opacity: opacity, clip: clip) { group, toGroup in
            let inner = clip.translated(dx: Int(toGroup.tx), dy: Int(toGroup.ty))
            if pass.tree.nodes[i].hasMask {
                drawMasked(pass, i, on: group, offset: offset.concatenating(toGroup), clip: inner, opacity: 1)
            } else {
                drawContents(pass, i, on: group, offset: offset.concatenating(toGroup), clip: inner, opacity: 1)
            }
            group.multiply(group.bounds, by: tint)
        }
    }

    /// Draws node `i` (its shadow too unless `castsShadow` is false) and its descendants.
    func drawContents(_ pass: Pass, _ i: Int, on surface: Surface, offset: AffineTransform, clip: Clip, opacity: Double, castsShadow: Bool = true) {
        let node = pass.tree.nodes[i]
        let v = node.values
        let transform = node.transform.concatenating(offset)
        let bounds = v.rect(.bounds)
        let radii = CornerRadii(min(v.number(.cornerRadius), bounds.width / 2, bounds.height / 2))
        let corners = MaskedCorners(rawValue: UInt8(truncatingIfNeeded: Int(v.number(.maskedCorners))))
        let masks = v.bool(.masksToBounds)
        let background = v.color(.backgroundColor)
        let covered = i < pass.occluder

        if castsShadow, !masks, !covered, v.number(.shadowOpacity) > 0 {
            let outline = ShadowOutline(bounds: bounds, radii: radii, corners: corners)
            drawShadow(pass, i, outline, on: surface, offset: offset, transform: transform, clip: clip, opacity: opacity)
        }
        if background.alpha > 0, !covered {
            let color = premultiplied(background, opacity)
            if radii.maximum > 0 {
                surface.fillRoundedRect(bounds, radii: radii, corners: corners, color: color, transform: transform, clip: clip)
            } else {
                surface.fill(bounds, color: color, transform: transform, clip: clip)
            }
        }
        var inner = clip
        if masks {
            let shape = radii.maximum > 0 ? Path(roundedRect: bounds, radii: radii, corners: corners) : Path(rect: bounds)
            inner = clip.intersecting(Clip(path: shape, transform: transform, within: clip.rect))
        }
        if !covered {
            let contents = v.string(.contents)
            if !contents.isEmpty {
                drawPicture(contents, node, bounds: bounds, on: surface, transform: transform, opacity: opacity, clip: inner)
            }
            if node.kind == LayerKind.gradient.name {
                drawGradient(v, bounds: bounds, radii: radii, corners: corners, on: surface, transform: transform, opacity: opacity, clip: inner)
            } else if let content = pass.contents[i] {
                content.draw(node, on: surface, transform: transform, opacity: opacity, clip: inner)
            }
        }
        var j = i + 1
        while j < node.subtreeEnd {
            if !pass.tree.nodes[j].isMask { drawSubtree(pass, j, on: surface, offset: offset, clip: inner, opacity: opacity) }
            j = pass.tree.nodes[j].subtreeEnd
        }
        let borderWidth = v.number(.borderWidth)
        let borderColor = v.color(.borderColor)
        if borderWidth > 0, borderColor.alpha > 0 {
            surface.drawBorder(
                of: bounds, width: borderWidth, radii: radii, corners: corners, color: premultiplied(borderColor, opacity), transform: transform, clip: clip)
        }
    }

    private func drawGradient(
        _ v: PropertyValues, bounds: Rect, radii: CornerRadii, corners: MaskedCorners, on surface: Surface, transform: AffineTransform, opacity: Double,
        clip: Clip
    ) {
        guard let gradient = gradient(of: v) else { return }
        let shape = radii.maximum > 0 ? Path(roundedRect: bounds, radii: radii, corners: corners) : Path(rect: bounds)
        surface.fill(shape, gradient: gradient, bounds: bounds, transform: transform, opacity: opacity, clip: clip, cache: gradients)
    }
}

/// The gradient a gradient layer with values `v` draws; nil when it has no colours.
func gradient(of v: PropertyValues) -> Gradient? {
    let kind = LayerKind.gradient
    func slot(_ name: String) -> Value { v[slot: kind.slot(of: name)!] }
    let colors = slot("colors").array?.compactMap(\.color) ?? []
    guard !colors.isEmpty else { return nil }
    let locations = slot("locations").array?.compactMap(\.number)
    return Gradient(
        colors: colors, locations: locations?.count == colors.count ? locations : nil,
        startPoint: slot("startPoint").point ?? Point(x: 0.5, y: 0), endPoint: slot("endPoint").point ?? Point(x: 0.5, y: 1),
        kind: Gradient.Kind(rawValue: slot("type").string ?? "") ?? .axial)
}

/// A straight colour with an opacity folded in, premultiplied for drawing.
func premultiplied(_ color: Color, _ opacity: Double) -> PremultipliedColor {
    var c = color.clamped
    c.alpha *= min(1, max(0, opacity))
    return PremultipliedColor(c)
}

extension RenderTree {
    /// Per node, the pixels it and its descendants can touch in those its parent is drawn
    /// in (the screen's, or a plane's seen in perspective), appended to `reach` (empty);
    /// returns, per node seen in perspective, those pixels in its own plane.
    func subtreeBounds(into reach: inout [Rect]) -> [Int: Rect] {
        var planes: [Int: Rect] = [:]
        for node in nodes { reach.append(node.plane?.drawingBounds ?? node.visualBounds) }
        for i in stride(from: nodes.count - 1, through: 0, by: -1) {
            let p = nodes[i].parent
            if let projection = nodes[i].plane?.projection {
                planes[i] = reach[i]
                guard !reach[i].isNull else { continue }
                let limit = p.map { nodes[$0].plane == nil } ?? true ? screen : RenderTree.unclipped
                reach[i] = projection.boundingBox(of: reach[i]).intersection(limit).integral
            }
            if let p { reach[p] = reach[p].union(reach[i]) }
        }
        return planes
    }
}

extension Clip {
    /// The same clip in a space moved by (dx, dy) pixels.
    func translated(dx: Int, dy: Int) -> Clip {
        guard dx != 0 || dy != 0 else { return self }
        guard let mask else { return Clip(rect: rect.offsetBy(dx: dx, dy: dy)) }
        let moved = A8Mask(width: mask.width, height: mask.height, originX: mask.originX + dx, originY: mask.originY + dy)
        moved.bytes.update(from: mask.bytes, count: mask.stride * mask.height)
        return Clip(mask: moved).intersecting(rect.offsetBy(dx: dx, dy: dy))
    }
}

extension Renderer {
    /// A whole frame of the output whose root layer is `root`, at media time `time`, in a
    /// new surface of the root's size, or of `viewport`'s showing that rectangle of it.
    public func snapshot(_ scene: Scene, root: String, at time: Double, viewport: PixelRect? = nil) throws -> Surface {
        let tree = try scene.renderTree(root: root, at: time)
        let surface =
            if let viewport { Surface(width: max(1, viewport.width), height: max(1, viewport.height)) } else {
                Surface(width: max(1, Int(tree.size.width.rounded())), height: max(1, Int(tree.size.height.rounded())))
            }
        animations.aside(scene: scene, at: time) { render(tree, into: surface, region: [surface.bounds], viewport: viewport) }
        return surface
    }
}
