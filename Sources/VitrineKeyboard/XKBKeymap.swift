import CXKBCommon
import Glibc
import VitrineSystem

/// Why a screen keyboard's layout or theme cannot be used: what was asked and what to do.
public struct KeyboardError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// A keymap compiled by xkbcommon from xkeyboard-config's names, read for what its keys
/// show and type: the keysyms on each key's levels, and the key and level that type a
/// character. It owns its context and keymap and frees them.
///
/// ```swift
/// let keymap = try XKBKeymap(layout: "de")
/// keymap.symbols(code: 21)         // ["z", "Z", "←", "¥"]: KEY_Y on a German keyboard
/// keymap.place(of: "@")            // (code: 16, level: 2): AltGr+Q
/// ```
public final class XKBKeymap {
    /// The layout and variant it was compiled from.
    public let layout: String
    public let variant: String
    private let context: OpaquePointer
    private let keymap: OpaquePointer
    /// Where each keysym is first found (the lowest level, then the lowest code), made
    /// when first asked.
    private var places: [UInt32: (code: UInt32, level: Int)]?

    /// Compiles `layout` ("de", "fr", "ru"; "de(nodeadkeys)" names a variant too) with
    /// xkeyboard-config's rules.
    ///
    /// - Throws: `KeyboardError` naming the layout or variant that does not exist, or
    ///   saying that xkbcommon is not installed.
    public init(layout name: String) throws(KeyboardError) {
        let (layout, variant) = try Self.split(name)
        (self.layout, self.variant) = (layout, variant)
        do { try FeatureLibraries("the screen keyboard", vitrine_xkbcommon_load).load() } catch { throw KeyboardError(error.message) }
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { throw KeyboardError("cannot create an xkbcommon context (out of memory?)") }
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        let fields = ["evdev", "pc105", layout, variant].map { (text: String) -> UnsafeMutablePointer<CChar>? in strdup(text) }
        defer { fields.forEach { free($0) } }
        var names = xkb_rule_names(rules: fields[0], model: fields[1], layout: fields[2], variant: fields[3], options: nil)
        guard let keymap = xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) else {
            xkb_context_unref(context)
            let what = variant.isEmpty ? "there is no layout \"\(layout)\"" : "layout \"\(layout)\" has no variant \"\(variant)\" (or there is no such layout)"
            throw KeyboardError("\(what) in xkeyboard-config; `localectl list-x11-keymap-layouts` lists the layouts")
        }
        (self.context, self.keymap) = (context, keymap)
    }

    deinit {
        xkb_keymap_unref(keymap)
        xkb_context_unref(context)
    }

    /// "de(nodeadkeys)" as ("de", "nodeadkeys"); a name of letters, digits, '_' and '-'.
    static func split(_ name: String) throws(KeyboardError) -> (String, String) {
        var layout = Substring(name), variant = Substring("")
        if let open = name.firstIndex(of: "("), name.hasSuffix(")") {
            layout = name[..<open]
            variant = name[name.index(after: open)..<name.index(before: name.endIndex)]
        }
        let word = { (s: Substring) in
            s.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
        }
        guard !layout.isEmpty, layout.count <= 64, variant.count <= 64, word(layout), word(variant) else {
            throw KeyboardError("'\(name)' is not a layout name: give one such as \"us\", \"de\" or \"de(nodeadkeys)\"")
        }
        return (String(layout), String(variant))
    }

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
        if places == nil { places = indexPlaces() }
        return places?[xkb_utf32_to_keysym(scalar.value)]
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
    public static func text(of keysym: UInt32) -> String {
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
