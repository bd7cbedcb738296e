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
    /// samples outside the image repeat its edge pixels. With `source` (image pixels), only
    /// that part of the image is drawn, stretched into `rect` (a sprite of a sheet, a slice
    /// of a nine-slice image).
    ///
    /// Use `ContentsGravity.rect(contentSize:bounds:)` to compute `rect` from a layer's
    /// bounds and gravity, and a clip for `masksToBounds`.
    public func draw(
        image: Surface, in rect: Rect, from source: Rect? = nil, transform: AffineTransform = .identity, opacity: Double = 1,
        filter: Filter = .automatic, clip: Clip? = nil
    ) {
        let whole = Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
        let part = source ?? whole
        guard image.width > 0, image.height > 0, !rect.isEmpty, part.width > 0, part.height > 0 else { return }
        let o = UInt8((min(1, max(0, opacity.isNaN ? 0 : opacity)) * 255).rounded())
        guard o != 0 else { return }
        // Image pixels → layer → device.
        let sx = rect.size.width / part.width, sy = rect.size.height / part.height
        let toLayer = AffineTransform(a: sx, b: 0, c: 0, d: sy, tx: rect.origin.x - part.minX * sx, ty: rect.origin.y - part.minY * sy)
        let toDevice = toLayer.concatenating(transform)
        if filter != .bilinear, toDevice.a == 1, toDevice.b == 0, toDevice.c == 0, toDevice.d == 1,
            toDevice.tx == toDevice.tx.rounded(), toDevice.ty == toDevice.ty.rounded(),
            abs(toDevice.tx) < 1e9, abs(toDevice.ty) < 1e9, part.isIntegral, part.minX >= 0, part.minY >= 0,
            part.maxX <= whole.maxX, part.maxY <= whole.maxY
        {
            let (x, y) = (Int(toDevice.tx), Int(toDevice.ty))
            let shown = PixelRect(covering: part).offsetBy(dx: x, dy: y)
            let narrowed = part == whole ? clip : (clip ?? Clip(rect: bounds)).intersecting(shown)
            composite(image, x: x, y: y, opacity: Double(o) / 255, clip: narrowed)
            return
        }
        guard let inverse = toDevice.inverted else { return }
        let outline = Path(rect: part)
        if filter == .nearest {
            rasterize(outline, transform: toDevice, clip: clip, shader: NearestImageShader(image: image, inverse: inverse), opacity: o)
        } else {
            let area = deviceClip(clip).intersection(PixelRect(covering: toDevice.boundingBox(of: outline.controlBounds)))
            guard !area.isEmpty else { return }
            let shader = BilinearImageShader(image: image, inverse: inverse, columns: area.x..<area.maxX)
            rasterize(outline, transform: toDevice, clip: clip, shader: shader, opacity: o)
        }
    }

    /// Fills `outline` with an image shader's pixels, as opaque ones where the image's
    /// alpha is not read.
    func rasterize<S: ImageShader>(_ outline: Path, transform: AffineTransform, clip: Clip?, shader: S, opacity: UInt8) {
        if shader.image.ignoresAlpha {
            rasterize(
                outline, transform: transform, clip: clip, ShaderBlitter(surface: self, shader: OpaqueShader(shader), opacity: opacity, scratch: SpanScratch()))
        } else {
            rasterize(outline, transform: transform, clip: clip, ShaderBlitter(surface: self, shader: shader, opacity: opacity, scratch: SpanScratch()))
        }
    }
}

extension Rect {
    /// Whether every edge lies on a whole number.
    var isIntegral: Bool {
        minX == minX.rounded() && minY == minY.rounded() && maxX == maxX.rounded() && maxY == maxY.rounded()
    }
}

/// A shader sampling an image.
protocol ImageShader: Shader {
    var image: Surface { get }
}

/// An image shader's pixels with their alpha set to 255: an X8R8G8B8 image's samples
/// (each channel is sampled apart, so the colour is right whatever its alpha bytes hold).
struct OpaqueShader<S: ImageShader>: Shader {
    let inner: S

    init(_ inner: S) { self.inner = inner }

    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        inner.shade(x: x, y: y, count: count, into: out)
        for i in 0..<count { out[i] |= 0xFF00_0000 }
    }

    var isOpaque: Bool { true }
    var rowsRepeat: Bool { inner.rowsRepeat }
}

/// Samples the nearest image pixel to each device pixel centre.
struct NearestImageShader: ImageShader {
    let image: Surface
    let inverse: AffineTransform

    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        var u = inverse.a * px + inverse.c * py + inverse.tx
        var v = inverse.b * px + inverse.d * py + inverse.ty
        let maxX = Double(image.width - 1), maxY = Double(image.height - 1)
        for i in 0..<count {
            // Clamp before converting: far-away (or NaN) positions must not trap.
            let ix = Int(min(maxX, max(0, u.rounded(.down)))), iy = Int(min(maxY, max(0, v.rounded(.down))))
            out[i] = image.row(iy)[ix]
            u += inverse.a
            v += inverse.b
        }
    }
}

/// Bilinear sampling with 8-bit weights (texel centres at half-integers, edges clamped).
///
/// For scales without rotation the column indices and weights are tabulated once per
/// draw, each source row is resampled horizontally once (and cached), and a device row
/// is a vertical blend of two such rows. Other transforms gather four texels
/// per pixel and blend eight pixels at a time.
final class BilinearImageShader: ImageShader {
    let image: Surface
    let inverse: AffineTransform
    private let axisAligned: Bool
    private let columns: Range<Int>
    private let left: UnsafeMutablePointer<Int32>
    private let right: UnsafeMutablePointer<Int32>
    private let weights: UnsafeMutablePointer<UInt32>
    private var scaled: (UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>)
    private var cachedRows = (-1, -1)
    private let gather: UnsafeMutablePointer<UInt32>

    /// `columns` are the device columns that will be shaded.
    init(image: Surface, inverse: AffineTransform, columns: Range<Int>) {
        self.image = image
        self.inverse = inverse
        self.columns = columns
        axisAligned = inverse.b == 0 && inverse.c == 0 && abs(inverse.a) < 1e6
        let n = axisAligned ? columns.count + 8 : 1
        left = .allocate(capacity: n)
        right = .allocate(capacity: n)
        weights = .allocate(capacity: n)
        scaled = (.allocate(capacity: n), .allocate(capacity: n))
        gather = .allocate(capacity: 48)
        if axisAligned {
            let maxX = Int64(image.width - 1)
            for i in 0..<n {
                let u = inverse.a * (Double(columns.lowerBound + i) + 0.5) + inverse.tx - 0.5
                let f = Int64((min(1e12, max(-1e12, u)) * 256).rounded())
                let x0 = f >> 8
                left[i] = Int32(min(maxX, max(0, x0)))
                right[i] = Int32(min(maxX, max(0, x0 + 1)))
                weights[i] = UInt32(f & 0xFF)
            }
        }
    }

    deinit {
        left.deallocate(); right.deallocate(); weights.deallocate()
        scaled.0.deallocate(); scaled.1.deallocate(); gather.deallocate()
    }

    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        if axisAligned, x >= columns.lowerBound, x + count <= columns.upperBound {
            shadeScaled(x: x, y: y, count: count, into: out)
        } else {
            shadeGeneral(x: x, y: y, count: count, into: out)
        }
    }

    /// Source row pair and weight for device row `y` (axis-aligned case).
    private func rows(_ y: Int) -> (Int, Int, UInt32) {
        let v = inverse.d * (Double(y) + 0.5) + inverse.ty - 0.5
        let f = Int64((min(1e12, max(-1e12, v)) * 256).rounded())
        let maxY = Int64(image.height - 1)
        let y0 = min(maxY, max(0, f >> 8)), y1 = min(maxY, max(0, (f >> 8) + 1))
        return (Int(y0), Int(y1), UInt32(f & 0xFF))
    }

    private func shadeScaled(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let (y0, y1, wy) = rows(y)
        let first = x - columns.lowerBound
        let top = scaledRow(y0) + first
        if wy == 0 {
            out.update(from: top, count: count)
        } else {
            let bottom = scaledRow(y1) + first
            Self.blendRows(top, bottom, weight: wy, count: count, into: out)
        }
    }

    /// Source row `y` resampled horizontally to every shaded column. Two rows stay
    /// cached: when scaling up, consecutive device rows fall between the same two.
    private func scaledRow(_ y: Int) -> UnsafeMutablePointer<UInt32> {
        if cachedRows.0 == y { return scaled.0 }
        if cachedRows.1 == y { return scaled.1 }
        scaled = (scaled.1, scaled.0)
        cachedRows = (y, cachedRows.0)
        let source = image.row(y), out = scaled.0
        let count = columns.count
        var i = 0
        while i + 8 <= count {
            let l = left + i, r = right + i
            let p = Kernels.P8(
                source[Int(l[0])], source[Int(l[1])], source[Int(l[2])], source[Int(l[3])],
                source[Int(l[4])], source[Int(l[5])], source[Int(l[6])], source[Int(l[7])])
            let q = Kernels.P8(
                source[Int(r[0])], source[Int(r[1])], source[Int(r[2])], source[Int(r[3])],
                source[Int(r[4])], source[Int(r[5])], source[Int(r[6])], source[Int(r[7])])
            Kernels.store(Self.lerp(p, q, Kernels.load(weights + i)), out + i)
            i += 8
        }
        while i < count {
            out[i] = Self.lerpPixel(source[Int(left[i])], source[Int(right[i])], weights[i])
            i += 1
        }
        return out
    }

    private func shadeGeneral(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        let u0 = inverse.a * px + inverse.c * py + inverse.tx - 0.5
        let v0 = inverse.b * px + inverse.d * py + inverse.ty - 0.5
        guard abs(u0) < 1e9, abs(v0) < 1e9, abs(inverse.a) < 1e4, abs(inverse.b) < 1e4 else {
            out.update(repeating: 0, count: count)
            return
        }
        // 24.8 fixed point would drift across a row; 16.16 does not.
        var u = Int64((u0 * 65536).rounded()), v = Int64((v0 * 65536).rounded())
        let du = Int64((inverse.a * 65536).rounded()), dv = Int64((inverse.b * 65536).rounded())
        let maxX = Int64(image.width - 1), maxY = Int64(image.height - 1)
        let base = image.pixels, stride = image.stride
        var i = 0
        while i < count {
            let n = min(8, count - i)
            for k in 0..<n {
                let fu = u >> 16, fv = v >> 16
                let x0 = Int(min(maxX, max(0, fu))), x1 = Int(min(maxX, max(0, fu + 1)))
                let r0 = base + Int(min(maxY, max(0, fv))) * stride
                let r1 = base + Int(min(maxY, max(0, fv + 1))) * stride
                gather[k] = r0[x0]
                gather[8 + k] = r0[x1]
                gather[16 + k] = r1[x0]
                gather[24 + k] = r1[x1]
                gather[32 + k] = UInt32(truncatingIfNeeded: (u >> 8) & 0xFF)
                gather[40 + k] = UInt32(truncatingIfNeeded: (v >> 8) & 0xFF)
                u += du
                v += dv
            }
            Self.blendGathered(gather, count: n, into: out + i)
            i += n
        }
    }

    /// Blends eight gathered texel quads — top-left, top-right, bottom-left and bottom-right
    /// texels, then x and y weights, eight lanes each in `gather` — and writes the first
    /// `n` results to `out`.
    @inline(__always)
    static func blendGathered(_ gather: UnsafeMutablePointer<UInt32>, count n: Int, into out: UnsafeMutablePointer<UInt32>) {
        let top = lerp(Kernels.load(gather), Kernels.load(gather + 8), Kernels.load(gather + 32))
        let bottom = lerp(Kernels.load(gather + 16), Kernels.load(gather + 24), Kernels.load(gather + 32))
        let result = lerp(top, bottom, Kernels.load(gather + 40))
        if n == 8 {
            Kernels.store(result, out)
        } else {
            for k in 0..<n { out[k] = result[k] }
        }
    }

    /// `a + (b − a)·w/256` per channel, rounded; `w` is 0…255 per lane.
    @inline(__always)
    static func lerp(_ a: Kernels.P8, _ b: Kernels.P8, _ w: Kernels.P8) -> Kernels.P8 {
        let wb = Kernels.widen(w), wa = 256 &- wb
        let rb = (Kernels.lowChannels(a) &* wa &+ Kernels.lowChannels(b) &* wb &+ 0x80) &>> 8
        let ag = (Kernels.highChannels(a) &* wa &+ Kernels.highChannels(b) &* wb &+ 0x80) &>> 8
        return Kernels.join(rb, ag)
    }

    @inline(__always)
    static func lerpPixel(_ a: UInt32, _ b: UInt32, _ w: UInt32) -> UInt32 {
        let wa = 256 - w
        let rb = (((a & 0x00FF_00FF) &* wa &+ (b & 0x00FF_00FF) &* w &+ 0x0080_0080) &>> 8) & 0x00FF_00FF
        let ag = ((((a &>> 8) & 0x00FF_00FF) &* wa &+ ((b &>> 8) & 0x00FF_00FF) &* w &+ 0x0080_0080) &>> 8) & 0x00FF_00FF
        return rb | (ag &<< 8)
    }

    static func blendRows(
        _ r0: UnsafePointer<UInt32>, _ r1: UnsafePointer<UInt32>, weight: UInt32, count: Int,
        into out: UnsafeMutablePointer<UInt32>
    ) {
        let w = Kernels.P8(repeating: weight)
        var i = 0
        while i + 8 <= count {
            Kernels.store(lerp(Kernels.load(r0 + i), Kernels.load(r1 + i), w), out + i)
            i += 8
        }
        while i < count { out[i] = lerpPixel(r0[i], r1[i], weight); i += 1 }
    }
}
