import Foundation
import Testing
import VitrineProtocol

/// Presentation values at exact manual-clock times, against values computed here
/// independently of VitrineCore (cubic Bézier by bisection, the closed-form spring), and
/// the routing of events to committers and subscribers.
@Suite struct AnimationIntegrationTests {
    /// y of the cubic Bézier (0,0) (x1,y1) (x2,y2) (1,1) at x, x found by bisection.
    static func bezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, at x: Double) -> Double {
        func curve(_ a: Double, _ b: Double, _ t: Double) -> Double {
            3 * (1 - t) * (1 - t) * t * a + 3 * (1 - t) * t * t * b + t * t * t
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<100 {
            let mid = (lo + hi) / 2
            if curve(x1, x2, mid) < x { lo = mid } else { hi = mid }
        }
        return curve(y1, y2, (lo + hi) / 2)
    }

    static func easeInEaseOut(_ x: Double) -> Double { bezier(0.42, 0, 0.58, 1, at: x) }

    /// An underdamped spring from `from` to `to`, at rest at first.
    static func spring(mass: Double, stiffness: Double, damping: Double, from: Double, to: Double, at t: Double) -> Double {
        let omega0 = (stiffness / mass).squareRoot()
        let zeta = damping / (2 * (stiffness * mass).squareRoot())
        let omegaD = omega0 * (1 - zeta * zeta).squareRoot()
        let decay = exp(-zeta * omega0 * t)
        return to - (to - from) * decay * (cos(omegaD * t) + zeta * omega0 / omegaD * sin(omegaD * t))
    }

    static func ok(_ client: SocketClient, _ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let reply = try #require(try client.exchange(line), "no reply to \(line)", sourceLocation: sourceLocation)
        try #require(reply["ok"] == .bool(true), "\(line) → \(reply)", sourceLocation: sourceLocation)
        return reply["result"] ?? .null
    }

    /// The presentation value of `key` of `layer` at media time `time`.
    static func shown(_ client: SocketClient, _ layer: String, _ key: String, at time: Double) throws -> JSON {
        _ = try ok(client, #"{"id": "clock", "cmd": "clock.set", "time": \#(time)}"#)
        let result = try ok(client, #"{"id": "get", "cmd": "layer.get", "layer": "\#(layer)", "keys": ["\#(key)"], "presentation": true}"#)
        return try #require(result["properties"]?[key], "\(layer).\(key) missing in \(result)")
    }

    static func expectNear(_ got: JSON, _ want: Double, tolerance: Double = 1e-6, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let value = got.number else {
            Issue.record("\(what): \(got) is not a number", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(value - want) <= tolerance, "\(what): \(value), expected \(want)", sourceLocation: sourceLocation)
    }

    @Test func basicAnimationWithEaseInEaseOut() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        let c = try daemon.connect()
        _ = try Self.ok(c, #"{"id": 1, "cmd": "layer.add", "layer": "box", "properties": {"bounds": [0, 0, 100, 100], "position": [100, 100]}}"#)
        _ = try Self.ok(c, #"{"id": 2, "cmd": "clock.set", "time": 10}"#)
        _ = try Self.ok(
            c, #"{"id": 3, "cmd": "layer.set", "layer": "box", "properties": {"position.x": 500}, "animation": {"duration": 2, "timing": "easeInEaseOut"}}"#)
        let model = try Self.ok(c, #"{"id": 4, "cmd": "layer.get", "layer": "box", "keys": ["position"]}"#)
        #expect(model["properties"]?["position"] == .array([.number(500), .number(100)]), "the model value changes at once: \(model)")
        for t in [0.0, 0.1, 0.25, 0.5, 1.0, 1.3, 1.5, 1.9, 1.999] {
            let want = 100 + 400 * Self.easeInEaseOut(t / 2)
            Self.expectNear(try Self.shown(c, "box", "position.x", at: 10 + t), want, tolerance: 1e-4, "position.x at +\(t) s")
            Self.expectNear(try Self.shown(c, "box", "position.y", at: 10 + t), 100, "position.y at +\(t) s")
        }
        #expect(try Self.shown(c, "box", "position.x", at: 11) == .number(300), "the midpoint of a symmetric curve is exact")
        #expect(try Self.shown(c, "box", "position.x", at: 12) == .number(500))
        #expect(try Self.shown(c, "box", "position.x", at: 50) == .number(500))
    }

    @Test func springAnimationFollowsTheClosedForm() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        let c = try daemon.connect()
        _ = try Self.ok(c, #"{"id": 1, "cmd": "layer.add", "layer": "box", "properties": {"bounds": [0, 0, 10, 10], "position": [0, 0]}}"#)
        _ = try Self.ok(
            c,
            #"{"id": 2, "cmd": "animation.add", "layer": "box", "key": "drop", "animation": {"type": "spring", "keyPath": "position.y", "from": 0, "to": 100, "mass": 1, "stiffness": 100, "damping": 10, "initialVelocity": 0, "duration": 3}}"#
        )
        for t in [0.05, 0.1, 0.25, 0.3628, 0.5, 0.75, 1.0, 1.5, 2.0, 2.9] {
            let want = Self.spring(mass: 1, stiffness: 100, damping: 10, from: 0, to: 100, at: t)
            Self.expectNear(try Self.shown(c, "box", "position.y", at: t), want, tolerance: 1e-6, "spring at \(t) s")
        }
        // Underdamped (ζ = 0.5): it overshoots by e^(−π ζ/√(1−ζ²)) ≈ 16.3 % at t = π/ω_d.
        let peak = Double.pi / 75.0.squareRoot()
        Self.expectNear(
            try Self.shown(c, "box", "position.y", at: peak), 100 + 100 * exp(-Double.pi * 0.5 / 0.75.squareRoot()), tolerance: 1e-6, "overshoot peak")
        // After its duration the animation is gone and the model value (0) shows.
        #expect(try Self.shown(c, "box", "position.y", at: 3.5) == .number(0))
    }

    @Test func keyframeAnimations() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        let c = try daemon.connect()
        _ = try Self.ok(c, #"{"id": 1, "cmd": "layer.add", "layer": "k", "properties": {"bounds": [0, 0, 10, 10], "position": [7, 7]}}"#)
        _ = try Self.ok(
            c,
            #"{"id": 2, "cmd": "animation.add", "layer": "k", "animation": {"keyPath": "position.x", "values": [0, 100, 50], "keyTimes": [0, 0.25, 1], "duration": 4}}"#
        )
        _ = try Self.ok(
            c,
            #"{"id": 3, "cmd": "animation.add", "layer": "k", "animation": {"keyPath": "opacity", "values": [0.2, 0.6, 1], "calculationMode": "discrete", "duration": 3}}"#
        )
        // Times only move forward: an animation that ended is removed for good.
        let checks: [(Double, String, Double)] = [
            (0, "position.x", 0), (0, "opacity", 0.2), (0.5, "position.x", 50), (0.5, "opacity", 0.2),
            (0.99, "opacity", 0.2), (1, "position.x", 100), (1.01, "opacity", 0.6), (1.5, "opacity", 0.6),
            (2.5, "position.x", 75), (2.5, "opacity", 1), (2.99, "opacity", 1), (3.9, "position.x", 100 - 50 * 2.9 / 3),
        ]
        for (t, key, want) in checks {
            Self.expectNear(try Self.shown(c, "k", key, at: t), want, tolerance: 1e-9, "\(key) at \(t) s")
        }
        #expect(try Self.shown(c, "k", "position.x", at: 4.5) == .number(7), "removed on completion: the model shows")
        #expect(try Self.shown(c, "k", "opacity", at: 4.5) == .number(1))
    }

    @Test func transactionAnimatesItsChangesAndCompletes() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        let c = try daemon.connect()
        _ = try Self.ok(c, #"{"id": 1, "cmd": "layer.add", "layer": "box", "properties": {"bounds": [0, 0, 10, 10], "position": [100, 100]}}"#)
        _ = try Self.ok(c, #"{"id": 2, "cmd": "clock.set", "time": 3}"#)
        _ = c.takeEvents()
        let tx = try Self.ok(
            c,
            #"{"id": 3, "cmd": "transaction", "duration": 1, "timing": "linear", "commands": [{"cmd": "layer.set", "layer": "box", "properties": {"opacity": 0}}, {"cmd": "layer.set", "layer": "box", "properties": {"position": [300, 200]}}]}"#
        )
        let id = try #require(tx["transaction"])
        for t in [0.0, 0.25, 0.5, 0.9] {
            Self.expectNear(try Self.shown(c, "box", "opacity", at: 3 + t), 1 - t, tolerance: 1e-9, "opacity at +\(t) s")
            Self.expectNear(try Self.shown(c, "box", "position.x", at: 3 + t), 100 + 200 * t, tolerance: 1e-9, "x at +\(t) s")
            Self.expectNear(try Self.shown(c, "box", "position.y", at: 3 + t), 100 + 100 * t, tolerance: 1e-9, "y at +\(t) s")
        }
        #expect(c.takeEvents().isEmpty, "no completion before the animations end")
        Self.expectNear(try Self.shown(c, "box", "opacity", at: 4), 0, "opacity at the end")
        #expect(c.takeEvents() == [.object(["event": .string("transaction.completed"), "transaction": id])])
        // Without a timing the transaction's implicit animations use the `default` curve.
        _ = try Self.ok(c, #"{"id": 4, "cmd": "transaction", "duration": 2, "commands": [{"cmd": "layer.set", "layer": "box", "properties": {"opacity": 1}}]}"#)
        for t in [0.5, 1.0, 1.5] {
            Self.expectNear(
                try Self.shown(c, "box", "opacity", at: 4 + t), Self.bezier(0.25, 0.1, 0.25, 1, at: t / 2), tolerance: 1e-6, "default curve at +\(t) s")
        }
    }

    /// Events after a step, for each client: a ping's reply comes after every event the
    /// step caused, as the daemon handles requests in order on one loop.
    static func eventsAfterStep(_ clients: [SocketClient]) throws -> [[JSON]] {
        try clients.map { client in
            _ = try ok(client, #"{"id": "sync", "cmd": "ping"}"#)
            return client.takeEvents()
        }
    }

    static func started(_ key: String, _ id: JSON) -> JSON {
        .object(["event": .string("animation.started"), "layer": .string("x"), "key": .string(key), "animation": id])
    }

    static func finished(_ key: String, _ id: JSON, _ done: Bool) -> JSON {
        .object(["event": .string("animation.finished"), "layer": .string("x"), "key": .string(key), "animation": id, "finished": .bool(done)])
    }

    static func completed(_ tx: JSON) -> JSON { .object(["event": .string("transaction.completed"), "transaction": tx]) }

    @Test func eventsGoToTheCommitterAndToSubscribersOnly() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "64x48"])
        // a commits; s takes everything; n animation events; t completions; q nothing.
        let a = try daemon.connect(), s = try daemon.connect(), n = try daemon.connect(), t = try daemon.connect(), q = try daemon.connect()
        let all = [a, s, n, t, q]
        _ = try Self.ok(a, #"{"id": 1, "cmd": "layer.add", "layer": "x", "properties": {"bounds": [0, 0, 10, 10]}}"#)
        _ = try Self.ok(s, #"{"id": 1, "cmd": "subscribe", "events": ["*"]}"#)
        _ = try Self.ok(n, #"{"id": 1, "cmd": "subscribe", "events": ["animation.*"]}"#)
        _ = try Self.ok(t, #"{"id": 1, "cmd": "subscribe", "events": ["transaction.completed"]}"#)
        _ = try Self.eventsAfterStep(all)

        // An animation starts: subscribers hear it, the committer does not (not subscribed).
        let fadeTx = try #require(
            try Self.ok(
                a, #"{"id": 2, "cmd": "animation.add", "layer": "x", "key": "fade", "animation": {"keyPath": "opacity", "from": 1, "to": 0, "duration": 1}}"#)[
                    "transaction"])
        let list = try Self.ok(a, #"{"id": 3, "cmd": "animation.list", "layer": "x"}"#)
        let fade = try #require(list.array?.first?["animation"])
        var got = try Self.eventsAfterStep(all)
        #expect(got[0] == [] && got[3] == [] && got[4] == [], "\(got)")
        #expect(got[1] == [Self.started("fade", fade)])
        #expect(got[2] == [Self.started("fade", fade)])

        // Another, removed early: finished false; both its transaction and the removal's
        // complete, and only the committer and completion subscribers hear that.
        let spinTx = try #require(
            try Self.ok(
                a,
                #"{"id": 4, "cmd": "animation.add", "layer": "x", "key": "spin", "animation": {"keyPath": "transform.rotation.z", "to": "1turn", "duration": 10}}"#
            )["transaction"])
        got = try Self.eventsAfterStep(all)
        let spin = try #require(got[1].first?["animation"])
        #expect(spin != fade)
        #expect(got[1] == [Self.started("spin", spin)] && got[2] == got[1] && got[0] == [] && got[3] == [] && got[4] == [], "\(got)")
        let removeTx = try #require(try Self.ok(a, #"{"id": 5, "cmd": "animation.remove", "layer": "x", "key": "spin"}"#)["transaction"])
        got = try Self.eventsAfterStep(all)
        #expect(got[0] == [Self.completed(spinTx), Self.completed(removeTx)], "committer: \(got[0])")
        #expect(got[1] == [Self.finished("spin", spin, false), Self.completed(spinTx), Self.completed(removeTx)], "*: \(got[1])")
        #expect(got[2] == [Self.finished("spin", spin, false)], "animation.*: \(got[2])")
        #expect(got[3] == [Self.completed(spinTx), Self.completed(removeTx)], "transaction.completed: \(got[3])")
        #expect(got[4] == [], "unsubscribed: \(got[4])")

        // The first runs to its end: finished true, then its transaction completes.
        _ = try Self.ok(a, #"{"id": 6, "cmd": "clock.advance", "seconds": 0.999}"#)
        #expect(try Self.eventsAfterStep(all).allSatisfy(\.isEmpty), "nothing ends before its time")
        _ = try Self.ok(a, #"{"id": 7, "cmd": "clock.advance", "seconds": 0.001}"#)
        got = try Self.eventsAfterStep(all)
        #expect(got[0] == [Self.completed(fadeTx)], "\(got[0])")
        #expect(got[1] == [Self.finished("fade", fade, true), Self.completed(fadeTx)], "\(got[1])")
        #expect(got[2] == [Self.finished("fade", fade, true)], "\(got[2])")
        #expect(got[3] == [Self.completed(fadeTx)] && got[4] == [], "\(got)")

        // Replacing an animation under the same key stops the old one (finished false).
        let firstTx = try #require(
            try Self.ok(a, #"{"id": 8, "cmd": "animation.add", "layer": "x", "key": "k", "animation": {"keyPath": "opacity", "to": 0.5, "duration": 5}}"#)[
                "transaction"])
        got = try Self.eventsAfterStep(all)
        let first = try #require(got[2].first?["animation"])
        let secondTx = try #require(
            try Self.ok(a, #"{"id": 9, "cmd": "animation.add", "layer": "x", "key": "k", "animation": {"keyPath": "opacity", "to": 0.2, "duration": 5}}"#)[
                "transaction"])
        got = try Self.eventsAfterStep(all)
        let second = try #require(got[2].last?["animation"])
        #expect(got[2] == [Self.finished("k", first, false), Self.started("k", second)], "\(got[2])")
        #expect(got[0] == [Self.completed(firstTx)], "the replaced animation's transaction completes: \(got[0])")
        #expect(Set(got[1]) == Set(got[2] + [Self.completed(firstTx)]) && got[1].count == 3, "\(got[1])")

        // Another client's completions go to it and to subscribers, not to a.
        _ = try Self.ok(q, #"{"id": 2, "cmd": "layer.set", "layer": "x", "properties": {"zPosition": 1}, "actions": false}"#)
        got = try Self.eventsAfterStep(all)
        #expect(got[0] == [] && got[2] == [], "\(got)")
        #expect(got[4].count == 1 && got[4].first?["event"] == .string("transaction.completed"), "\(got[4])")
        #expect(got[1] == got[4] && got[3] == got[4], "\(got)")
        _ = secondTx

        // Unsubscribing stops them.
        _ = try Self.ok(s, #"{"id": 2, "cmd": "unsubscribe", "events": ["*"]}"#)
        _ = try Self.ok(a, #"{"id": 10, "cmd": "animation.remove", "layer": "x"}"#)
        got = try Self.eventsAfterStep(all)
        #expect(got[1] == [], "\(got[1])")
        #expect(got[2].count == 1 && got[2].first?["finished"] == .bool(false), "\(got[2])")
    }
}
