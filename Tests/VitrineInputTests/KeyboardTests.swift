import Testing
@testable import VitrineInput

/// Keys through xkbcommon's keymaps (xkeyboard-config's data, no device needed): what a
/// key types in a layout, modifiers, repeat, and the VT switch keys.
@Suite struct KeyboardTests {
    // evdev key codes (linux/input-event-codes.h).
    static let (keyA, keyC, key2, keyY, keyZ, keySemicolon, keyEnter) = (UInt32(30), UInt32(46), UInt32(3), UInt32(21), UInt32(44), UInt32(39), UInt32(28))
    static let (leftShift, leftControl, leftAlt, capsLock, f1, f2) = (UInt32(42), UInt32(29), UInt32(56), UInt32(58), UInt32(59), UInt32(60))

    /// Presses and releases `code` and returns the press.
    private func type(_ code: UInt32, on keyboard: Keyboard) -> KeyEvent {
        let press = keyboard.key(code, pressed: true, time: 1)
        _ = keyboard.key(code, pressed: false, time: 1.1)
        return press
    }

    @Test func aGermanKeymapTypesWhatIsPrintedOnAGermanKeyboard() throws {
        let keyboard = try Keyboard(keymap: .init(layout: "de"))
        #expect(type(Self.keyY, on: keyboard).text == "z")
        #expect(type(Self.keyZ, on: keyboard).text == "y")
        let umlaut = type(Self.keySemicolon, on: keyboard)
        #expect((umlaut.text, umlaut.keysym) == ("ö", "odiaeresis"))
        _ = keyboard.key(Self.leftShift, pressed: true, time: 2)
        let quote = type(Self.key2, on: keyboard)
        #expect((quote.text, quote.keysym) == ("\"", "quotedbl"))
        #expect(quote.modifiers == ["Shift"])
    }

    @Test func aKeymapGivenAsTextByADisplayServerIsReadAsItSays() throws {
        let german = """
            xkb_keymap {
                xkb_keycodes { include "evdev+aliases(qwertz)" };
                xkb_types { include "complete" };
                xkb_compat { include "complete" };
                xkb_symbols { include "pc+de+inet(evdev)" };
            };
            """
        let keyboard = try Keyboard(keymapText: german)
        #expect(type(Self.keyY, on: keyboard).text == "z")
        #expect(type(Self.keySemicolon, on: keyboard).keysym == "odiaeresis")
        #expect(throws: InputError.self) { try Keyboard(keymapText: "xkb_keymap { nonsense") }
    }

    @Test func aUSKeymapTypesTheSameKeysAsPrintedOnAUSKeyboard() throws {
        let keyboard = try Keyboard(keymap: .init(layout: "us"))
        #expect(type(Self.keyY, on: keyboard).text == "y")
        #expect(type(Self.keyZ, on: keyboard).text == "z")
        #expect(type(Self.keySemicolon, on: keyboard).keysym == "semicolon")
        _ = keyboard.key(Self.leftShift, pressed: true, time: 2)
        #expect(type(Self.key2, on: keyboard).text == "@")
    }

    @Test func anEventCarriesTheKeysymTheKeycodeTheTimeAndTheDevice() throws {
        let keyboard = try Keyboard(keymap: .init(layout: "us"))
        let press = keyboard.key(Self.keyA, pressed: true, time: 12.5, device: "kbd")
        #expect(press == KeyEvent(time: 12.5, keycode: 30, keysym: "a", text: "a", pressed: true, modifiers: [], device: "kbd"))
        let release = keyboard.key(Self.keyA, pressed: false, time: 12.6, device: "kbd")
        #expect((release.pressed, release.text, release.keysym) == (false, "", "a"), "a release types nothing")
    }

    @Test func anUnknownLayoutIsAnErrorNamingIt() {
        #expect {
            _ = try Keyboard(keymap: .init(layout: "zz", variant: "nonesuch"))
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("cannot compile the keymap xkb_layout \"zz\", xkb_variant \"nonesuch\": there is no layout \"zz\"")
                && text.contains("localectl list-x11-keymap-layouts")
        }
    }

    @Test func anUnknownVariantIsAnErrorNamingIt() {
        #expect {
            _ = try Keyboard(keymap: .init(layout: "de", variant: "nonesuch"))
        } throws: { error in
            "\(error)".contains(": layout \"de\" has no variant \"nonesuch\" — ")
        }
    }

    /// xkbcommon's rules skip options they do not know, as X does.
    @Test func anUnknownOptionIsIgnoredAndTheKnownOnesApply() throws {
        let keyboard = try Keyboard(keymap: .init(layout: "us", options: "ctrl:nocaps,nonesuch:x"))
        #expect(keyboard.key(58, pressed: true, time: 1).modifiers == ["Control"], "Caps Lock is a Control key")
    }

    @Test func modifiersAreThoseInEffectAfterTheKeyByXkbsNamesSorted() throws {
        let keyboard = try Keyboard(keymap: .init(layout: "us"))
        #expect(keyboard.key(Self.leftControl, pressed: true, time: 1).modifiers == ["Control"])
        #expect(keyboard.key(Self.leftAlt, pressed: true, time: 1).modifiers == ["Control", "Mod1"])
        let c = keyboard.key(Self.keyC, pressed: true, time: 1)
        #expect((c.keysym, c.text, c.modifiers) == ("c", "", ["Control", "Mod1"]), "Ctrl+Alt+C types no control character")
        _ = keyboard.key(Self.keyC, pressed: false, time: 1)
        #expect(keyboard.key(Self.leftControl, pressed: false, time: 1).modifiers == ["Mod1"])
        #expect(keyboard.key(Self.leftAlt, pressed: false, time: 1).modifiers == [])
        _ = type(Self.capsLock, on: keyboard)
        let a = type(Self.keyA, on: keyboard)
        #expect((a.text, a.modifiers) == ("A", ["Lock"]), "Caps Lock stays on after its release")
        keyboard.reset()
        #expect(keyboard.modifiers == [])
    }

    @Test func returnTypesNoText() throws {
        let keyboard = try Keyboard(keymap: .init(layout: "us"))
        let enter = type(Self.keyEnter, on: keyboard)
        #expect((enter.keysym, enter.text) == ("Return", ""))
    }

    @Test func lettersRepeatAndModifiersDoNot() throws {
        let keyboard = try Keyboard(keymap: .init(layout: "us"))
        #expect(keyboard.repeats(Self.keyA))
        #expect(!keyboard.repeats(Self.leftShift))
        _ = keyboard.key(Self.leftShift, pressed: true, time: 1)
        let repeated = keyboard.repeated(Self.keyA, time: 2)
        #expect((repeated.text, repeated.isRepeat, repeated.pressed) == ("A", true, true))
    }

    @Test func controlAltFunctionKeysAskForAVTWithTheDefaultOptions() throws {
        let keyboard = try Keyboard(keymap: .init(layout: "us"))
        _ = keyboard.key(Self.leftControl, pressed: true, time: 1)
        _ = keyboard.key(Self.leftAlt, pressed: true, time: 1)
        let f2 = keyboard.key(Self.f2, pressed: true, time: 1)
        #expect(f2.keysym == "XF86Switch_VT_2")
        #expect(Keyboard.virtualTerminal(switchedToBy: f2.keysym) == 2)
        #expect(Keyboard.virtualTerminal(switchedToBy: "XF86Switch_VT_12") == 12)
        #expect(Keyboard.virtualTerminal(switchedToBy: "XF86Switch_VT_13") == nil)
        #expect(Keyboard.virtualTerminal(switchedToBy: "F2") == nil)
        let plain = try Keyboard(keymap: .init(layout: "us"))
        #expect(type(Self.f1, on: plain).keysym == "F1")
    }
}
