import VitrineCore

/// Where drawing may touch the destination: a device rectangle, optionally narrowed by
/// an 8-bit coverage mask (for rounded-corner `masksToBounds` under any transform).
///
/// ```swift
/// let rounded = Clip(path: Path(roundedRect: r, radii: CornerRadii(12)), transform: t,
///                    within: surface.bounds)
/// surface.fill(Path(rect: r), color: red, transform: t, clip: rounded)
/// ```
public struct Clip: Sendable {
    /// Pixels outside this rectangle are never touched.
    public private(set) var rect: PixelRect
    /// Coverage multiplying everything drawn; its frame contains `rect`.
    public private(set) var mask: A8Mask?

    /// Clips to a device rectangle.
    public init(rect: PixelRect) {
        self.rect = rect
        mask = nil
    }

    /// Clips to a mask's coverage, placed by its origin.
    public init(mask: A8Mask) {
        rect = mask.frame
        self.mask = mask
    }

    /// Clips to the anti-aliased inside of `path` mapped through `transform`. When the
    /// mapped path is a pixel-aligned rectangle no mask is made.
    public init(path: Path, transform: AffineTransform = .identity, within bounds: PixelRect) {
        if let r = path.pixelAlignedRect(transform) {
            self.init(rect: r.intersection(bounds))
            return
        }
        self.init(mask: A8Mask(path: path, transform: transform, within: bounds))
    }

    /// This clip, further restricted to `other`.
    public func intersecting(_ other: PixelRect) -> Clip {
        var c = self
        c.rect = rect.intersection(other)
        return c
    }

    /// Pixels both clips allow; masks multiply.
    public func intersecting(_ other: Clip) -> Clip {
        let r = rect.intersection(other.rect)
        switch (mask, other.mask) {
        case (nil, nil): return Clip(rect: r)
        case (let m?, nil), (nil, let m?):
            var c = Clip(mask: m)
            c.rect = r
            return c
        case (let a?, let b?):
            let m = A8Mask(covering: r)
            for y in r.y..<r.maxY {
                let dst = m.row(y - r.y)
                dst.update(from: a.row(y - a.originY) + (r.x - a.originX), count: r.width)
                Kernels.multiplyMask(dst, b.row(y - b.originY) + (r.x - b.originX), count: r.width)
            }
            return Clip(mask: m)
        }
    }
}

extension A8Mask {
    /// The anti-aliased coverage of `path` mapped through `transform`, in a mask just
    /// large enough for it (within `bounds`, device space) and placed where it lies.
    public convenience init(path: Path, transform: AffineTransform = .identity, within bounds: PixelRect) {
        let area = PixelRect(covering: path.applying(transform).controlBounds).intersection(bounds)
        self.init(covering: area)
        guard !area.isEmpty else { return }
        var r = Rasterizer(clip: area)
        r.add(path, transform: transform)
        var b = MaskBlitter(mask: self)
        r.fill(into: &b)
    }
}

extension Path {
    /// The device rectangle this path is, when it is a single rectangle whose mapped
    /// corners fall on whole pixels.
    func pixelAlignedRect(_ t: AffineTransform) -> PixelRect? {
        guard t.isAxisAligned, elements.count == 5 || elements.count == 6,
            case .move(let p0) = elements[0], case .line(let p1) = elements[1],
            case .line(let p2) = elements[2], case .line(let p3) = elements[3]
        else { return nil }
        if elements.count == 5 {
            guard elements[4] == .close else { return nil }
        } else {
            guard elements[4] == .line(p0), elements[5] == .close else { return nil }
        }
        let ps = [p0, p1, p2, p3].map { t.apply(to: $0) }
        let axisAligned =
            (ps[0].y == ps[1].y && ps[1].x == ps[2].x && ps[2].y == ps[3].y && ps[3].x == ps[0].x)
            || (ps[0].x == ps[1].x && ps[1].y == ps[2].y && ps[2].x == ps[3].x && ps[3].y == ps[0].y)
        guard axisAligned else { return nil }
        for p in ps where p.x != p.x.rounded() || p.y != p.y.rounded() || !p.x.isFinite || !p.y.isFinite {
            return nil
        }
        let r = PixelRect(covering: Rect(x: ps[0].x, y: ps[0].y, width: ps[2].x - ps[0].x, height: ps[2].y - ps[0].y))
        return r
    }
}
