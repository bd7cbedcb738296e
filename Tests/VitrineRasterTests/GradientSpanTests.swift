import Testing
import VitrineCore
@testable import VitrineRaster
import VitrineTestSupport

/// The gradient span loops against the obvious per-pixel versions.
@Suite struct GradientSpanTests {
    /// `ramp` equals clamping every position, for steps of either sign that start and
    /// end before, inside and past the table.
    @Test func rampEqualsPerPixelClamping() {
        let top = 1024
        let table = UnsafeMutablePointer<UInt32>.allocate(capacity: top + 1)
        defer { table.deallocate() }
        for i in 0...top { table[i] = UInt32(i) &* 2_654_435_761 }
        let out = UnsafeMutablePointer<UInt32>.allocate(capacity: 3000)
        defer { out.deallocate() }
        var rng = SplitMix(seed: 7)
        let one = Int64(1) << 32
        for trial in 0..<2000 {
            let count = Int.random(in: 1...2999, using: &rng)
            let position = Int64.random(in: -2000 * one...3000 * one, using: &rng)
            let step: Int64 =
                switch trial % 5 {
                case 0: 0
                case 1: Int64.random(in: -one / 2...one / 2, using: &rng)
                case 2: Int64.random(in: -4 * one...4 * one, using: &rng)
                case 3: Int64.random(in: -3...3, using: &rng)
                default: Int64.random(in: -one / 64...one / 64, using: &rng)
                }
            GradientShader.ramp(table, top: Int64(top), from: position, step: step, count: count, into: out)
            var p = position
            for i in 0..<count {
                let expected = table[Int(min(Int64(top), max(0, p >> 32)))]
                guard out[i] == expected else {
                    Issue.record("position \(position) step \(step) count \(count): pixel \(i) is \(out[i]), not \(expected)")
                    return
                }
                p += step
            }
        }
    }

    /// Opaque gradients are shaded straight into the surface when fully covered; the
    /// result is the same as through the scratch row and the OVER kernel.
    @Test func opaqueSpansEqualBlendedSpans() throws {
        let g = Gradient(
            colors: [Color(css: "#0f2027")!, Color(css: "#203a43")!, Color(css: "#2c5364")!],
            startPoint: Point(x: 0, y: 0), endPoint: Point(x: 1, y: 1))
        let direct = Surface(width: 700, height: 90), blended = Surface(width: 700, height: 90)
        direct.fill(Rect(x: 0, y: 0, width: 700, height: 90), gradient: g)
        // Against the shader's pixels taken in scratch-sized pieces, as the blending path
        // does (OVER an opaque pixel is that pixel).
        let shader = GradientShader(g, bounds: Rect(x: 0, y: 0, width: 700, height: 90), inverse: .identity)
        #expect(shader.isOpaque)
        let row = UnsafeMutablePointer<UInt32>.allocate(capacity: 700)
        defer { row.deallocate() }
        for y in 0..<90 {
            for x0 in stride(from: 0, to: 700, by: 256) {
                let n = min(256, 700 - x0)
                shader.shade(x: x0, y: y, count: n, into: row + x0)
            }
            for x in 0..<700 { blended.setPixel(x: x, y: y, PremultipliedColor(unchecked: row[x])) }
        }
        try GoldenImage.expectSamePixels(direct, as: blended, name: "gradient-opaque-spans", "shaded straight into the surface")
    }

    /// A gradient filled into an A8 mask leaves exactly the alpha the same fill leaves on
    /// a transparent surface: translucent and opaque ramps, whole-pixel and fractional,
    /// scaled, rotated and rounded shapes, with opacity, a clip rectangle and a clip mask.
    @Test(arguments: 0..<10)
    func alphaFillEqualsTheAlphaOfASurfaceFill(_ seed: Int) {
        var rng = SplitMix(seed: UInt64(seed))
        let colors = seed % 2 == 0 ? [Color.white, .white, Color(red: 1, green: 1, blue: 1, alpha: 0)] : [Color(css: "#0f2027")!, Color(css: "#2c5364")!]
        let kind: Gradient.Kind = [.axial, .axial, .radial, .conic][seed % 4]
        let g = Gradient(
            colors: colors, locations: colors.count == 3 ? [0, 0.875, 1] : nil, startPoint: Point(x: 0, y: 0.5), endPoint: Point(x: 1, y: 0.5), kind: kind)
        let bounds = Rect(x: 0, y: 0, width: 300, height: 90)
        let shape = seed % 3 == 0 ? Path(roundedRect: bounds, radii: CornerRadii(20)) : Path(rect: bounds)
        var transform = AffineTransform(translationX: Double(Int.random(in: -80...40, using: &rng)), y: 7)
        if seed >= 4 {
            transform = AffineTransform(rotationAngle: Double.random(in: -0.5...0.5, using: &rng)).concatenating(
                AffineTransform(translationX: transform.tx + 0.37, y: 7.61))
        }
        if seed >= 8 { transform = AffineTransform(a: 1.7, b: 0, c: 0, d: 0.8, tx: -20.3, ty: 3.4) }
        let opacity = seed % 4 == 3 ? 0.6 : 1
        var clip = Clip(rect: PixelRect(x: 5, y: 3, width: 230, height: 80))
        if seed % 2 == 1 { clip = clip.intersecting(Clip(path: Path(ellipseIn: Rect(x: 10, y: 0, width: 200, height: 100)), within: clip.rect)) }
        let surface = Surface(width: 250, height: 100)
        surface.fill(shape, gradient: g, bounds: bounds, transform: transform, opacity: opacity, clip: clip)
        let alpha = A8Mask(width: 250, height: 100)
        alpha.fill(shape, gradient: g, bounds: bounds, transform: transform, opacity: opacity, clip: clip)
        var mismatches = 0
        for y in 0..<100 {
            for x in 0..<250 where alpha[x, y] != surface.pixel(x: x, y: y).alpha { mismatches += 1 }
        }
        #expect(mismatches == 0, "seed \(seed)")
        #expect(alpha.totalCoverage > 1000)
    }
}

/// The gradient table cache: hits, eviction, and a changed gradient redrawing.
@Suite struct GradientCacheTests {
    let rect = Rect(x: 0, y: 0, width: 120, height: 60)

    func draw(_ g: Gradient, cache: GradientCache?) -> Surface {
        let s = Surface(width: 120, height: 60)
        s.fill(rect, gradient: g, cache: cache)
        return s
    }

    func gradient(_ css: String, _ locations: [Double]? = nil) -> Gradient {
        Gradient(
            colors: [Color(css: css)!, Color(css: "#2c5364")!], locations: locations,
            startPoint: Point(x: 0, y: 0), endPoint: Point(x: 1, y: 1))
    }

    @Test func sameColoursHitWithTheSamePixels() throws {
        let cache = GradientCache()
        let a = gradient("#0f2027")
        let first = draw(a, cache: cache)
        var moved = a
        moved.startPoint = Point(x: 1, y: 0)  // geometry is not part of the key
        let second = draw(moved, cache: cache)
        #expect((cache.misses, cache.hits, cache.count) == (1, 1, 1))
        try GoldenImage.expectSamePixels(first, as: draw(a, cache: nil), name: "gradient-cache-hit-1", "the first drawing")
        try GoldenImage.expectSamePixels(second, as: draw(moved, cache: nil), name: "gradient-cache-hit-2", "the moved gradient from the cache")
    }

    @Test func changedColoursOrLocationsRedraw() throws {
        let cache = GradientCache()
        let base = draw(gradient("#0f2027"), cache: cache)
        let recoloured = draw(gradient("#ff2027"), cache: cache)
        let relocated = draw(gradient("#0f2027", [0.2, 0.8]), cache: cache)
        #expect((cache.misses, cache.hits) == (3, 0))
        try GoldenImage.expectSamePixels(recoloured, as: draw(gradient("#ff2027"), cache: nil), name: "gradient-cache-recoloured", "the recoloured gradient")
        try GoldenImage.expectSamePixels(
            relocated, as: draw(gradient("#0f2027", [0.2, 0.8]), cache: nil), name: "gradient-cache-relocated", "the gradient with new locations")
        #expect(!recoloured.hasSamePixels(as: base) && !relocated.hasSamePixels(as: base))
        // Explicit even locations are the same table as none.
        _ = draw(gradient("#0f2027", [0, 1]), cache: cache)
        #expect(cache.hits == 1)
    }

    @Test func leastRecentlyUsedIsEvicted() throws {
        let cache = GradientCache(capacity: 2)
        _ = draw(gradient("#000000"), cache: cache)
        _ = draw(gradient("#111111"), cache: cache)
        _ = draw(gradient("#000000"), cache: cache)
        _ = draw(gradient("#222222"), cache: cache)  // evicts #111111
        #expect(cache.count == 2)
        #expect((cache.misses, cache.hits) == (3, 1))
        _ = draw(gradient("#000000"), cache: cache)
        #expect((cache.misses, cache.hits) == (3, 2))
        let again = draw(gradient("#111111"), cache: cache)
        #expect((cache.misses, cache.hits) == (4, 2))
        try GoldenImage.expectSamePixels(again, as: draw(gradient("#111111"), cache: nil), name: "gradient-cache-evicted", "the evicted gradient drawn again")
    }
}
