import VitrineCore

/// Filling shapes with a solid colour or a shader, through anti-aliased coverage.
extension Surface {
    /// Fills `path`, mapped through `transform` into device space, with `color` (OVER),
    /// anti-aliased, inside by `rule`, its curves flattened to `tolerance` device pixels
    /// (`Flatness.standard` when nil).
    public func fill(
        _ path: Path, color: PremultipliedColor, transform: AffineTransform = .identity, rule: FillRule = .nonZero,
        clip: Clip? = nil, tolerance: Double? = nil
    ) {
        guard color.alpha != 0 else { return }
        if let r = path.pixelAlignedRect(transform) {
            blitRect(r, SolidBlitter(surface: self, color: color), clip: clip)
            return
        }
        rasterize(path, transform: transform, rule: rule, clip: clip, tolerance: tolerance ?? Flatness.standard, SolidBlitter(surface: self, color: color))
    }

    /// Fills `rect` (layer space, fractional edges anti-aliased) mapped through `transform`.
    public func fill(_ rect: Rect, color: PremultipliedColor, transform: AffineTransform = .identity, clip: Clip? = nil) {
        guard color.alpha != 0 else { return }
        // The common case, a rectangle on whole pixels, without building a path.
        if transform.isAxisAligned {
            let a = transform.apply(to: Point(x: rect.minX, y: rect.minY)), b = transform.apply(to: Point(x: rect.maxX, y: rect.maxY))
            func whole(_ v: Double) -> Bool { v.isFinite && v == v.rounded() }
            if whole(a.x), whole(a.y), whole(b.x), whole(b.y) {
                let device = Rect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(b.x - a.x), height: abs(b.y - a.y))
                blitRect(PixelRect(covering: device), SolidBlitter(surface: self, color: color), clip: clip)
                return
            }
        }
        fill(Path(rect: rect), color: color, transform: transform, clip: clip)
    }

    /// Fills a rounded rectangle as Core Animation draws a layer's background with
    /// `cornerRadius` and `maskedCorners`.
    public func fillRoundedRect(
        _ rect: Rect, radii: CornerRadii, corners: MaskedCorners = .all, color: PremultipliedColor,
        transform: AffineTransform = .identity, clip: Clip? = nil
    ) {
        fill(Path(roundedRect: rect, radii: radii, corners: corners), color: color, transform: transform, clip: clip)
    }

    /// Draws a border inside `rect`, as Core Animation draws `borderWidth`: the rounded
    /// rectangle minus its inset by `width` (inner radii `max(0, r − width)`).
    public func drawBorder(
        of rect: Rect, width: Double, radii: CornerRadii = CornerRadii(0), corners: MaskedCorners = .all,
        color: PremultipliedColor, transform: AffineTransform = .identity, clip: Clip? = nil
    ) {
        fill(Path(borderOf: rect, width: width, radii: radii, corners: corners), color: color, transform: transform, clip: clip)
    }

    /// Composites an 8-bit mask (a glyph, a rendered shape) tinted with `color`, placed
    /// at the mask's origin plus the offset.
    public func draw(_ mask: A8Mask, color: PremultipliedColor, offsetX: Int = 0, offsetY: Int = 0, clip: Clip? = nil) {
        drawCoverage(
            UnsafePointer(mask.bytes), width: mask.width, height: mask.height, stride: mask.stride,
            x: mask.originX + offsetX, y: mask.originY + offsetY, color: color, clip: clip)
    }

    /// Composites rows of 8-bit coverage owned elsewhere (a cached glyph) tinted with
    /// `color`, its top-left pixel at (`x`, `y`).
    public func drawCoverage(
        _ coverage: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, x: Int, y: Int,
        color: PremultipliedColor, clip: Clip? = nil
    ) {
        guard color.alpha != 0 else { return }
        let frame = PixelRect(x: x, y: y, width: width, height: height)
        let area = deviceClip(clip).intersection(frame)
        guard !area.isEmpty else { return }
        guard let clipMask = clip?.mask else {
            for row in area.y..<area.maxY {
                Kernels.overSolidMasked(self.row(row) + area.x, coverage + (row - frame.y) * stride + (area.x - frame.x), count: area.width, color.argb)
            }
            return
        }
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: area.width)
        defer { scratch.deallocate() }
        for row in area.y..<area.maxY {
            scratch.update(from: coverage + (row - frame.y) * stride + (area.x - frame.x), count: area.width)
            Kernels.multiplyMask(scratch, clipMask.row(row - clipMask.originY) + (area.x - clipMask.originX), count: area.width)
            Kernels.overSolidMasked(self.row(row) + area.x, scratch, count: area.width, color.argb)
        }
    }

    // MARK: Plumbing shared by the drawing stages

    /// The clip rectangle limited to the surface.
    func deviceClip(_ clip: Clip?) -> PixelRect {
        clip.map { $0.rect.intersection(bounds) } ?? bounds
    }

    /// Scan-converts `path` into `blitter` within the clip.
    func rasterize<B: Blitter>(
        _ path: Path, transform: AffineTransform, rule: FillRule = .nonZero, clip: Clip?, tolerance: Double = Flatness.standard, _ blitter: B
    ) {
        let area = deviceClip(clip)
        guard !area.isEmpty else { return }
        var r = Rasterizer(clip: area, rule: rule, tolerance: tolerance)
        r.add(path, transform: transform)
        fillRasterized(r, clip: clip, blitter)
    }

    /// Sends what `r` holds to `blitter`, through the clip's mask if it has one.
    func fillRasterized<B: Blitter>(_ r: Rasterizer, clip: Clip?, _ blitter: B) {
        if let mask = clip?.mask {
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, mask.width))
            defer { scratch.deallocate() }
            var b = MaskClipBlitter(blitter, clip: mask, scratch: scratch)
            r.fill(into: &b)
        } else {
            var b = blitter
            r.fill(into: &b)
        }
    }

    /// Covers a whole-pixel rectangle with `blitter` within the clip.
    func blitRect<B: Blitter>(_ rect: PixelRect, _ blitter: B, clip: Clip?) {
        let area = deviceClip(clip).intersection(rect)
        guard !area.isEmpty else { return }
        if let mask = clip?.mask {
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, mask.width))
            defer { scratch.deallocate() }
            var b = MaskClipBlitter(blitter, clip: mask, scratch: scratch)
            b.blitRect(area)
        } else {
            var b = blitter
            b.blitRect(area)
        }
    }
}
