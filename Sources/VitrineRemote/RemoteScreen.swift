import VitrineRaster

/// What a VNC listener shows: one output, or a wall's outputs where they lie on its canvas.
public struct RemoteScreen: Sendable, Equatable {
    /// The output's connector, or `RemoteSettings.wall` for the wall.
    public var name: String
    /// The picture's size in pixels.
    public var width: Int, height: Int
    /// Where the picture's top-left pixel is in the root's space (the wall's canvas): a
    /// viewer's pointer at (x, y) is at (x + originX, y + originY) there.
    public var originX: Int, originY: Int
    /// The rectangle of the picture each output's pixels fill, by connector.
    public var parts: [String: PixelRect]

    /// One output of `width` × `height` whose top-left is at (`originX`, `originY`) of its
    /// root.
    public init(output: String, width: Int, height: Int, originX: Int = 0, originY: Int = 0) {
        name = output
        (self.width, self.height, self.originX, self.originY) = (width, height, originX, originY)
        parts = [output: PixelRect(x: 0, y: 0, width: width, height: height)]
    }

    /// The wall: its outputs' rectangles of the canvas (`viewports`, by connector), the
    /// picture their bounds. nil without any.
    public init?(wall viewports: [String: PixelRect]) {
        guard let first = viewports.values.first else { return nil }
        let bounds = viewports.values.reduce(first) { $0.union($1) }
        name = RemoteSettings.wall
        (width, height, originX, originY) = (bounds.width, bounds.height, bounds.x, bounds.y)
        parts = viewports.mapValues { $0.offsetBy(dx: -bounds.x, dy: -bounds.y) }
    }
}
