import Testing
import VitrineOutput
import VitrineRaster

/// The copy into a scan-out buffer: turned the right way, limited to the damage.
@Suite struct ScanoutCopyTests {
    /// A 3×2 picture whose pixels are numbered 1…6 row by row.
    func picture() -> Surface {
        let s = Surface(width: 3, height: 2)
        for y in 0..<2 { for x in 0..<3 { s.pixels[y * s.stride + x] = UInt32(y * 3 + x + 1) } }
        return s
    }

    /// The buffer's rows, `width` pixels each.
    func rows(_ memory: [UInt32], width: Int, height: Int) -> [[UInt32]] {
        (0..<height).map { Array(memory[($0 * width)..<($0 * width + width)]) }
    }

    func copyAll(_ rotation: ScreenRotation, rect: PixelRect? = nil) -> [[UInt32]] {
        let source = picture()
        let (w, h) = rotation.swapsSides ? (2, 3) : (3, 2)
        var memory = [UInt32](repeating: 0, count: w * h)
        memory.withUnsafeMutableBytes { ScanoutCopy(rotation: rotation).copy(rect ?? source.bounds, from: source, to: $0.baseAddress!, pitch: w * 4) }
        return rows(memory, width: w, height: h)
    }

    @Test func upright() {
        #expect(copyAll(.none) == [[1, 2, 3], [4, 5, 6]])
    }

    /// Clockwise: the picture's left column becomes the screen's top row, read bottom-up.
    @Test func quarterClockwise() {
        #expect(copyAll(.quarter) == [[4, 1], [5, 2], [6, 3]])
    }

    @Test func half() {
        #expect(copyAll(.half) == [[6, 5, 4], [3, 2, 1]])
    }

    @Test func threeQuarters() {
        #expect(copyAll(.threeQuarters) == [[3, 6], [2, 5], [1, 4]])
    }

    /// Only the damaged pixels are written, wherever the rotation puts them.
    @Test(arguments: ScreenRotation.allCases) func onlyTheDamage(_ rotation: ScreenRotation) {
        let whole = copyAll(rotation)
        let part = copyAll(rotation, rect: PixelRect(x: 1, y: 1, width: 2, height: 1))  // pixels 5 and 6
        for (rowWhole, rowPart) in zip(whole, part) {
            for (a, b) in zip(rowWhole, rowPart) {
                #expect(b == 0 || b == a)
                #expect((b != 0) == (a == 5 || a == 6))
            }
        }
    }

    @Test func physicalRectsMatchTheCopy() {
        let r = PixelRect(x: 1, y: 0, width: 2, height: 1)
        #expect(ScreenRotation.quarter.physicalRect(of: r, logicalWidth: 3, logicalHeight: 2) == PixelRect(x: 1, y: 1, width: 1, height: 2))
        #expect(ScreenRotation.half.physicalRect(of: r, logicalWidth: 3, logicalHeight: 2) == PixelRect(x: 0, y: 1, width: 2, height: 1))
        #expect(ScreenRotation.threeQuarters.physicalRect(of: r, logicalWidth: 3, logicalHeight: 2) == PixelRect(x: 0, y: 0, width: 1, height: 2))
    }

    @Test func logicalSizeSwapsForPortrait() {
        #expect(ScreenRotation.quarter.logicalSize(physicalWidth: 1920, height: 1080) == (1080, 1920))
        #expect(ScreenRotation.half.logicalSize(physicalWidth: 1920, height: 1080) == (1920, 1080))
    }
}
