import Testing
import VitrineCore
import VitrineKeyboard

/// Layouts read from xkeyboard-config through the real xkbcommon, and the keys that type a
/// character (what the daemon presses for the window that has the keys).
@Suite struct KeyboardLayoutTests {
    /// The plain labels of a layout's character keys, row by row.
    static func labels(_ layout: KeyboardLayout) -> [[String]] {
        layout.rows.map { row in row.compactMap { if case .character(let plain, _) = $0.action { plain } else { nil } } }
    }

    @Test func layoutsShowWhatTheirKeyboardsHave() throws {
        let us = Self.labels(try KeyboardLayout(named: "us"))
        #expect(us[1].prefix(6) == ["q", "w", "e", "r", "t", "y"] && us[3].first == "z", "\(us)")
        let de = Self.labels(try KeyboardLayout(named: "de"))
        #expect(de[1].prefix(6) == ["q", "w", "e", "r", "t", "z"] && de[3].first == "<" && de[0].contains("ß"), "\(de)")
        let fr = Self.labels(try KeyboardLayout(named: "fr"))
        #expect(fr[1].prefix(2) == ["a", "z"] && fr[0][1] == "&", "\(fr)")
        let ru = Self.labels(try KeyboardLayout(named: "ru"))
        #expect(ru[1].prefix(3) == ["й", "ц", "у"], "\(ru)")
        let numeric = Self.labels(try KeyboardLayout(named: "numeric"))
        #expect(numeric.prefix(4).map { Array($0.prefix(3)) } == [["7", "8", "9"], ["4", "5", "6"], ["1", "2", "3"], ["0", "."]], "\(numeric)")
        let shifted = try KeyboardLayout(named: "de(nodeadkeys)").rows[0].first?.label(shifted: true, nextLayout: "")
        #expect(shifted == "°", "the variant's first key with Shift")
    }

    @Test func aLayoutThatDoesNotExistIsNamed() {
        #expect(throws: KeyboardError.self) { try KeyboardLayout(named: "xx") }
        do { _ = try KeyboardLayout(named: "us(nonesuch)") } catch { #expect(error.message.contains("no variant \"nonesuch\""), "\(error)") }
        do { _ = try KeyboardLayout(named: "us; rm") } catch { #expect(error.message.contains("not a layout name"), "\(error)") }
    }

    @Test func theKeyAndLevelThatTypeACharacter() throws {
        let de = try KeyboardLayout.keymap("de")
        #expect(de.place(of: "z")! == (21, 0), "KEY_Y")
        #expect(de.place(of: "Z")! == (21, 1), "with Shift")
        #expect(de.place(of: "@")! == (16, 2), "AltGr+Q")
        #expect(de.place(of: "й") == nil, "no Cyrillic on a German keyboard")
    }

    @Test func keysAreLaidOutInRowsWithinTheKeyboard() throws {
        let layout = try KeyboardLayout(named: "us")
        let geometry = KeyGeometry(layout: layout, size: Size(width: 800, height: 200), spacing: 6)
        #expect(geometry.frames.count == layout.rows.joined().count)
        #expect(geometry.frames.allSatisfy { Rect(x: 0, y: 0, width: 800, height: 200).contains($0.frame) })
        let q = try #require(geometry.key(at: Point(x: geometry.frames[14].frame.midX, y: geometry.frames[14].frame.midY), spacing: 6))
        #expect(q == 14 && Self.labels(layout)[1][0] == "q")
    }
}
