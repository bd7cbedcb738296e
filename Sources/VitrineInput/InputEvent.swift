import VitrineCore

/// One event from an input device, as the daemon's input pipeline passes it on: times are
/// the kernel's (CLOCK_MONOTONIC, in seconds), positions are in the output's pixels
/// (origin top left, after the output's rotation and the device's calibration).
public enum InputEvent: Sendable, Equatable {
    case key(KeyEvent)
    case touch(TouchEvent)
    case pointer(PointerEvent)

    /// When the device reported it (CLOCK_MONOTONIC seconds).
    public var time: Double {
        switch self {
        case .key(let e): e.time
        case .touch(let e): e.time
        case .pointer(let e): e.time
        }
    }
}

/// A key pressed, repeated or released, as the keymap reads it.
public struct KeyEvent: Sendable, Equatable {
    public var time: Double
    /// The evdev key code (`KEY_A` is 30).
    public var keycode: UInt32
    /// The keysym's name, as xkbcommon writes it: "a", "A", "Return", "udiaeresis", "F1".
    public var keysym: String
    /// The text the key types with the modifiers held ("" for none, such as Shift or F1).
    public var text: String
    public var pressed: Bool
    /// A repeat generated while the key is held (`pressed` is true).
    public var isRepeat: Bool
    /// The modifiers in effect, by xkb's names: "Shift", "Control", "Mod1" (Alt), "Mod4"
    /// (Super), "Lock" (Caps Lock), "Mod2" (Num Lock), sorted.
    public var modifiers: [String]
    /// The device's name, as the kernel gives it.
    public var device: String

    public init(
        time: Double, keycode: UInt32, keysym: String, text: String, pressed: Bool, isRepeat: Bool = false, modifiers: [String] = [], device: String = ""
    ) {
        (self.time, self.keycode, self.keysym, self.text, self.pressed, self.isRepeat, self.modifiers, self.device) =
            (time, keycode, keysym, text, pressed, isRepeat, modifiers, device)
    }
}

/// A touch point going down, moving, lifting, or cancelled (the device vanished, or
/// reported what cannot be a touch).
public struct TouchEvent: Sendable, Equatable {
    public enum Phase: String, Sendable, CaseIterable {
        case down, motion, up, cancel
    }

    public var time: Double
    public var phase: Phase
    /// The touch's id while it is down, unique among the touches down on the seat.
    public var id: Int
    /// Where it is, in the output's pixels; for `up` and `cancel`, where it was last.
    public var point: Point
    public var device: String

    public init(time: Double, phase: Phase, id: Int, point: Point, device: String = "") {
        (self.time, self.phase, self.id, self.point, self.device) = (time, phase, id, point, device)
    }
}

/// A pointer (mouse, touchpad, tablet) moving, pressing a button or scrolling.
public struct PointerEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case motion
        /// `button` is the evdev code (`BTN_LEFT` is 0x110).
        case button(UInt32, pressed: Bool)
        /// Scroll amounts in pixels (or the wheel's 15° steps as 15 each), right and down positive.
        case axis(dx: Double, dy: Double)
    }

    public var time: Double
    public var kind: Kind
    /// The pointer's position after the event, in the output's pixels (kept within it).
    public var point: Point
    public var device: String

    public init(time: Double, kind: Kind, point: Point, device: String = "") {
        (self.time, self.kind, self.point, self.device) = (time, kind, point, device)
    }
}
