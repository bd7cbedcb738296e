import VitrineCore
import VitrineKeyboard
import VitrineProtocol

extension Configuration {
    /// `[osk]`: Vitrine's own on-screen keyboard (docs/INPUT.md, "The screen keyboard").
    /// Every key takes effect when the daemon starts.
    public struct ScreenKeyboard: Sendable, Hashable {
        /// What a window does when the keyboard would cover its text field.
        public enum Avoid: String, Sendable, CaseIterable {
            /// Its layer moves up just enough, and back when the keyboard hides.
            case move
            /// Its layer gets shorter just enough (the window is resized), and back.
            case resize
            /// Nothing: the keyboard covers it.
            case none
        }

        /// `enabled`: the keyboard can be shown (`osk.show`, a client's text input). Default false.
        public var enabled = false
        /// `layouts`: xkeyboard-config layouts ("us", "de(nodeadkeys)", "ru") and
        /// "numeric", in the order the layout key cycles through them. Default ["us"].
        public var layouts = ["us"]
        /// `avoid`: "move", "resize" or "none". Default "move".
        public var avoid = Avoid.move
        /// The theme: `background`, `key_color`, `special_key_color`, `pressed_color`,
        /// `label_color`, `font`, `corner_radius`, `key_spacing`, `height` (pixels, 0 for
        /// 40 % of the output), `duration` and `curve` of the slide.
        public var theme = KeyboardTheme()

        /// Every key at its default.
        public init() {}
    }
}

extension Configuration.ScreenKeyboard {
    /// Every key, each read once, when the daemon makes the keyboard at start.
    static let startKeys: [(key: String, value: @Sendable (Configuration) -> AnyHashable)] = [
        ("osk.enabled", { $0.osk.enabled }), ("osk.layouts", { $0.osk.layouts }), ("osk.avoid", { $0.osk.avoid }),
        ("osk.background", { $0.osk.theme.background }), ("osk.key_color", { $0.osk.theme.key }),
        ("osk.special_key_color", { $0.osk.theme.specialKey }), ("osk.pressed_color", { $0.osk.theme.pressedKey }),
        ("osk.label_color", { $0.osk.theme.label }), ("osk.font", { $0.osk.theme.font }), ("osk.corner_radius", { $0.osk.theme.cornerRadius }),
        ("osk.key_spacing", { $0.osk.theme.spacing }), ("osk.height", { $0.osk.theme.height }), ("osk.duration", { $0.osk.theme.duration }),
        ("osk.curve", { $0.osk.theme.timing }),
    ]

    static let keys = [
        "enabled", "layouts", "avoid", "background", "key_color", "special_key_color", "pressed_color", "label_color", "font", "corner_radius",
        "key_spacing", "height", "duration", "curve",
    ]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        enabled = try r.boolean("enabled", enabled)
        layouts = try r.value("layouts", layouts, expected: "a non-empty array of layout names such as [\"us\", \"de\", \"numeric\"]") { node in
            guard let items = node.array, !items.isEmpty, items.count <= 16 else { return nil }
            let names = items.compactMap(\.string)
            return names.count == items.count ? names : nil
        }
        // Read only for a keyboard that is on: xkbcommon is not loaded for one that is off.
        for name in layouts where enabled {
            do { _ = try KeyboardLayout(named: name) } catch { throw r.error("layouts", "\(error.message)") }
        }
        avoid = try r.choice("avoid", avoid)
        theme.background = try r.value("background", theme.background, expected: colourForm, readColour)
        theme.key = try r.value("key_color", theme.key, expected: colourForm, readColour)
        theme.specialKey = try r.value("special_key_color", theme.specialKey, expected: colourForm, readColour)
        theme.pressedKey = try r.value("pressed_color", theme.pressedKey, expected: colourForm, readColour)
        theme.label = try r.value("label_color", theme.label, expected: colourForm, readColour)
        theme.font = try r.string("font", theme.font, expected: "a font family name such as \"DejaVu Sans\"") { !$0.isEmpty && $0.utf8.count <= 256 }
        theme.cornerRadius = try r.number("corner_radius", theme.cornerRadius, expected: "pixels, 0…100") { (0...100).contains($0) }
        theme.spacing = try r.number("key_spacing", theme.spacing, expected: "pixels, 0…100") { (0...100).contains($0) }
        theme.height = try r.number("height", theme.height, expected: "pixels, 40…4096, or 0 for 40 % of the output's height") {
            $0 == 0 || (40...4096).contains($0)
        }
        theme.duration = try r.number("duration", theme.duration, expected: "seconds, 0…10") { (0...10).contains($0) }
        let names = TimingFunction.named.keys.sorted().map { "\"\($0)\"" }
        theme.timing = try r.value("curve", theme.timing, expected: "one of \(TableReader.list(names, or: true)), or [x1, y1, x2, y2] with x1 and x2 in 0…1") {
            node in node.json.flatMap { try? AnimationDescription.timingFunction($0) }
        }
    }
}
