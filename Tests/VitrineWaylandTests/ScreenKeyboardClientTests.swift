import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol

/// The screen keyboard typing into a real Wayland client: a second `vitrined` with
/// `--backend wayland` whose window has the keys; what it receives is read from its own
/// `input.key` events.
@Suite(.serialized) struct ScreenKeyboardClientTests {
    @Test func keysTypedOnTheScreenKeyboardReachTheWindowThatHasTheKeys() throws {
        let setup = try CompositorTests.Setup(extra: "[osk]\nenabled = true\nlayouts = [\"numeric\", \"us\"]\nheight = 60\n")
        let client = try setup.startClient()
        _ = try setup.control.waitForEvent("surface.mapped")
        let inner = try client.connect()
        try inner.ok(#"{"cmd": "subscribe", "events": ["input.key", "input.touch"]}"#)
        // A touch on the window gives it the keys.
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [100, 40]}"#)
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        _ = try inner.waitForEvent("input.touch") { $0["phase"] == .string("up") }
        try setup.control.ok(#"{"cmd": "subscribe", "events": ["osk.text"]}"#)
        try setup.control.ok(#"{"cmd": "osk.show"}"#)
        try setup.control.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        // The numeric pad's "7", top left of the keyboard (y 60…120 of the 200×120 output).
        let key = try setup.control.request(#"{"cmd": "layer.get", "layer": "osk:key:0", "keys": ["position"]}"#)
        let point = (key["result"]?["properties"]?["position"]?.array ?? []).compactMap(\.number)
        try #require(point.count == 2, "\(key)")
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": 1, "point": [\#(point[0]), \#(60 + point[1])]}"#)
        try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up", "touch": 1}"#)
        #expect(try setup.control.waitForEvent("osk.text")["text"] == .string("7"))
        let seven = try inner.waitForEvent("input.key") { $0["pressed"] == .bool(true) }
        #expect(seven["keysym"] == .string("7") && seven["text"] == .string("7"), "\(seven.text)")
        // The touch on the keyboard is not the window's.
        #expect(throws: (any Error).self) { try inner.waitForEvent("input.touch", timeout: 1) }
        // A capital through Shift: the window hears Shift held, then the letter.
        try setup.control.ok(#"{"cmd": "osk.layout", "layout": "us"}"#)
        for label in ["⇧", "A"] {
            let index = try (0..<80).first { i in
                try setup.control.request(#"{"cmd": "layer.get", "layer": "osk:label:\#(i)", "keys": ["string"]}"#)["result"]?["properties"]?["string"]
                    == .string(label)
            }
            let place = try setup.control.request(#"{"cmd": "layer.get", "layer": "osk:key:\#(try #require(index))", "keys": ["position"]}"#)
            let p = (place["result"]?["properties"]?["position"]?.array ?? []).compactMap(\.number)
            try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "down", "touch": 1, "point": [\#(p[0]), \#(60 + p[1])]}"#)
            try setup.control.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "up", "touch": 1}"#)
        }
        let capital = try inner.waitForEvent("input.key") { $0["keysym"] == .string("A") }
        #expect(capital["text"] == .string("A") && capital["modifiers"] == .array([.string("Shift")]), "\(capital.text)")
    }
}
