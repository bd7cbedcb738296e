import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// Rolling numbers through the protocol, drawn at exact manual-clock times and compared
/// with reference images (mid-roll and settled), plus the promises that need no picture.
@Suite struct RollingNumberTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")

    /// A named case: requests, then the time to look at.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let requests: [String]
        let advance: Double
        var testDescription: String { name }
    }

    static let number =
        #"{"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, 380, 90], "position": [200, 60], "fontSize": 64, "alignment": "center", "value": %VALUE%%EXTRA%}}"#

    static func add(_ value: String, _ extra: String = "") -> String {
        number.replacingOccurrences(of: "%VALUE%", with: value).replacingOccurrences(of: "%EXTRA%", with: extra)
    }

    static let cases: [Case] = [
        Case(
            name: "rolling-all-numbers", requests: [add("1234"), #"{"cmd": "number.set", "layer": "n", "value": 1294, "animationType": "allNumbers"}"#],
            advance: 0.6),
        Case(
            name: "rolling-only-changed",
            requests: [add("1234"), #"{"cmd": "number.set", "layer": "n", "value": 1294, "animationType": "onlyChangedNumbers"}"#], advance: 0.6),
        Case(name: "rolling-all-after-first-changed", requests: [add("1234"), #"{"cmd": "number.set", "layer": "n", "value": 1294}"#], advance: 0.6),
        Case(
            name: "rolling-no-animation", requests: [add("1234"), #"{"cmd": "number.set", "layer": "n", "value": 1294, "animationType": "noAnimation"}"#],
            advance: 0),
        Case(name: "rolling-direction-up", requests: [add("5"), #"{"cmd": "number.set", "layer": "n", "value": 2, "direction": "up"}"#], advance: 0.5),
        Case(name: "rolling-direction-down", requests: [add("5"), #"{"cmd": "number.set", "layer": "n", "value": 8, "direction": "down"}"#], advance: 0.5),
        Case(name: "rolling-direction-auto-down", requests: [add("50"), #"{"cmd": "number.set", "layer": "n", "value": 47}"#], advance: 0.5),
        Case(
            name: "rolling-currency-settled",
            requests: [
                add("1234.5", #", "format": "currency", "currencyCode": "EUR", "locale": "de_DE", "minimumFractionDigits": 2, "maximumFractionDigits": 2"#)
            ], advance: 0),
        Case(name: "rolling-grouping-change", requests: [add("999"), #"{"cmd": "number.set", "layer": "n", "value": 1000}"#], advance: 0.7),
        Case(name: "rolling-grouping-change-settled", requests: [add("999"), #"{"cmd": "number.set", "layer": "n", "value": 1000}"#], advance: 5),
        Case(name: "rolling-negative", requests: [add("-42"), #"{"cmd": "number.set", "layer": "n", "value": 17}"#], advance: 0.5),
        Case(
            name: "rolling-retarget",
            requests: [
                add("100"), #"{"cmd": "number.set", "layer": "n", "value": 150}"#, #"{"cmd": "clock.advance", "seconds": 0.4}"#,
                #"{"cmd": "number.set", "layer": "n", "value": 190}"#,
            ], advance: 0.3),
        Case(
            name: "rolling-colour-during-roll",
            requests: [
                add("1000", #", "textColor": "white""#), #"{"cmd": "number.set", "layer": "n", "value": 1999}"#,
                ##"{"cmd": "layer.set", "layer": "n", "properties": {"textColor": "#0066ff"}, "animation": {"duration": 3}}"##,
            ], advance: 1.5),
    ]

    @Test(arguments: cases)
    func drawsAsTheReferenceShows(_ c: Case) throws {
        let daemon = try InProcessCoordinator()
        for request in c.requests { try daemon.run(request) }
        if c.advance > 0 { try daemon.run(#"{"cmd": "clock.advance", "seconds": \#(c.advance)}"#) }
        try GoldenImage.expectMatches(daemon.snapshot(), named: c.name, in: Self.references)
    }

    @Test func aSettledNumberIsPixelIdenticalToTextOfTheSameString() throws {
        for (value, extra) in [("245699", ""), ("1234.5", #", "format": "currency", "minimumFractionDigits": 2, "maximumFractionDigits": 2"#), ("-7", "")] {
            let number = try InProcessCoordinator()
            let shown = try number.run(Self.add(value, extra))
            _ = shown
            try number.run(#"{"cmd": "number.set", "layer": "n", "value": \#(value)}"#)
            try number.run(#"{"cmd": "clock.advance", "seconds": 10}"#)
            let text = try InProcessCoordinator()
            let string = try number.run(#"{"cmd": "number.set", "layer": "n", "value": \#(value), "animated": false}"#)["text"]?.string ?? ""
            try text.run(
                #"{"cmd": "layer.add", "layer": "t", "kind": "text", "properties": {"bounds": [0, 0, 380, 90], "position": [200, 60], "fontSize": 64, "alignmentMode": "center", "string": "\#(string)"}}"#
            )
            try GoldenImage.expectSamePixels(
                try number.snapshot(), as: try text.snapshot(), name: "rolling-vs-text-\(value)", "the settled number \(string) differs from text")
        }
    }

    @Test func completionAlwaysComesOncePerCall() throws {
        let daemon = try InProcessCoordinator()
        try daemon.run(Self.add("10"))
        try daemon.run(#"{"cmd": "number.set", "layer": "n", "value": 20}"#)
        try daemon.run(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
        try daemon.run(#"{"cmd": "number.set", "layer": "n", "value": 30}"#)
        try daemon.run(#"{"cmd": "number.set", "layer": "n", "value": 30}"#)
        try daemon.run(#"{"cmd": "clock.advance", "seconds": 10}"#)
        let completions = daemon.takeEvents().filter { $0["event"] == .string("number.completed") }
        #expect(completions.map { $0["value"] } == [.number(20), .number(30), .number(30)])
        #expect(
            completions.map { $0["finished"] } == [.bool(false), .bool(false), .bool(true)], "each call is superseded by the next, even one with the same value"
        )
    }

    @Test func aRetargetContinuesFromWhatIsShown() throws {
        let daemon = try InProcessCoordinator()
        try daemon.run(Self.add("100"))
        try daemon.run(#"{"cmd": "number.set", "layer": "n", "value": 150}"#)
        try daemon.run(#"{"cmd": "clock.advance", "seconds": 0.4}"#)
        let before = try daemon.snapshot()
        try daemon.run(#"{"cmd": "number.set", "layer": "n", "value": 190}"#)
        let after = try daemon.snapshot()
        try GoldenImage.expectSamePixels(after, as: before, name: "rolling-retarget", "a new value must not make the digits jump")
    }

    @Test func partialRepaintsWhileRollingEqualFullRepaints() throws {
        let daemon = try InProcessCoordinator()
        try daemon.run(Self.add("123456", #", "format": "plain""#))
        try daemon.run(#"{"cmd": "number.set", "layer": "n", "value": 123789}"#)
        for step in 0..<40 {
            try daemon.run(#"{"cmd": "clock.advance", "seconds": 0.05}"#)
            if step == 15 { try daemon.run(#"{"cmd": "number.set", "layer": "n", "value": 129000, "direction": "down"}"#) }
            let shown = try #require(daemon.output.frontBuffer)
            let full = try daemon.snapshot()
            if let failure = try GoldenImage.mismatch(shown, expected: full, name: "rolling-damage-\(step)") {
                Issue.record("step \(step): the repainted columns differ from a full repaint: \(failure)")
                break
            }
        }
        #expect(daemon.output.lastDamage.allSatisfy { $0.width < 380 }, "a roll repaints its columns, not the whole number")
    }

    @Test func statsCountThePixelsFramesRepaint() throws {
        let daemon = try InProcessCoordinator(width: 400, height: 120)
        func counters() throws -> (frames: Double, pixels: Double) {
            let stats = try daemon.run(#"{"cmd": "stats"}"#)
            return (try #require(stats["frames"]?.number), try #require(stats["pixels"]?.number))
        }
        func area(_ rects: [PixelRect]) -> Double { Double(rects.reduce(0) { $0 + $1.width * $1.height }) }
        try daemon.run(Self.add("123456", #", "format": "plain""#))
        #expect(try counters().pixels >= 400 * 120, "the first frame repaints the screen")
        try daemon.run(#"{"cmd": "number.set", "layer": "n", "value": 123457}"#)
        try daemon.run(#"{"cmd": "clock.advance", "seconds": 0.05}"#)
        let before = try counters(), earlier = daemon.output.lastDamage
        try daemon.run(#"{"cmd": "clock.advance", "seconds": 0.05}"#)
        let after = try counters(), damage = daemon.output.lastDamage
        #expect(after.frames - before.frames == 1)
        // Two buffers: a frame repaints its damage and the last frame's, which the buffer
        // it draws into has not seen.
        let pixels = after.pixels - before.pixels
        #expect(pixels >= area(damage) && pixels <= area(damage) + area(earlier), "\(pixels) pixels, damage \(damage) after \(earlier)")
        #expect(pixels > 0 && pixels < 400 * 120 / 8, "\(pixels) pixels for a units digit's roll")
    }

    @Test func badRequestsAreRefused() throws {
        let daemon = try InProcessCoordinator()
        try daemon.run(#"{"cmd": "layer.add", "layer": "plain"}"#)
        for bad in [
            #"{"id": 1, "cmd": "number.set", "layer": "plain", "value": 1}"#,
            #"{"id": 2, "cmd": "number.set", "layer": "nothing", "value": 1}"#,
            #"{"id": 3, "cmd": "number.set", "layer": "plain"}"#,
            #"{"id": 4, "cmd": "number.set", "layer": "plain", "value": "ten"}"#,
        ] {
            let reply = try JSON(parsing: Data((daemon.coordinator.handle(line: Array(bad.utf8), from: daemon) ?? "").utf8))
            #expect(reply["ok"] == .bool(false), "\(bad)")
        }
    }
}
