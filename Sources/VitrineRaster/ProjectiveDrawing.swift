import VitrineCore

/// Drawing images through projective transforms (a layer seen in perspective).
extension Surface {
    /// Draws `image` stretched into `rect` (layer space), mapped through `projection` into
    /// device space, OVER this surface with `opacity` (0…1): perspective-correct bilinear
    /// sampling (each device pixel's centre mapped back through the inverse homography),
    /// anti-aliased edges of the projected quad, and the part of the quad at or behind the
    /// eye (w ≤ 0) left out. A projection without perspective draws as
    /// `draw(image:in:transform:)` does.
    public func draw(image: Surface, in rect: Rect, projection: ProjectiveTransform, opacity: Double = 1, clip: Clip? = nil) {
        if let affine = projection.affine {
            draw(image: image, in: rect, transform: affine, opacity: opacity, filter: .bilinear, clip: clip)
            return
        }
        guard image.width > 0, image.height > 0, !rect.isEmpty else { return }
        let o = UInt8((min(1, max(0, opacity.isNaN ? 0 : opacity)) * 255).rounded())
        guard o != 0 else { return }
        let sx = rect.size.width / Double(image.width), sy = rect.size.height / Double(image.height)
        let toLayer = AffineTransform(a: sx, b: 0, c: 0, d: sy, tx: rect.origin.x, ty: rect.origin.y)
        let toDevice = ProjectiveTransform(toLayer).concatenating(projection)
        guard let inverse = toDevice.inverted else { return }
        let area = deviceClip(clip)
        guard !area.isEmpty else { return }
        // Far-away vertices (an edge running towards the horizon) are pulled in along
        // their edge's line, well outside the clip, so that coverage stays exact.
        let whole = Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
        let quad = toDevice.clippedQuad(whole)
        guard quad.count >= 3 else { return }
        let limit = Double(max(area.width, area.height)) * 4 + 1e4
        let cx = Double(area.x + area.width / 2), cy = Double(area.y + area.height / 2)
        var outline = Path()
        for (i, p) in quad.enumerated() {
            let q = Point(x: min(cx + limit, max(cx - limit, p.x)), y: min(cy + limit, max(cy - limit, p.y)))
            if i == 0 { outline.move(to: q) } else { outline.addLine(to: q) }
        }
        outline.close()
        rasterize(outline, transform: .identity, clip: clip, shader: ProjectiveImageShader(image: image, inverse: inverse), opacity: o)
    }
}

/// Bilinear sampling through an inverse homography: per pixel one division, then the
/// same 8-bit blend as `BilinearImageShader`, eight pixels at a time.
final class ProjectiveImageShader: ImageShader {
    let image: Surface
    let inverse: ProjectiveTransform
    private let gather: UnsafeMutablePointer<UInt32>

    init(image: Surface, inverse: ProjectiveTransform) {
        self.image = image
        self.inverse = inverse
        gather = .allocate(capacity: 48)
    }

    deinit { gather.deallocate() }

    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let m = inverse
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        var (hx, hy, hw) = m.homogeneous(px, py)
        let maxX = Int64(image.width - 1), maxY = Int64(image.height - 1)
        let limit = Double(max(image.width, image.height)) + 2
        let base = image.pixels, stride = image.stride
        var i = 0
        while i < count {
            let n = min(8, count - i)
            for k in 0..<n {
                let r = hw > 0 ? 1 / hw : 0
                let u = min(limit, max(-2, hx * r - 0.5)), v = min(limit, max(-2, hy * r - 0.5))
                let fu = Int64((u * 256).rounded(.down)), fv = Int64((v * 256).rounded(.down))
                let iu = fu >> 8, iv = fv >> 8
                let x0 = Int(min(maxX, max(0, iu))), x1 = Int(min(maxX, max(0, iu + 1)))
                let r0 = base + Int(min(maxY, max(0, iv))) * stride
                let r1 = base + Int(min(maxY, max(0, iv + 1))) * stride
                gather[k] = r0[x0]
                gather[8 + k] = r0[x1]
                gather[16 + k] = r1[x0]
                gather[24 + k] = r1[x1]
                gather[32 + k] = UInt32(truncatingIfNeeded: fu & 0xFF)
                gather[40 + k] = UInt32(truncatingIfNeeded: fv & 0xFF)
                hx += m.m11
                hy += m.m12
                hw += m.m14
            }
            BilinearImageShader.blendGathered(gather, count: n, into: out + i)
            i += n
        }
    }
}
