import VitrineCore

/// A drop shadow as `CALayer` describes one.
public struct Shadow: Sendable, Equatable {
    /// Straight colour of the shadow (CA's `shadowColor`).
    public var color: Color
    /// Multiplies the colour's alpha (CA's `shadowOpacity`).
    public var opacity: Double
    /// Displacement in the shape's (layer's) space: it turns and scales with the layer.
    public var offset: Size
    /// Blur radius in the shape's space; the gaussian's σ is `radius / 2` times the
    /// transform's scale, as in Core Animation.
    public var radius: Double

    /// Defaults are Core Animation's, except `opacity`, which CA defaults to 0.
    public init(color: Color = .black, opacity: Double = 1, offset: Size = Size(width: 0, height: -3), radius: Double = 3) {
        (self.color, self.opacity, self.offset, self.radius) = (color, opacity, offset, radius)
    }

    /// The gaussian's standard deviation, `radius / 2`, capped at `maximumSigma`.
    public var sigma: Double { radius.isNaN ? 0 : min(Shadow.maximumSigma, max(0, radius / 2)) }

    /// Beyond this σ a shadow is spread so thin that it no longer shows; capping it bounds
    /// the work and memory a hostile radius can ask for.
    public static let maximumSigma = 256.0
}

/// What casts a shadow.
public enum ShadowShape: Sendable {
    /// A rectangle in layer space (mapped by the draw call's transform).
    case rect(Rect)
    /// A rounded rectangle in layer space, as `Path(roundedRect:radii:corners:)` draws it.
    case roundedRect(Rect, radii: CornerRadii, corners: MaskedCorners)
    /// Any path in layer space (CA's `shadowPath`).
    case path(Path)
    /// Coverage already in device space, placed by the mask's origin; the transform is
    /// ignored and the offset is rounded to whole pixels. Use this for the alpha of
    /// rendered content.
    case mask(A8Mask)
}

extension Surface {
    /// Draws the blurred, offset and tinted silhouette of `shape` OVER this surface.
    /// Rectangles and rounded rectangles under scale-and-translate transforms blur only
    /// their corners and stretch the uniform middle, so a large shadow costs little more
    /// than filling it.
    ///
    /// With a `cache`, blurred masks are kept and reused while the shape, its scale or
    /// rotation, its sub-pixel position and the radius stay the same (see `ShadowCache`).
    /// The pixels are the same with or without one, except that a cached shadow of a
    /// rotated or skewed shape is placed to 1/256 pixel (within 1/255 of the uncached
    /// one). Nothing is blurred for a shadow the clip cannot see. A shadow too large to
    /// keep (or drawn without a cache) is rasterized and blurred only over the part the
    /// clip shows and the blur's reach (3σ) around it, so its work and memory are bounded
    /// by the clip, not by the size of the shape: a 100 000-pixel layer seen through a
    /// 64-pixel clip costs what its 64 pixels and their margin do.
    public func drawShadow(
        _ shadow: Shadow, of shape: ShadowShape, transform: AffineTransform = .identity, clip: Clip? = nil,
        cache: ShadowCache? = nil
    ) {
        let color = PremultipliedColor(
            Color(
                red: shadow.color.red, green: shadow.color.green, blue: shadow.color.blue,
                alpha: shadow.color.clamped.alpha * min(1, max(0, shadow.opacity))))
        guard color.alpha != 0, shadow.offset.width.isFinite, shadow.offset.height.isFinite else { return }
        // As in Core Animation the offset and the blur radius are in the layer's space:
        // they turn and scale with the layer.
        let shifted = AffineTransform(translationX: shadow.offset.width, y: shadow.offset.height).concatenating(transform)
        let scale = abs(transform.determinant).squareRoot()
        let sigma = min(Shadow.maximumSigma, shadow.sigma * (scale.isFinite ? scale : 1))
        let extent = A8Mask.blurExtent(sigma: sigma)
        let area = deviceClip(clip)
        guard !area.isEmpty else { return }

        let path: Path
        switch shape {
        case .mask(let m):
            let dx = Int(shadow.offset.width.rounded()), dy = Int(shadow.offset.height.rounded())
            guard !m.frame.expanded(by: extent).offsetBy(dx: dx, dy: dy).intersection(area).isEmpty else { return }
            let blurred = A8Mask(covering: m.frame.expanded(by: extent))
            for y in 0..<m.height {
                (blurred.row(y + extent) + extent).update(from: m.row(y), count: m.width)
            }
            blurred.blur(sigma: sigma)
            draw(blurred, color: color, offsetX: dx, offsetY: dy, clip: clip)
            return
        case .rect(let r):
            if sigma == 0 { fill(r, color: color, transform: shifted, clip: clip); return }
            if shifted.isAxisAligned, shifted.a > 0, shifted.d > 0,
                drawStretchedShadow(r, radii: CornerRadii(0), corners: [], transform: shifted, sigma: sigma, color: color, clip: clip, cache: cache)
            {
                return
            }
            path = Path(rect: r)
        case .roundedRect(let r, let radii, let corners):
            path = Path(roundedRect: r, radii: radii, corners: corners)
            if sigma == 0 { fill(path, color: color, transform: shifted, clip: clip); return }
            if shifted.isAxisAligned, shifted.a > 0, shifted.d > 0, shifted.a == shifted.d || radii.maximum == 0,
                drawStretchedShadow(r, radii: radii, corners: corners, transform: shifted, sigma: sigma, color: color, clip: clip, cache: cache)
            {
                return
            }
        case .path(let p):
            path = p
            if sigma == 0 { fill(p, color: color, transform: shifted, clip: clip); return }
        }
        if let cache, drawCachedShadow(path, transform: shifted, sigma: sigma, color: color, clip: clip, cache: cache) { return }
        // General case: rasterize where the blur can reach the clip, blur, composite.
        let reach = area.expanded(by: extent)
        let frame = PixelRect(covering: path.applying(shifted).controlBounds).expanded(by: extent).intersection(reach)
        guard !frame.isEmpty else { return }
        draw(A8Mask.blurredShadow(of: path, transform: shifted, over: frame, sigma: sigma), color: color, clip: clip)
    }

    /// The general case through the cache: the whole shadow is blurred at its sub-pixel
    /// offset and drawn at its whole-pixel position. Returns false when the shadow is too
    /// large for the cache or too far away to place.
    private func drawCachedShadow(
        _ path: Path, transform: AffineTransform, sigma: Double, color: PremultipliedColor, clip: Clip?, cache: ShadowCache
    ) -> Bool {
        let limit = Double(1 << 24)
        guard abs(transform.tx) < limit, abs(transform.ty) < limit else { return false }
        // The sub-pixel offset is snapped to 1/256 pixel, so that the rounding noise of
        // a moved transform does not miss the cache.
        let snappedX = (transform.tx * 256).rounded() / 256, snappedY = (transform.ty * 256).rounded() / 256
        let wholeX = snappedX.rounded(.down), wholeY = snappedY.rounded(.down)
        var local = transform
        (local.tx, local.ty) = (snappedX - wholeX, snappedY - wholeY)
        let frame = PixelRect(covering: path.applying(local).controlBounds).expanded(by: A8Mask.blurExtent(sigma: sigma))
        guard cache.admits(frame) else { return false }
        let (dx, dy) = (Int(wholeX), Int(wholeY))
        guard !frame.offsetBy(dx: dx, dy: dy).intersection(deviceClip(clip)).isEmpty else { return true }
        let key = ShadowCache.Key(
            shape: .path(path, a: local.a, b: local.b, c: local.c, d: local.d),
            fractionX: local.tx, fractionY: local.ty, sigma: sigma)
        let mask = cache.mask(for: key) { A8Mask.blurredShadow(of: path, transform: local, over: frame, sigma: sigma) }
        draw(mask, color: color, offsetX: dx, offsetY: dy, clip: clip)
        return true
    }

    /// The nine-patch fast path: renders and blurs a copy of the rectangle shrunk by whole
    /// pixels to just hold its corners and blur, then draws it with the middle row and
    /// column repeated. Returns false when the shape is too small to gain anything.
    ///
    /// The small copy is rasterized at its offset from whole pixels (not at its place on
    /// the surface), so its blurred mask depends only on what `ShadowCache` keys it by.
    private func drawStretchedShadow(
        _ rect: Rect, radii: CornerRadii, corners: MaskedCorners, transform: AffineTransform, sigma: Double,
        color: PremultipliedColor, clip: Clip?, cache: ShadowCache?
    ) -> Bool {
        let device = transform.boundingBox(of: rect)
        let limit = Double(1 << 24)
        guard device.minX > -limit, device.minY > -limit, device.maxX < limit, device.maxY < limit else { return false }
        let scale = max(abs(transform.a), abs(transform.d))
        let radius = min((corners.isEmpty ? 0 : radii.maximum) * scale, min(device.width, device.height) / 2)
        let extent = A8Mask.blurExtent(sigma: sigma)
        // A column farther than radius + extent (+1 for the anti-aliased edge) from both
        // ends sees only straight edges within the blur's reach (three boxes reach at most
        // `extent`), so every such column of the blurred mask is the same; likewise rows.
        let keep = radius + Double(extent) + 2
        let cutX = max(0, Int((device.width - 2 * keep).rounded(.down)))
        let cutY = max(0, Int((device.height - 2 * keep).rounded(.down)))
        guard cutX + cutY > 64 else { return false }
        let wholeX = device.minX.rounded(.down), wholeY = device.minY.rounded(.down)
        let small = Rect(x: device.minX - wholeX, y: device.minY - wholeY, width: device.width - Double(cutX), height: device.height - Double(cutY))
        let local = PixelRect(covering: small).expanded(by: extent)
        let frame = local.offsetBy(dx: Int(wholeX), dy: Int(wholeY))

        // Device column X reads mask column splitX for X in [splitX, splitX + cutX].
        let splitX = Int((device.minX + keep).rounded(.down)), splitY = Int((device.minY + keep).rounded(.down))
        func maskColumn(_ x: Int) -> Int { x < splitX ? x : x < splitX + cutX ? splitX : x - cutX }
        func maskRow(_ y: Int) -> Int { y < splitY ? y : y < splitY + cutY ? splitY : y - cutY }
        let target = PixelRect(x: frame.x, y: frame.y, width: frame.width + cutX, height: frame.height + cutY)
        let area = deviceClip(clip).intersection(target)
        guard !area.isEmpty else { return true }

        let scaled =
            corners.isEmpty
            ? CornerRadii(0)
            : CornerRadii(
                minXMinY: radii.minXMinY * scale, maxXMinY: radii.maxXMinY * scale,
                minXMaxY: radii.minXMaxY * scale, maxXMaxY: radii.maxXMaxY * scale)
        let outline = Path(roundedRect: small, radii: scaled, corners: corners)
        let mask: A8Mask
        if let cache, cache.admits(frame) {
            let key = ShadowCache.Key(
                shape: .roundedRect(width: small.width, height: small.height, radii: scaled, corners: corners),
                fractionX: small.minX, fractionY: small.minY, sigma: sigma)
            mask = cache.mask(for: key) { A8Mask.blurredShadow(of: outline, over: local, sigma: sigma) }
        } else {
            // A mask too large to keep is blurred only where the clip reads it, with the
            // blur's reach around that: the work and memory are bounded by the clip (the
            // damage on the output), not by the size of the layer.
            let seen = PixelRect(
                x: maskColumn(area.x), y: maskRow(area.y),
                width: maskColumn(area.maxX - 1) - maskColumn(area.x) + 1, height: maskRow(area.maxY - 1) - maskRow(area.y) + 1)
            let window = seen.expanded(by: extent).intersection(frame)
            mask = A8Mask.blurredShadow(of: outline, over: window.offsetBy(dx: -Int(wholeX), dy: -Int(wholeY)), sigma: sigma)
        }
        // Where the mask's top-left pixel lies on the surface.
        let (originX, originY) = (mask.originX + Int(wholeX), mask.originY + Int(wholeY))

        let placed = clip?.mask
        let rowBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: area.width)
        defer { rowBuffer.deallocate() }
        for y in area.y..<area.maxY {
            let src = mask.row(maskRow(y) - originY)
            let dst = row(y)
            if let placed {
                for x in area.x..<area.maxX { rowBuffer[x - area.x] = src[maskColumn(x) - originX] }
                Kernels.multiplyMask(rowBuffer, placed.row(y - placed.originY) + (area.x - placed.originX), count: area.width)
                Kernels.overSolidMasked(dst + area.x, rowBuffer, count: area.width, color.argb)
                continue
            }
            // Left part, uniform middle, right part.
            let leftEnd = min(area.maxX, splitX), midEnd = min(area.maxX, splitX + cutX)
            if area.x < leftEnd {
                Kernels.overSolidMasked(dst + area.x, src + (area.x - originX), count: leftEnd - area.x, color.argb)
            }
            let m0 = max(area.x, splitX)
            if m0 < midEnd {
                let c = src[splitX - originX]
                if c != 0 { Kernels.overSolid(dst + m0, count: midEnd - m0, scalePixel(color.argb, UInt32(c))) }
            }
            let r0 = max(area.x, splitX + cutX)
            if r0 < area.maxX {
                Kernels.overSolidMasked(dst + r0, src + (r0 - cutX - originX), count: area.maxX - r0, color.argb)
            }
        }
        return true
    }
}

extension A8Mask {
    /// `path`'s coverage over `frame`, blurred by `sigma`: a shadow before its colour.
    static func blurredShadow(of path: Path, transform: AffineTransform = .identity, over frame: PixelRect, sigma: Double) -> A8Mask {
        let mask = A8Mask(covering: frame)
        var r = Rasterizer(clip: frame)
        r.add(path, transform: transform)
        var b = MaskBlitter(mask: mask)
        r.fill(into: &b)
        mask.blur(sigma: sigma)
        return mask
    }
}

extension A8Mask {
    /// Sets the mask's coverage to the alpha of `surface`'s pixels in `rect` (clipped to
    /// the surface), whose top-left lands at mask-local (x, y): the silhouette of what
    /// was drawn, for a shadow of it. Pixels that fall outside the mask are skipped.
    public func copyAlpha(of surface: Surface, _ rect: PixelRect, toX x: Int, y: Int) {
        let from = rect.intersection(surface.bounds)
        let to = PixelRect(x: x + from.x - rect.x, y: y + from.y - rect.y, width: from.width, height: from.height)
            .intersection(PixelRect(x: 0, y: 0, width: width, height: height))
        guard !to.isEmpty else { return }
        // Mask-local (u, v) shows surface pixel (u - x + rect.x, v - y + rect.y).
        let dx = rect.x - x, dy = rect.y - y
        for row in to.y..<to.maxY {
            let src = surface.row(row + dy) + (to.x + dx), dst = self.row(row) + to.x
            for i in 0..<to.width { dst[i] = UInt8(truncatingIfNeeded: src[i] >> 24) }
        }
    }
}

extension PixelRect {
    /// Grown by `n` pixels on every side.
    public func expanded(by n: Int) -> PixelRect { PixelRect(x: x - n, y: y - n, width: width + 2 * n, height: height + 2 * n) }
}
