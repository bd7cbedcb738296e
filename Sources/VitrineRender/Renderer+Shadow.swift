import VitrineCore
import VitrineImage
import VitrineRaster

/// Shadows as Core Animation draws them: the alpha of the layer as composited — its
/// background, border, contents, kind content and sublayers — moved by `shadowOffset`,
/// blurred by `shadowRadius`, tinted with `shadowColor` × `shadowOpacity` and drawn
/// beneath the layer; or, when `shadowPath` is set, that path filled, and the content not
/// looked at.
///
/// A layer that shows only its background (and a border over an opaque one) has a
/// uniform alpha over its rounded bounds: its shadow is that shape's, scaled by the
/// alpha, through the nine-patch path. Anything else is rendered offscreen into a mask
/// at device resolution, blurred and kept in `ShadowCache` (one mask per layer) until
/// what the subtree shows changes. A subtree that changes frame after frame (a rolling
/// number on a card) has only the part of its shadow each repaint needs rendered, and
/// nothing kept.
extension Renderer {
    /// Draws node `i`'s shadow beneath it; `outline` is its background's shape.
    func drawShadow(
        _ pass: Pass, _ i: Int, _ outline: ShadowOutline, on surface: Surface, offset: AffineTransform,
        transform: AffineTransform, clip: Clip, opacity: Double
    ) {
        let v = pass.tree.nodes[i].values
        var shadow = Shadow(
            color: v.color(.shadowColor), opacity: v.number(.shadowOpacity) * opacity, offset: v.size(.shadowOffset),
            radius: v.number(.shadowRadius))
        guard shadow.color.clamped.alpha > 0 else { return }
        let pathText = v.string(.shadowPath)
        if !pathText.isEmpty, let path = shadowState.path(pathText), !path.isEmpty {
            surface.drawShadow(shadow, of: .path(path), transform: transform, clip: clip, cache: shadows)
            return
        }
        if let alpha = uniformAlpha(pass, i) {
            guard alpha > 0 else { return }
            shadow.opacity *= alpha
            surface.drawShadow(shadow, of: outline.shape, transform: transform, clip: clip, cache: shadows)
            return
        }
        drawContentShadow(pass, i, shadow, bounds: outline.bounds, on: surface, offset: offset, transform: transform, clip: clip)
    }

    /// The alpha of node `i` as composited when it is the same all over its background's
    /// shape; nil when its content, border or sublayers make it vary.
    private func uniformAlpha(_ pass: Pass, _ i: Int) -> Double? {
        let node = pass.tree.nodes[i], v = node.values
        // Sublayers, even hidden ones: the shadow is drawn one way while they exist, so
        // that one that hides or shows changes no pixel beyond its own damage.
        guard !node.shadowsSublayers else { return nil }
        // A picture, shown or still loading.
        if !v.string(.contents).isEmpty { return nil }
        var alpha = v.color(.backgroundColor).clamped.alpha
        if node.kind == LayerKind.gradient.name {
            let colors = LayerKind.gradient.slot(of: "colors").flatMap { v[slot: $0].array }?.compactMap(\.color) ?? []
            if !colors.isEmpty {
                guard colors.allSatisfy({ $0.clamped.alpha >= 1 }) else { return nil }
                alpha = 1
            }
        } else if pass.contents[i] != nil {
            return nil
        }
        // A border lies inside the bounds: over an opaque background it changes no alpha.
        if alpha < 1, v.number(.borderWidth) > 0, v.color(.borderColor).clamped.alpha > 0 { return nil }
        return alpha
    }

    /// The shadow of what node `i` and its sublayers show, from a mask rendered offscreen.
    private func drawContentShadow(
        _ pass: Pass, _ i: Int, _ shadow: Shadow, bounds: Rect, on surface: Surface, offset: AffineTransform,
        transform: AffineTransform, clip: Clip
    ) {
        let c = shadow.color.clamped
        let color = PremultipliedColor(Color(red: c.red, green: c.green, blue: c.blue, alpha: c.alpha * min(1, max(0, shadow.opacity))))
        guard color.alpha != 0 else { return }
        // The offset and the blur turn and scale with the layer, as for any shadow.
        let moved = AffineTransform(translationX: shadow.offset.width, y: shadow.offset.height).concatenating(transform)
        let dx = moved.tx - transform.tx, dy = moved.ty - transform.ty
        let scale = abs(transform.determinant).squareRoot()
        let sigma = min(Shadow.maximumSigma, shadow.sigma * (scale.isFinite ? scale : 1))
        let extent = A8Mask.blurExtent(sigma: sigma)
        // Masks are made in a local space: the surface's moved by the offset, less whole
        // pixels (`base`), so that a layer moved by whole pixels keeps its mask.
        let baseX = (transform.tx + dx).rounded(.down), baseY = (transform.ty + dy).rounded(.down)
        let limit = Double(1 << 24)
        guard abs(baseX) < limit, abs(baseY) < limit else { return }
        let (bx, by) = (Int(baseX), Int(baseY))
        let toLocal = offset.concatenating(AffineTransform(translationX: dx - baseX, y: dy - baseY))
        let shown = shownBox(pass, i, bounds: bounds).offsetBy(dx: toLocal.tx, dy: toLocal.ty)
        let reachable = PixelRect(covering: shown).expanded(by: extent)
        // No more than the screen (its blur margin is rendered, not kept).
        let full = reachable.intersection(PixelRect(covering: pass.tree.screen.offsetBy(dx: toLocal.tx, dy: toLocal.ty)))
        let needed = full.intersection(clip.rect.offsetBy(dx: -bx, dy: -by))
        guard !needed.isEmpty else { return }

        let owner = pass.tree.nodes[i].id
        let key = ContentShadowKey(pass, i, toLocal: toLocal, frame: full, sigma: sigma, versions: contentVersions(pass, i))
        var target = full
        let kept = shadows.contentMask(owner: owner, content: key) { () -> A8Mask? in
            let changing = shadowState.noteMiss(owner, key)
            guard !changing, shadows.admits(full.expanded(by: extent)) else { return nil }
            return shadowMask(pass, i, over: full, within: reachable, toLocal: toLocal, sigma: sigma)
        }
        let mask: A8Mask
        if let kept {
            mask = kept
        } else {
            target = needed
            mask = shadowMask(pass, i, over: needed, within: reachable, toLocal: toLocal, sigma: sigma)
        }
        surface.draw(mask, color: color, offsetX: bx, offsetY: by, clip: clip.intersecting(target.offsetBy(dx: bx, dy: by)))
    }

    /// What node `i` and its sublayers show beyond their values: the image store's
    /// generation when they show pictures, the frame each animated picture is at, the
    /// time while a picture fades in, and what content renderers say (a video's frame).
    /// Empty for most.
    func contentVersions(_ pass: Pass, _ i: Int) -> [AnyHashable] {
        var versions: [AnyHashable] = []
        for j in i..<pass.tree.nodes[i].subtreeEnd {
            let node = pass.tree.nodes[j], reference = node.values.string(.contents)
            if !reference.isEmpty {
                if versions.isEmpty { versions.append(images.generation) }
                if let picture = images.held(reference), picture.isAnimated {
                    versions += [j, animations.frame(of: picture, layer: node.id).index]
                }
                if let fade = animations.fades[node.id], animations.time < fade.start + fade.duration {
                    versions += [j, animations.time]
                }
            }
            if let version = pass.contents[j]?.contentVersion(of: node) { versions += [j, version] }
        }
        return versions
    }

    /// The screen box of what node `i` and its sublayers draw: its bounds and its
    /// sublayers' reach, less the spread of this shadow (which their reach holds).
    private func shownBox(_ pass: Pass, _ i: Int, bounds: Rect) -> Rect {
        let node = pass.tree.nodes[i], spread = node.shadowSpread
        var box = node.transform.boundingBox(of: bounds).insetBy(dx: -1, dy: -1)
        var j = i + 1
        while j < node.subtreeEnd {
            let r = pass.reach[j]
            let x0 = r.minX + Double(spread.left), y0 = r.minY + Double(spread.top)
            let x1 = r.maxX - Double(spread.right), y1 = r.maxY - Double(spread.bottom)
            if !r.isNull, x1 > x0, y1 > y0 { box = box.union(Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)) }
            j = pass.tree.nodes[j].subtreeEnd
        }
        return box
    }

    /// Node `i` and its sublayers (not its own shadow) rendered over `target` (local
    /// space, see `drawContentShadow`) and the blur's reach around it within `reachable`,
    /// their alpha blurred: valid over `target`. Rendered in bands of at most 2 MB.
    private func shadowMask(_ pass: Pass, _ i: Int, over target: PixelRect, within reachable: PixelRect, toLocal: AffineTransform, sigma: Double) -> A8Mask {
        let area = target.expanded(by: A8Mask.blurExtent(sigma: sigma)).intersection(reachable)
        let mask = A8Mask(covering: area)
        guard !area.isEmpty else { return mask }
        let bandHeight = max(1, min(area.height, (1 << 19) / area.width))
        let band = Surface(width: area.width, height: bandHeight)
        var y = area.y
        while y < area.maxY {
            let rows = min(bandHeight, area.maxY - y)
            if y > area.y { band.clear() }
            let rect = PixelRect(x: 0, y: 0, width: area.width, height: rows)
            let toBand = toLocal.concatenating(AffineTransform(translationX: Double(-area.x), y: Double(-y)))
            // The band in screen space, for skipping what cannot reach it.
            let seen = PixelRect(x: area.x, y: y, width: area.width, height: rows).rect.offsetBy(dx: -toLocal.tx, dy: -toLocal.ty)
            let bandPass = Pass(tree: pass.tree, reach: pass.reach, contents: pass.contents, area: seen, planes: pass.planes)
            drawContents(bandPass, i, on: band, offset: toBand, clip: Clip(rect: rect), opacity: 1, castsShadow: false)
            mask.copyAlpha(of: band, rect, toX: 0, y: y - area.y)
            y += rows
        }
        mask.blur(sigma: sigma)
        return mask
    }
}

/// The shape a layer's background fills: its shadow when nothing else shows.
struct ShadowOutline {
    let bounds: Rect
    let radii: CornerRadii
    let corners: MaskedCorners

    var shape: ShadowShape { radii.maximum > 0 ? .roundedRect(bounds, radii: radii, corners: corners) : .rect(bounds) }
}

/// What a mask of a layer's shadow drawn from its content was made from: the layer's
/// values but those that do not change what it draws offscreen (its place, opacity,
/// shadow and timing: the place is in `transforms`), its sublayers by identity (a node's
/// content object changes whenever its values do), where each node lies in the mask's
/// local space, the mask's frame, σ, and what the subtree shows beyond its values
/// (`Renderer.contentVersions`). A card that fades or whose shadow changes colour keeps
/// its mask.
struct ContentShadowKey: Hashable {
    let contents: [RenderTree.Content]
    let transforms: [AffineTransform]
    let frame: PixelRect
    let sigma: Double
    let versions: [AnyHashable]

    init(_ pass: Renderer.Pass, _ i: Int, toLocal: AffineTransform, frame: PixelRect, sigma: Double, versions: [AnyHashable]) {
        let nodes = pass.tree.nodes[i..<pass.tree.nodes[i].subtreeEnd]
        contents = nodes.map(\.content)
        transforms = nodes.map { $0.transform.concatenating(toLocal) }
        self.frame = frame
        self.sigma = sigma
        self.versions = versions
    }

    /// The layer's slots that do not change what it draws offscreen.
    private static let unseenSlots: Set<Int> = Set(
        [
            BaseProperty.position, .anchorPoint, .zPosition, .transform, .sublayerTransform, .opacity, .hidden,
            .shadowColor, .shadowOpacity, .shadowOffset, .shadowRadius, .allowsGroupOpacity,
            .beginTime, .speed, .timeOffset, .duration, .repeatCount, .repeatDuration, .autoreverses, .fillMode,
        ].map(\.slot))

    static func == (a: Self, b: Self) -> Bool {
        guard a.frame == b.frame, a.sigma == b.sigma, a.versions == b.versions, a.transforms == b.transforms,
            a.contents.count == b.contents.count, a.contents.count > 0
        else { return false }
        for k in 1..<a.contents.count where a.contents[k] !== b.contents[k] { return false }
        let x = a.contents[0], y = b.contents[0]
        return x === y
            || (x.kind == y.kind && x.values.custom == y.values.custom
                && x.values.differingSlots(from: y.values).allSatisfy(unseenSlots.contains))
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(frame)
        hasher.combine(sigma)
        hasher.combine(versions)
        hasher.combine(transforms)
        for content in contents.dropFirst() { hasher.combine(ObjectIdentifier(content)) }
    }
}

/// What the renderer remembers about shadows from one frame to the next, besides masks.
final class ShadowState {
    /// Counts `Renderer.render` calls.
    private var frame = 0
    /// When each layer's content shadow was last made, and of what, by layer id.
    private var lastMade: [String: (frame: Int, key: ContentShadowKey)] = [:]
    /// Parsed `shadowPath`s by their text.
    private var paths: [String: Path] = [:]

    func beginFrame() { frame &+= 1 }

    /// Notes that `owner`'s shadow is made of `key` in this frame; true when what it
    /// shows is changing from frame to frame: it was made of something else in this
    /// frame or the one before (or of the same in this frame, which is then changing
    /// still). Made of the same in an earlier frame, it has come to rest.
    func noteMiss(_ owner: String, _ key: ContentShadowKey) -> Bool {
        let previous = lastMade.updateValue((frame, key), forKey: owner)
        if lastMade.count > 256 { lastMade = lastMade.filter { $0.value.frame >= frame - 1 } }
        guard let previous, previous.frame >= frame - 1 else { return false }
        return previous.key != key || previous.frame == frame
    }

    /// The outline of a `shadowPath`; nil when it does not parse (the property refuses
    /// such text).
    func path(_ text: String) -> Path? {
        if let path = paths[text] { return path }
        guard let data = try? PathData(parsing: text) else { return nil }
        let path = Path(data)
        if paths.count >= 64 { paths.removeAll() }
        paths[text] = path
        return path
    }
}
