import VitrineCore
import VitrineRaster

extension Surface {
    /// Draws `frame` into `rect` (layer coordinates) through `transform`, converting its
    /// Y′CbCr to BGRA as it goes: where the frame lands upright (scaled and moved, opaque,
    /// clipped to a rectangle), each device pixel in the clip is converted and written
    /// once — 1:1 with the chroma of each pair of pixels shared, scaled with the luma and
    /// the chroma sampled bilinearly (chroma sited as MPEG-2's 4:2:0: beside the even luma
    /// column, between two luma rows). Elsewhere the frame is converted whole and drawn as
    /// an image. Video is opaque: the pixels under it are replaced, not blended.
    public func draw(yuv frame: YUVFrame, in rect: Rect, transform: AffineTransform = .identity, opacity: Double = 1, clip: Clip? = nil) {
        guard frame.width > 1, frame.height > 1, !rect.isEmpty else { return }
        let toDevice = AffineTransform(
            a: rect.width / Double(frame.width), b: 0, c: 0, d: rect.height / Double(frame.height), tx: rect.minX, ty: rect.minY
        ).concatenating(transform)
        guard toDevice.b == 0, toDevice.c == 0, toDevice.a > 0, toDevice.d > 0, opacity >= 1, clip?.mask == nil else {
            guard opacity > 0 else { return }
            draw(image: frame.converted(), in: rect, transform: transform, opacity: opacity, clip: clip)
            return
        }
        let edges = (
            x0: (toDevice.tx).rounded(), y0: (toDevice.ty).rounded(),
            x1: (toDevice.tx + toDevice.a * Double(frame.width)).rounded(), y1: (toDevice.ty + toDevice.d * Double(frame.height)).rounded()
        )
        guard edges.x0 < edges.x1, edges.y0 < edges.y1, abs(edges.x0) < 1e9, abs(edges.y0) < 1e9, edges.x1 < 1e9, edges.y1 < 1e9 else { return }
        let area = PixelRect(x: Int(edges.x0), y: Int(edges.y0), width: Int(edges.x1 - edges.x0), height: Int(edges.y1 - edges.y0))
            .intersection(clip?.rect.intersection(bounds) ?? bounds)
        guard !area.isEmpty else { return }
        if toDevice.a == 1, toDevice.d == 1, toDevice.tx == edges.x0, toDevice.ty == edges.y0 {
            YUVKernels.copy(frame, into: self, area: area, dx: Int(edges.x0), dy: Int(edges.y0))
        } else {
            YUVKernels.scale(frame, into: self, area: area, transform: toDevice)
        }
    }
}

/// The conversion kernels: eight pixels at a time in `SIMD8<Float>`, so that the matrix is
/// exact to the rounding of each channel and one formula serves every path.
enum YUVKernels {
    typealias F8 = SIMD8<Float>

    struct Matrix {
        let y, rv, gu, gv, bu, black: Float

        init(_ frame: YUVFrame) { (y, rv, gu, gv, bu, black) = frame.matrix.factors(fullRange: frame.fullRange) }

        /// Eight opaque BGRA pixels from luma and centred chroma (U − 128, V − 128).
        @inline(__always)
        func pixels(_ luma: F8, _ u: F8, _ v: F8) -> SIMD8<UInt32> {
            let l = (luma - black) * y
            let r = channel(l + v * rv), g = channel(l + u * gu + v * gv), b = channel(l + u * bu)
            return 0xFF00_0000 | (r &<< 16) | (g &<< 8) | b
        }

        @inline(__always)
        func channel(_ x: F8) -> SIMD8<UInt32> {
            SIMD8<UInt32>(truncatingIfNeeded: SIMD8<Int32>(x.clamped(lowerBound: F8(repeating: 0), upperBound: F8(repeating: 255)) + 0.5))
        }
    }

    @inline(__always)
    static func floats(_ bytes: SIMD8<UInt8>) -> F8 { F8(SIMD8<Int32>(truncatingIfNeeded: bytes)) }

    /// The frame drawn 1:1 with its top-left corner at (`dx`, `dy`), into `area` (inside both).
    static func copy(_ frame: YUVFrame, into surface: Surface, area: PixelRect, dx: Int, dy: Int) {
        let m = Matrix(frame)
        let step = frame.chromaStep
        for y in area.y..<area.maxY {
            let sy = y - dy
            let lumaRow = frame.luma + sy * frame.lumaStride
            let uRow = frame.u + (sy >> 1) * frame.uStride, vRow = frame.v + (sy >> 1) * frame.vStride
            let out = surface.pixels + y * surface.stride
            var x = area.x
            func one(_ x: Int) {
                let sx = x - dx, c = (sx >> 1) * step
                out[x] = m.pixels(F8(repeating: Float(lumaRow[sx])), F8(repeating: Float(uRow[c]) - 128), F8(repeating: Float(vRow[c]) - 128))[0]
            }
            if (x - dx) & 1 == 1 {
                one(x)
                x += 1
            }
            while x + 8 <= area.maxX {
                let sx = x - dx, c = sx >> 1
                let luma = floats(UnsafeRawPointer(lumaRow + sx).loadUnaligned(as: SIMD8<UInt8>.self))
                var u4: SIMD4<UInt8>, v4: SIMD4<UInt8>
                if step == 2 {
                    let both = UnsafeRawPointer(uRow + 2 * c).loadUnaligned(as: SIMD8<UInt8>.self)
                    (u4, v4) = (both.evenHalf, both.oddHalf)
                } else {
                    u4 = UnsafeRawPointer(uRow + c).loadUnaligned(as: SIMD4<UInt8>.self)
                    v4 = UnsafeRawPointer(vRow + c).loadUnaligned(as: SIMD4<UInt8>.self)
                }
                let u = floats(SIMD8(u4[0], u4[0], u4[1], u4[1], u4[2], u4[2], u4[3], u4[3])) - 128
                let v = floats(SIMD8(v4[0], v4[0], v4[1], v4[1], v4[2], v4[2], v4[3], v4[3])) - 128
                UnsafeMutableRawPointer(out + x).storeBytes(of: m.pixels(luma, u, v), as: SIMD8<UInt32>.self)
                x += 8
            }
            while x < area.maxX {
                one(x)
                x += 1
            }
        }
    }

    /// Where one device pixel's centre falls between two samples of a plane: the first
    /// sample, the second (clamped to the plane) and the second's weight.
    struct Tap {
        var first: Int32, second: Int32, weight: Float

        /// `position` in samples of a plane `count` long, clamped to its first and last.
        init(_ position: Double, count: Int) {
            let p = min(max(position, 0), Double(count - 1))
            let f = p.rounded(.down)
            (first, second, weight) = (Int32(f), Int32(min(Int(f) + 1, count - 1)), Float(p - f))
        }
    }

    /// The frame drawn scaled by `transform` (a positive scale and a move), into `area`.
    static func scale(_ frame: YUVFrame, into surface: Surface, area: PixelRect, transform t: AffineTransform) {
        let m = Matrix(frame)
        let step = Int32(frame.chromaStep)
        let (cw, ch) = ((frame.width + 1) / 2, (frame.height + 1) / 2)
        let columns = (area.x..<area.maxX).map { x -> (luma: Tap, chroma: Tap) in
            let s = (Double(x) + 0.5 - t.tx) / t.a - 0.5
            return (Tap(s, count: frame.width), Tap(s / 2, count: cw))
        }
        let count = area.width
        let lanes = (count + 7) & ~7
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 3 * lanes)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: 128, count: 3 * lanes)
        let (ys, us, vs) = (buffer, buffer + lanes, buffer + 2 * lanes)
        for y in area.y..<area.maxY {
            let s = (Double(y) + 0.5 - t.ty) / t.d - 0.5
            let ly = Tap(s, count: frame.height), cy = Tap((s + 0.5) / 2 - 0.5, count: ch)
            let (l0, l1) = (frame.luma + Int(ly.first) * frame.lumaStride, frame.luma + Int(ly.second) * frame.lumaStride)
            let (u0, u1) = (frame.u + Int(cy.first) * frame.uStride, frame.u + Int(cy.second) * frame.uStride)
            let (v0, v1) = (frame.v + Int(cy.first) * frame.vStride, frame.v + Int(cy.second) * frame.vStride)
            for (i, column) in columns.enumerated() {
                let (a, b, w) = (Int(column.luma.first), Int(column.luma.second), column.luma.weight)
                ys[i] = lerp(lerp(Float(l0[a]), Float(l0[b]), w), lerp(Float(l1[a]), Float(l1[b]), w), ly.weight)
                let (ca, cb, cw) = (Int(column.chroma.first * step), Int(column.chroma.second * step), column.chroma.weight)
                us[i] = lerp(lerp(Float(u0[ca]), Float(u0[cb]), cw), lerp(Float(u1[ca]), Float(u1[cb]), cw), cy.weight) - 128
                vs[i] = lerp(lerp(Float(v0[ca]), Float(v0[cb]), cw), lerp(Float(v1[ca]), Float(v1[cb]), cw), cy.weight) - 128
            }
            let out = surface.pixels + y * surface.stride + area.x
            var i = 0
            while i < lanes {
                let p = m.pixels(load(ys + i), load(us + i), load(vs + i))
                if i + 8 <= count {
                    UnsafeMutableRawPointer(out + i).storeBytes(of: p, as: SIMD8<UInt32>.self)
                } else {
                    for k in 0..<(count - i) { out[i + k] = p[k] }
                }
                i += 8
            }
        }
    }

    @inline(__always)
    static func lerp(_ a: Float, _ b: Float, _ w: Float) -> Float { a + (b - a) * w }

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> F8 { UnsafeRawPointer(p).loadUnaligned(as: F8.self) }
}
