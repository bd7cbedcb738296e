import Testing
import VitrineOutput
import VitrineRaster

/// Each scan-out buffer gets the union of the damage since it was last written.
@Suite struct BufferDamageTests {
    let screen = PixelRect(x: 0, y: 0, width: 100, height: 50)
    let a = PixelRect(x: 0, y: 0, width: 10, height: 10)
    let b = PixelRect(x: 20, y: 20, width: 5, height: 5)

    @Test func newBuffersLackEverything() {
        let d = BufferDamage(buffers: 3, bounds: screen)
        for i in 0..<3 { #expect(d.missing(in: i) == [screen]) }
    }

    /// Double buffering: frame 1 into buffer 0, frame 2 into buffer 1, frame 3 into
    /// buffer 0 again, which must get frame 2's damage as well as its own.
    @Test func doubleBufferingCarriesTheOtherFramesDamage() {
        var d = BufferDamage(buffers: 2, bounds: screen)
        d.add([screen]); d.written(0)
        d.add([a]); #expect(d.missing(in: 1) == [screen]); d.written(1)
        d.add([b])
        #expect(d.missing(in: 0) == [a, b])
        d.written(0)
        #expect(d.missing(in: 0) == [])
        #expect(d.missing(in: 1) == [b])
    }

    @Test func containedRectanglesAreDropped() {
        var d = BufferDamage(buffers: 1, bounds: screen)
        d.written(0)
        d.add([PixelRect(x: 2, y: 2, width: 3, height: 3)])
        d.add([a])
        d.add([PixelRect(x: 1, y: 1, width: 2, height: 2)])
        #expect(d.missing(in: 0) == [a])
    }

    @Test func damageIsClippedToTheScreen() {
        var d = BufferDamage(buffers: 1, bounds: screen)
        d.written(0)
        d.add([PixelRect(x: 90, y: 40, width: 50, height: 50), PixelRect(x: 200, y: 0, width: 5, height: 5)])
        #expect(d.missing(in: 0) == [PixelRect(x: 90, y: 40, width: 10, height: 10)])
    }

    @Test func manyRectanglesCollapseIntoTheirBounds() {
        var d = BufferDamage(buffers: 1, bounds: screen, maximumRects: 4)
        d.written(0)
        d.add((0..<5).map { PixelRect(x: $0 * 10, y: $0, width: 2, height: 2) })
        #expect(d.missing(in: 0) == [PixelRect(x: 0, y: 0, width: 42, height: 6)])
    }

    @Test func invalidateAllAfterAVTSwitch() {
        var d = BufferDamage(buffers: 2, bounds: screen)
        d.written(0); d.written(1)
        d.invalidateAll()
        #expect(d.missing(in: 0) == [screen] && d.missing(in: 1) == [screen])
    }
}
