/// Compositing kernels on raw rows of premultiplied ARGB8888 pixels.
///
/// Every multiply rounds as pixman does (`t = x·a + 0x80; (t + (t >> 8)) >> 8`), so results
/// are bit-exact with pixman's OVER and IN. The loops work on 8 pixels at a time: a
/// `SIMD8<UInt32>` split into its red/blue and alpha/green halves, each reinterpreted as
/// `SIMD16<UInt16>`, so one 16-bit multiply handles two channels of eight pixels. Wider
/// vectors and SIMD comparisons compile to scalar code, so whole-block early-outs test
/// the bits as `UInt64` lanes instead.
enum Kernels {
    typealias P8 = SIMD8<UInt32>
    typealias W16 = SIMD16<UInt16>

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt32>) -> P8 {
        UnsafeRawPointer(p).loadUnaligned(as: P8.self)
    }

    @inline(__always)
    static func store(_ v: P8, _ p: UnsafeMutablePointer<UInt32>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: P8.self)
    }

    @inline(__always)
    static func loadMask(_ m: UnsafePointer<UInt8>) -> P8 {
        P8(truncatingIfNeeded: UnsafeRawPointer(m).loadUnaligned(as: SIMD8<UInt8>.self))
    }

    /// `x·a/255` rounded per 16-bit lane. `(t + (t >> 8)) >> 8` equals `(t·257) >> 16` for
    /// the products that occur (t < 65 536); written as a widening multiply on 128-bit
    /// halves, LLVM emits a single `pmulhuw` per half.
    @inline(__always)
    static func mulDiv(_ x: W16, _ a: W16) -> W16 {
        let t = x &* a &+ 0x80
        return W16(lowHalf: div257(t.lowHalf), highHalf: div257(t.highHalf))
    }

    @inline(__always)
    static func div257(_ t: SIMD8<UInt16>) -> SIMD8<UInt16> {
        SIMD8<UInt16>(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: t) &* 257) &>> 16)
    }

    @inline(__always)
    static func lowChannels(_ p: P8) -> W16 { unsafeBitCast(p & 0x00FF_00FF, to: W16.self) }

    @inline(__always)
    static func highChannels(_ p: P8) -> W16 { unsafeBitCast((p &>> 8) & 0x00FF_00FF, to: W16.self) }

    @inline(__always)
    static func join(_ rb: W16, _ ag: W16) -> P8 {
        unsafeBitCast(rb, to: P8.self) | (unsafeBitCast(ag, to: P8.self) &<< 8)
    }

    /// Each pixel's four channels times the matching factor in `a16` (as 0x00aa00aa lanes).
    @inline(__always)
    static func scale(_ p: P8, _ a16: W16) -> P8 {
        let rb = unsafeBitCast(p & 0x00FF_00FF, to: W16.self)
        let ag = unsafeBitCast((p &>> 8) & 0x00FF_00FF, to: W16.self)
        let rbs = unsafeBitCast(mulDiv(rb, a16), to: P8.self)
        let ags = unsafeBitCast(mulDiv(ag, a16), to: P8.self)
        return rbs | (ags &<< 8)
    }

    /// Spreads 8-bit factors (one per pixel, in the low byte) to both 16-bit halves.
    @inline(__always)
    static func widen(_ a: P8) -> W16 { unsafeBitCast(a | (a &<< 16), to: W16.self) }

    @inline(__always)
    static func inverseAlpha(_ s: P8) -> W16 { widen(~s &>> 24) }

    /// `s OVER d` for eight pixels.
    @inline(__always)
    static func over(_ s: P8, _ d: P8) -> P8 { s &+ scale(d, inverseAlpha(s)) }

    @inline(__always)
    static func lanes(_ v: P8) -> SIMD4<UInt64> { unsafeBitCast(v, to: SIMD4<UInt64>.self) }

    /// True when all eight alphas are 0.
    @inline(__always)
    static func allTransparent(_ v: P8) -> Bool {
        let l = lanes(v & 0xFF00_0000)
        return (l[0] | l[1] | l[2] | l[3]) == 0
    }

    /// True when all eight alphas are 255.
    @inline(__always)
    static func allOpaque(_ v: P8) -> Bool {
        let l = lanes(v | 0x00FF_FFFF)
        return (l[0] & l[1] & l[2] & l[3]) == ~0
    }

    // MARK: Solid

    /// Stores `value` into `count` pixels (SRC), 32 pixels per iteration once aligned.
    static func fill(_ dst: UnsafeMutablePointer<UInt32>, count: Int, _ value: UInt32) {
        guard count >= 8 else {
            for i in 0..<count { dst[i] = value }
            return
        }
        // Damage rows are short (a glyph's width): unaligned 8-pixel stores at both ends
        // instead of pixel-by-pixel heads and tails, aligned ones between. The stores
        // overlap, which a fill does not mind.
        let v = P8(repeating: value)
        store(v, dst)
        store(v, dst + count - 8)
        let misalignment = Int(bitPattern: dst) & 31
        var i = misalignment == 0 ? 0 : (32 - misalignment) / 4
        while i + 32 <= count {
            store(v, dst + i); store(v, dst + i + 8); store(v, dst + i + 16); store(v, dst + i + 24)
            i += 32
        }
        while i + 8 <= count { store(v, dst + i); i += 8 }
    }

    /// `src OVER dst` for a constant premultiplied colour.
    static func overSolid(_ dst: UnsafeMutablePointer<UInt32>, count: Int, _ src: UInt32) {
        let ia = 255 &- (src &>> 24)
        if ia == 0 { fill(dst, count: count, src); return }
        if ia == 255 { return }
        let s = P8(repeating: src)
        let ia16 = W16(repeating: UInt16(ia))
        var i = 0
        while i + 8 <= count {
            store(s &+ scale(load(dst + i), ia16), dst + i)
            i += 8
        }
        while i < count { dst[i] = src &+ scalePixel(dst[i], ia); i += 1 }
    }

    /// `(src IN mask) OVER dst`: a colour through 8-bit coverage, as for glyphs and
    /// anti-aliased edges.
    static func overSolidMasked(
        _ dst: UnsafeMutablePointer<UInt32>, _ mask: UnsafePointer<UInt8>, count: Int, _ src: UInt32
    ) {
        if src >= 0xFF00_0000 {
            overSolidMasked(dst, mask, count: count, src, opaque: true)
        } else {
            overSolidMasked(dst, mask, count: count, src, opaque: false)
        }
    }

    @inline(__always)
    private static func overSolidMasked(
        _ dst: UnsafeMutablePointer<UInt32>, _ mask: UnsafePointer<UInt8>, count: Int, _ src: UInt32, opaque: Bool
    ) {
        let s = P8(repeating: src)
        let srb = lowChannels(s), sag = highChannels(s)
        let ia = W16(repeating: UInt16(255 - (src >> 24)))
        /// Eight pixels at `d` through eight coverage bytes at `m`.
        @inline(__always) func block(_ d: UnsafeMutablePointer<UInt32>, _ m: UnsafePointer<UInt8>) {
            let bits = UnsafeRawPointer(m).loadUnaligned(as: UInt64.self)
            if bits == 0 { return }
            if bits == ~0 {
                // Full coverage: the colour itself (x·255/255 rounds back to x).
                store(opaque ? s : s &+ scale(load(d), ia), d)
                return
            }
            let m16 = widen(loadMask(m))
            let smrb = mulDiv(srb, m16), smag = mulDiv(sag, m16)
            // An opaque colour's alpha through coverage m is m itself.
            let ia16 = opaque ? 255 &- m16 : widen(255 &- (unsafeBitCast(smag, to: P8.self) &>> 16))
            let old = load(d)
            let rb = smrb &+ mulDiv(lowChannels(old), ia16)
            let ag = smag &+ mulDiv(highChannels(old), ia16)
            store(join(rb, ag), d)
        }
        var i = 0
        while i + 16 <= count {
            block(dst + i, mask + i)
            block(dst + i + 8, mask + i + 8)
            i += 16
        }
        if i + 8 <= count { block(dst + i, mask + i); i += 8 }
        let rest = count - i
        guard rest > 0 else { return }
        // The last pixels of a glyph row go through one block too, on copies padded with
        // no coverage; only they are written back.
        var tailMask: UInt64 = 0
        withUnsafeMutableBytes(of: &tailMask) { $0.baseAddress!.copyMemory(from: mask + i, byteCount: rest) }
        if tailMask == 0 { return }
        var tail = P8()
        withUnsafeMutableBytes(of: &tail) { t in
            t.baseAddress!.copyMemory(from: dst + i, byteCount: rest * 4)
            withUnsafeBytes(of: &tailMask) { m in
                block(t.baseAddress!.assumingMemoryBound(to: UInt32.self), m.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            UnsafeMutableRawPointer(dst + i).copyMemory(from: t.baseAddress!, byteCount: rest * 4)
        }
    }

    // MARK: Images

    /// `src` with every alpha byte set to 255 (X8R8G8B8 read as opaque) into `dst`.
    static func copyOpaque(_ dst: UnsafeMutablePointer<UInt32>, _ src: UnsafePointer<UInt32>, count: Int) {
        for i in 0..<count { dst[i] = src[i] | 0xFF00_0000 }
    }

    /// `(src IN opacity) OVER dst` for a row of premultiplied pixels; `opacity` is 0…255.
    static func overImage(
        _ dst: UnsafeMutablePointer<UInt32>, _ src: UnsafePointer<UInt32>, count: Int, opacity: UInt32
    ) {
        var i = 0
        if opacity >= 255 {
            while i + 8 <= count {
                let s = load(src + i)
                if allOpaque(s) {
                    store(s, dst + i)
                } else if !allTransparent(s) {
                    store(over(s, load(dst + i)), dst + i)
                }
                i += 8
            }
            while i < count { dst[i] = overPixel(src[i], dst[i]); i += 1 }
        } else {
            if opacity == 0 { return }
            let o16 = W16(repeating: UInt16(opacity))
            while i + 8 <= count {
                let s = load(src + i)
                if !allTransparent(s) {
                    store(over(scale(s, o16), load(dst + i)), dst + i)
                }
                i += 8
            }
            while i < count { dst[i] = overPixel(scalePixel(src[i], opacity), dst[i]); i += 1 }
        }
    }

    /// `(src IN mask) OVER dst` with per-pixel coverage: shaded spans (gradients,
    /// transformed images) through anti-aliased edges.
    static func overImageMasked(
        _ dst: UnsafeMutablePointer<UInt32>, _ src: UnsafePointer<UInt32>, _ mask: UnsafePointer<UInt8>,
        count: Int
    ) {
        var i = 0
        while i + 8 <= count {
            let bits = UnsafeRawPointer(mask + i).loadUnaligned(as: UInt64.self)
            if bits != 0 {
                var s = load(src + i)
                if bits != ~0 { s = scale(s, widen(loadMask(mask + i))) }
                if allOpaque(s) {
                    store(s, dst + i)
                } else if !allTransparent(s) {
                    store(over(s, load(dst + i)), dst + i)
                }
            }
            i += 8
        }
        while i < count {
            let m = UInt32(mask[i])
            if m != 0 { dst[i] = overPixel(scalePixel(src[i], m), dst[i]) }
            i += 1
        }
    }

    /// The alphas of `count` premultiplied pixels times `scale` (0…255), rounded as `scale`
    /// rounds, as bytes.
    static func alpha(of src: UnsafePointer<UInt32>, scaledBy scale: UInt32, into dst: UnsafeMutablePointer<UInt8>, count: Int) {
        var i = 0
        if scale >= 255 {
            while i + 8 <= count {
                UnsafeMutableRawPointer(dst + i).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: load(src + i) &>> 24), as: SIMD8<UInt8>.self)
                i += 8
            }
            while i < count { dst[i] = UInt8(truncatingIfNeeded: src[i] >> 24); i += 1 }
            return
        }
        while i < count { dst[i] = UInt8(truncatingIfNeeded: mulDiv255(src[i] >> 24, scale)); i += 1 }
    }

    /// `dst = dst · mask` per byte, for intersecting coverage (clip masks).
    static func multiplyMask(_ dst: UnsafeMutablePointer<UInt8>, _ mask: UnsafePointer<UInt8>, count: Int) {
        for i in 0..<count { dst[i] = UInt8(truncatingIfNeeded: mulDiv255(UInt32(dst[i]), UInt32(mask[i]))) }
    }
}
