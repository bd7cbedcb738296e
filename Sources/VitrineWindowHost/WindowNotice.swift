import VitrineCore
import VitrineProtocol

/// What the window host tells the daemon, on the loop. The owners of the daemon talk
/// through such values; none holds a reference to another.
public enum WindowNotice: Sendable, Equatable {
    /// An event for the clients subscribed to it: at once, or after the reply to the
    /// command that caused it (`afterReply`), so that the client sees its reply first.
    case event(Event, afterReply: Bool)
    /// What the screen shows changed (a window mapped, drew, moved to another layer): a
    /// frame is due at once, or after the reply to the command that caused it.
    case redraw(afterReply: Bool)
    /// The focused window's text field was enabled or changed (its focus), or none is
    /// enabled any more (nil): for the daemon's own on-screen keyboard (WindowHost+TextInput.swift).
    case textInput(TextInputFocus?)
}

/// Where input lands: the root layer the primary output shows and the output's origin in
/// it (a screen of a video wall shows its root from an offset).
public struct InputPlacement: Sendable, Equatable {
    /// The root layer hit-tested.
    public var root: String
    /// The output's top-left pixel in the root's space.
    public var origin: Point

    /// A placement on `root`, the output at `origin` in it.
    public init(root: String, origin: Point = .zero) {
        self.root = root
        self.origin = origin
    }

    /// A point in the output's pixels, in the root's space.
    public func rootPoint(_ point: Point) -> Point {
        Point(x: point.x + origin.x, y: point.y + origin.y)
    }
}
