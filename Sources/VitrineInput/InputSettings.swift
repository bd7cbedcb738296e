/// How the daemon takes input: which devices, which keymap, and how touches become taps,
/// presses and drags (`[input]` in the configuration).
public struct InputSettings: Sendable, Hashable {
    /// Whether input devices are opened at all.
    public var enabled = true
    /// The seat whose devices are used.
    public var seat = "seat0"
    /// xkb's rules, model, layout, variant and options; "" takes the system's default
    /// (`XKB_DEFAULT_*`, else xkeyboard-config's: "evdev", "pc105", "us").
    public var keymap = Keymap()
    /// Milliseconds before a held key repeats, and repeats per second; a rate of 0 never
    /// repeats.
    public var repeatDelayMilliseconds = 600
    public var repeatRate = 25
    /// A touchscreen's calibration: libinput's 2×3 matrix (a, b, c, d, e, f) mapping the
    /// device's normalized coordinates; nil keeps the device's own (usually the identity).
    public var calibration: [Double]?
    /// Whether Ctrl+Alt+F1…F12 switch virtual terminals while the daemon owns the screen.
    public var vtSwitching = true
    /// How far, in output pixels, a touch may move and still be a tap or a long press.
    public var tapSlop = 12.0
    /// Seconds a touch must be held, without moving beyond `tapSlop`, to be a long press.
    public var longPressSeconds = 0.5
    /// When a pointer's cursor is drawn (`cursor`).
    public var cursor = CursorPolicy.auto
    /// Seconds without pointer motion after which `auto` hides the cursor (`cursor_hide_after`).
    public var cursorHideAfter = 3.0
    /// Seconds without any input after which the daemon is idle (`idle_after`); 0: never.
    public var idleAfter = 0.0

    /// When the pointer's cursor is drawn.
    public enum CursorPolicy: String, Sendable, Hashable, CaseIterable {
        /// Never: nothing is drawn and nothing is followed.
        case hidden
        /// While a pointer moves: shown at its motion, hidden after `cursorHideAfter` seconds
        /// without motion and at a touch.
        case auto
        /// Always, where the pointer is.
        case always
    }

    /// xkb's names of a keymap.
    public struct Keymap: Sendable, Hashable {
        public var rules = ""
        public var model = ""
        public var layout = ""
        public var variant = ""
        public var options = ""

        public init(rules: String = "", model: String = "", layout: String = "", variant: String = "", options: String = "") {
            (self.rules, self.model, self.layout, self.variant, self.options) = (rules, model, layout, variant, options)
        }
    }

    /// The defaults.
    public init() {}
}
