import VitrineCore

/// The output as input devices see it: the scene's size in pixels and how the panel is
/// turned (clockwise, as `[output] rotation`), so that a touch lands on what is drawn
/// under the finger and the pointer stays on the screen.
///
/// A touchscreen is fixed to the panel: libinput gives its positions in the panel's own
/// pixels (the mode's, unrotated), which are turned into the scene's here. A mouse moves
/// as the viewer sees the screen, so relative motion is in the scene's pixels already.
public struct OutputGeometry: Sendable, Equatable {
    /// The scene's width and height (the output's logical size: the mode's with its sides
    /// swapped for 90° and 270°).
    public var width: Int
    public var height: Int
    /// Degrees clockwise, 0, 90, 180 or 270; other values are taken to the nearest of those.
    public var rotation: Int

    public init(width: Int, height: Int, rotation: Int = 0) {
        (self.width, self.height) = (max(1, width), max(1, height))
        self.rotation = ((rotation % 360 + 360) % 360 + 45) / 90 % 4 * 90
    }

    /// The panel's own size: the scene's, sides swapped for 90° and 270°.
    var panelWidth: Int { rotation % 180 == 0 ? width : height }
    var panelHeight: Int { rotation % 180 == 0 ? height : width }

    /// The middle of the scene, where a pointer starts.
    var center: Point { Point(x: Double(width) / 2, y: Double(height) / 2) }

    /// The scene point shown at panel position (`x`, `y`), kept within the scene when it
    /// lies at most `margin` outside it (a touchscreen's edge reads a little beyond its
    /// range) and left where it is beyond that (what no finger can mean, for the gesture
    /// recognizer to cancel); nil when either is not a finite number.
    func scenePoint(panelX x: Double, panelY y: Double, clampingWithin margin: Double = .infinity) -> Point? {
        guard x.isFinite, y.isFinite else { return nil }
        let (w, h) = (Double(width), Double(height))
        let point: Point
        switch rotation {
        case 90: point = Point(x: y, y: h - x)
        case 180: point = Point(x: w - x, y: h - y)
        case 270: point = Point(x: w - y, y: x)
        default: point = Point(x: x, y: y)
        }
        let outside = max(-point.x, point.x - w, -point.y, point.y - h)
        return outside <= margin ? clamped(point) : point
    }

    /// `point` moved onto the scene: x in 0…width, y in 0…height.
    func clamped(_ point: Point) -> Point {
        Point(x: min(max(point.x, 0), Double(width)), y: min(max(point.y, 0), Double(height)))
    }
}
