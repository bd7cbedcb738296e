/// Gaussian blur of 8-bit masks, approximated by three box blurs per axis.
extension A8Mask {
    /// How far a blur of standard deviation `sigma` spreads coverage, in pixels (3σ).
    public static func blurExtent(sigma: Double) -> Int {
        sigma > 0 && sigma.isFinite ? Int((3 * sigma).rounded(.up)) : 0
    }

    /// Blurs the mask in place with a gaussian of standard deviation `sigma` (three box
    /// blurs per axis, whose variances add up to σ²). Coverage that would spread past
    /// the edges is lost, so leave a margin of `blurExtent(sigma:)` around the shape.
    public func blur(sigma: Double) {
        guard sigma > 0, sigma.isFinite, width > 0, height > 0 else { return }
        let boxes = Self.boxSizes(sigma: sigma)
        let temp = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * (width + 1))
        let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: width)
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * height)
        defer { temp.deallocate(); sums.deallocate(); copy.deallocate() }
        // Four rows at a time: the running sums are serial, four of them overlap.
        var y = 0
        while y + 4 <= height {
            for box in boxes { Self.boxBlurFourRows(row(y), stride: stride, count: width, radius: box / 2, temp: temp) }
            y += 4
        }
        while y < height {
            for box in boxes { Self.boxBlurRow(row(y), count: width, radius: box / 2, temp: temp) }
            y += 1
        }
        for box in boxes {
            copy.update(from: bytes, count: stride * height)
            boxBlurColumns(source: copy, radius: box / 2, sums: sums)
        }
    }

    /// Odd box widths for three passes approximating a gaussian of `sigma`.
    static func boxSizes(sigma: Double) -> [Int] {
        let ideal = (12 * sigma * sigma / 3 + 1).squareRoot()
        var lower = Int(ideal.rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        lower = max(1, lower)
        let l = Double(lower)
        let m = Int(((12 * sigma * sigma - 3 * l * l - 12 * l - 9) / (-4 * l - 4)).rounded())
        return (0..<3).map { $0 < m ? lower : lower + 2 }
    }

    @inline(__always)
    static func divide(_ sum: UInt32, _ reciprocal: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (UInt64(sum) * UInt64(reciprocal) + (1 << 23)) >> 24)
    }

    /// One horizontal box pass with zero outside the row.
    static func boxBlurRow(_ r: UnsafeMutablePointer<UInt8>, count: Int, radius: Int, temp: UnsafeMutablePointer<UInt8>) {
        guard radius > 0 else { return }
        temp.update(from: r, count: count)
        let reciprocal = UInt32((1 << 24) / (2 * radius + 1))
        var sum: UInt32 = 0
        for i in 0..<min(radius, count) { sum += UInt32(temp[i]) }
        for x in 0..<count {
            let add = x + radius, drop = x - radius - 1
            if add < count { sum += UInt32(temp[add]) }
            if drop >= 0 { sum -= UInt32(temp[drop]) }
            r[x] = divide(sum, reciprocal)
        }
    }

    /// `boxBlurRow` on the four rows starting at `r`, interleaved.
    static func boxBlurFourRows(_ r: UnsafeMutablePointer<UInt8>, stride: Int, count: Int, radius: Int, temp: UnsafeMutablePointer<UInt8>) {
        guard radius > 0 else { return }
        let r0 = r, r1 = r + stride, r2 = r + 2 * stride, r3 = r + 3 * stride
        let t0 = temp, t1 = temp + count, t2 = temp + 2 * count, t3 = temp + 3 * count
        t0.update(from: r0, count: count)
        t1.update(from: r1, count: count)
        t2.update(from: r2, count: count)
        t3.update(from: r3, count: count)
        let reciprocal = UInt32((1 << 24) / (2 * radius + 1))
        var s0: UInt32 = 0, s1: UInt32 = 0, s2: UInt32 = 0, s3: UInt32 = 0
        for i in 0..<min(radius, count) {
            s0 += UInt32(t0[i]); s1 += UInt32(t1[i]); s2 += UInt32(t2[i]); s3 += UInt32(t3[i])
        }
        // Left edge, middle (both ends of the window inside the row) and right edge.
        let lower = min(count, radius + 1)
        let middle = lower..<max(lower, count - radius)
        @inline(__always) func step(_ x: Int, add: Bool, drop: Bool) {
            let a = x &+ radius, d = x &- radius &- 1
            if add { s0 += UInt32(t0[a]); s1 += UInt32(t1[a]); s2 += UInt32(t2[a]); s3 += UInt32(t3[a]) }
            if drop { s0 -= UInt32(t0[d]); s1 -= UInt32(t1[d]); s2 -= UInt32(t2[d]); s3 -= UInt32(t3[d]) }
            r0[x] = divide(s0, reciprocal); r1[x] = divide(s1, reciprocal)
            r2[x] = divide(s2, reciprocal); r3[x] = divide(s3, reciprocal)
        }
        var x = 0
        while x < middle.lowerBound { step(x, add: x + radius < count, drop: x - radius - 1 >= 0); x += 1 }
        while x < middle.upperBound { step(x, add: true, drop: true); x += 1 }
        while x < count { step(x, add: x + radius < count, drop: x - radius - 1 >= 0); x += 1 }
    }

    /// One vertical box pass from `source` (a copy of the mask) into the mask, all
    /// columns at once so memory is walked row by row.
    private func boxBlurColumns(source: UnsafePointer<UInt8>, radius: Int, sums: UnsafeMutablePointer<UInt32>) {
        guard radius > 0 else { return }
        let reciprocal = UInt32((1 << 24) / (2 * radius + 1))
        sums.update(repeating: 0, count: width)
        for y in 0..<min(radius, height) {
            let s = source + y * stride
            for x in 0..<width { sums[x] += UInt32(s[x]) }
        }
        for y in 0..<height {
            let add = y + radius, drop = y - radius - 1
            let out = row(y)
            if add < height, drop >= 0 {
                // One fused loop over the row for the common case.
                let a = source + add * stride, d = source + drop * stride
                // Sixteen columns at a time. Only bits 24…31 of sum·reciprocal + 2^23 are
                // kept, so 32-bit lanes give the same bytes as `divide`'s 64 bits.
                var x = 0
                let rec = SIMD16<UInt32>(repeating: reciprocal)
                while x + 16 <= width {
                    let added = SIMD16<UInt32>(truncatingIfNeeded: UnsafeRawPointer(a + x).loadUnaligned(as: SIMD16<UInt8>.self))
                    let dropped = SIMD16<UInt32>(truncatingIfNeeded: UnsafeRawPointer(d + x).loadUnaligned(as: SIMD16<UInt8>.self))
                    let sum = UnsafeRawPointer(sums + x).loadUnaligned(as: SIMD16<UInt32>.self) &+ added &- dropped
                    UnsafeMutableRawPointer(sums + x).storeBytes(of: sum, as: SIMD16<UInt32>.self)
                    let q = (sum &* rec &+ (1 << 23)) &>> 24
                    UnsafeMutableRawPointer(out + x).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: q), as: SIMD16<UInt8>.self)
                    x += 16
                }
                while x < width {
                    let sum = sums[x] &+ UInt32(a[x]) &- UInt32(d[x])
                    sums[x] = sum
                    out[x] = Self.divide(sum, reciprocal)
                    x += 1
                }
                continue
            }
            if add < height {
                let s = source + add * stride
                for x in 0..<width { sums[x] += UInt32(s[x]) }
            }
            if drop >= 0 {
                let s = source + drop * stride
                for x in 0..<width { sums[x] -= UInt32(s[x]) }
            }
            for x in 0..<width { out[x] = Self.divide(sums[x], reciprocal) }
        }
    }
}
