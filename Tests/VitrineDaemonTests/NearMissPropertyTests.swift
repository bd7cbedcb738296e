import Foundation
import Testing
import VitrineProtocol

/// Issue 22 item 4 through the socket: misspelt properties are refused with
/// `unknown_property` and a suggestion from the layer's kind; `_` keys, distant custom
/// keys and existing ones are accepted; a refused request changes nothing.
@Suite struct NearMissPropertyTests {
    @Test func misspeltPropertiesAreRefusedWithASuggestion() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "32x24"])
        let c = try daemon.connect()
        func ok(_ line: String) throws {
            let reply = try #require(try c.exchange(line))
            #expect(reply["ok"] == .bool(true), "\(line) → \(reply)")
        }
        func refused(_ line: String, key: String, suggestion: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let reply = try #require(try c.exchange(line))
            #expect(reply["error"]?["code"] == .string("unknown_property"), "\(line) → \(reply)", sourceLocation: sourceLocation)
            let message = reply["error"]?["message"]?.string ?? ""
            #expect(
                message.contains("no property '\(key)'; did you mean '\(suggestion)'?") && message.contains("'_\(key)'"),
                "\(message)", sourceLocation: sourceLocation)
        }
        try ok(#"{"id": 1, "cmd": "layer.add", "layer": "box", "properties": {"bounds": [0, 0, 10, 10], "score": 1}}"#)
        try ok(#"{"id": 2, "cmd": "layer.add", "layer": "t", "kind": "text", "properties": {"string": "Hi"}}"#)
        try ok(#"{"id": 3, "cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"value": 3}}"#)

        try refused(
            #"{"id": 4, "cmd": "layer.set", "layer": "box", "properties": {"backgroundColour": "red"}}"#, key: "backgroundColour", suggestion: "backgroundColor"
        )
        try refused(#"{"id": 5, "cmd": "layer.set", "layer": "box", "properties": {"Opacity": 0.5}}"#, key: "Opacity", suggestion: "opacity")
        try refused(#"{"id": 6, "cmd": "layer.add", "layer": "card", "properties": {"cornerRaduis": 8}}"#, key: "cornerRaduis", suggestion: "cornerRadius")
        try refused(
            #"{"id": 7, "cmd": "transaction", "commands": [{"cmd": "layer.set", "layer": "box", "properties": {"score": 2}}, {"cmd": "layer.set", "layer": "t", "properties": {"fontsize": 20}}]}"#,
            key: "fontsize", suggestion: "fontSize")
        try refused(#"{"id": 8, "cmd": "layer.set", "layer": "n", "properties": {"currencyCod": "EUR"}}"#, key: "currencyCod", suggestion: "currencyCode")
        try refused(
            #"{"id": 9, "cmd": "animation.add", "layer": "box", "animation": {"keyPath": "opacty", "to": 0, "duration": 1}}"#, key: "opacty",
            suggestion: "opacity")

        // Nothing of the refused requests stayed: no layer "card", score still 1.
        let box = try #require(try c.exchange(#"{"id": 10, "cmd": "layer.get", "layer": "box", "keys": ["score"]}"#))
        #expect(box["result"]?["properties"]?["score"] == .number(1), "\(box)")
        #expect(try c.exchange(#"{"id": 11, "cmd": "layer.get", "layer": "card"}"#)?["error"]?["code"] == .string("unknown_layer"))

        // The opt-in, distant names and existing keys are accepted.
        try ok(#"{"id": 12, "cmd": "layer.set", "layer": "box", "properties": {"_cornerRaduis": 8, "radius": 4, "score": 2}}"#)
        try ok(#"{"id": 13, "cmd": "layer.set", "layer": "box", "properties": {"_cornerRaduis": 9}}"#)
        try ok(#"{"id": 14, "cmd": "animation.add", "layer": "box", "animation": {"keyPath": "_cornerRaduis", "to": 0, "duration": 1}}"#)
        let got = try #require(try c.exchange(#"{"id": 15, "cmd": "layer.get", "layer": "box", "keys": ["_cornerRaduis", "radius"]}"#))
        #expect(got["result"]?["properties"]?["_cornerRaduis"] == .number(9), "\(got)")
    }
}
