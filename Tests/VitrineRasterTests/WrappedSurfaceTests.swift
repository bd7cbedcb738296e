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

    /// X8R8G8B8 pixels (a Wayland client's XRGB buffer) with anything in their alpha bytes
    /// draw exactly as the same pixels made opaque, through every path an image takes
    /// (integer offset, part of the image, scale, rotation, opacity, a rounded clip), and
    /// their memory is never written.
    @Test func pixelsWhoseAlphaIsIgnoredDrawAsTheirOpaqueTwin() {
        let (width, height, stride) = (24, 16, 27)
        var rng = UInt32(7)
        let rows = (0..<(stride * height)).map { _ -> UInt32 in
            rng = rng &* 1_664_525 &+ 1_013_904_223
            return rng
        }
        let memory = UnsafeMutablePointer<UInt32>.allocate(capacity: rows.count)
        memory.initialize(from: rows, count: rows.count)
        defer { memory.deallocate() }
        let xrgb = Surface(wrapping: memory, width: width, height: height, stride: stride, ignoresAlpha: true) {}
        let twin = Surface(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width { twin.pixels[y * twin.stride + x] = rows[y * stride + x] | 0xFF00_0000 }
        }
        let rounded = Clip(
            path: Path(roundedRect: Rect(x: 4, y: 3, width: 50, height: 40), radii: CornerRadii(9)), within: PixelRect(x: 0, y: 0, width: 64, height: 48))
        let cases: [(String, Rect, Rect?, AffineTransform, Double, Clip?)] = [
            ("offset", Rect(x: 0, y: 0, width: 24, height: 16), nil, AffineTransform(translationX: 5, y: 7), 1, nil),
            ("part", Rect(x: 3, y: 2, width: 10, height: 9), Rect(x: 3, y: 2, width: 10, height: 9), AffineTransform(translationX: 5, y: 7), 1, nil),
            ("faded", Rect(x: 0, y: 0, width: 24, height: 16), nil, AffineTransform(translationX: 5, y: 7), 0.5, rounded),
            ("scaled", Rect(x: 0, y: 0, width: 24, height: 16), nil, AffineTransform(a: 2.3, b: 0, c: 0, d: 2.1, tx: 1.5, ty: 2.25), 1, nil),
            (
                "turned", Rect(x: 0, y: 0, width: 24, height: 16), nil,
                AffineTransform(rotationAngle: 0.4).concatenating(AffineTransform(translationX: 20, y: 4)), 0.8, rounded
            ),
        ]
        for (name, rect, source, transform, opacity, clip) in cases {
            let drawn = Surface(width: 64, height: 48), expected = Surface(width: 64, height: 48)
            for target in [drawn, expected] {
                target.fill(Path(rect: Rect(x: 0, y: 0, width: 64, height: 48)), color: PremultipliedColor(unchecked: 0xFF20_4060))
            }
            drawn.draw(image: xrgb, in: rect, from: source, transform: transform, opacity: opacity, clip: clip)
            expected.draw(image: twin, in: rect, from: source, transform: transform, opacity: opacity, clip: clip)
            let differing = zip(drawn.buffer, expected.buffer).filter { $0 != $1 }.count
            #expect(differing == 0, "\(name): \(differing) pixels differ")
        }
        #expect(zip(UnsafeBufferPointer(start: memory, count: rows.count), rows).allSatisfy { $0 == $1 }, "the pixels' memory was written")
    }
}
