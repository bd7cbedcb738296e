import Testing
@testable import VitrineRaster

/// The blur's interleaved and vectorized passes against the plain definition: three
/// box passes along each row, then three down each column, zero outside the mask.
@Suite struct BlurTests {
    /// One box pass over `values` (a row or a column), as the blur defines it.
    static func box(_ values: [UInt8], radius: Int) -> [UInt8] {
        guard radius > 0 else { return values }
        let reciprocal = UInt32((1 << 24) / (2 * radius + 1))
        return values.indices.map { x in
            var sum: UInt32 = 0
            for i in max(0, x - radius)...min(values.count - 1, x + radius) { sum += UInt32(values[i]) }
            return A8Mask.divide(sum, reciprocal)
        }
    }

    static func reference(_ m: A8Mask, sigma: Double) -> [[UInt8]] {
        var rows = (0..<m.height).map { y in (0..<m.width).map { m[$0, y] } }
        let radii = A8Mask.boxSizes(sigma: sigma).map { $0 / 2 }
        for r in radii { rows = rows.map { box($0, radius: r) } }
        for r in radii {
            for x in 0..<m.width {
                let column = box(rows.map { $0[x] }, radius: r)
                for y in 0..<m.height { rows[y][x] = column[y] }
            }
        }
        return rows
    }

    @Test func matchesThePlainDefinition() {
        var rng = SplitMix(seed: 5)
        let sizes = [(1, 1), (3, 9), (17, 4), (33, 7), (40, 11), (70, 37), (5, 60)]
        for (w, h) in sizes {
            for sigma in [0.5, 1, 3, 9] {
                let m = A8Mask(width: w, height: h)
                for y in 0..<h { for x in 0..<w { m[x, y] = rng.coverage() } }
                let expected = Self.reference(m, sigma: sigma)
                m.blur(sigma: sigma)
                let actual = (0..<h).map { y in (0..<w).map { m[$0, y] } }
                #expect(actual == expected, "\(w)×\(h), σ \(sigma)")
            }
        }
    }
}
