/// When to render: only when something changed, never with two frames on their way to the
/// screen, and not faster than the output's refresh rate.
///
/// ```
/// request() ──▶ [waiting] ──timer──▶ render() ──presented──▶ [in flight] ──frameDone()──▶
///                  ▲                                                                     │
///                  └───────────────────── if requested meanwhile ◀───────────────────────┘
/// ```
///
/// A backend with flip events (DRM) paces frames by its `frameDone`; the timer keeps the
/// rate at most `refreshRate` even where flips come back at once (emulated GPUs without
/// vblank, headless). Its slots lie on a grid, as a display's vblanks do: a frame whose
/// wake-up came late does not delay the ones after it, so an animation gets the full rate
/// rather than one slowed by every late wake. Nothing requested means no timer and no
/// wake-up. It holds no clock or loop of its own: `now` and `schedule` are injected, so a
/// test drives it with a fake clock.
public final class FramePacer {
    /// Seconds between frame slots.
    public let interval: Double
    private let now: () -> Double
    private let schedule: (Double, @escaping () -> Void) -> Void
    /// Renders a frame; returns whether one was presented (false: nothing had changed).
    public var render: () -> Bool = { false }

    /// A frame was asked for and not rendered yet.
    public private(set) var requested = false
    /// A presented frame has not reached the screen yet.
    public private(set) var inFlight = false
    /// The timer for the next frame slot is set.
    public private(set) var timerArmed = false
    /// The frame slot of the last frame rendered, and that of the frame the timer is set
    /// for: slots lie on a grid `interval` apart, so that a wake-up that comes late does
    /// not push every later frame back with it.
    private var lastSlot: Double?
    private var nextSlot = 0.0
    /// `frameDone` says the display wants the next frame now (a Wayland compositor's frame
    /// callback): a frame requested meanwhile is rendered at once rather than at a slot of
    /// the pacer's own grid, whose phase would beat against the compositor's repaints.
    public var followsFrameDone = false
    /// What the timer runs: made once, not once per frame.
    private lazy var fireBody: () -> Void = { [weak self] in self?.fire() }

    /// - Parameters:
    ///   - refreshRate: the output's rate in Hz (at least 1 is assumed).
    ///   - now: the current time in seconds.
    ///   - schedule: runs the body after that many seconds on the caller's executor.
    public init(refreshRate: Double, now: @escaping () -> Double, schedule: @escaping (Double, @escaping () -> Void) -> Void) {
        interval = 1 / max(1, refreshRate.isFinite ? refreshRate : 60)
        self.now = now
        self.schedule = schedule
    }

    /// Something changed or still animates: a frame is wanted at the next slot.
    public func request() {
        requested = true
        armIfReady()
    }

    /// The frame presented last is on screen.
    public func frameDone() {
        inFlight = false
        if followsFrameDone { lastSlot = nil }
        armIfReady()
    }

    private func armIfReady() {
        guard requested, !inFlight, !timerArmed else { return }
        timerArmed = true
        let time = now()
        // Late by less than a slot: the next frame goes at once and the grid holds. Idle
        // for longer: a grid starts now.
        nextSlot = lastSlot.map { $0 + interval } ?? time
        if nextSlot <= time - interval { nextSlot = time }
        schedule(max(0, nextSlot - time), fireBody)
    }

    private func fire() {
        timerArmed = false
        guard requested, !inFlight else { return }
        requested = false
        lastSlot = nextSlot
        // Set before rendering: a backend may call frameDone from inside present.
        inFlight = true
        if !render() { inFlight = false }
        armIfReady()
    }
}
