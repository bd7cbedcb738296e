import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Masks through the daemon's socket: refused masks change nothing, and a wipe in flight
/// survives SIGKILL through the scene journal with the same pixels.
@Suite(.serialized) struct LayerMaskDaemonTests {
    static let build: [String] = [
        ##"{"cmd": "layer.add", "layer": "photo", "properties": {"bounds": [0, 0, 200, 100], "position": [160, 100], "backgroundColor": "#ff6b6b"}}"##,
        #"{"cmd": "layer.add", "layer": "label", "kind": "text", "parent": "photo", "properties": {"bounds": [0, 0, 200, 40], "position": [100, 50], "string": "Wipe", "fontSize": 30, "alignmentMode": "center"}}"#,
        #"{"cmd": "layer.add", "layer": "wipe", "parent": null, "properties": {"bounds": [0, 0, 200, 100], "anchorPoint": [0, 0], "position": [-200, 0], "backgroundColor": "white", "cornerRadius": 20}}"#,
        #"{"cmd": "layer.set", "layer": "photo", "properties": {"mask": "wipe"}}"#,
        #"{"cmd": "animation.add", "layer": "wipe", "animation": {"keyPath": "position.x", "from": -200, "to": 0, "duration": 2, "timing": "linear"}}"#,
    ]

    @Test func badMasksAreRefusedThroughTheSocketAndChangeNothing() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        for request in Self.build { try SceneJournalTests.ok(c.request(request)) }
        try SceneJournalTests.ok(c.request(#"{"cmd": "layer.add", "layer": "free", "parent": null}"#))
        try SceneJournalTests.ok(c.request(#"{"cmd": "layer.add", "layer": "inner", "parent": "free"}"#))
        let before = try SceneJournalTests.screenshot(c, daemon, "mask-before")
        let cases: [(String, String)] = [
            (#"{"cmd": "layer.set", "layer": "photo", "properties": {"mask": "missing"}}"#, "there is no layer 'missing'"),
            (#"{"cmd": "layer.set", "layer": "photo", "properties": {"mask": "photo"}}"#, "cannot be its own mask"),
            (#"{"cmd": "layer.set", "layer": "photo", "properties": {"mask": "label"}}"#, "'label' is in the layer tree"),
            (#"{"cmd": "layer.set", "layer": "label", "properties": {"mask": "wipe"}}"#, "'wipe' is the mask of 'photo' already"),
            (#"{"cmd": "layer.set", "layer": "inner", "properties": {"mask": "free"}}"#, "the mask would clip itself"),
            (#"{"cmd": "layer.add", "layer": "extra", "properties": {"mask": "photo"}}"#, "'photo' is in the layer tree"),
            (#"{"cmd": "layer.move", "layer": "wipe", "parent": "photo"}"#, "'wipe' is the mask of 'photo'"),
        ]
        for (request, words) in cases {
            let reply = try c.request(request)
            #expect(reply["ok"] == .bool(false), "\(request)")
            #expect(reply["error"]?["code"] == .string("invalid_value"), "\(request): \(reply)")
            #expect(reply["error"]?["message"]?.string?.contains(words) == true, "\(request): \(reply)")
        }
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "photo", "keys": ["mask"]}"#)["result"]?["properties"]?["mask"] == .string("wipe"))
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "extra"}"#)["ok"] == .bool(false))
        let after = try SceneJournalTests.screenshot(c, daemon, "mask-after")
        #expect(after.hasSamePixels(as: before))
    }

    @Test func aWipeInFlightSurvivesSIGKILL() throws {
        let state = try SceneJournalTests.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try DaemonProcess(arguments: ["--size", "320x200", "--state-dir", state])
        let c = try first.connect()
        for request in Self.build { try SceneJournalTests.ok(c.request(request)) }
        try SceneJournalTests.ok(c.request(#"{"cmd": "clock.advance", "seconds": 1.2}"#))
        let before = try SceneJournalTests.screenshot(c, first, "wipe-before")
        // Half the photo shows at 1.2 s: its left part (x 60…180 on screen), not its right.
        #expect(before.pixel(x: 100, y: 100) != before.pixel(x: 240, y: 100))
        try SceneJournalTests.waitForJournal(in: state, mediaTime: 1.2, layers: 4)
        kill(first.pid, SIGKILL)
        #expect(first.waitForExit() == 128 + SIGKILL)
        let second = try DaemonProcess(arguments: ["--size", "320x200", "--state-dir", state])
        let d = try second.connect()
        let after = try SceneJournalTests.screenshot(d, second, "wipe-after")
        try SceneJournalTests.expectSame(after, before, "wipe-restored")
        try SceneJournalTests.ok(d.request(#"{"cmd": "clock.advance", "seconds": 1}"#))
        let done = try SceneJournalTests.screenshot(d, second, "wipe-done")
        #expect(done.pixel(x: 240, y: 100) == done.pixel(x: 100, y: 100))
    }
}
