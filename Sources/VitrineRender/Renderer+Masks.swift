import VitrineCore
import VitrineRaster

/// Layers with a `mask`: the mask's alpha drawn offscreen, into memory the renderer keeps
/// between frames, and the layer composited through it.
extension Renderer {
    /// Draws node `i`, whose layer has a mask, and its descendants offscreen, and
    /// composites them with `opacity` through the alpha of its mask (node `i + 1`) drawn
    /// offscreen too: only where the mask reaches is anything drawn.
    func drawMasked(_ pass: Pass, _ i: Int, on surface: Surface, offset: AffineTransform, clip: Clip, opacity: Double) {
        let node = pass.tree.nodes[i], m = i + 1
        guard m < node.subtreeEnd, pass.tree.nodes[m].isMask else { return }
        let shown = pass.reach[i].intersection(pass.reach[m]).intersection(pass.area).offsetBy(dx: offset.tx, dy: offset.ty)
        let bounds = PixelRect(covering: shown).intersection(clip.rect)
        guard !bounds.isEmpty else { return }
        let mark = maskScratch.mark
        defer { maskScratch.release(to: mark) }
        let masked = clip.intersecting(Clip(mask: maskAlpha(pass, m, over: bounds, offset: offset)))
        if drawsOnce(pass, i) {
            // One drawing through the mask is the group through it: no group needed.
            drawContents(pass, i, on: surface, offset: offset, clip: masked, opacity: opacity)
            return
        }
        surface.drawGroup(bounds: bounds, opacity: opacity, clip: masked) { group, toGroup in
            let inner = clip.translated(dx: Int(toGroup.tx), dy: Int(toGroup.ty))
            drawContents(pass, i, on: group, offset: offset.concatenating(toGroup), clip: inner, opacity: 1)
        }
    }

    /// Node `i` draws one thing at most — a background, a contents image (not fading) or a
    /// gradient — with no shadow, border or sublayers but its mask, so that no two of its
    /// drawings overlap.
    private func drawsOnce(_ pass: Pass, _ i: Int) -> Bool {
        let node = pass.tree.nodes[i], v = node.values
        guard pass.tree.nodes[i + 1].subtreeEnd == node.subtreeEnd, v.number(.shadowOpacity) == 0, node.tint == nil,
            v.number(.borderWidth) == 0 || v.color(.borderColor).alpha == 0, animations.fades[node.id] == nil
        else { return false }
        var parts = v.color(.backgroundColor).alpha > 0 ? 1 : 0
        if !v.string(.contents).isEmpty { parts += 1 }
        if node.kind == LayerKind.gradient.name {
            parts += 1
        } else if node.kind != LayerKind.layer.name {
            return false
        }
        return parts <= 1
    }

    /// The gradient mask node `m` alone draws — no background, contents, shadow, border,
    /// sublayers, mask, clip, tint or transition — so that its alpha can be drawn straight
    /// into 8 bits; nil when it draws anything else.
    private func gradientOnly(_ pass: Pass, _ m: Int) -> Gradient? {
        let node = pass.tree.nodes[m], v = node.values
        guard node.kind == LayerKind.gradient.name, node.subtreeEnd == m + 1, !node.hasMask, node.tint == nil, node.content.transition == nil,
            v.color(.backgroundColor).alpha == 0, v.string(.contents).isEmpty, v.number(.shadowOpacity) == 0, !v.bool(.masksToBounds),
            v.number(.borderWidth) == 0 || v.color(.borderColor).alpha == 0
        else { return nil }
        return gradient(of: v)
    }

    /// The alpha of mask node `m` and its descendants as composited over `bounds` (pixels
    /// of the surface that `offset` maps screen space to), in the renderer's mask memory
    /// (valid until released to a mark taken before). A lone gradient's alpha is drawn
    /// straight into it; anything else is drawn in bands of at most 512 KB that stay in
    /// the cache and its alpha copied out.
    private func maskAlpha(_ pass: Pass, _ m: Int, over bounds: PixelRect, offset: AffineTransform) -> A8Mask {
        let stride = (bounds.width + 15) & ~15
        let bytes = maskScratch.take(stride * bounds.height).assumingMemoryBound(to: UInt8.self)
        let alpha = A8Mask(wrapping: bytes, width: bounds.width, height: bounds.height, stride: stride, originX: bounds.x, originY: bounds.y)
        let bandHeight = max(1, min(bounds.height, (1 << 17) / bounds.width))
        let direct = gradientOnly(pass, m)
        var band: Surface?
        if direct == nil {
            let bandStride = (bounds.width + 7) & ~7
            let pixels = maskScratch.take(bandStride * bandHeight * 4).assumingMemoryBound(to: UInt32.self)
            band = Surface(wrapping: pixels, width: bounds.width, height: bandHeight, stride: bandStride, release: {})
        } else {
            bytes.update(repeating: 0, count: stride * bounds.height)
        }
        var y = 0
        while y < bounds.height {
            let rows = min(bandHeight, bounds.height - y)
            let toBand = offset.concatenating(AffineTransform(translationX: Double(-bounds.x), y: Double(-(bounds.y + y))))
            // The band on screen, for skipping what cannot reach it.
            let seen = PixelRect(x: bounds.x, y: bounds.y + y, width: bounds.width, height: rows).rect.offsetBy(dx: -offset.tx, dy: -offset.ty)
            let rect = PixelRect(x: 0, y: 0, width: bounds.width, height: rows)
            if let band {
                band.clear()
                let bandPass = Pass(tree: pass.tree, reach: pass.reach, contents: pass.contents, area: seen, planes: pass.planes)
                drawSubtree(bandPass, m, on: band, offset: toBand, clip: Clip(rect: rect), opacity: 1)
                alpha.copyAlpha(of: band, rect, toX: 0, y: y)
            } else if let direct, pass.reach[m].intersects(seen) {
                let rowsOfAlpha = A8Mask(wrapping: bytes + y * stride, width: bounds.width, height: rows, stride: stride)
                drawGradientAlpha(pass.tree.nodes[m], direct, into: rowsOfAlpha, toBand: toBand, clip: Clip(rect: rect))
            }
            y += rows
        }
        return alpha
    }
}

extension Renderer {
    /// Draws the alpha of gradient layer `node`, alone on a transparent band, into `alpha`:
    /// what `drawContents` leaves there, alpha only.
    fileprivate func drawGradientAlpha(_ node: RenderTree.Node, _ gradient: Gradient, into alpha: A8Mask, toBand: AffineTransform, clip: Clip) {
        let v = node.values, bounds = v.rect(.bounds)
        let radii = CornerRadii(min(v.number(.cornerRadius), bounds.width / 2, bounds.height / 2))
        let corners = MaskedCorners(rawValue: UInt8(truncatingIfNeeded: Int(v.number(.maskedCorners))))
        let shape = radii.maximum > 0 ? Path(roundedRect: bounds, radii: radii, corners: corners) : Path(rect: bounds)
        alpha.fill(
            shape, gradient: gradient, bounds: bounds, transform: node.transform.concatenating(toBand), opacity: v.number(.opacity), clip: clip,
            cache: gradients)
    }
}

/// Memory for the masks drawn in a frame, kept between frames: a stack of buffers, one per
/// mask being drawn at once (a mask inside a masked layer takes the next), each grown to
/// the largest need and shrunk to it at the end of a frame; all of it is freed after a
/// frame that draws no mask.
final class MaskScratch {
    private var buffers: [(memory: UnsafeMutableRawPointer, capacity: Int, needed: Int)] = []
    private var depth = 0

    deinit { freeAll() }

    /// Where the stack stands, for `release(to:)`.
    var mark: Int { depth }

    /// `byteCount` bytes (64-byte aligned, contents undefined) until released.
    func take(_ byteCount: Int) -> UnsafeMutableRawPointer {
        let n = max(64, byteCount)
        if depth == buffers.count {
            buffers.append((UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64), n, 0))
        } else if buffers[depth].capacity < n {
            buffers[depth].memory.deallocate()
            buffers[depth].memory = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64)
            buffers[depth].capacity = n
        }
        buffers[depth].needed = max(buffers[depth].needed, n)
        depth += 1
        return buffers[depth - 1].memory
    }

    /// Gives back everything taken since `mark`.
    func release(to mark: Int) { depth = mark }

    /// Frees what this frame did not need.
    func endFrame() {
        depth = 0
        var kept = 0
        for k in buffers.indices {
            let b = buffers[k]
            if b.needed == 0 {
                b.memory.deallocate()
                continue
            }
            if b.capacity > 2 * b.needed {
                b.memory.deallocate()
                buffers[k].memory = UnsafeMutableRawPointer.allocate(byteCount: b.needed, alignment: 64)
                buffers[k].capacity = b.needed
            }
            buffers[k].needed = 0
            buffers[kept] = buffers[k]
            kept += 1
        }
        buffers.removeLast(buffers.count - kept)
    }

    /// The bytes held now.
    var heldBytes: Int { buffers.reduce(0) { $0 + $1.capacity } }

    private func freeAll() {
        for b in buffers { b.memory.deallocate() }
        buffers = []
    }
}
