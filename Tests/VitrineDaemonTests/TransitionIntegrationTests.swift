import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Transitions and replicators through the real daemon's socket: one request slides
/// screen B in and pushes screen A out, screenshots at exact manual-clock times show it,
/// the transition ends with `animation.finished`, can be removed, and is refused when
/// it is malformed.
@Suite struct TransitionIntegrationTests {
    static let setup = [
        #"{"id": "s1", "cmd": "layer.add", "layer": "screens", "properties": {"bounds": [0, 0, 160, 100], "position": [80, 50]}}"#,
        ##"{"id": "s2", "cmd": "layer.add", "layer": "a", "parent": "screens", "properties": {"bounds": [0, 0, 160, 100], "position": [80, 50], "backgroundColor": "#d03030"}}"##,
        ##"{"id": "s3", "cmd": "layer.add", "layer": "b", "parent": "screens", "properties": {"bounds": [0, 0, 160, 100], "position": [80, 50], "backgroundColor": "#3050d0", "hidden": true}}"##,
    ]
    static let push =
        #"{"id": "push", "cmd": "transaction", "commands": [{"cmd": "layer.set", "layer": "a", "properties": {"hidden": true}}, {"cmd": "layer.set", "layer": "b", "properties": {"hidden": false}}, {"cmd": "animation.add", "layer": "screens", "animation": {"transition": "push", "subtype": "fromRight", "duration": 1, "timing": "linear"}}]}"#

    func start() throws -> (DaemonProcess, SocketClient) {
        let daemon = try DaemonProcess(arguments: ["--size", "160x100"])
        let c = try daemon.connect()
        for line in Self.setup { _ = try AnimationIntegrationTests.ok(c, line) }
        return (daemon, c)
    }

    func screenshot(_ c: SocketClient, at time: Double) throws -> Surface {
        _ = try AnimationIntegrationTests.ok(c, #"{"id": "clock", "cmd": "clock.set", "time": \#(time)}"#)
        let path = try #require(try AnimationIntegrationTests.ok(c, #"{"id": "shot", "cmd": "screenshot", "path": "transition-\#(time).png"}"#)["path"]?.string)
        return try Surface(contentsOfPNG: path)
    }

    @Test func oneRequestPushesScreenBIn() throws {
        let (daemon, c) = try start()
        _ = daemon
        _ = try AnimationIntegrationTests.ok(c, #"{"id": "sub", "cmd": "subscribe", "events": ["animation.*"]}"#)
        _ = try AnimationIntegrationTests.ok(c, Self.push)
        let red = [0xd0, 0x30, 0x30, 255], blue = [0x30, 0x50, 0xd0, 255]
        let quarter = try screenshot(c, at: 0.25)
        ScreenshotTests.expectPixel(quarter, 115, 50, red, "A, pushed a quarter of the way")
        ScreenshotTests.expectPixel(quarter, 125, 50, blue, "B, coming in from the right")
        let half = try screenshot(c, at: 0.5)
        ScreenshotTests.expectPixel(half, 75, 50, red, "A halfway")
        ScreenshotTests.expectPixel(half, 85, 50, blue, "B halfway")
        let listed = try AnimationIntegrationTests.ok(c, #"{"id": "list", "cmd": "animation.list", "layer": "screens"}"#)
        #expect("\(listed)".contains("transition"), "\(listed)")
        let end = try screenshot(c, at: 1.5)
        ScreenshotTests.expectPixel(end, 5, 50, blue, "B, the transition over")
        let events = c.takeEvents().filter { $0["event"]?.string == "animation.finished" }
        #expect(events.contains { $0["key"]?.string == "transition" && $0["layer"]?.string == "screens" && $0["finished"] == .bool(true) }, "\(events)")
    }

    @Test func aRemovedTransitionShowsTheNewScreenAtOnce() throws {
        let (daemon, c) = try start()
        _ = daemon
        _ = try AnimationIntegrationTests.ok(c, Self.push)
        ScreenshotTests.expectPixel(try screenshot(c, at: 0.25), 5, 50, [0xd0, 0x30, 0x30, 255], "A while it runs")
        _ = try AnimationIntegrationTests.ok(c, #"{"id": "rm", "cmd": "animation.remove", "layer": "screens", "key": "transition"}"#)
        ScreenshotTests.expectPixel(try screenshot(c, at: 0.3), 5, 50, [0x30, 0x50, 0xd0, 255], "B once removed")
    }

    @Test func malformedTransitionsAreRefusedAndChangeNothing() throws {
        let (daemon, c) = try start()
        _ = daemon
        for (line, code) in [
            (#"{"id": 1, "cmd": "animation.add", "layer": "screens", "animation": {"transition": "slide"}}"#, "invalid_value"),
            (#"{"id": 2, "cmd": "animation.add", "layer": "screens", "animation": {"transition": "push", "subtype": "fromInside"}}"#, "invalid_value"),
            (#"{"id": 3, "cmd": "animation.add", "layer": "screens", "animation": {"transition": "fade", "keyPath": "opacity"}}"#, "unknown_field"),
            (
                #"{"id": 4, "cmd": "animation.add", "layer": "screens", "animation": {"transition": "fade", "startProgress": 0.8, "endProgress": 0.2}}"#,
                "invalid_value"
            ),
            (#"{"id": 5, "cmd": "animation.add", "layer": "screens", "animation": {"keyPath": "opacity", "to": 0, "subtype": "fromLeft"}}"#, "unknown_field"),
        ] {
            let reply = try #require(try c.exchange(line))
            #expect(reply["error"]?["code"]?.string == code, "\(line) → \(reply)")
        }
        let listed = try AnimationIntegrationTests.ok(c, #"{"id": "list", "cmd": "animation.list", "layer": "screens"}"#)
        #expect(!"\(listed)".contains("transition"), "\(listed)")
    }

    /// A spinner made through the socket: copy 3 of the bar shows its fade a quarter of a
    /// second late.
    @Test func aReplicatorSpinnerThroughTheSocket() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "160x160"])
        let c = try daemon.connect()
        for line in [
            #"{"id": 1, "cmd": "layer.add", "layer": "spinner", "kind": "replicator", "properties": {"bounds": [0, 0, 120, 120], "position": [80, 80], "instanceCount": 4, "instanceTransform": {"rotation": "90deg"}, "instanceDelay": 0.25}}"#,
            #"{"id": 2, "cmd": "layer.add", "layer": "bar", "parent": "spinner", "properties": {"bounds": [0, 0, 10, 30], "position": [60, 20], "backgroundColor": "white"}}"#,
            #"{"id": 3, "cmd": "animation.add", "layer": "bar", "animation": {"keyPath": "opacity", "from": 1, "to": 0, "duration": 1, "repeatCount": "infinity"}}"#,
        ] { _ = try AnimationIntegrationTests.ok(c, line) }
        let shot = try screenshot(c, at: 1.5)
        // Copy i is (1.5 − i/4) mod 1 into its fade: top 0.5, right 0.25, bottom 0, left 0.75.
        ScreenshotTests.expectPixel(shot, 80, 35, [128, 128, 128, 255], "copy 0 (top)")
        ScreenshotTests.expectPixel(shot, 125, 80, [191, 191, 191, 255], "copy 1 (right)")
        ScreenshotTests.expectPixel(shot, 80, 125, [255, 255, 255, 255], "copy 2 (bottom)")
        ScreenshotTests.expectPixel(shot, 35, 80, [64, 64, 64, 255], "copy 3 (left)")
    }
}
