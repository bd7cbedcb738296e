import Foundation
import Testing
import VitrineCore
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// A shape layer added and animated through the socket of a running `vitrined`: its
/// screenshot at exact manual-clock times against the rasterizer's own stroke, and its
/// path animated between two outlines of the same commands.
@Suite struct ShapeLayerDaemonTests {
    static let ring = "M60 20 C82.091 20 100 37.909 100 60 C100 82.091 82.091 100 60 100 C37.909 100 20 82.091 20 60 C20 37.909 37.909 20 60 20 Z"

    @Test func progressRingThroughTheSocket() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "120x120"])
        let c = try daemon.connect()
        for line in [
            ##"{"id": 1, "cmd": "layer.add", "layer": "ring", "kind": "shape", "properties": {"bounds": [0, 0, 120, 120], "position": [60, 60], "path": "\##(Self.ring)", "fillColor": "#00000000", "strokeColor": "#2ec4b6", "lineWidth": 10, "lineCap": "round"}}"##,
            #"{"id": 2, "cmd": "animation.add", "layer": "ring", "key": "progress", "animation": {"keyPath": "strokeEnd", "from": 0, "to": 1, "duration": 4}}"#,
        ] {
            _ = try AnimationIntegrationTests.ok(c, line)
        }
        for time in [1.0, 3.0] {
            AnimationIntegrationTests.expectNear(try AnimationIntegrationTests.shown(c, "ring", "strokeEnd", at: time), time / 4, "strokeEnd at \(time) s")
            let path = try #require(try c.exchange(#"{"id": "shot", "cmd": "screenshot", "path": "ring-\#(time).png"}"#)?["result"]?["path"]?.string)
            let expected = Surface(width: 120, height: 120)
            expected.clear(.black)
            expected.stroke(
                Path(try PathData(parsing: Self.ring)), style: StrokeStyle(width: 10, cap: .round, end: time / 4),
                color: PremultipliedColor(Color(css: "#2ec4b6")!))
            try GoldenImage.expectSamePixels(try Surface(contentsOfPNG: path), as: expected, name: "daemon-ring-\(time)", tolerance: 1, "t = \(time)")
        }
    }

    @Test func pathAnimatesThroughTheSocket() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        let c = try daemon.connect()
        _ = try AnimationIntegrationTests.ok(c, #"{"id": 1, "cmd": "layer.add", "layer": "s", "kind": "shape", "properties": {"path": "M0 0 L10 0 L10 10 Z"}}"#)
        _ = try AnimationIntegrationTests.ok(
            c, #"{"id": 2, "cmd": "layer.set", "layer": "s", "properties": {"path": "M0 0 L30 0 L10 30 Z"}, "animation": {"duration": 2}}"#)
        let shown = try AnimationIntegrationTests.shown(c, "s", "path", at: 0.5)
        let data = try PathData(parsing: try #require(shown.string))
        #expect(data.elements == [.move(Point(x: 0, y: 0)), .line(Point(x: 15, y: 0)), .line(Point(x: 10, y: 15)), .close])
        let bad = try #require(try c.exchange(#"{"id": 3, "cmd": "layer.set", "layer": "s", "properties": {"lineDashPattern": [4, -2]}}"#))
        #expect(bad["ok"] == .bool(false))
        #expect(bad["error"]?["code"] == .string("invalid_value"), "\(bad)")
    }
}
