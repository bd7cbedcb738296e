import Foundation
import Testing
import VitrineOutput
import VitrineProtocol
@testable import VitrineDaemon

/// Input latency — an event's kernel time to the frame on screen that shows its binding's
/// change — in `stats`: which frame shows a reaction, and the daemon's own figures in real
/// time on the headless output.
@Suite struct InputLatencyTests {
    /// A reaction committed while a frame is in flight is shown by the next frame rendered,
    /// not by the flip that comes first; a frame that presents nothing shows none.
    @Test func aReactionCountsFromTheFirstFrameRenderedAfterIt() {
        var latency = InputLatency()
        latency.rendering(frame: 1, at: 9.990)
        latency.committed(kernelTime: 10.000)
        latency.shown(ShownFrame(number: 1, time: 10.004))  // rendered before the commit
        #expect(latency.samples.isEmpty)
        latency.rendering(frame: 2, at: 10.006)
        latency.shown(ShownFrame(number: 2, time: 10.012))
        #expect(latency.samples.count == 1 && Self.close(latency.samples[0], 0.012, frame: 0.006), "\(latency.samples)")
        latency.committed(kernelTime: 10.050)
        latency.rendering(frame: 3, at: 10.060)
        latency.notPresented(frame: 3)  // it changed nothing drawn
        latency.rendering(frame: 3, at: 10.070)
        latency.shown(ShownFrame(number: 3, time: 10.100))
        #expect(latency.samples.count == 1)
        // Two frames coalesced in one flip (a frame presented while a flip is pending).
        latency.committed(kernelTime: 11.000)
        latency.rendering(frame: 4, at: 11.001)
        latency.committed(kernelTime: 11.005)
        latency.committed(kernelTime: 11.005)  // a second binding of the same event
        latency.rendering(frame: 5, at: 11.010)
        latency.shown(ShownFrame(number: 5, time: 11.030))
        #expect(
            latency.samples.count == 3 && Self.close(latency.samples[1], 0.030, frame: 0.029) && Self.close(latency.samples[2], 0.025, frame: 0.020),
            "\(latency.samples)")
        latency.committed(kernelTime: 12.5)  // stamped after its frame: no measurement
        latency.rendering(frame: 6, at: 12.3)
        latency.shown(ShownFrame(number: 6, time: 12.4))
        #expect(latency.samples.count == 3)
        let stats = latency.statistics
        #expect(stats["count"] == .number(3) && stats["p50_ms"] == .number(25) && stats["p99_ms"] == .number(30) && stats["max_ms"] == .number(30), "\(stats)")
        #expect(
            stats["wait_p50_ms"] == .number(5) && stats["wait_p99_ms"] == .number(6) && stats["frame_p50_ms"] == .number(20)
                && stats["frame_p99_ms"] == .number(29), "\(stats)")
        #expect(
            InputLatency().statistics
                == .object([
                    "count": .number(0), "p50_ms": .null, "p99_ms": .null, "max_ms": .null, "wait_p50_ms": .null, "wait_p99_ms": .null, "frame_p50_ms": .null,
                    "frame_p99_ms": .null,
                ]))
    }

    static func close(_ sample: InputLatency.Sample, _ latency: Double, frame: Double) -> Bool {
        abs(sample.latency - latency) < 1e-9 && abs(sample.frame - frame) < 1e-9
    }

    @Test func theWindowHoldsTheLastThousand() {
        var latency = InputLatency()
        for n in 0..<2500 {
            latency.committed(kernelTime: Double(n))
            latency.rendering(frame: n + 1, at: Double(n))
            latency.shown(ShownFrame(number: n + 1, time: Double(n) + (n < 1600 ? 0.5 : 0.001)))
        }
        // The last 1000: 100 of 500 ms, 900 of 1 ms.
        let stats = latency.statistics
        #expect(latency.samples.count == InputLatency.window)
        #expect(
            stats["count"] == .number(1000) && stats["p50_ms"] == .number(1) && stats["p99_ms"] == .number(500) && stats["max_ms"] == .number(500), "\(stats)")
    }

    /// Taps injected with `time` = now on a layer whose press and release bindings change
    /// its colour: every event is measured to the frame that shows it, within one frame
    /// period (16.7 ms) + 2 ms plus what a loaded machine's scheduling adds (40 ms in all);
    /// an event injected without `time`, or a binding that changes nothing drawn, is not counted.
    @Test func inRealTimeStatsGiveTheLatencyOfEachReactionFromItsKernelTime() throws {
        let daemon = try DaemonProcess(clock: "realtime", arguments: ["--size", "320x200"])
        let c = try daemon.connect()
        try c.ok(##"{"cmd": "layer.add", "layer": "button", "properties": {"bounds": [0, 0, 100, 100], "position": [80, 100], "backgroundColor": "#ff0000"}}"##)
        try c.ok(##"{"cmd": "layer.add", "layer": "still", "properties": {"bounds": [0, 0, 100, 100], "position": [240, 100], "backgroundColor": "#0000ff"}}"##)
        try c.ok(
            ##"{"cmd": "binding.add", "layer": "button", "on": "press", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "#00ff00"}}]}"##
        )
        try c.ok(
            ##"{"cmd": "binding.add", "layer": "button", "on": "release", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "#ff0000"}}]}"##
        )
        try c.ok(
            ##"{"cmd": "binding.add", "layer": "still", "on": "tap", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "still", "properties": {"backgroundColor": "#0000ff"}}]}"##
        )
        func stats() throws -> JSON { try #require(try c.request(#"{"cmd": "stats"}"#)["result"]) }
        var frames = try #require(try stats()["frames"]?.number)
        /// Injects a touch event stamped now (or not at all) and waits for the frame it brings.
        func touch(_ phase: String, at point: String, stamped: Bool = true, framed: Bool = true) throws {
            let time = stamped ? #", "time": \#(InputEventTests.monotonic())"# : ""
            try c.ok(#"{"cmd": "input.inject", "type": "touch", "phase": "\#(phase)", "point": \#(point)\#(time)}"#)
            guard framed else {
                usleep(100_000)
                return
            }
            let deadline = Date().addingTimeInterval(5)
            while try #require(try stats()["frames"]?.number) == frames, Date() < deadline { usleep(2_000) }
            let now = try #require(try stats()["frames"]?.number)
            try #require(now > frames, "no frame after the touch \(phase)")
            frames = now
        }
        let taps = 20
        for _ in 0..<taps {
            try touch("down", at: "[80, 100]")
            try touch("up", at: "[80, 100]")
        }
        let measured = try #require(try stats()["input"]?["latency"])
        let p50 = try #require(measured["p50_ms"]?.number), p99 = try #require(measured["p99_ms"]?.number)
        let max = try #require(measured["max_ms"]?.number)
        #expect(measured["count"] == .number(Double(2 * taps)), "every press and release measured: \(measured)")
        #expect(p50 >= 0 && p50 <= p99 && p99 <= max, "\(measured)")
        #expect(p99 < 40, "one frame period (16.7 ms) + 2 ms, with slack for this machine's scheduling: \(measured)")
        let wait = try #require(measured["wait_p99_ms"]?.number), frame = try #require(measured["frame_p99_ms"]?.number)
        #expect(wait >= 0 && wait <= p99 && frame >= 0 && frame <= p99, "the wait for the frame and the frame's cost are parts of it: \(measured)")
        // Not measured: events injected without a time, and a binding that changes nothing drawn.
        try touch("down", at: "[80, 100]", stamped: false)
        try touch("up", at: "[80, 100]", stamped: false)
        try touch("down", at: "[240, 100]", framed: false)
        try touch("up", at: "[240, 100]", framed: false)
        try touch("down", at: "[80, 100]", stamped: false)
        try touch("up", at: "[80, 100]", stamped: false)
        #expect(try stats()["input"]?["latency"]?["count"] == .number(Double(2 * taps)))
        #expect(try stats()["input"]?["fired"] == .number(Double(2 * taps + 5)))
    }
}
