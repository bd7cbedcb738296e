import CXKBCommon

/// What a keymap's keys show and type, read from the keymap itself (not its state): the
/// keysyms on each key's levels, and the key and level that type a character — what a
/// screen keyboard draws and presses.
///
/// ```swift
/// let keyboard = try Keyboard(keymap: .init(layout: "de"))
/// keyboard.symbols(code: 21)         // [z, Z, ←, ¥] as keysyms: KEY_Y on a German keyboard
/// keyboard.place(of: "@")            // (code: 16, level: 2): AltGr+Q
/// ```
extension Keyboard {
    /// The keysyms of the evdev key `code` (KEY_Q is 16) on each of its levels in the
    /// first layout; 0 where a level has none.
    public func symbols(code: UInt32) -> [UInt32] {
        let keycode = code + 8
        let levels = xkb_keymap_num_levels_for_key(keymap, keycode, 0)
        return (0..<levels).map { level in
            var syms: UnsafePointer<xkb_keysym_t>?
            let count = xkb_keymap_key_get_syms_by_level(keymap, keycode, 0, level, &syms)
            return count > 0 ? syms![0] : 0
        }
    }

    /// The key and level (0 plain, 1 Shift, 2 AltGr, 3 Shift+AltGr) that type `character`
    /// with this keymap; nil when none does.
    public func place(of character: Character) -> (code: UInt32, level: Int)? {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return nil }
        return place(ofKeysym: xkb_utf32_to_keysym(scalar.value))
    }

    /// The key and level that type the keysym `keysym` (`XK_A` is 0x41, `XK_Return`
    /// 0xff0d) with this keymap; nil when none does.
    public func place(ofKeysym keysym: UInt32) -> (code: UInt32, level: Int)? {
        if places == nil { places = indexPlaces() }
        return places?[keysym]
    }

    private func indexPlaces() -> [UInt32: (code: UInt32, level: Int)] {
        var found: [UInt32: (code: UInt32, level: Int)] = [:]
        let last = min(xkb_keymap_max_keycode(keymap), 255 + 8)
        for level in 0..<4 {
            for keycode in 8...max(8, last) {
                let syms = symbols(code: keycode - 8)
                guard level < syms.count, syms[level] != 0, found[syms[level]] == nil else { continue }
                found[syms[level]] = (keycode - 8, level)
            }
        }
        return found
    }

    /// The text a keysym types ("ä" for adiaeresis), or the character a dead key puts
    /// on its own ("^" for dead_circumflex); "" for none.
    public static func text(ofKeysym keysym: UInt32) -> String {
        if let dead = deadKeys[keysym] { return dead }
        var buffer = [CChar](repeating: 0, count: 16)
        let length = Int(xkb_keysym_to_utf8(keysym, &buffer, buffer.count))
        guard length > 1 else { return "" }
        let text = String(decoding: buffer.prefix(length - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } ? "" : text
    }

    /// Dead keys (xkbcommon/xkbcommon-keysyms.h) and the spacing character each shows.
    private static let deadKeys: [UInt32: String] = [
        0xfe50: "`", 0xfe51: "´", 0xfe52: "^", 0xfe53: "~", 0xfe54: "¯", 0xfe55: "˘", 0xfe56: "˙", 0xfe57: "¨", 0xfe58: "°", 0xfe59: "˝",
        0xfe5a: "ˇ", 0xfe5b: "¸", 0xfe5c: "˛",
    ]
}
