/// The seam between coverage and pixels: the rasterizer describes what it covers as spans
/// and rectangles, and a blitter decides what those pixels become (a colour, a gradient,
/// an image, or bytes of a mask). Coordinates are device pixels, already clipped.
protocol Blitter {
    /// A horizontal run of `width` pixels, all with the same coverage (1…255).
    mutating func blitH(x: Int, y: Int, width: Int, coverage: UInt8)
    /// A horizontal run with one coverage byte per pixel.
    mutating func blitAntiH(x: Int, y: Int, coverage: UnsafePointer<UInt8>, count: Int)
    /// A fully covered rectangle.
    mutating func blitRect(_ rect: PixelRect)
    /// Pixels covered by `mask` (positioned by its origin), restricted to `clip`.
    mutating func blitMask(_ mask: A8Mask, clip: PixelRect)
}

extension Blitter {
    mutating func blitRect(_ rect: PixelRect) {
        for y in rect.y..<rect.maxY { blitH(x: rect.x, y: y, width: rect.width, coverage: 255) }
    }

    mutating func blitMask(_ mask: A8Mask, clip: PixelRect) {
        let r = mask.frame.intersection(clip)
        guard !r.isEmpty else { return }
        for y in r.y..<r.maxY {
            let m = mask.row(y - mask.originY) + (r.x - mask.originX)
            blitAntiH(x: r.x, y: y, coverage: m, count: r.width)
        }
    }
}

/// Paints a premultiplied colour OVER (or, with `.source` and full coverage, replacing)
/// the destination.
struct SolidBlitter: Blitter {
    let surface: Surface
    let color: UInt32

    init(surface: Surface, color: PremultipliedColor) {
        self.surface = surface
        self.color = color.argb
    }

    mutating func blitH(x: Int, y: Int, width: Int, coverage: UInt8) {
        let src = coverage == 255 ? color : scalePixel(color, UInt32(coverage))
        Kernels.overSolid(surface.row(y) + x, count: width, src)
    }

    mutating func blitAntiH(x: Int, y: Int, coverage: UnsafePointer<UInt8>, count: Int) {
        Kernels.overSolidMasked(surface.row(y) + x, coverage, count: count, color)
    }

    mutating func blitRect(_ rect: PixelRect) {
        guard !rect.isEmpty else { return }
        // Rows of damage are short and many: the row pointer steps by the stride, and an
        // opaque colour goes straight to the fill.
        var row = surface.row(rect.y) + rect.x
        let stride = surface.stride
        if color >= 0xFF00_0000 {
            for _ in 0..<rect.height { Kernels.fill(row, count: rect.width, color); row += stride }
        } else {
            for _ in 0..<rect.height { Kernels.overSolid(row, count: rect.width, color); row += stride }
        }
    }
}

/// Produces premultiplied source pixels for a run of device pixels: gradients and
/// transformed images.
protocol Shader {
    /// Writes `count` pixels for device row `y` starting at column `x` into `out`.
    func shade(x: Int, y: Int, count: Int, into out: UnsafeMutablePointer<UInt32>)
    /// True when every pixel `shade` writes is opaque, so that fully covered spans can
    /// be shaded straight into the destination.
    var isOpaque: Bool { get }
    /// True when `shade` writes the same pixels for a span on every row.
    var rowsRepeat: Bool { get }
}

extension Shader {
    var isOpaque: Bool { false }
    var rowsRepeat: Bool { false }
}

/// Paints a shader's pixels OVER the destination through the coverage.
struct ShaderBlitter<S: Shader>: Blitter {
    let surface: Surface
    let shader: S
    let opacity: UInt32
    private let row: UnsafeMutablePointer<UInt32>
    private let faded: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// Owns `row` and `faded`: kept for as long as the blitter is.
    private let scratch: SpanScratch

    init(surface: Surface, shader: S, opacity: UInt8, scratch: SpanScratch) {
        self.surface = surface
        self.shader = shader
        self.opacity = UInt32(opacity)
        self.scratch = scratch
        row = scratch.pixels
        faded = scratch.coverage
        capacity = scratch.capacity
    }

    mutating func blitH(x: Int, y: Int, width: Int, coverage: UInt8) {
        let o = mulDiv255(opacity, UInt32(coverage))
        if o == 255, shader.isOpaque {
            // Opaque OVER is a copy: no scratch row, no blending.
            shader.shade(x: x, y: y, count: width, into: surface.row(y) + x)
            return
        }
        var done = 0
        while done < width {
            let n = min(capacity, width - done)
            shader.shade(x: x + done, y: y, count: n, into: row)
            Kernels.overImage(surface.row(y) + x + done, row, count: n, opacity: o)
            done += n
        }
    }

    mutating func blitAntiH(x: Int, y: Int, coverage: UnsafePointer<UInt8>, count: Int) {
        var done = 0
        while done < count {
            let n = min(capacity, count - done)
            shader.shade(x: x + done, y: y, count: n, into: row)
            var cover = coverage + done
            if opacity != 255 {
                for i in 0..<n { faded[i] = UInt8(truncatingIfNeeded: mulDiv255(UInt32(cover[i]), opacity)) }
                cover = UnsafePointer(faded)
            }
            Kernels.overImageMasked(surface.row(y) + x + done, row, cover, count: n)
            done += n
        }
    }
}

/// Writes the alpha a shader's pixels through the coverage leave on a transparent
/// surface (what `ShaderBlitter` draws there, alpha only) into an A8 mask, mask-local.
struct ShaderAlphaBlitter<S: Shader>: Blitter {
    let mask: A8Mask
    let shader: S
    let opacity: UInt32
    private let row: UnsafeMutablePointer<UInt32>
    private let faded: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private let scratch: SpanScratch
    /// The last span `blitH` shaded.
    private var last = (x: 0, y: Int.min, width: 0, o: UInt32(0))

    init(mask: A8Mask, shader: S, opacity: UInt8, scratch: SpanScratch) {
        self.mask = mask
        self.shader = shader
        self.opacity = UInt32(opacity)
        self.scratch = scratch
        row = scratch.pixels
        faded = scratch.coverage
        capacity = scratch.capacity
    }

    mutating func blitH(x: Int, y: Int, width: Int, coverage: UInt8) {
        let o = mulDiv255(opacity, UInt32(coverage))
        let out = mask.row(y) + x
        if o == 255, shader.isOpaque {
            out.update(repeating: 255, count: width)
            return
        }
        if shader.rowsRepeat, last == (x, y - 1, width, o) {
            // The same span one row down: the same bytes.
            out.update(from: out - mask.stride, count: width)
            last.y = y
            return
        }
        last = (x, y, width, o)
        var done = 0
        while done < width {
            let n = min(capacity, width - done)
            shader.shade(x: x + done, y: y, count: n, into: row)
            Kernels.alpha(of: row, scaledBy: o, into: out + done, count: n)
            done += n
        }
    }

    mutating func blitAntiH(x: Int, y: Int, coverage: UnsafePointer<UInt8>, count: Int) {
        let out = mask.row(y) + x
        var done = 0
        while done < count {
            let n = min(capacity, count - done)
            shader.shade(x: x + done, y: y, count: n, into: row)
            let cover = coverage + done, dst = out + done
            for i in 0..<n {
                let c = opacity == 255 ? UInt32(cover[i]) : mulDiv255(UInt32(cover[i]), opacity)
                dst[i] = UInt8(truncatingIfNeeded: mulDiv255(row[i] >> 24, c))
            }
            done += n
        }
    }

    mutating func blitRect(_ rect: PixelRect) {
        for y in rect.y..<rect.maxY { blitH(x: rect.x, y: y, width: rect.width, coverage: 255) }
    }
}

/// Scratch rows for shaded spans: pixels from the shader and coverage scaled by opacity.
/// Spans longer than `capacity` are shaded in pieces.
final class SpanScratch {
    let capacity: Int
    let pixels: UnsafeMutablePointer<UInt32>
    let coverage: UnsafeMutablePointer<UInt8>

    init(capacity: Int = 256) {
        self.capacity = capacity
        pixels = .allocate(capacity: capacity)
        coverage = .allocate(capacity: capacity)
    }

    deinit {
        pixels.deallocate()
        coverage.deallocate()
    }
}

/// Writes coverage into an A8 mask (max with what is there), for clip masks and shadows.
struct MaskBlitter: Blitter {
    let mask: A8Mask

    mutating func blitH(x: Int, y: Int, width: Int, coverage: UInt8) {
        let r = mask.row(y - mask.originY) + (x - mask.originX)
        for i in 0..<width { r[i] = max(r[i], coverage) }
    }

    mutating func blitAntiH(x: Int, y: Int, coverage: UnsafePointer<UInt8>, count: Int) {
        let r = mask.row(y - mask.originY) + (x - mask.originX)
        for i in 0..<count { r[i] = max(r[i], coverage[i]) }
    }
}

/// Multiplies another blitter's coverage by a clip mask.
struct MaskClipBlitter<Inner: Blitter>: Blitter {
    var inner: Inner
    let clip: A8Mask
    private let scratch: UnsafeMutablePointer<UInt8>

    /// `scratch` must hold at least `clip.width` bytes.
    init(_ inner: Inner, clip: A8Mask, scratch: UnsafeMutablePointer<UInt8>) {
        self.inner = inner
        self.clip = clip
        self.scratch = scratch
    }

    mutating func blitH(x: Int, y: Int, width: Int, coverage: UInt8) {
        let m = clip.row(y - clip.originY) + (x - clip.originX)
        if coverage == 255 {
            inner.blitAntiH(x: x, y: y, coverage: m, count: width)
            return
        }
        let c = UInt32(coverage)
        for i in 0..<width { scratch[i] = UInt8(truncatingIfNeeded: mulDiv255(UInt32(m[i]), c)) }
        inner.blitAntiH(x: x, y: y, coverage: scratch, count: width)
    }

    mutating func blitAntiH(x: Int, y: Int, coverage: UnsafePointer<UInt8>, count: Int) {
        let m = clip.row(y - clip.originY) + (x - clip.originX)
        scratch.update(from: coverage, count: count)
        Kernels.multiplyMask(scratch, m, count: count)
        inner.blitAntiH(x: x, y: y, coverage: scratch, count: count)
    }

    mutating func blitRect(_ rect: PixelRect) {
        for y in rect.y..<rect.maxY { blitH(x: rect.x, y: y, width: rect.width, coverage: 255) }
    }
}
