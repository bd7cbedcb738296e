import Foundation
import Testing
import VitrineProtocol

/// A bad request gets its own error code, changes nothing, and leaves the connection
/// working: after each one the whole scene (`layer.tree`, `layer.get` of every layer, model
/// and presentation, `animation.list`, `time`) is compared with what it was before, and a
/// `ping` must answer.
@Suite struct BadRequestTests {
    /// One bad line and what the daemon must answer.
    struct Case: CustomTestStringConvertible {
        let name: String
        let line: [UInt8]
        let code: String
        /// The reply's id: the request's when it could be read, else null.
        let id: JSON

        init(_ name: String, _ line: String, _ code: String, id: JSON = .number(7)) {
            self.name = name
            self.line = Array(line.utf8)
            self.code = code
            self.id = id
        }

        init(_ name: String, bytes: [UInt8], _ code: String, id: JSON = .null) {
            self.name = name
            line = bytes
            self.code = code
            self.id = id
        }

        var testDescription: String { name }
    }

    /// A scene with nesting, a text layer, custom properties and a running animation.
    static let setup = [
        #"{"id": "s1", "cmd": "layer.add", "layer": "a", "properties": {"bounds": [0, 0, 100, 80], "position": [60, 50], "backgroundColor": "red", "count": 3, "touches": {"p": {"scale": 2}}}}"#,
        #"{"id": "s2", "cmd": "layer.add", "layer": "b", "parent": "a", "properties": {"bounds": [0, 0, 10, 10], "opacity": 0.5}}"#,
        ##"{"id": "s3", "cmd": "layer.add", "layer": "t", "kind": "text", "properties": {"bounds": [0, 0, 200, 40], "string": "Hi", "foregroundColor": "#102030"}}"##,
        #"{"id": "s4", "cmd": "animation.add", "layer": "a", "key": "spin", "animation": {"keyPath": "transform.rotation.z", "from": 0, "to": "360deg", "duration": 10, "repeatCount": "infinity"}}"#,
        #"{"id": "s5", "cmd": "clock.advance", "seconds": 1.5}"#,
        #"{"id": "s6", "cmd": "layer.add", "layer": "crawl", "properties": {"speed": 5e-324}}"#,
        #"{"id": "s7", "cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"value": 12.5}}"#,
    ]

    /// Requests whose replies together are the observable scene.
    static let probes: [String] = {
        var probes = [#"{"id": "tree", "cmd": "layer.tree"}"#, #"{"id": "time", "cmd": "time"}"#, #"{"id": "anims", "cmd": "animation.list", "layer": "a"}"#]
        for layer in ["root", "a", "b", "t", "n"] {
            probes.append(#"{"id": "get-\#(layer)", "cmd": "layer.get", "layer": "\#(layer)"}"#)
            probes.append(#"{"id": "show-\#(layer)", "cmd": "layer.get", "layer": "\#(layer)", "presentation": true}"#)
        }
        return probes
    }()

    static func state(_ client: SocketClient) throws -> [JSON] {
        try probes.map { probe in
            let reply = try #require(try client.exchange(probe), "no reply to \(probe)")
            #expect(reply["ok"] == .bool(true), "\(probe) → \(reply)")
            return reply
        }
    }

    static let framing: [Case] = [
        Case("truncated JSON", #"{"id": 7, "cmd": "ping""#, "malformed_json", id: .null),
        Case("not JSON at all", "hello vitrine", "malformed_json", id: .null),
        Case("trailing garbage", #"{"id": 7, "cmd": "ping"} x"#, "malformed_json", id: .null),
        Case("two objects on a line", #"{"id": 7, "cmd": "ping"}{"id": 8, "cmd": "ping"}"#, "malformed_json", id: .null),
        Case("single quotes", "{'id': 7, 'cmd': 'ping'}", "malformed_json", id: .null),
        Case("an array", #"[{"id": 7, "cmd": "ping"}]"#, "not_an_object", id: .null),
        Case("a string", #""ping""#, "not_an_object", id: .null),
        Case("a number", "42", "not_an_object", id: .null),
        Case("null", "null", "not_an_object", id: .null),
        Case(
            "invalid UTF-8 inside a string", bytes: Array(#"{"id": 7, "cmd": "layer.add", "layer": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8), "invalid_utf8"
        ),
        Case("a lone continuation byte", bytes: [0x80, 0x7B, 0x7D], "invalid_utf8"),
        Case("an overlong encoding of '/'", bytes: Array(#"{"id": 7, "cmd": "ping", "x": ""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), "invalid_utf8"),
        Case(
            "a UTF-16 surrogate encoded in UTF-8", bytes: Array(#"{"id": 7, "cmd": "ping", "x": ""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
            "invalid_utf8"),
    ]

    static let envelope: [Case] = [
        Case("missing id", #"{"cmd": "layer.remove", "layer": "a"}"#, "missing_field", id: .null),
        Case("null id", #"{"id": null, "cmd": "layer.remove", "layer": "a"}"#, "missing_field", id: .null),
        Case("id of the wrong type", #"{"id": true, "cmd": "layer.remove", "layer": "a"}"#, "wrong_type", id: .null),
        Case("id that is an object", #"{"id": {"n": 1}, "cmd": "layer.remove", "layer": "a"}"#, "wrong_type", id: .null),
        Case("missing cmd", #"{"id": 7, "layer": "a"}"#, "missing_field"),
        Case("unknown cmd", #"{"id": 7, "cmd": "layer.delete", "layer": "a"}"#, "unknown_command"),
        Case("cmd of the wrong type", #"{"id": 7, "cmd": ["layer.remove"], "layer": "a"}"#, "wrong_type"),
        Case("string id is echoed", #"{"id": "x-1", "cmd": "layer.nuke"}"#, "unknown_command", id: .string("x-1")),
    ]

    static let fields: [Case] = [
        Case("layer id of the wrong type", #"{"id": 7, "cmd": "layer.remove", "layer": 5}"#, "wrong_type"),
        Case("properties not an object", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": [["opacity", 0]]}"#, "wrong_type"),
        Case("presentation not a bool", #"{"id": 7, "cmd": "layer.get", "layer": "a", "presentation": "yes"}"#, "wrong_type"),
        Case("keys not strings", #"{"id": 7, "cmd": "layer.get", "layer": "a", "keys": [1]}"#, "wrong_type"),
        Case("actions not a bool", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 0}, "actions": 0}"#, "wrong_type"),
        Case("animation not an object", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 0}, "animation": 2}"#, "wrong_type"),
        Case("transaction commands not objects", #"{"id": 7, "cmd": "transaction", "commands": ["layer.remove"]}"#, "wrong_type"),
        Case("point given as a string", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"position": "left"}}"#, "wrong_type"),
        Case("point with three numbers", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"position": [1, 2, 3]}}"#, "wrong_type"),
        Case("number given as a bool", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"opacity": true}}"#, "wrong_type"),
        Case("custom number set to a string", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"count": "many"}}"#, "wrong_type"),
        Case("null value", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"opacity": null}}"#, "wrong_type"),
        Case("unknown field on ping", #"{"id": 7, "cmd": "ping", "verbose": true}"#, "unknown_field"),
        Case("misspelt field on layer.add", #"{"id": 7, "cmd": "layer.add", "layer": "new", "propertes": {"opacity": 0}}"#, "unknown_field"),
        Case(
            "unknown field in a transaction command",
            #"{"id": 7, "cmd": "transaction", "commands": [{"cmd": "layer.add", "layer": "new"}, {"cmd": "layer.remove", "layer": "a", "force": true}]}"#,
            "unknown_field"),
        Case("unknown field in a transform", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"transform": {"skew": 1}}}"#, "unknown_field"),
        Case("missing layer", #"{"id": 7, "cmd": "layer.set", "properties": {"opacity": 0}}"#, "missing_field"),
        Case("layer.set without properties", #"{"id": 7, "cmd": "layer.set", "layer": "a"}"#, "missing_field"),
        Case("layer.move without parent", #"{"id": 7, "cmd": "layer.move", "layer": "a"}"#, "missing_field"),
        Case("two placements", #"{"id": 7, "cmd": "layer.add", "layer": "new", "above": "a", "below": "t"}"#, "invalid_value"),
        Case("fractional index", #"{"id": 7, "cmd": "layer.move", "layer": "t", "parent": "root", "index": 0.5}"#, "invalid_value"),
        Case(
            "a query batched in a transaction", #"{"id": 7, "cmd": "transaction", "commands": [{"cmd": "layer.add", "layer": "new"}, {"cmd": "ping"}]}"#,
            "invalid_value"),
        Case("unknown event pattern", #"{"id": 7, "cmd": "subscribe", "events": ["window.*"]}"#, "invalid_value"),
    ]

    static let scene: [Case] = [
        Case("get an unknown layer", #"{"id": 7, "cmd": "layer.get", "layer": "ghost"}"#, "unknown_layer"),
        Case("set an unknown layer", #"{"id": 7, "cmd": "layer.set", "layer": "ghost", "properties": {"opacity": 0}}"#, "unknown_layer"),
        Case("remove an unknown layer", #"{"id": 7, "cmd": "layer.remove", "layer": "ghost"}"#, "unknown_layer"),
        Case("add under an unknown parent", #"{"id": 7, "cmd": "layer.add", "layer": "new", "parent": "ghost"}"#, "unknown_layer"),
        Case("add above an unknown sibling", #"{"id": 7, "cmd": "layer.add", "layer": "new", "above": "ghost"}"#, "unknown_layer"),
        Case(
            "animate an unknown layer", #"{"id": 7, "cmd": "animation.add", "layer": "ghost", "animation": {"keyPath": "opacity", "to": 0}}"#, "unknown_layer"),
        Case("tree of an unknown root", #"{"id": 7, "cmd": "layer.tree", "root": "ghost"}"#, "unknown_layer"),
        Case("pause an unknown layer", #"{"id": 7, "cmd": "layer.pause", "layer": "ghost"}"#, "unknown_layer"),
        Case("duplicate id", #"{"id": 7, "cmd": "layer.add", "layer": "b"}"#, "duplicate_id"),
        Case(
            "duplicate id late in a transaction",
            #"{"id": 7, "cmd": "transaction", "commands": [{"cmd": "layer.add", "layer": "new"}, {"cmd": "layer.set", "layer": "a", "properties": {"opacity": 0.1}}, {"cmd": "layer.add", "layer": "new"}]}"#,
            "duplicate_id"),
        Case("invalid layer id", #"{"id": 7, "cmd": "layer.add", "layer": "no spaces!"}"#, "invalid_id"),
        Case("empty layer id", #"{"id": 7, "cmd": "layer.add", "layer": ""}"#, "invalid_id"),
        Case("unknown kind", #"{"id": 7, "cmd": "layer.add", "layer": "new", "kind": "hologram"}"#, "unknown_kind"),
        Case("move into itself", #"{"id": 7, "cmd": "layer.move", "layer": "a", "parent": "a"}"#, "cycle"),
        Case("move into its own child", #"{"id": 7, "cmd": "layer.move", "layer": "a", "parent": "b"}"#, "cycle"),
        Case(
            "cycle after a valid move in a transaction",
            #"{"id": 7, "cmd": "transaction", "commands": [{"cmd": "layer.move", "layer": "t", "parent": "b"}, {"cmd": "layer.move", "layer": "b", "parent": "t"}]}"#,
            "cycle"),
        Case("remove the root", #"{"id": 7, "cmd": "layer.remove", "layer": "root"}"#, "root_layer"),
        Case("move the root", #"{"id": 7, "cmd": "layer.move", "layer": "root", "parent": "a"}"#, "root_layer"),
        Case("remove an unknown animation", #"{"id": 7, "cmd": "animation.remove", "layer": "a", "key": "nope"}"#, "unknown_animation"),
        Case("animation without keyPath", #"{"id": 7, "cmd": "animation.add", "layer": "a", "animation": {"from": 0, "to": 1}}"#, "missing_field"),
        Case(
            "negative duration", #"{"id": 7, "cmd": "animation.add", "layer": "a", "animation": {"keyPath": "opacity", "to": 0, "duration": -1}}"#,
            "invalid_timing"),
        Case(
            "keyTimes not matching values",
            #"{"id": 7, "cmd": "animation.add", "layer": "a", "animation": {"keyPath": "opacity", "values": [0, 1, 0], "keyTimes": [0, 1], "duration": 1}}"#,
            "invalid_animation"),
        Case(
            "spring with zero mass",
            #"{"id": 7, "cmd": "animation.add", "layer": "a", "animation": {"type": "spring", "keyPath": "opacity", "to": 0, "mass": 0}}"#, "invalid_animation"),
        Case(
            "unknown timing curve", #"{"id": 7, "cmd": "animation.add", "layer": "a", "animation": {"keyPath": "opacity", "to": 0, "timing": "bouncy"}}"#,
            "invalid_timing"),
        Case(
            "animate a string", #"{"id": 7, "cmd": "animation.add", "layer": "t", "animation": {"keyPath": "string", "from": "a", "to": "b", "duration": 1}}"#,
            "not_animatable"),
        Case("screenshot of an unknown output", #"{"id": 7, "cmd": "screenshot", "output": "hdmi-2"}"#, "unknown_output"),
    ]

    /// JSON allows 1e999, but no Double holds it: the line cannot be decoded, so the reply
    /// has a null id; the code is invalid_value (the number is out of range), not
    /// malformed_json.
    static let numbersColoursAndKeys: [Case] = [
        Case("infinite coordinate (1e999)", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"position.x": 1e999}}"#, "invalid_value", id: .null),
        Case(
            "negative infinite coordinate", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"position": [-1e999, 0]}}"#, "invalid_value", id: .null
        ),
        Case("NaN (not JSON)", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"opacity": NaN}}"#, "malformed_json", id: .null),
        Case("Infinity (not JSON)", #"{"id": 7, "cmd": "clock.set", "time": Infinity}"#, "malformed_json", id: .null),
        Case("NaN angle string", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"transform.rotation.z": "nandeg"}}"#, "wrong_type"),
        Case("absurd coordinate (1e12)", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"position": [1e12, 0]}}"#, "invalid_value"),
        Case("absurd custom number", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"count": 1e12}}"#, "invalid_value"),
        Case("absurd bounds on a new layer", #"{"id": 7, "cmd": "layer.add", "layer": "new", "properties": {"bounds": [0, 0, 1e12, 1]}}"#, "invalid_value"),
        Case("infinite angle string", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"transform.rotation.z": "1e999deg"}}"#, "wrong_type"),
        Case("opacity above 1", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 2}}"#, "invalid_value"),
        Case("infinite clock time", #"{"id": 7, "cmd": "clock.set", "time": 1e999}"#, "invalid_value", id: .null),
        Case("absurd clock time", #"{"id": 7, "cmd": "clock.set", "time": 1e12}"#, "invalid_value"),
        Case("clock going backwards", #"{"id": 7, "cmd": "clock.advance", "seconds": -1}"#, "invalid_value"),
        Case("infinite advance", #"{"id": 7, "cmd": "clock.advance", "seconds": 1e999}"#, "invalid_value", id: .null),
        Case("absurd layer speed", #"{"id": 7, "cmd": "layer.speed", "layer": "a", "speed": 1e12}"#, "invalid_value"),
        Case("infinite transaction duration", #"{"id": 7, "cmd": "transaction", "duration": 1e999, "commands": []}"#, "invalid_value", id: .null),
        Case(
            "absurd animation duration", #"{"id": 7, "cmd": "animation.add", "layer": "a", "animation": {"keyPath": "opacity", "to": 0, "duration": 1e12}}"#,
            "invalid_timing"),
        Case(
            "infinite animation endpoint",
            #"{"id": 7, "cmd": "animation.add", "layer": "a", "animation": {"keyPath": "position.x", "from": 0, "to": 1e999, "duration": 1}}"#, "invalid_value",
            id: .null),
        Case("infinite time conversion", #"{"id": 7, "cmd": "time", "convert": {"time": 1e999}}"#, "invalid_value", id: .null),
        Case("conversion out of a layer too slow", #"{"id": 7, "cmd": "time", "convert": {"time": 4, "from": "crawl", "to": null}}"#, "invalid_value"),
        Case(
            "string longer than a text layer shows",
            #"{"id": 7, "cmd": "layer.set", "layer": "t", "properties": {"string": ""# + String(repeating: "x", count: 16385) + #""}}"#, "invalid_value"),
        Case(
            "template longer than a text layer shows",
            #"{"id": 7, "cmd": "layer.set", "layer": "t", "properties": {"template": ""# + String(repeating: "{n}", count: 6000) + #""}}"#, "invalid_value"),
        Case("unknown locale", #"{"id": 7, "cmd": "layer.set", "layer": "t", "properties": {"locale": "xx_YY"}}"#, "invalid_value"),
        Case("empty locale", #"{"id": 7, "cmd": "layer.set", "layer": "t", "properties": {"locale": ""}}"#, "invalid_value"),
        Case(
            "currency symbol for a code", #"{"id": 7, "cmd": "layer.set", "layer": "n", "properties": {"format": "currency", "currencyCode": "€"}}"#,
            "invalid_value"),
        Case("unassigned currency code", #"{"id": 7, "cmd": "layer.set", "layer": "n", "properties": {"currencyCode": "XYZ"}}"#, "invalid_value"),
        Case("colour with two hex digits", ##"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"backgroundColor": "#12"}}"##, "wrong_type"),
        Case("colour with non-hex digits", ##"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"backgroundColor": "#gg0000"}}"##, "wrong_type"),
        Case("unknown colour name", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"backgroundColor": "blurple"}}"#, "wrong_type"),
        Case("colour component above 1", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"backgroundColor": [2, 0, 0]}}"#, "wrong_type"),
        Case("colour with two components", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"backgroundColor": [1, 0]}}"#, "wrong_type"),
        Case("colour as a number", #"{"id": 7, "cmd": "layer.set", "layer": "t", "properties": {"foregroundColor": 16711680}}"#, "wrong_type"),
        Case("unknown key path in layer.get", #"{"id": 7, "cmd": "layer.get", "layer": "a", "keys": ["nothing"]}"#, "unknown_key_path"),
        Case("unknown sub-key of a point", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"position.z": 3}}"#, "unknown_key_path"),
        Case("unknown key below a custom value", #"{"id": 7, "cmd": "layer.get", "layer": "a", "keys": ["touches.q.scale"]}"#, "unknown_key_path"),
        Case("malformed key path", #"{"id": 7, "cmd": "layer.set", "layer": "a", "properties": {"position..x": 3}}"#, "invalid_key_path"),
        Case(
            "animation on an unknown key path", #"{"id": 7, "cmd": "animation.add", "layer": "a", "animation": {"keyPath": "position.w", "to": 1}}"#,
            "unknown_key_path"),
    ]

    static let groups: [String: [Case]] = [
        "framing": framing, "envelope": envelope, "fields": fields, "scene": scene,
        "numbers, colours and key paths": numbersColoursAndKeys,
    ]

    @Test(arguments: ["framing", "envelope", "fields", "scene", "numbers, colours and key paths"])
    func badRequestIsRefusedAndChangesNothing(group: String) throws {
        let cases = try #require(Self.groups[group])
        let daemon = try DaemonProcess()
        let client = try daemon.connect()
        for line in Self.setup {
            let reply = try #require(try client.exchange(line))
            try #require(reply["ok"] == .bool(true), "setup \(line) → \(reply)")
        }
        let before = try Self.state(client)
        for bad in cases {
            let reply = try #require(try client.exchange(bad.line), "\(bad.name): no reply")
            #expect(reply["ok"] == .bool(false), "\(bad.name): \(reply)")
            #expect(reply["error"]?["code"] == .string(bad.code), "\(bad.name): expected \(bad.code), got \(reply)")
            #expect(reply["id"] == bad.id, "\(bad.name): reply id \(reply["id"] ?? .null), expected \(bad.id)")
            let message = reply["error"]?["message"]?.string ?? ""
            #expect(message.count > 10, "\(bad.name): the message should say what was wrong: \(reply)")
            #expect(Set(reply.object?.keys ?? [:].keys) == ["id", "ok", "error"], "\(bad.name): \(reply)")
            let after = try Self.state(client)
            for (was, now) in zip(before, after) where was != now {
                Issue.record("\(bad.name) changed the scene:\n  before: \(was)\n  after:  \(now)")
            }
            let pong = try #require(try client.exchange(#"{"id": "p", "cmd": "ping"}"#), "\(bad.name): no ping reply")
            #expect(pong["result"]?["pong"] == .bool(true), "\(bad.name): \(pong)")
        }
        #expect(client.takeEvents().isEmpty, "bad requests must cause no events")
    }

    /// Every code of the table in docs/PROTOCOL.md that a request can cause is covered by
    /// a case above or by `BoundaryTests`, so a new code cannot go untested unnoticed.
    @Test func everyRequestErrorCodeIsCovered() throws {
        let all = Self.framing + Self.envelope + Self.fields + Self.scene + Self.numbersColoursAndKeys
        let covered = Set(all.map(\.code)).union(["line_too_long", "limit_exceeded", "path_not_allowed", "not_manual_clock"])
        let documented: Set = [
            "malformed_json", "invalid_utf8", "not_an_object", "missing_field", "unknown_field", "wrong_type",
            "invalid_value", "unknown_command", "line_too_long", "limit_exceeded", "path_not_allowed",
            "not_manual_clock", "unknown_output", "unknown_layer", "duplicate_id", "invalid_id", "unknown_kind",
            "cycle", "root_layer", "invalid_key_path", "unknown_key_path", "not_animatable", "invalid_animation",
            "unknown_animation", "invalid_timing",
        ]
        #expect(documented.isSubset(of: covered), "uncovered: \(documented.subtracting(covered).sorted())")
    }
}
