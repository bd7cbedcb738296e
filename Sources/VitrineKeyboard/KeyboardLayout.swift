import VitrineInput

/// One key of a screen keyboard: what it does and how wide it is.
public struct Key: Sendable, Hashable {
    /// What pressing the key does.
    public enum Action: Sendable, Hashable {
        /// Types `plain`, or `shifted` while Shift is on.
        case character(plain: String, shifted: String)
        case space, backspace, enter, left, right
        /// Shift for the next character.
        case shift
        /// The next layout of the list.
        case nextLayout
    }

    public var action: Action
    /// The width in key units (a letter is 1).
    public var width: Double

    public init(_ action: Action, width: Double = 1) {
        self.action = action
        self.width = width
    }

    /// The label shown, with Shift on or off; `layoutName` labels the layout key.
    public func label(shifted: Bool, nextLayout layoutName: String) -> String {
        switch action {
        case .character(let plain, let upper): shifted ? upper : plain
        case .space: ""
        case .backspace: "⌫"
        case .enter: "⏎"
        case .left: "←"
        case .right: "→"
        case .shift: "⇧"
        case .nextLayout: layoutName
        }
    }

    /// Whether the key types the same again while held (characters without accents, the
    /// space, backspace and the arrows).
    public func repeats(accents: Bool) -> Bool {
        switch action {
        case .character: !accents
        case .space, .backspace, .left, .right: true
        case .enter, .shift, .nextLayout: false
        }
    }

    /// Whether the key is drawn in the theme's colour for special keys.
    public var isSpecial: Bool {
        if case .character = action { return false }
        return action != .space
    }
}

/// A screen keyboard's layout: rows of keys, read from xkeyboard-config through
/// xkbcommon so that "de" shows the keys a German keyboard has, level 1 plain and
/// level 2 with Shift. "numeric" is a numeric pad read from the keypad's keys.
///
/// ```swift
/// let layout = try KeyboardLayout(named: "fr")   // a, z, e, r, t, y… on the top row
/// ```
public struct KeyboardLayout: Sendable, Hashable {
    /// The name it was read by ("us", "de(nodeadkeys)", "numeric").
    public let name: String
    public let rows: [[Key]]

    /// The layout's short name, shown on the layout key: "de" for "de(nodeadkeys)".
    public var shortName: String { name.prefix { $0 != "(" }.description }

    public init(name: String, rows: [[Key]]) {
        self.name = name
        self.rows = rows
    }

    /// Reads the layout `name` from xkeyboard-config ("numeric": the keypad's digits).
    ///
    /// - Throws: `KeyboardError` when there is no such layout or xkbcommon is missing.
    public init(named name: String) throws(KeyboardError) {
        if name == "numeric" {
            self.init(name: name, rows: Self.numericRows(try Self.keymap("us")))
            return
        }
        self.init(name: name, rows: Self.alphanumericRows(try Self.keymap(name)))
    }

    /// The keymap of `name` ("de", "de(nodeadkeys)") with xkeyboard-config's rules.
    public static func keymap(_ name: String) throws(KeyboardError) -> Keyboard {
        let (layout, variant) = try split(name)
        do { return try Keyboard(keymap: .init(rules: "evdev", model: "pc105", layout: layout, variant: variant)) } catch {
            throw KeyboardError(error.message)
        }
    }

    /// "de(nodeadkeys)" as ("de", "nodeadkeys"); a name of letters, digits, '_' and '-'.
    private static func split(_ name: String) throws(KeyboardError) -> (String, String) {
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

    /// evdev codes of a PC keyboard's rows: digits, QWERTY, home row, bottom row (KEY_102ND,
    /// 86, may go before its first).
    static let codeRows: [[UInt32]] = [
        [41] + Array(2...13), Array(16...27), Array(30...40) + [43], Array(44...53),
    ]

    private static func alphanumericRows(_ keymap: Keyboard) -> [[Key]] {
        var rows: [[Key]] = codeRows.map { codes in codes.compactMap { key(keymap, $0) } }
        // The key left of Z (LSGT) is shown where it types something no other key does.
        let typed = Set(rows.joined().flatMap { key -> [String] in if case .character(let p, let s) = key.action { [p, s] } else { [] } })
        if let extra = key(keymap, 86), case .character(let plain, _) = extra.action, !typed.contains(plain) { rows[3].insert(extra, at: 0) }
        rows[0].append(Key(.backspace, width: 1.5))
        rows[2].append(Key(.enter, width: 1.5))
        rows[3].insert(Key(.shift, width: 1.5), at: 0)
        rows[3].append(Key(.shift, width: 1.5))
        rows.append([Key(.nextLayout, width: 1.5), Key(.space, width: 7), Key(.left), Key(.right)])
        return rows
    }

    /// The character key `code` is in `keymap`: level 1 plain, level 2 shifted; nil when it
    /// types nothing.
    private static func key(_ keymap: Keyboard, _ code: UInt32) -> Key? {
        let syms = keymap.symbols(code: code)
        let plain = syms.first.map(Keyboard.text(ofKeysym:)) ?? ""
        guard !plain.isEmpty else { return nil }
        let shifted = syms.count > 1 ? Keyboard.text(ofKeysym: syms[1]) : ""
        return Key(.character(plain: plain, shifted: shifted.isEmpty ? plain.uppercased() : shifted))
    }

    private static func numericRows(_ keymap: Keyboard) -> [[Key]] {
        // The keypad with Num Lock on: the symbols of its keys' second level.
        let rows: [[UInt32]] = [[71, 72, 73], [75, 76, 77], [79, 80, 81], [82, 83]]
        var keys: [[Key]] = rows.map { codes in
            codes.compactMap { code in
                let syms = keymap.symbols(code: code)
                let text = syms.count > 1 ? Keyboard.text(ofKeysym: syms[1]) : ""
                return text.isEmpty ? nil : Key(.character(plain: text, shifted: text), width: code == 82 ? 2 : 1)
            }
        }
        keys[0].append(Key(.backspace))
        keys[1].append(Key(.character(plain: "-", shifted: "-")))
        keys[2].append(Key(.enter))
        keys[3].append(Key(.nextLayout))
        return keys
    }
}
