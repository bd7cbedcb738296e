import Testing
import VitrineCore
import VitrineRaster

/// A surface over another owner's pixels (a decoded video frame): drawn from where they
/// are, rows `stride` apart, and given back when the surface goes.
@Suite struct WrappedSurfaceTests {
    @Test func itDrawsTheOwnersPixelsAndReleasesThemWhenItGoes() {
        // 3 × 2 pixels in rows of 5: opaque red, green, blue; then white, black, grey.
        let rows: [UInt32] = [
            0xFFFF_0000, 0xFF00_FF00, 0xFF00_00FF, 0xDEAD_BEEF, 0xDEAD_BEEF,
            0xFFFF_FFFF, 0xFF00_0000, 0xFF80_8080, 0xDEAD_BEEF, 0xDEAD_BEEF,
        ]
        let memory = UnsafeMutablePointer<UInt32>.allocate(capacity: rows.count)
        memory.initialize(from: rows, count: rows.count)
        nonisolated(unsafe) var released = 0
        do {
            let frame = Surface(wrapping: memory, width: 3, height: 2, stride: 5) { released += 1 }
            #expect(frame.pixel(x: 2, y: 0).argb == 0xFF00_00FF && frame.pixel(x: 0, y: 1).argb == 0xFFFF_FFFF)
            let screen = Surface(width: 6, height: 4)
            screen.draw(image: frame, in: Rect(x: 0, y: 0, width: 3, height: 2), transform: AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 2, ty: 1))
            #expect(screen.pixel(x: 2, y: 1).argb == 0xFFFF_0000 && screen.pixel(x: 4, y: 2).argb == 0xFF80_8080)
            #expect(screen.pixel(x: 5, y: 1).argb == 0 && screen.pixel(x: 1, y: 1).argb == 0)
            #expect(released == 0)
        }
        #expect(released == 1)
        memory.deallocate()
    }
}
