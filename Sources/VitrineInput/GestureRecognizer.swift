import VitrineCore

/// Makes gestures of input events: presses, releases, taps, long presses and drags on
/// layers, each touch on its own (the pointer's left button, `BTN_LEFT`, is touch -1).
///
/// It holds no clock and no scene: `handle` is given the hit test and the conversion into
/// a layer's coordinates at the event's time, and a long press fires when the daemon
/// calls `advance(to:)` at `nextDeadline` (or with the next event, whichever comes first).
/// Input that cannot be a touch — coordinates that are not finite or lie far off the
/// screen, a time that is not finite, a second down with an id already down — cancels
/// the touch; motion, an up or a cancel for a touch that is not down is ignored.
///
/// ```swift
/// let gestures = recognizer.handle(event,
///     hitTest: { p in scene.hitTest(p, root: root, at: t).map { ($0.layer, $0.point) } },
///     convert: { p, layer in scene.convert(p, fromRoot: root, to: layer, at: t) },
///     bounds: { layer in try? scene.presentationValue("bounds", of: layer, at: t).rect })
/// ```
public final class GestureRecognizer {
    public let settings: InputSettings
    /// The output's pixels, when known: a touch reported farther than `tapSlop` outside
    /// them is cancelled, and one going down outside them is ignored.
    public var area: Rect?

    /// The most touches followed at once; a new one past it cancels the oldest, so that a
    /// device that never lifts its touches cannot grow the table.
    public static let maximumTouches = 32
    /// `BTN_LEFT`, the pointer button that acts as a touch.
    public static let leftButton: UInt32 = 0x110
    /// The touch id of the pointer's left button.
    public static let pointerTouch = -1

    private var touches: [Int: TouchState] = [:]
    private var touchesBegun: UInt64 = 0

    public init(settings: InputSettings) {
        self.settings = settings
    }

    /// The ids of the touches down, in increasing order.
    public var activeTouches: [Int] { touches.keys.sorted() }

    /// When the next long press would fire; nil while none is pending (no timer needed).
    public var nextDeadline: Double? { touches.values.lazy.compactMap(\.deadline).min() }

    /// Fires the long presses whose deadline is at or before `time`, in the order of
    /// their deadlines.
    public func advance(to time: Double) -> [Gesture] {
        guard time.isFinite else { return [] }
        let due = touches.filter { $0.value.deadline.map { $0 <= time } ?? false }
            .sorted { ($0.value.deadline!, $0.key) < ($1.value.deadline!, $1.key) }
        return due.map { id, state in
            touches[id]?.deadline = nil
            touches[id]?.longPressed = true
            return .longPress(layer: state.layer, point: state.lastLocal, touch: id, time: state.deadline!)
        }
    }

    /// Cancels the touches of `device` (every touch when nil): the device went away, or
    /// the scene was replaced under them.
    public func cancelAll(device: String? = nil, at time: Double) -> [Gesture] {
        let ids = touches.filter { device == nil || $0.value.device == device }.keys.sorted()
        return ids.compactMap { cancel($0, at: time) }
    }

    /// The gestures `event` makes, after the long presses due by its time. `hitTest`
    /// finds the layer at a point in the output's pixels and the point in its
    /// coordinates; `convert` takes a point in the output's pixels into a layer's
    /// coordinates (nil when the layer is gone); `bounds` gives a layer's bounds, for
    /// `release`'s `inside` — without it, `inside` is whether the layer is hit within
    /// `tapSlop` of where the touch lifted. All at the event's time.
    public func handle(
        _ event: InputEvent, hitTest: (Point) -> (layer: String, point: Point)?, convert: (Point, String) -> Point?,
        bounds: (String) -> Rect? = { _ in nil }
    ) -> [Gesture] {
        var gestures = advance(to: event.time)
        func route(_ phase: TouchEvent.Phase, _ id: Int, _ point: Point, _ time: Double, _ device: String) -> [Gesture] {
            phase == .down
                ? down(id, at: point, time: time, device: device, hitTest: hitTest)
                : touch(phase, id: id, at: point, time: time, hitTest: hitTest, convert: convert, bounds: bounds)
        }
        switch event {
        case .key:
            break
        case .touch(let e):
            gestures += route(e.phase, e.id, e.point, e.time, e.device)
        case .pointer(let e):
            switch e.kind {
            case .button(Self.leftButton, let pressed):
                gestures += route(pressed ? .down : .up, Self.pointerTouch, e.point, e.time, e.device)
            case .motion where touches[Self.pointerTouch] != nil:
                gestures += route(.motion, Self.pointerTouch, e.point, e.time, e.device)
            default:
                break
            }
        }
        return gestures
    }

    /// The gestures of a touch's motion, up or cancel.
    private func touch(
        _ phase: TouchEvent.Phase, id: Int, at point: Point, time: Double, hitTest: (Point) -> (layer: String, point: Point)?,
        convert: (Point, String) -> Point?, bounds: (String) -> Rect?
    ) -> [Gesture] {
        guard var state = touches[id] else { return [] }
        guard phase != .cancel, time.isFinite, isPlausible(point), let local = convert(point, state.layer),
            local.x.isFinite, local.y.isFinite
        else { return cancel(id, at: time).map { [$0] } ?? [] }
        let t = max(time, state.lastTime)
        let moved = point != state.last
        if moved || phase == .motion { state.samples.add(point, at: t) }
        state.last = point
        state.lastLocal = local
        state.lastTime = t
        var gestures: [Gesture] = []
        if !state.isDragging, state.distanceFromStart > settings.tapSlop {
            state.isDragging = true
            state.deadline = nil
            gestures.append(state.drag(Gesture.dragBegan, touch: id))
        } else if state.isDragging, phase == .motion {
            gestures.append(state.drag(Gesture.dragChanged, touch: id))
        }
        guard phase == .up else {
            touches[id] = state
            return gestures
        }
        touches[id] = nil
        let inside = isInside(point, layer: state.layer, hitTest: hitTest, convert: convert, bounds: bounds)
        gestures.append(.release(layer: state.layer, point: local, inside: inside, touch: id, time: t))
        if state.isDragging {
            gestures.append(state.drag(Gesture.dragEnded, touch: id))
        } else if !state.longPressed {
            gestures.append(.tap(layer: state.layer, point: local, touch: id, time: t))
        }
        return gestures
    }

    private func down(_ id: Int, at point: Point, time: Double, device: String, hitTest: (Point) -> (layer: String, point: Point)?) -> [Gesture] {
        // A second down with an id already down: the first is cancelled.
        var gestures = cancel(id, at: time).map { [$0] } ?? []
        guard time.isFinite, isPlausible(point), area?.contains(point) ?? true, let hit = hitTest(point),
            hit.point.x.isFinite, hit.point.y.isFinite
        else { return gestures }
        if touches.count >= Self.maximumTouches, let oldest = touches.min(by: { $0.value.order < $1.value.order })?.key,
            let cancelled = cancel(oldest, at: time)
        {
            gestures.append(cancelled)
        }
        touchesBegun += 1
        var state = TouchState(
            layer: hit.layer, device: device, order: touchesBegun, start: point, last: point, lastLocal: hit.point, lastTime: time,
            deadline: settings.longPressSeconds > 0 && settings.longPressSeconds.isFinite ? time + settings.longPressSeconds : nil)
        state.samples.add(point, at: time)
        touches[id] = state
        gestures.append(.press(layer: hit.layer, point: hit.point, touch: id, time: time))
        return gestures
    }

    /// Ends touch `id` with a `cancel`; nil when it is not down.
    private func cancel(_ id: Int, at time: Double) -> Gesture? {
        guard let state = touches.removeValue(forKey: id) else { return nil }
        return .cancel(layer: state.layer, touch: id, time: time.isFinite ? max(time, state.lastTime) : state.lastTime)
    }

    /// False for what no touchscreen can mean: coordinates that are not finite, beyond the
    /// model's ±1e9, or farther than `tapSlop` outside `area`.
    private func isPlausible(_ p: Point) -> Bool {
        guard p.x.isFinite, p.y.isFinite, abs(p.x) <= maximumMagnitude, abs(p.y) <= maximumMagnitude else { return false }
        guard let area else { return true }
        return area.insetBy(dx: -settings.tapSlop, dy: -settings.tapSlop).contains(p)
    }

    /// Whether a touch lifting at `point` is within `tapSlop` of `layer`'s bounds: the
    /// point or one of eight around it at that distance lies in them.
    private func isInside(
        _ point: Point, layer: String, hitTest: (Point) -> (layer: String, point: Point)?, convert: (Point, String) -> Point?,
        bounds: (String) -> Rect?
    ) -> Bool {
        let s = settings.tapSlop, d = s / 2.0.squareRoot()
        let offsets = [(0, 0), (s, 0), (-s, 0), (0, s), (0, -s), (d, d), (d, -d), (-d, d), (-d, -d)].map { Point(x: $0.0, y: $0.1) }
        if let box = bounds(layer) {
            return offsets.contains { convert(point + $0, layer).map(box.contains) ?? false }
        }
        return offsets.contains { hitTest(point + $0)?.layer == layer }
    }
}

/// One touch down.
private struct TouchState {
    let layer: String
    let device: String
    /// Orders touches by when they went down.
    let order: UInt64
    /// Where it went down, in the output's pixels.
    let start: Point
    /// Where it was last, in the output's pixels and in the layer's coordinates.
    var last: Point
    var lastLocal: Point
    var lastTime: Double
    /// When a long press fires, while one can.
    var deadline: Double?
    var longPressed = false
    var isDragging = false
    var samples = VelocityTracker()

    init(layer: String, device: String, order: UInt64, start: Point, last: Point, lastLocal: Point, lastTime: Double, deadline: Double?) {
        (self.layer, self.device, self.order, self.start) = (layer, device, order, start)
        (self.last, self.lastLocal, self.lastTime, self.deadline) = (last, lastLocal, lastTime, deadline)
    }

    var distanceFromStart: Double {
        let d = last - start
        return (d.x * d.x + d.y * d.y).squareRoot()
    }

    /// A drag gesture of kind `make` at the touch's last event.
    func drag(_ make: (String, Point, Point, Point, Int, Double) -> Gesture, touch: Int) -> Gesture {
        make(layer, lastLocal, last - start, samples.velocity(at: lastTime), touch, lastTime)
    }
}

/// A touch's velocity, as UIPanGestureRecognizer's: the least-squares slope of its
/// positions over the last 100 ms, in pixels per second.
struct VelocityTracker {
    /// Seconds of samples the velocity is taken over.
    static let window = 0.1
    /// The most samples kept (a device reporting at over 600 Hz keeps the latest).
    static let capacity = 64

    private var times: [Double] = []
    private var points: [Point] = []

    mutating func add(_ point: Point, at time: Double) {
        times.append(time)
        points.append(point)
        let old = times.firstIndex { $0 >= time - Self.window } ?? times.count
        let drop = max(old, times.count - Self.capacity)
        if drop > 0 {
            times.removeFirst(drop)
            points.removeFirst(drop)
        }
    }

    /// The velocity at `time` from the samples of the 100 ms before it; zero with fewer
    /// than two.
    func velocity(at time: Double) -> Point {
        let recent = times.indices.filter { times[$0] >= time - Self.window && times[$0] <= time }
        guard recent.count >= 2 else { return .zero }
        let n = Double(recent.count)
        let meanT = recent.reduce(0) { $0 + times[$1] } / n
        let meanX = recent.reduce(0) { $0 + points[$1].x } / n, meanY = recent.reduce(0) { $0 + points[$1].y } / n
        var stt = 0.0, stx = 0.0, sty = 0.0
        for i in recent {
            let dt = times[i] - meanT
            stt += dt * dt
            stx += dt * (points[i].x - meanX)
            sty += dt * (points[i].y - meanY)
        }
        guard stt > 1e-12 else { return .zero }
        return Point(x: stx / stt, y: sty / stt)
    }
}
