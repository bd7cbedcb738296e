import Testing
import VitrineCore
import VitrineRaster
import VitrineWayland

/// Buffer pixels ↔ surface coordinates under every buffer transform, several buffer
/// scales and viewports, for points and damage both ways.
struct BufferMappingTests {
    typealias Transform = BufferMapping.Transform

    /// The buffer corner (as fractions of its width and height) that shows the surface's
    /// top-left and top-right corners: the client turned its picture counter-clockwise
    /// (mirrored first for the flipped ones), so the picture's corners are where that
    /// turn took them.
    static let corners: [Transform: (topLeft: (Double, Double), topRight: (Double, Double))] = [
        .normal: ((0, 0), (1, 0)), .rotated90: ((0, 1), (0, 0)), .rotated180: ((1, 1), (0, 1)), .rotated270: ((1, 0), (1, 1)),
        .flipped: ((1, 0), (0, 0)), .flipped90: ((0, 0), (0, 1)), .flipped180: ((0, 1), (1, 1)), .flipped270: ((1, 1), (1, 0)),
    ]

    static func close(_ a: Point, _ b: Point) -> Bool { abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 }

    @Test(arguments: Transform.allCases, [1, 2, 3])
    func theSurfaceIsTheBufferTurnedBackAndDividedByItsScale(transform: Transform, scale: Int) throws {
        let mapping = try BufferMapping(bufferWidth: 120, bufferHeight: 60, scale: scale, transform: transform)
        let (width, height) = transform.swapsAxes ? (60 / scale, 120 / scale) : (120 / scale, 60 / scale)
        #expect(mapping.surfaceWidth == width && mapping.surfaceHeight == height)
        let corners = try #require(Self.corners[transform])
        let topLeft = mapping.bufferPoint(ofSurface: .zero)
        let topRight = mapping.bufferPoint(ofSurface: Point(x: Double(width), y: 0))
        #expect(Self.close(topLeft, Point(x: corners.topLeft.0 * 120, y: corners.topLeft.1 * 60)), "\(topLeft)")
        #expect(Self.close(topRight, Point(x: corners.topRight.0 * 120, y: corners.topRight.1 * 60)), "\(topRight)")
        for point in [Point(x: 3.5, y: 7.25), Point(x: 0, y: 19), Point(x: 17, y: 2)] {
            #expect(Self.close(mapping.surfacePoint(ofBuffer: mapping.bufferPoint(ofSurface: point)), point))
        }
        #expect(mapping.bufferSource == Rect(x: 0, y: 0, width: 120, height: 60))
        #expect(mapping.isIdentity == (transform == .normal && scale == 1))
    }

    @Test(arguments: Transform.allCases, [1, 2])
    func damageGoesBothWays(transform: Transform, scale: Int) throws {
        let mapping = try BufferMapping(bufferWidth: 120, bufferHeight: 60, scale: scale, transform: transform)
        #expect(mapping.surfaceRect(ofBuffer: mapping.bufferBounds) == mapping.surfaceBounds)
        #expect(mapping.bufferRect(ofSurface: mapping.surfaceBounds) == mapping.bufferBounds)
        // The buffer's top-left pixel is on the surface at the corner that shows it.
        let pixel = mapping.surfaceRect(ofBuffer: PixelRect(x: 0, y: 0, width: 1, height: 1))
        #expect(pixel.width == 1 && pixel.height == 1)
        let corner = mapping.surfacePoint(ofBuffer: Point(x: 0.5, y: 0.5))
        #expect(pixel.rect.contains(corner), "\(pixel) \(corner)")
        // A surface pixel covers scale × scale buffer pixels, wherever the transform put them.
        let surfacePixel = PixelRect(x: 5, y: 7, width: 1, height: 1)
        let inBuffer = mapping.bufferRect(ofSurface: surfacePixel)
        #expect(inBuffer.width == scale && inBuffer.height == scale, "\(inBuffer)")
        #expect(mapping.surfaceRect(ofBuffer: inBuffer) == surfacePixel)
        // Damage past the edges is cut to the surface or the buffer.
        #expect(mapping.surfaceRect(ofBuffer: PixelRect(x: -50, y: -50, width: 1000, height: 1000)) == mapping.surfaceBounds)
        #expect(mapping.bufferRect(ofSurface: PixelRect(x: -50, y: -50, width: 1000, height: 1000)) == mapping.bufferBounds)
    }

    @Test func aViewportCropsThenScalesToItsDestination() throws {
        // A 200×100 buffer at scale 2 is 100×50; its (10, 5, 40, 20) shown at 80×60.
        let mapping = try BufferMapping(
            bufferWidth: 200, bufferHeight: 100, scale: 2, source: Rect(x: 10, y: 5, width: 40, height: 20), destination: (80, 60))
        #expect(mapping.surfaceWidth == 80 && mapping.surfaceHeight == 60)
        #expect(mapping.bufferSource == Rect(x: 20, y: 10, width: 80, height: 40))
        #expect(Self.close(mapping.bufferPoint(ofSurface: .zero), Point(x: 20, y: 10)))
        #expect(Self.close(mapping.bufferPoint(ofSurface: Point(x: 80, y: 60)), Point(x: 100, y: 50)))
        #expect(Self.close(mapping.surfacePoint(ofBuffer: Point(x: 60, y: 30)), Point(x: 40, y: 30)))
        // Stretched 2× across and 3× down (buffer pixels to surface ones): a buffer pixel
        // and the surface pixels its filtering reaches.
        #expect(mapping.surfaceRect(ofBuffer: PixelRect(x: 40, y: 20, width: 1, height: 1)) == PixelRect(x: 19, y: 14, width: 3, height: 4))
        #expect(mapping.surfaceRect(ofBuffer: PixelRect(x: 0, y: 0, width: 10, height: 10)).isEmpty)
    }

    @Test func aViewportUnderATransform() throws {
        // A 60×120 buffer turned back 90° clockwise is 120×60: the source (100, 10, 20, 40),
        // at its right, is in the buffer's top rows, 20 high, and its top-left corner
        // comes from the buffer's (10, 20).
        let mapping = try BufferMapping(bufferWidth: 60, bufferHeight: 120, transform: .rotated90, source: Rect(x: 100, y: 10, width: 20, height: 40))
        #expect(mapping.surfaceWidth == 20 && mapping.surfaceHeight == 40)
        #expect(mapping.bufferSource == Rect(x: 10, y: 0, width: 40, height: 20))
        #expect(Self.close(mapping.bufferPoint(ofSurface: .zero), Point(x: 10, y: 20)))
    }

    @Test func aDestinationAloneScalesTheWholeBuffer() throws {
        let mapping = try BufferMapping(bufferWidth: 50, bufferHeight: 40, destination: (100, 20))
        #expect(mapping.surfaceWidth == 100 && mapping.surfaceHeight == 20)
        #expect(Self.close(mapping.surfacePoint(ofBuffer: Point(x: 50, y: 40)), Point(x: 100, y: 20)))
        #expect(mapping.bufferSource == Rect(x: 0, y: 0, width: 50, height: 40))
    }

    @Test func whatTheProtocolsMakeErrors() {
        #expect(throws: BufferMapping.Failure.sizeNotMultipleOfScale(width: 101, height: 50, scale: 2)) {
            try BufferMapping(bufferWidth: 101, bufferHeight: 50, scale: 2)
        }
        #expect(throws: BufferMapping.Failure.self) {
            try BufferMapping(bufferWidth: 100, bufferHeight: 50, scale: 2, source: Rect(x: 10, y: 0, width: 41, height: 10))
        }
        #expect(throws: BufferMapping.Failure.self) {
            try BufferMapping(bufferWidth: 100, bufferHeight: 50, source: Rect(x: 0, y: 0, width: 10.5, height: 10))
        }
        // Turned, the buffer is 50 wide: a source 60 wide is outside it.
        #expect(throws: BufferMapping.Failure.self) {
            try BufferMapping(bufferWidth: 100, bufferHeight: 50, transform: .rotated270, source: Rect(x: 0, y: 0, width: 60, height: 10))
        }
        #expect(throws: Never.self) {
            try BufferMapping(bufferWidth: 100, bufferHeight: 50, source: Rect(x: 0.5, y: 0, width: 10.5, height: 10), destination: (21, 10))
        }
    }
}
