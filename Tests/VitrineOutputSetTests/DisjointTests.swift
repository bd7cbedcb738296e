import Testing
@testable import VitrineOutputSet
import VitrineRaster
import VitrineTestSupport

/// The frame pipeline paints each damaged pixel once: `disjoint` must cover exactly the
/// pixels of the rectangles it is given, with no two pieces overlapping.
@Suite struct DisjointTests {
    @Test(arguments: 0..<40)
    func piecesCoverTheSamePixelsOnce(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed))
        let size = 48
        let rects = (0..<Int.random(in: 0...12, using: &random)).map { _ in
            PixelRect(
                x: Int.random(in: -4..<size, using: &random), y: Int.random(in: -4..<size, using: &random),
                width: Int.random(in: -2...24, using: &random), height: Int.random(in: -2...24, using: &random))
        }
        var wanted = [Bool](repeating: false, count: (size + 28) * (size + 28))
        var painted = [Int](repeating: 0, count: wanted.count)
        func forEachPixel(_ r: PixelRect, _ body: (Int) -> Void) {
            guard !r.isEmpty else { return }
            for y in r.y..<r.maxY { for x in r.x..<r.maxX { body((y + 4) * (size + 28) + x + 4) } }
        }
        for r in rects { forEachPixel(r) { wanted[$0] = true } }
        let pieces = disjoint(rects)
        for r in pieces {
            #expect(!r.isEmpty)
            forEachPixel(r) { painted[$0] += 1 }
        }
        #expect(painted.allSatisfy { $0 <= 1 }, "a pixel is painted twice")
        #expect(zip(wanted, painted).allSatisfy { $0 == ($1 == 1) }, "pieces cover other pixels than the rectangles")
    }
}
