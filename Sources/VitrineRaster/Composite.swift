import VitrineCore

/// Compositing whole surfaces: images at integer positions and group opacity.
extension Surface {
    /// Composites `source` OVER this surface with its top-left pixel at (x, y), scaled by
    /// `opacity` (0…1). This is how a group with opacity lands: see `drawGroup`.
    public func composite(_ source: Surface, x: Int, y: Int, opacity: Double = 1, clip: Clip? = nil) {
        let o = UInt32((min(1, max(0, opacity.isNaN ? 0 : opacity)) * 255).rounded())
        guard o != 0 else { return }
        let frame = PixelRect(x: x, y: y, width: source.width, height: source.height)
        let area = deviceClip(clip).intersection(frame)
        guard !area.isEmpty else { return }
        if source.ignoresAlpha {
            compositeOpaque(source, x: x, y: y, area: area, opacity: o, mask: clip?.mask)
            return
        }
        if let mask = clip?.mask {
            let cover = UnsafeMutablePointer<UInt8>.allocate(capacity: area.width)
            defer { cover.deallocate() }
            for row in area.y..<area.maxY {
                let m = mask.row(row - mask.originY) + (area.x - mask.originX)
                guard o < 255 else {
                    Kernels.overImageMasked(self.row(row) + area.x, source.row(row - y) + (area.x - x), m, count: area.width)
                    continue
                }
                for i in 0..<area.width { cover[i] = UInt8(truncatingIfNeeded: mulDiv255(UInt32(m[i]), o)) }
                Kernels.overImageMasked(self.row(row) + area.x, source.row(row - y) + (area.x - x), cover, count: area.width)
            }
            return
        }
        for row in area.y..<area.maxY {
            Kernels.overImage(self.row(row) + area.x, source.row(row - y) + (area.x - x), count: area.width, opacity: o)
        }
    }

    /// `composite` of a source whose alpha is not read: a row copy at full opacity, else
    /// each row made opaque in a scratch row first.
    private func compositeOpaque(_ source: Surface, x: Int, y: Int, area: PixelRect, opacity o: UInt32, mask: A8Mask?) {
        if o == 255, mask == nil {
            for row in area.y..<area.maxY {
                Kernels.copyOpaque(self.row(row) + area.x, source.row(row - y) + (area.x - x), count: area.width)
            }
            return
        }
        let opaque = UnsafeMutablePointer<UInt32>.allocate(capacity: area.width)
        let cover = UnsafeMutablePointer<UInt8>.allocate(capacity: area.width)
        defer {
            opaque.deallocate()
            cover.deallocate()
        }
        for row in area.y..<area.maxY {
            Kernels.copyOpaque(opaque, source.row(row - y) + (area.x - x), count: area.width)
            guard let mask else {
                Kernels.overImage(self.row(row) + area.x, opaque, count: area.width, opacity: o)
                continue
            }
            let m = mask.row(row - mask.originY) + (area.x - mask.originX)
            for i in 0..<area.width { cover[i] = UInt8(truncatingIfNeeded: mulDiv255(UInt32(m[i]), o)) }
            Kernels.overImageMasked(self.row(row) + area.x, opaque, cover, count: area.width)
        }
    }

    /// Replaces pixels with `source`'s (SRC, no blending): `sourceRect` of the source lands
    /// with its top-left at (x, y). Both rectangles are clipped to their surfaces. For
    /// carrying undamaged regions between buffers of different ages.
    public func copyPixels(from source: Surface, sourceRect: PixelRect? = nil, x: Int, y: Int) {
        let from = (sourceRect ?? source.bounds).intersection(source.bounds)
        let to = PixelRect(x: x, y: y, width: from.width, height: from.height).intersection(bounds)
        guard !to.isEmpty else { return }
        let dx = from.x - x, dy = from.y - y
        for row in to.y..<to.maxY {
            (self.row(row) + to.x).update(from: source.row(row + dy) + (to.x + dx), count: to.width)
        }
    }

    /// Group opacity: runs `draw` on a transparent offscreen surface covering `bounds`
    /// (device pixels), then composites the result here with `opacity`, so overlapping
    /// children fade as one.
    ///
    /// `draw` receives the offscreen surface and the transform from device space to it;
    /// concatenate it after the transforms you would use for this surface:
    ///
    /// ```swift
    /// screen.drawGroup(bounds: PixelRect(x: 100, y: 80, width: 200, height: 120), opacity: 0.5) { group, toGroup in
    ///     group.fill(Path(rect: r), color: red, transform: layerTransform.concatenating(toGroup))
    /// }
    /// ```
    public func drawGroup(
        bounds: PixelRect, opacity: Double, clip: Clip? = nil,
        _ draw: (_ group: Surface, _ toGroup: AffineTransform) throws -> Void
    ) rethrows {
        let area = bounds.intersection(deviceClip(clip))
        guard !area.isEmpty else { return }
        let group = Surface(width: area.width, height: area.height)
        try draw(group, AffineTransform(translationX: Double(-area.x), y: Double(-area.y)))
        composite(group, x: area.x, y: area.y, opacity: opacity, clip: clip)
    }

    /// Multiplies the straight colour of every pixel in `area` by `color`'s red, green and
    /// blue and its alpha by `color`'s alpha (CAReplicatorLayer's `instanceColor`): in
    /// premultiplied terms, each colour channel by component × alpha, alpha by alpha.
    public func multiply(_ area: PixelRect, by color: Color) {
        let c = color.clamped
        func byte(_ v: Double) -> UInt32 { UInt32((v * 255).rounded()) }
        let fa = byte(c.alpha), fr = byte(c.red * c.alpha), fg = byte(c.green * c.alpha), fb = byte(c.blue * c.alpha)
        let rect = area.intersection(bounds)
        guard !rect.isEmpty, fa != 255 || fr != 255 || fg != 255 || fb != 255 else { return }
        for y in rect.y..<rect.maxY {
            let p = row(y) + rect.x
            for i in 0..<rect.width {
                let v = p[i]
                guard v != 0 else { continue }
                p[i] =
                    mulDiv255(v >> 24, fa) << 24 | mulDiv255((v >> 16) & 0xFF, fr) << 16 | mulDiv255((v >> 8) & 0xFF, fg) << 8
                    | mulDiv255(v & 0xFF, fb)
            }
        }
    }

    /// A dissolve: makes every pixel `fraction` (0…1) of itself plus 1 − `fraction` of
    /// `other`'s pixel there (transparent outside it) times `otherOpacity`, `other`'s
    /// top-left pixel lying at (x, y) of this surface.
    public func mix(with other: Surface, x: Int, y: Int, fraction: Double, otherOpacity: Double = 1) {
        let f = UInt32((min(1, max(0, fraction.isNaN ? 0 : fraction)) * 255).rounded())
        let o = UInt32((min(1, max(0, otherOpacity.isNaN ? 0 : otherOpacity)) * 255).rounded())
        let g = mulDiv255(255 - f, o)
        let overlap = bounds.intersection(PixelRect(x: x, y: y, width: other.width, height: other.height))
        for row in 0..<height {
            let p = self.row(row)
            let inside = row >= overlap.y && row < overlap.maxY
            let q = inside ? other.row(row - y) + (overlap.x - x) : nil
            for i in 0..<width {
                let own = p[i]
                var mixed = scalePixel(own, f)
                if let q, i >= overlap.x, i < overlap.maxX {
                    mixed &+= scalePixel(q[i - overlap.x], g)
                }
                p[i] = mixed
            }
        }
    }
}
