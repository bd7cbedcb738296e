import Foundation
import Testing
import VitrineProtocol

/// Requests with `at` through the real daemon and its manual clock, where media time t is
/// Unix time t: applied at the first frame at or past `at`, with `at` as their begin time.
@Suite struct ScheduledRequestTests {
    static let number =
        #"{"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, 380, 90], "position": [200, 60], "fontSize": 64, "value": 1234}}"#

    /// A daemon showing the rolling number, and a connection to it.
    static func daemonWithNumber() throws -> (DaemonProcess, SocketClient) {
        let daemon = try DaemonProcess()
        let client = try daemon.connect()
        _ = try client.request(number)
        return (daemon, client)
    }

    static func screenshot(_ client: SocketClient, _ name: String) throws -> Data {
        let reply = try client.request(#"{"cmd": "screenshot", "path": "\#(name).png"}"#)
        return try Data(contentsOf: URL(fileURLWithPath: try #require(reply["result"]?["path"]?.string)))
    }

    static func value(_ client: SocketClient) throws -> Double? {
        try client.request(#"{"cmd": "layer.get", "layer": "n", "keys": ["value"]}"#)["result"]?["properties"]?["value"]?.number
    }

    @Test func aNumberChangeWaitsForItsFrameAndRepliesThen() throws {
        let (daemon, clock) = try Self.daemonWithNumber()
        let script = try daemon.connect()
        script.send(#"{"id": 7, "cmd": "number.set", "layer": "n", "value": 1294, "at": 2}"#)
        script.send(#"{"id": 8, "cmd": "ping"}"#)
        _ = try clock.request(#"{"cmd": "clock.set", "time": 1.999}"#)
        #expect(script.readLine(timeout: 0.3) == nil)
        #expect(try Self.value(clock) == 1234)
        _ = try clock.request(#"{"cmd": "clock.set", "time": 2}"#)
        let reply = try JSON(parsing: Data(try #require(script.readLine()).utf8))
        #expect(reply["id"] == .number(7))
        #expect(reply["ok"] == .bool(true))
        #expect(try JSON(parsing: Data(try #require(script.readLine()).utf8))["id"] == .number(8))
        #expect(try Self.value(clock) == 1294)
    }

    @Test func theReplySaysWhenTheFrameAppliedIt() throws {
        let (daemon, clock) = try Self.daemonWithNumber()
        let script = try daemon.connect()
        script.send(#"{"id": 1, "cmd": "number.set", "layer": "n", "value": 1294, "at": 2}"#)
        _ = try clock.request(#"{"cmd": "clock.set", "time": 2.25}"#)
        let reply = try JSON(parsing: Data(try #require(script.readLine()).utf8))
        #expect(reply["applied"] == .number(2.25) && reply["ok"] == .bool(true), "\(reply)")
        #expect(try clock.request(#"{"cmd": "ping"}"#)["applied"] == nil, "a request without at")

        // On the real-time clock: the wall-clock time of the frame at or just past at.
        let live = try DaemonProcess(clock: "realtime")
        let at = Date().timeIntervalSince1970 + 0.3
        let applied = try #require(try live.connect().request(#"{"cmd": "ping", "at": \#(at)}"#)["applied"]?.number)
        #expect(applied >= at && applied < at + 1, "applied \(applied - at) s after at")
    }

    @Test func twoDaemonsToldAtDifferentTimesDrawTheSameFrame() throws {
        let change = #"{"cmd": "number.set", "layer": "n", "value": 1294, "at": "1970-01-01T00:00:02Z"}"#
        // One hears of it at once and walks its clock there in steps; the other hears of it
        // late and jumps past `at`, so its first frame after it is drawn mid-roll.
        let (early, earlyClock) = try Self.daemonWithNumber()
        let earlyScript = try early.connect()
        earlyScript.send(#"{"id": 1, "cmd": "number.set", "layer": "n", "value": 1294, "at": 2}"#)
        for step in 1...5 { _ = try earlyClock.request(#"{"cmd": "clock.set", "time": \#(Double(step) * 0.45)}"#) }
        #expect(earlyScript.readLine() != nil)

        let (late, lateClock) = try Self.daemonWithNumber()
        _ = try lateClock.request(#"{"cmd": "clock.set", "time": 1.9}"#)
        let lateScript = try late.connect()
        lateScript.send(#"{"id": 1, \#(change.dropFirst())"#)
        _ = try lateClock.request(#"{"cmd": "clock.set", "time": 2.25}"#)
        #expect(lateScript.readLine() != nil)

        // Without `at`: the change sent when the clock shows 2.
        let (direct, directClock) = try Self.daemonWithNumber()
        _ = try directClock.request(#"{"cmd": "clock.set", "time": 2}"#)
        _ = try directClock.request(#"{"cmd": "number.set", "layer": "n", "value": 1294}"#)
        _ = try directClock.request(#"{"cmd": "clock.set", "time": 2.25}"#)

        let reference = try Self.screenshot(directClock, "direct")
        #expect(try Self.screenshot(earlyClock, "early") == reference)
        #expect(try Self.screenshot(lateClock, "late") == reference)
        let (settled, settledClock) = try Self.daemonWithNumber()
        #expect(try Self.screenshot(settledClock, "settled") != reference)
        withExtendedLifetime((early, late, direct, settled)) {}
    }

    @Test func aPastAtAppliesAtOnceInPhase() throws {
        let (lateDaemon, late) = try Self.daemonWithNumber()
        _ = try late.request(#"{"cmd": "clock.set", "time": 10}"#)
        let reply = try late.request(#"{"cmd": "number.set", "layer": "n", "value": 1294, "at": 9.75}"#)
        #expect(reply["ok"] == .bool(true))
        let (directDaemon, direct) = try Self.daemonWithNumber()
        _ = try direct.request(#"{"cmd": "clock.set", "time": 9.75}"#)
        _ = try direct.request(#"{"cmd": "number.set", "layer": "n", "value": 1294}"#)
        _ = try direct.request(#"{"cmd": "clock.set", "time": 10}"#)
        #expect(try Self.screenshot(late, "late") == Self.screenshot(direct, "direct"))
        withExtendedLifetime((lateDaemon, directDaemon)) {}
    }

    @Test func theRealTimeClockAppliesAtTheWallClockInstant() throws {
        let daemon = try DaemonProcess(clock: "realtime")
        let client = try daemon.connect()
        _ = try client.request(Self.number)
        let hello = try client.request(#"{"cmd": "hello"}"#)
        let offset = try #require(hello["result"]?["wallOffset"]?.number)
        let media = try #require(hello["result"]?["time"]?.number)
        #expect(abs(offset + media - Date().timeIntervalSince1970) < 1)
        let at = Date().timeIntervalSince1970 + 0.4
        client.send(#"{"id": 1, "cmd": "number.set", "layer": "n", "value": 1294, "at": \#(at)}"#)
        let reply = try #require(client.readLine(timeout: 5))
        let arrived = Date().timeIntervalSince1970
        #expect(reply.contains(#""ok":true"#))
        #expect(arrived >= at - 0.02)
        #expect(arrived < at + 2)
    }

    @Test func atIsReadAsSecondsOrRFC3339() throws {
        let daemon = try DaemonProcess()
        let client = try daemon.connect()
        _ = try client.request(#"{"cmd": "clock.set", "time": 100}"#)
        for (at, seconds) in [
            ("2.5", 2.5), (#""1970-01-01T00:00:02.25Z""#, 2.25), (#""1970-01-01T01:00:03+01:00""#, 3), (#""1969-12-31T23:59:59-00:01""#, 59),
        ] {
            let reply = try client.request(#"{"cmd": "time", "at": \#(at)}"#)
            #expect(reply["result"]?["time"] == .number(seconds), "\(at)")
        }
    }

    @Test func badAtIsRefusedWithoutEffect() throws {
        let (daemon, client) = try Self.daemonWithNumber()
        for (at, code) in [
            (#""tomorrow""#, "invalid_value"), (#""1970-01-01T00:00:02""#, "invalid_value"), (#""1970-02-30T00:00:02Z""#, "invalid_value"),
            ("true", "wrong_type"), ("-1", "invalid_value"), ("86401", "invalid_value"), (#""1970-01-02T00:00:01Z""#, "invalid_value"),
        ] {
            let reply = try client.request(#"{"cmd": "number.set", "layer": "n", "value": 9, "at": \#(at)}"#)
            #expect(reply["error"]?["code"]?.string == code, "\(at): \(reply)")
        }
        _ = try client.request(#"{"cmd": "clock.set", "time": 86400}"#)
        #expect(try client.request(#"{"cmd": "screenshot", "at": 86400}"#)["error"]?["code"]?.string == "invalid_value")
        #expect(try Self.value(client) == 1234)
        withExtendedLifetime(daemon) {}
    }

    @Test func aScheduledRequestHoldsItsConnectionAndGoesWithIt() throws {
        let (daemon, clock) = try Self.daemonWithNumber()
        do {
            let leaving = try daemon.connect()
            leaving.send(#"{"id": 1, "cmd": "number.set", "layer": "n", "value": 7, "at": 5}"#)
            // A connection holds one scheduled request: the next waits behind it.
            leaving.send(#"{"id": 2, "cmd": "number.set", "layer": "n", "value": 8, "at": 6}"#)
            #expect(try clock.request(#"{"cmd": "stats"}"#)["result"]?["clients"] == .number(2))
        }
        let deadline = Date().addingTimeInterval(5)
        while try clock.request(#"{"cmd": "stats"}"#)["result"]?["clients"] != .number(1), Date() < deadline { usleep(10_000) }
        _ = try clock.request(#"{"cmd": "clock.set", "time": 10}"#)
        #expect(try Self.value(clock) == 1234)
    }
}
