import VitrineCore
import VitrineInput
import VitrineKeyboard
import VitrineProtocol
import VitrineSystem

/// The screen keyboard in the daemon: made when `[osk] enabled`, its commands, and where
/// what it types goes.
extension Coordinator {
    /// The keyboard `[osk]` describes, wired to the input router and to scripts; nil when
    /// it is not enabled. What it types goes to scripts and to the window that has the
    /// keys: text as text-input-v3's `commit_string` where the window's field enabled it
    /// (any character, whatever the seat's keymap), else as key strokes; the other keys
    /// (backspace, enter, arrows) as key strokes.
    func makeScreenKeyboard(loop: EventLoop?) throws(SystemError) -> ScreenKeyboard? {
        guard settings.osk.enabled else { return nil }
        let keyboard = try ScreenKeyboard(settings: settings.osk, input: settings.input, sceneHost: sceneHost, outputSet: outputSet, loop: loop, logger: logger)
        let typing = KeyTyping(keymap: settings.input.keymap)
        keyboard.typed = { [unowned self] typed, time in
            afterReply.events.append(typed.keyName.map { .oskKey(key: $0, time: time) } ?? .oskText(text: typed.text, time: time))
            if case .text(let text) = typed, windows?.commitText(text) == true { return }
            for stroke in typing.strokes(typed) { input.typeKey(stroke.code, pressed: stroke.pressed) }
        }
        keyboard.changed = { [unowned self] in flush() }
        input.screenKeyboard = keyboard
        keyboard.forgetRemovedLayers()
        return keyboard
    }

    /// `osk.show`, `osk.hide`, `osk.layout`.
    func executeKeyboard(_ command: Command) throws(ProtocolError) -> JSON {
        guard let screenKeyboard else {
            throw ProtocolError(.notAllowed, "\(command.name): the screen keyboard is off; set enabled = true in [osk] and restart vitrined")
        }
        return try screenKeyboard.execute(command)
    }
}

extension Typed {
    /// The text typed; "" for the other keys.
    var text: String { if case .text(let text) = self { text } else { "" } }
}

/// What the screen keyboard typed as the key strokes that type it with the seat's keymap
/// (`[input]`'s, its first layout): the key, with Shift and/or AltGr held for its level.
/// A character no key of that keymap types makes none (scripts still get `osk.text`, and
/// text-input-v3 carries it to fields that enable it).
struct KeyTyping {
    private let keymap: Keyboard?

    init(keymap names: InputSettings.Keymap) {
        keymap = try? Keyboard(keymap: names)
    }

    /// evdev codes: Shift, AltGr, Backspace, Enter, Left, Right.
    private static let (shift, altGr): (UInt32, UInt32) = (42, 100)

    func strokes(_ typed: Typed) -> [(code: UInt32, pressed: Bool)] {
        switch typed {
        case .backspace: return Self.tap(14)
        case .enter: return Self.tap(28)
        case .left: return Self.tap(105)
        case .right: return Self.tap(106)
        case .text(let text):
            guard let keymap else { return [] }
            return text.flatMap { character -> [(code: UInt32, pressed: Bool)] in
                guard let place = keymap.place(of: character) else { return [] }
                let held = [place.level & 1 != 0 ? Self.shift : nil, place.level & 2 != 0 ? Self.altGr : nil].compactMap { $0 }
                return held.map { ($0, true) } + Self.tap(place.code) + held.reversed().map { ($0, false) }
            }
        }
    }

    private static func tap(_ code: UInt32) -> [(code: UInt32, pressed: Bool)] { [(code, true), (code, false)] }
}
