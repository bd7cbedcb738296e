import Foundation
import PropertyBased
import Testing
import VitrineCore

/// Hierarchical layer time (CAMediaTiming): t = (t_parent − beginTime) × speed + timeOffset down
/// the tree, convertTime, speed 0, and Apple's pause / resume / change-speed recipes,
/// which must never make a presentation value jump.
@Suite struct LayerTimeTests {
    /// root → p (beginTime 1, speed 2, timeOffset 0.5) → c (beginTime 0.2, speed 3, timeOffset −0.1); q beside p.
    func scene() throws -> Scene {
        let s = makeScene()
        try commit(s, at: 0, quiet) {
            $0.add(layer: "p", parent: rootID, properties: ["beginTime": .number(1), "speed": .number(2), "timeOffset": .number(0.5)])
            $0.add(layer: "c", parent: "p", properties: ["beginTime": .number(0.2), "speed": .number(3), "timeOffset": .number(-0.1)])
            $0.add(layer: "q", parent: rootID, properties: ["speed": .number(0.5)])
        }
        return s
    }

    func pTime(_ tp: Double) -> Double { (tp - 1) * 2 + 0.5 }
    func cTime(_ tp: Double) -> Double { (pTime(tp) - 0.2) * 3 - 0.1 }

    @Test func localTimeAppliesTheFormulaDownTheTree() throws {
        let s = try scene()
        for tp in [0, 0.75, 1, 2.5, 100] {
            expectClose(try #require(try s.localTime(of: "p", at: tp)), pTime(tp), tolerance: 1e-12)
            expectClose(try #require(try s.localTime(of: "c", at: tp)), cTime(tp), tolerance: 1e-12)
            expectClose(try #require(try s.localTime(of: rootID, at: tp)), tp, tolerance: 0)
            expectClose(try s.convertTime(tp, from: nil, to: "c"), cTime(tp), tolerance: 1e-12)
        }
    }

    @Test func convertTimeBetweenLayers() throws {
        let s = try scene()
        for tp in [0, 1.3, 7] {
            let c = cTime(tp)
            expectClose(try s.convertTime(c, from: "c", to: nil), tp, tolerance: 1e-12)
            expectClose(try s.convertTime(c, from: "c", to: "p"), pTime(tp), tolerance: 1e-12)
            expectClose(try s.convertTime(pTime(tp), from: "p", to: "c"), c, tolerance: 1e-12)
            expectClose(try s.convertTime(c, from: "c", to: "q"), tp * 0.5, tolerance: 1e-12)
            expectClose(try s.convertTime(tp * 0.5, from: "q", to: "c"), c, tolerance: 1e-12)
            expectClose(try s.convertTime(tp, from: nil, to: nil), tp, tolerance: 0)
        }
        expectError("unknown_layer") { _ = try s.convertTime(0, from: "zz", to: nil) }
    }

    @Test func animationsRunInTheirLayersTime() throws {
        let s = try scene()
        try commit(s, at: 2) { $0.addAnimation(.basic("zPosition", from: .number(0), to: .number(100), duration: 12), to: "c") }
        // c runs 6× faster than media time: 12 s of its time take 2 s.
        expectClose(try presented(s, "c", "zPosition", at: 2), 0)
        expectClose(try presented(s, "c", "zPosition", at: 2.5), 25, tolerance: 1e-9)
        expectClose(try presented(s, "c", "zPosition", at: 3.5), 75, tolerance: 1e-9)
        #expect(try presented(s, "c", "zPosition", at: 4.01) == 0)
        #expect(s.advance(to: 3.9).contains { if case .animationStopped = $0 { true } else { false } } == false)
        #expect(s.advance(to: 4.001).contains { if case .animationStopped(_, _, _, true) = $0 { true } else { false } })
    }

    @Test func speedZeroFreezesASubtree() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "p", parent: rootID)
            $0.add(layer: "c", parent: "p")
        }
        try commit(s, at: 0) { $0.addAnimation(.basic("zPosition", from: .number(0), to: .number(100), duration: 10), to: "c") }
        _ = s.advance(to: 0)
        try commit(s, at: 4) {
            $0.set("p", "speed", .number(0))
            $0.set("p", "timeOffset", .number(4))
        }
        for t in [4.0, 5, 60, 1e6] {
            expectClose(try presented(s, "c", "zPosition", at: t), 40, tolerance: 1e-9)
        }
        _ = s.takeEvents()
        #expect(s.advance(to: 1000).isEmpty)
        #expect(s.isAnimating)
        #expect(try s.animations(of: "c").count == 1)
    }

    /// The value of c's position.x, which an ever-repeating, autoreversing eased
    /// animation moves between 0 and 100.
    func x(_ s: Scene, _ t: Double) throws -> Double { try presented(s, "c", "position.x", at: t) }

    func commitAndCheckContinuity(_ s: Scene, at t: Double, _ what: String, _ txs: [(inout Transaction) -> Void]) throws {
        let before = try x(s, t)
        for build in txs { try commit(s, at: t, Transaction(), build) }
        let after = try x(s, t)
        #expect(abs(before - after) < 1e-9, "\(what) at \(t): \(before) → \(after)")
    }

    @Test func pauseResumeAndChangeSpeedNeverJump() async {
        let positive = Gen.double(in: 0.01...5)
        await seededCheck(
            count: 150, input: Gen.double(in: 0.5...3), Gen.double(in: 0.25...3), Gen.double(in: -2...2), Gen.double(in: 0.1...4),
            positive, positive, positive, Gen.bool
        ) { duration, parentSpeed, parentBegin, newSpeed, gap1, gap2, gap3, pauseTheChild in
            let s = makeScene()
            try commit(s, at: 0, quiet) {
                $0.add(layer: "p", parent: rootID, properties: ["speed": .number(parentSpeed), "beginTime": .number(parentBegin)])
                $0.add(layer: "c", parent: "p")
            }
            var wave = Animation.basic("position.x", from: .number(0), to: .number(100), duration: duration, timingFunction: .easeInEaseOut)
            wave.timing.repeatCount = .infinity
            wave.timing.autoreverses = true
            try commit(s, at: 0) { $0.addAnimation(wave, forKey: "wave", to: "c") }
            // The layer the recipes act on: c itself (its parent has its own timing) or its parent p.
            let target = pauseTheChild ? "c" : "p"
            let parent = try #require(try s.parent(of: target))

            // Change the speed m → n: beginTime' = t_p − (t_p − beginTime) × m / n.
            let t1 = gap1
            let m = try model(s, target, "speed"), begin = try model(s, target, "beginTime")
            let tp = try s.convertTime(t1, from: nil, to: parent)
            try commitAndCheckContinuity(
                s, at: t1, "speed change",
                [
                    {
                        $0.disableActions = true
                        $0.set(target, "speed", .number(newSpeed))
                        $0.set(target, "beginTime", .number(tp - (tp - begin) * m / newSpeed))
                    }
                ])
            let local1 = try #require(try s.localTime(of: target, at: t1))
            let later = t1 + gap2 / 2
            let parentElapsed = try s.convertTime(later, from: nil, to: parent) - tp
            expectClose(try #require(try s.localTime(of: target, at: later)), local1 + newSpeed * parentElapsed, tolerance: 1e-9)

            // Pause: speed 0, timeOffset = the local time now.
            let t2 = t1 + gap2
            let pausedTime = try s.convertTime(t2, from: nil, to: target)
            try commitAndCheckContinuity(
                s, at: t2, "pause",
                [
                    {
                        $0.set(target, "speed", .number(0))
                        $0.set(target, "timeOffset", .number(pausedTime))
                    }
                ])
            let frozen = try x(s, t2)
            for dt in [gap3 / 3, gap3, 100] {
                #expect(abs(try x(s, t2 + dt) - frozen) < 1e-9, "paused layer moved")
            }

            // Resume: speed 1, timeOffset 0, beginTime 0, then beginTime = convertTime(now) − pausedTime.
            let t3 = t2 + gap3
            let before = try x(s, t3)
            let paused = try model(s, target, "timeOffset")
            try commit(s, at: t3) {
                $0.set(target, "speed", .number(1))
                $0.set(target, "timeOffset", .number(0))
                $0.set(target, "beginTime", .number(0))
            }
            let sincePause = try s.convertTime(t3, from: nil, to: target) - paused
            try commit(s, at: t3) { $0.set(target, "beginTime", .number(sincePause)) }
            let after = try x(s, t3)
            #expect(abs(after - before) < 1e-9, "resume at \(t3): \(before) → \(after)")
            // After resuming, the layer's time runs on from where it stopped.
            let resumed = t3 + gap1
            let elapsed = try s.convertTime(resumed, from: nil, to: parent) - s.convertTime(t3, from: nil, to: parent)
            expectClose(try #require(try s.localTime(of: target, at: resumed)), paused + elapsed, tolerance: 1e-9)
        }
    }

    @Test func pauseThenResumeShowsWhatAnUnpausedSceneShowedAtThePause() throws {
        let s = makeSceneWithLayer("c")
        try commit(s, at: 0) { $0.addAnimation(.basic("position.x", from: .number(0), to: .number(100), duration: 10), to: "c") }
        let pausedTime = try s.convertTime(3, from: nil, to: "c")
        try commit(s, at: 3) {
            $0.set("c", "speed", .number(0))
            $0.set("c", "timeOffset", .number(pausedTime))
        }
        try commit(s, at: 8) {
            $0.set("c", "speed", .number(1))
            $0.set("c", "timeOffset", .number(0))
            $0.set("c", "beginTime", .number(0))
        }
        let sincePause = try s.convertTime(8, from: nil, to: "c") - pausedTime
        try commit(s, at: 8) { $0.set("c", "beginTime", .number(sincePause)) }
        // Paused for 5 s: at 9 it shows what it showed at 4 before; it ends at 15.
        expectClose(try presented(s, "c", "position.x", at: 9), 40, tolerance: 1e-9)
        expectClose(try presented(s, "c", "position.x", at: 14.5), 95, tolerance: 1e-9)
        #expect(!s.advance(to: 14.9).contains { if case .animationStopped = $0 { true } else { false } })
        #expect(s.advance(to: 15).contains { if case .animationStopped(_, _, _, true) = $0 { true } else { false } })
    }
}
