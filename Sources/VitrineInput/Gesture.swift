import VitrineCore

/// What touches (and the pointer's left button, as touch -1) mean at the level of layers:
/// `GestureRecognizer` makes these of input events and a hit test.
///
/// Every gesture names the layer the touch went down on (the pressed layer), which keeps
/// the touch until it lifts or is cancelled, even when the finger leaves it. `point` is
/// always in that layer's own coordinates (its bounds' space) at the event's time;
/// `translation` and `velocity` are in the output's pixels (the root layer's coordinates),
/// which do not move under the finger as a dragged layer does. Times are the events'
/// (CLOCK_MONOTONIC seconds); a long press's is its deadline.
///
/// A touch gives `press`, then at most one `longPress`, then at most one drag
/// (`dragBegan`, any `dragChanged`, `dragEnded`), and ends with `release` followed by
/// `tap` or `dragEnded` when it made one — or with `cancel` alone.
public enum Gesture: Sendable, Equatable {
    /// A finger (or the left button) went down on `layer`.
    case press(layer: String, point: Point, touch: Int, time: Double)
    /// The touch lifted; `inside` when it lifted within `tapSlop` of the pressed layer's
    /// bounds (UIKit's touch-up-inside).
    case release(layer: String, point: Point, inside: Bool, touch: Int, time: Double)
    /// Down and up without moving beyond `tapSlop`, before a long press fired.
    case tap(layer: String, point: Point, touch: Int, time: Double)
    /// Held `longPressSeconds` without moving beyond `tapSlop`; `point` is where the touch
    /// last was.
    case longPress(layer: String, point: Point, touch: Int, time: Double)
    /// The touch moved beyond `tapSlop` from where it went down (a long press may have
    /// fired before). `translation` is from where it went down.
    case dragBegan(layer: String, point: Point, translation: Point, velocity: Point, touch: Int, time: Double)
    /// The dragging touch moved.
    case dragChanged(layer: String, point: Point, translation: Point, velocity: Point, touch: Int, time: Double)
    /// The dragging touch lifted; `velocity` is the one to fling with (zero when the
    /// finger stood still for the last 100 ms).
    case dragEnded(layer: String, point: Point, translation: Point, velocity: Point, touch: Int, time: Double)
    /// The touch ended without lifting: its device went away, it reported what cannot be a
    /// touch (coordinates that are not finite or far off the screen, a second down with
    /// its id), or its layer was removed. Whatever it was doing is abandoned.
    case cancel(layer: String, touch: Int, time: Double)

    /// The case's name: "press", "release", "tap", "longPress", "dragBegan", "dragChanged",
    /// "dragEnded" or "cancel".
    public var name: String {
        switch self {
        case .press: "press"
        case .release: "release"
        case .tap: "tap"
        case .longPress: "longPress"
        case .dragBegan: "dragBegan"
        case .dragChanged: "dragChanged"
        case .dragEnded: "dragEnded"
        case .cancel: "cancel"
        }
    }

    /// The layer the touch went down on.
    public var layer: String {
        switch self {
        case .press(let layer, _, _, _), .release(let layer, _, _, _, _), .tap(let layer, _, _, _), .longPress(let layer, _, _, _),
            .dragBegan(let layer, _, _, _, _, _), .dragChanged(let layer, _, _, _, _, _), .dragEnded(let layer, _, _, _, _, _),
            .cancel(let layer, _, _):
            layer
        }
    }

    /// The touch's id (-1 for the pointer's left button).
    public var touch: Int {
        switch self {
        case .press(_, _, let touch, _), .release(_, _, _, let touch, _), .tap(_, _, let touch, _), .longPress(_, _, let touch, _),
            .dragBegan(_, _, _, _, let touch, _), .dragChanged(_, _, _, _, let touch, _), .dragEnded(_, _, _, _, let touch, _),
            .cancel(_, let touch, _):
            touch
        }
    }

    /// When it happened.
    public var time: Double {
        switch self {
        case .press(_, _, _, let time), .release(_, _, _, _, let time), .tap(_, _, _, let time), .longPress(_, _, _, let time),
            .dragBegan(_, _, _, _, _, let time), .dragChanged(_, _, _, _, _, let time), .dragEnded(_, _, _, _, _, let time),
            .cancel(_, _, let time):
            time
        }
    }
}
