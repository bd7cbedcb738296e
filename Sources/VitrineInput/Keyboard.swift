import CXKBCommon
import Glibc
import VitrineSystem

/// A keymap compiled by xkbcommon and the state of its modifiers and layouts: evdev key
/// codes in, `KeyEvent`s out, with the keysym's name, the text typed and the modifiers in
/// effect. One state serves every keyboard of the seat, so Shift on one keyboard and a
/// letter on another type a capital.
///
/// ```swift
/// let keyboard = try Keyboard(keymap: .init(layout: "de"))
/// let event = keyboard.key(21, pressed: true, time: t)  // KEY_Y: keysym "z", text "z"
/// ```
///
/// Empty names take the system's default (`XKB_DEFAULT_RULES`, `…_MODEL`, `…_LAYOUT`,
/// `…_VARIANT`, `…_OPTIONS`, else xkeyboard-config's "evdev", "pc105", "us").
public final class Keyboard {
    /// The names it was compiled from.
    public let names: InputSettings.Keymap
    private let context: OpaquePointer
    let keymap: OpaquePointer
    private var state: OpaquePointer
    /// Where each keysym is first found (Keyboard+Symbols), made when first asked.
    var places: [UInt32: (code: UInt32, level: Int)]?
    /// xkb's eight real modifiers with their indices in the keymap.
    private let modifierIndices: [(name: String, index: xkb_mod_index_t)]

    /// xkb's real modifiers, in the order `modifiers` lists them.
    static let modifierNames = ["Control", "Lock", "Mod1", "Mod2", "Mod3", "Mod4", "Mod5", "Shift"]

    /// Compiles the keymap named by `names`.
    ///
    /// - Throws: `InputError` naming the layout, variant, model or rules that does not
    ///   exist when the keymap does not compile (xkb skips options it does not know), or
    ///   saying that xkbcommon is not installed.
    public convenience init(keymap names: InputSettings.Keymap) throws(InputError) {
        try self.init(names: names) { context throws(InputError) in
            guard let keymap = Self.compile(names, in: context) else { throw .keymap(names, wrong: Self.culprit(of: names, in: context)) }
            return keymap
        }
    }

    /// Compiles a keymap given whole in xkb's text format: the one a display server
    /// uses (an X server's through XKB, a Wayland compositor's `wl_keyboard.keymap`).
    /// `names` is what `names` reports; it is not compiled.
    public convenience init(keymapText text: String, names: InputSettings.Keymap = InputSettings.Keymap()) throws(InputError) {
        try self.init(names: names) { context throws(InputError) in
            guard let keymap = xkb_keymap_new_from_string(context, text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
                throw InputError("the display server's keymap (\(text.utf8.count) bytes) does not compile")
            }
            return keymap
        }
    }

    /// A keyboard with the keymap `compile` makes in a fresh context.
    private init(names: InputSettings.Keymap, compile: (OpaquePointer) throws(InputError) -> OpaquePointer) throws(InputError) {
        do { try FeatureLibraries("the keymap", vitrine_xkbcommon_load).load() } catch { throw InputError(error.message) }
        self.names = names
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else {
            throw InputError("cannot create an xkbcommon context (out of memory?)")
        }
        // Errors are said in the one this throws, not on stderr.
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        let keymap: OpaquePointer
        do { keymap = try compile(context) } catch {
            xkb_context_unref(context)
            throw error
        }
        guard let state = xkb_state_new(keymap) else {
            xkb_keymap_unref(keymap)
            xkb_context_unref(context)
            throw InputError("cannot create an xkbcommon state (out of memory?)")
        }
        (self.context, self.keymap, self.state) = (context, keymap, state)
        modifierIndices = Self.modifierNames.compactMap { name in
            let index = xkb_keymap_mod_get_index(keymap, name)
            return index == XKB_MOD_INVALID ? nil : (name, index)
        }
    }

    deinit {
        xkb_state_unref(state)
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    /// A key pressed or released (`code` is evdev's, `KEY_A` is 30): the event as the
    /// keymap reads it, then the state updated. A press carries the text the key types
    /// with the modifiers held (control characters left out: Return, Tab and Ctrl+C type
    /// none); a release carries none. `modifiers` are those in effect after the key.
    public func key(_ code: UInt32, pressed: Bool, time: Double, device: String = "") -> KeyEvent {
        let keycode = code + 8
        let keysym = name(of: xkb_state_key_get_one_sym(state, keycode))
        let text = pressed ? self.text(of: keycode) : ""
        xkb_state_update_key(state, keycode, pressed ? XKB_KEY_DOWN : XKB_KEY_UP)
        return KeyEvent(time: time, keycode: code, keysym: keysym, text: text, pressed: pressed, modifiers: modifiers, device: device)
    }

    /// The event a held key repeats with, read with the modifiers in effect now.
    public func repeated(_ code: UInt32, time: Double, device: String = "") -> KeyEvent {
        let keycode = code + 8
        return KeyEvent(
            time: time, keycode: code, keysym: name(of: xkb_state_key_get_one_sym(state, keycode)), text: text(of: keycode),
            pressed: true, isRepeat: true, modifiers: modifiers, device: device)
    }

    /// Whether the keymap says the key repeats while held (letters do, modifiers do not).
    public func repeats(_ code: UInt32) -> Bool {
        xkb_keymap_key_repeats(keymap, code + 8) != 0
    }

    /// The modifiers in effect, by xkb's names ("Control", "Lock", "Mod1" for Alt, "Mod2"
    /// for Num Lock, "Mod4" for Super, "Shift"), sorted.
    public var modifiers: [String] {
        modifierIndices.filter { xkb_state_mod_index_is_active(state, $0.index, XKB_STATE_MODS_EFFECTIVE) > 0 }.map(\.name)
    }

    /// The keymap in xkb's text format (what `wl_keyboard.keymap` sends clients).
    public var keymapText: String? {
        guard let text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }

    /// The state as `wl_keyboard.modifiers` tells it: depressed, latched and locked
    /// modifier masks and the effective layout.
    public var serializedModifiers: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) {
        (
            xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED), xkb_state_serialize_mods(state, XKB_STATE_MODS_LATCHED),
            xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED), xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_EFFECTIVE)
        )
    }

    /// Forgets every key held and every lock: the state of a keyboard nobody touched.
    public func reset() {
        guard let fresh = xkb_state_new(keymap) else { return }
        xkb_state_unref(state)
        state = fresh
    }

    /// The VT a keysym asks to switch to: 1…12 for "XF86Switch_VT_1"…"XF86Switch_VT_12"
    /// (what Ctrl+Alt+F1…F12 give with the default keymap), else nil.
    public static func virtualTerminal(switchedToBy keysym: String) -> Int? {
        guard keysym.hasPrefix("XF86Switch_VT_"), let number = Int(keysym.dropFirst(14)), (1...12).contains(number) else { return nil }
        return number
    }

    /// The keymap named by `names`; nil when it does not compile.
    private static func compile(_ names: InputSettings.Keymap, in context: OpaquePointer) -> OpaquePointer? {
        let fields = [names.rules, names.model, names.layout, names.variant, names.options].map { (name: String) -> UnsafeMutablePointer<CChar>? in
            name.isEmpty ? nil : strdup(name)
        }
        defer { fields.forEach { free($0) } }
        var rules = xkb_rule_names(rules: fields[0], model: fields[1], layout: fields[2], variant: fields[3], options: fields[4])
        return xkb_keymap_new_from_names(context, &rules, XKB_KEYMAP_COMPILE_NO_FLAGS)
    }

    /// Which name keeps `names` from compiling: they are added to the default one at a
    /// time, and the first that fails is it (nil when the default itself fails).
    private static func culprit(of names: InputSettings.Keymap, in context: OpaquePointer) -> WritableKeyPath<InputSettings.Keymap, String>? {
        var tried = InputSettings.Keymap()
        for field in [\InputSettings.Keymap.rules, \.model, \.layout, \.variant, \.options] where !names[keyPath: field].isEmpty {
            tried[keyPath: field] = names[keyPath: field]
            guard let keymap = compile(tried, in: context) else { return field }
            xkb_keymap_unref(keymap)
        }
        return nil
    }

    private func name(of keysym: xkb_keysym_t) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard xkb_keysym_get_name(keysym, &buffer, buffer.count) > 0 else { return "NoSymbol" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func text(of keycode: xkb_keycode_t) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = Int(xkb_state_key_get_utf8(state, keycode, &buffer, buffer.count))
        guard length > 0 else { return "" }
        let text = String(decoding: buffer.prefix(min(length, buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? "" : text
    }
}
