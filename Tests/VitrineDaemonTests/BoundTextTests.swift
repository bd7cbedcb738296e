import Foundation
import Testing
import VitrineProtocol
import VitrineTestSupport

/// Seed 000 and 003: text bound to custom properties, redrawn every frame from their
/// presentation values.
@Suite struct BoundTextTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")

    @Test func theLabelCountsWhileItMoves() throws {
        let daemon = try InProcessCoordinator(width: 400, height: 160)
        try daemon.run(
            #"{"cmd": "layer.add", "layer": "label", "kind": "text", "properties": {"bounds": [0, 0, 260, 40], "position": [140, 40], "fontSize": 24, "template": "It took {count:%.0f} seconds", "count": 0}}"#
        )
        try daemon.run(
            #"{"cmd": "transaction", "duration": 2, "timing": "easeInEaseOut", "commands": [{"cmd": "animation.add", "layer": "label", "animation": {"keyPath": "count", "from": 0, "to": 60}}, {"cmd": "animation.add", "layer": "label", "animation": {"keyPath": "position", "from": [140, 40], "to": [260, 120]}}]}"#
        )
        try daemon.run(#"{"cmd": "clock.advance", "seconds": 1}"#)
        let count = try daemon.run(#"{"cmd": "layer.get", "layer": "label", "keys": ["count"], "presentation": true}"#)
        #expect(count["properties"]?["count"] == .number(30), "easeInEaseOut is at half way at half time")
        try GoldenImage.expectMatches(daemon.snapshot(), named: "bound-text-midway", in: Self.references)
    }

    @Test func templatesReachIntoDictionaries() throws {
        let daemon = try InProcessCoordinator(width: 300, height: 80)
        try daemon.run(
            #"{"cmd": "layer.add", "layer": "t", "kind": "text", "properties": {"bounds": [0, 0, 280, 40], "position": [150, 40], "fontSize": 20, "template": "scale {touches.a.scale:%.2f}", "touches": {"a": {"scale": 1}}}}"#
        )
        try daemon.run(#"{"cmd": "animation.add", "layer": "t", "animation": {"keyPath": "touches.a.scale", "from": 1, "to": 2, "duration": 1}}"#)
        let before = try daemon.snapshot()
        try daemon.run(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
        let value = try daemon.run(#"{"cmd": "layer.get", "layer": "t", "keys": ["touches.a.scale"], "presentation": true}"#)
        #expect(value["properties"]?["touches.a.scale"] == .number(1.5))
        #expect(!(try daemon.snapshot()).hasSamePixels(as: before), "the text must change as the value animates")
        try GoldenImage.expectMatches(daemon.snapshot(), named: "bound-text-dictionary", in: Self.references)
    }
}
