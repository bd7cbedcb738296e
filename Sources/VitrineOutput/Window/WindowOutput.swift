/// An output that is a window on a desktop (X11, Wayland): besides frames it reports its
/// size changing, being closed, and the input it receives.
///
/// ```swift
/// let window = try X11Output(width: 1280, height: 800, refreshRate: 60)
/// window.events = { event in
///     switch event {
///     case .resized(let mode): root.resize(to: mode)   // the next buffer is the new size
///     case .closed(let why): loop.stop()
///     default: input.handle(event)
///     }
/// }
/// window.attach(to: loop)   // its connection is read on the loop from now on
/// ```
///
/// Events come on the loop the output is attached to, as its connection is read.
public protocol WindowOutput: OutputBackend {
    /// Called with each event the window gets, on the loop.
    var events: ((WindowEvent) -> Void)? { get set }
    /// The keymap the display server reads keys with (xkb's text format), for turning the
    /// key codes of `.key` events into keysyms and text; nil when it gave none (then the
    /// configured `[input] keymap` is used).
    var keymap: String? { get }
}

/// What a window reports besides frames. Positions are in the window's pixels (the
/// output's: origin top left); times are CLOCK_MONOTONIC seconds, when the event was read.
public enum WindowEvent: Sendable, Equatable {
    /// The window has a new size, `mode`: the next buffer has it and must be drawn whole.
    case resized(OutputMode)
    /// The window was closed (its close button, the window manager) or its display went
    /// away; the reason, for the log. The daemon stops.
    case closed(String)
    /// The display server has a new keymap (xkb's text format).
    case keymap(String)
    /// A key pressed or released: `code` is evdev's (`KEY_A` is 30).
    case key(time: Double, code: UInt32, pressed: Bool)
    /// The window lost the keyboard: keys held are released.
    case focusLost
    /// The pointer moved to `x`, `y`.
    case pointerMotion(time: Double, x: Double, y: Double)
    /// A pointer button (evdev's code: `BTN_LEFT` 0x110) went down or up at `x`, `y`.
    case pointerButton(time: Double, button: UInt32, pressed: Bool, x: Double, y: Double)
    /// Scrolling by `dx`, `dy` pixels (a wheel step is 15), right and down positive.
    case pointerAxis(time: Double, dx: Double, dy: Double, x: Double, y: Double)
    /// A touch point: `phase` is down, motion, up or cancel; `id` is unique among the
    /// touches down.
    case touch(time: Double, phase: WindowTouchPhase, id: Int, x: Double, y: Double)
}

/// A touch point's phase in a window.
public enum WindowTouchPhase: String, Sendable, Equatable {
    case down, motion, up, cancel
}

extension WindowEvent {
    /// The evdev button code of an X11 / core pointer button number (1 left, 2 middle,
    /// 3 right, 8 back, 9 forward); nil for the wheel's (4–7) and unknown ones.
    public static func evdevButton(x11 number: Int) -> UInt32? {
        switch number {
        case 1: 0x110
        case 2: 0x112
        case 3: 0x111
        case 8: 0x113
        case 9: 0x114
        default: nil
        }
    }
}
