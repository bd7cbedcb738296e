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
        let temp = UnsafeMutablePointer<UInt8>.allocate(capacity: max(width, height) + 1)
        let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: width)
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * height)
        defer { temp.deallocate(); sums.deallocate(); copy.deallocate() }
        for box in boxes {
            for y in 0..<height { Self.boxBlurRow(row(y), count: width, radius: box / 2, temp: temp) }
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
            if add < height {
                let s = source + add * stride
                for x in 0..<width { sums[x] += UInt32(s[x]) }
            }
            if drop >= 0 {
                let s = source + drop * stride
                for x in 0..<width { sums[x] -= UInt32(s[x]) }
            }
            let out = row(y)
            for x in 0..<width { out[x] = Self.divide(sums[x], reciprocal) }
        }
    }
}
