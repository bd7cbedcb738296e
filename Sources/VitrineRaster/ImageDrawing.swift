import VitrineCore

/// Drawing images through affine transforms.
extension Surface {
    /// How an image is sampled when drawn.
    public enum Filter: Sendable {
        /// Bilinear, except nearest when the image lands pixel for pixel (an integer
        /// translation), where both agree.
        case automatic
        case nearest
        case bilinear
    }

    /// Draws `image` stretched into `rect` (layer space), mapped through `transform` into
    /// device space, OVER this surface with `opacity` (0…1). Edges are anti-aliased;
    /// samples outside the image repeat its edge pixels.
    ///
    /// Use `ContentsGravity.rect(contentSize:bounds:)` to compute `rect` from a layer's
    /// bounds and gravity, and a clip for `masksToBounds`.
    public func draw(
        image: Surface, in rect: Rect, transform: AffineTransform = .identity, opacity: Double = 1,
        filter: Filter = .automatic, clip: Clip? = nil
    ) {
        guard image.width > 0, image.height > 0, !rect.isEmpty else { return }
        let o = UInt8((min(1, max(0, opacity.isNaN ? 0 : opacity)) * 255).rounded())
        guard o != 0 else { return }
        // Image pixels → layer → device.
        let toLayer = AffineTransform(
            a: rect.size.width / Double(image.width), b: 0, c: 0, d: rect.size.height / Double(image.height),
            tx: rect.origin.x, ty: rect.origin.y)
        let toDevice = toLayer.concatenating(transform)
        if filter != .bilinear, toDevice.a == 1, toDevice.b == 0, toDevice.c == 0, toDevice.d == 1,
            toDevice.tx == toDevice.tx.rounded(), toDevice.ty == toDevice.ty.rounded(),
            abs(toDevice.tx) < 1e9, abs(toDevice.ty) < 1e9
        {
            composite(image, x: Int(toDevice.tx), y: Int(toDevice.ty), opacity: Double(o) / 255, clip: clip)
            return
        }
        guard let inverse = toDevice.inverted else { return }
        let outline = Path(rect: Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height)))
        let capacity = 256
        let scratch = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        defer { scratch.deallocate() }
        if filter == .nearest {
            let shader = NearestImageShader(image: image, inverse: inverse)
            let b = ShaderBlitter(surface: self, shader: shader, opacity: o, scratch: scratch, capacity: capacity)
            rasterize(outline, transform: toDevice, clip: clip, b)
        } else {
            let shader = BilinearImageShader(image: image, inverse: inverse)
            let b = ShaderBlitter(surface: self, shader: shader, opacity: o, scratch: scratch, capacity: capacity)
            rasterize(outline, transform: toDevice, clip: clip, b)
        }
    }
}

/// Samples the nearest image pixel to each device pixel centre.
struct NearestImageShader: Shader {
    let image: Surface
    let inverse: AffineTransform

    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        var u = inverse.a * px + inverse.c * py + inverse.tx
        var v = inverse.b * px + inverse.d * py + inverse.ty
        let maxX = image.width - 1, maxY = image.height - 1
        for i in 0..<count {
            let ix = min(maxX, max(0, Int(u.rounded(.down)))), iy = min(maxY, max(0, Int(v.rounded(.down))))
            out[i] = image.row(iy)[ix]
            u += inverse.a
            v += inverse.b
        }
    }
}

/// Bilinear sampling with 8-bit weights (texel centres at half-integers, edges clamped),
/// eight pixels at a time.
struct BilinearImageShader: Shader {
    let image: Surface
    let inverse: AffineTransform

    /// 16.16 fixed point keeps stepping exact enough across a 4K row.
    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        let u0 = inverse.a * px + inverse.c * py + inverse.tx - 0.5
        let v0 = inverse.b * px + inverse.d * py + inverse.ty - 0.5
        let limit = 1e9
        guard abs(u0) < limit, abs(v0) < limit, abs(inverse.a) < 1e4, abs(inverse.b) < 1e4 else {
            for i in 0..<count { out[i] = 0 }
            return
        }
        var u = Int64((u0 * 65536).rounded()), v = Int64((v0 * 65536).rounded())
        let du = Int64((inverse.a * 65536).rounded()), dv = Int64((inverse.b * 65536).rounded())
        let maxX = Int64(image.width - 1), maxY = Int64(image.height - 1)
        let base = image.pixels, stride = image.stride
        var p00 = Kernels.P8(), p01 = Kernels.P8(), p10 = Kernels.P8(), p11 = Kernels.P8()
        var wx = Kernels.P8(), wy = Kernels.P8()
        var i = 0
        while i < count {
            let n = min(8, count - i)
            for k in 0..<n {
                let fu = u >> 16, fv = v >> 16
                let x0 = min(maxX, max(0, fu)), x1 = min(maxX, max(0, fu + 1))
                let y0 = min(maxY, max(0, fv)), y1 = min(maxY, max(0, fv + 1))
                let r0 = base + Int(y0) * stride, r1 = base + Int(y1) * stride
                p00[k] = r0[Int(x0)]; p01[k] = r0[Int(x1)]
                p10[k] = r1[Int(x0)]; p11[k] = r1[Int(x1)]
                wx[k] = UInt32(truncatingIfNeeded: (u >> 8) & 0xFF)
                wy[k] = UInt32(truncatingIfNeeded: (v >> 8) & 0xFF)
                u += du
                v += dv
            }
            let result = Self.blend(p00, p01, p10, p11, wx, wy)
            if n == 8 {
                Kernels.store(result, out + i)
            } else {
                for k in 0..<n { out[i + k] = result[k] }
            }
            i += n
        }
    }

    /// Weighted mean of four pixels per lane; weights are 0…255 out of 256.
    @inline(__always)
    static func blend(
        _ p00: Kernels.P8, _ p01: Kernels.P8, _ p10: Kernels.P8, _ p11: Kernels.P8, _ wx: Kernels.P8, _ wy: Kernels.P8
    ) -> Kernels.P8 {
        let x1 = Kernels.widen(wx), x0 = 256 &- x1
        let y1 = Kernels.widen(wy), y0 = 256 &- y1
        @inline(__always) func lerp(_ a: Kernels.P8, _ b: Kernels.P8, _ wa: Kernels.W16, _ wb: Kernels.W16) -> Kernels.P8 {
            let arb = unsafeBitCast(a & 0x00FF_00FF, to: Kernels.W16.self)
            let aag = unsafeBitCast((a &>> 8) & 0x00FF_00FF, to: Kernels.W16.self)
            let brb = unsafeBitCast(b & 0x00FF_00FF, to: Kernels.W16.self)
            let bag = unsafeBitCast((b &>> 8) & 0x00FF_00FF, to: Kernels.W16.self)
            let rb = (arb &* wa &+ brb &* wb &+ 0x80) &>> 8
            let ag = (aag &* wa &+ bag &* wb &+ 0x80) &>> 8
            return unsafeBitCast(rb, to: Kernels.P8.self) | (unsafeBitCast(ag, to: Kernels.P8.self) &<< 8)
        }
        let top = lerp(p00, p01, x0, x1)
        let bottom = lerp(p10, p11, x0, x1)
        return lerp(top, bottom, y0, y1)
    }
}
