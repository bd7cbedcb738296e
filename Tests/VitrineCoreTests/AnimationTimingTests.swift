import Foundation
import PropertyBased
import Testing
import VitrineCore

/// An animation's own CAMediaTiming: repeats, autoreverse, fill modes, timeOffset, speed
/// and beginTime, seen through presentation values of `zPosition` (model value −1).
@Suite struct AnimationTimingTests {
    /// A layer "box" with zPosition −1 and `animation` added under "a" at media time 0.
    func scene(_ animation: Animation) throws -> Scene {
        let s = makeSceneWithLayer(properties: ["zPosition": .number(-1)])
        try commit(s, at: 0) { $0.addAnimation(animation, forKey: "a", to: "box") }
        _ = s.takeEvents()
        return s
    }

    func ramp(duration: Double = 1, _ adjust: (inout MediaTiming) -> Void = { _ in }) -> Animation {
        var a = Animation.basic("zPosition", from: .number(0), to: .number(10), duration: duration)
        adjust(&a.timing)
        return a
    }

    func z(_ s: Scene, _ t: Double) throws -> Double { try presented(s, "box", "zPosition", at: t) }

    func stops(_ events: [SceneEvent]) -> [Bool] {
        events.compactMap { if case .animationStopped(_, _, _, let finished) = $0 { finished } else { nil } }
    }

    @Test func fractionalRepeatCountEndsMidPass() throws {
        let s = try scene(
            ramp {
                $0.repeatCount = 2.5
                $0.fillMode = .forwards
            })
        for t in [0.25, 1.25, 2.25] { expectClose(try z(s, t), 2.5) }
        expectClose(try z(s, 1.75), 7.5)
        expectClose(try z(s, 2.5), 5)
        expectClose(try z(s, 4), 5)
        #expect(stops(s.advance(to: 2.49)).isEmpty)
        #expect(stops(s.advance(to: 2.5)) == [true])
    }

    @Test func fractionalRepeatCountWithoutFillShowsTheModelAfterwards() throws {
        let s = try scene(ramp { $0.repeatCount = 2.5 })
        expectClose(try z(s, 2.4), 4)
        #expect(try z(s, 2.5) == -1)
    }

    @Test func repeatDurationBoundsTheActiveTime() throws {
        let s = try scene(
            ramp {
                $0.repeatDuration = 1.75
                $0.fillMode = .forwards
            })
        expectClose(try z(s, 1.5), 5)
        expectClose(try z(s, 1.75), 7.5)
        expectClose(try z(s, 9), 7.5)
        #expect(stops(s.advance(to: 1.7)).isEmpty)
        #expect(stops(s.advance(to: 1.75)) == [true])
    }

    @Test func infiniteRepeatNeverEnds() throws {
        let s = try scene(ramp { $0.repeatCount = .infinity })
        expectClose(try z(s, 1e5 + 0.5), 5, tolerance: 1e-6)
        #expect(stops(s.advance(to: 1e6)).isEmpty)
        #expect(s.isAnimating)
    }

    @Test func autoreverseRunsBackwards() throws {
        let s = try scene(ramp { $0.autoreverses = true })
        expectClose(try z(s, 0.25), 2.5)
        expectClose(try z(s, 1), 10)
        expectClose(try z(s, 1.25), 7.5)
        expectClose(try z(s, 1.9), 1, tolerance: 1e-9)
        #expect(try z(s, 2) == -1)
        #expect(stops(s.advance(to: 1.99)).isEmpty)
        #expect(stops(s.advance(to: 2)) == [true])
    }

    @Test func autoreverseWithForwardsFillHoldsTheStart() throws {
        let s = try scene(
            ramp {
                $0.autoreverses = true
                $0.repeatCount = 2
                $0.fillMode = .forwards
            })
        expectClose(try z(s, 2.5), 5)
        #expect(try z(s, 4) == 0)
        #expect(try z(s, 9) == 0)
    }

    @Test func autoreverseIsSymmetric() async {
        await seededCheck(count: 200, input: Gen.double(in: 0.1...5), Gen.double(in: 0...1), Gen.double(in: 0...1)) { d, f, c1 in
            var a = Animation.basic(
                "zPosition", from: .number(0), to: .number(10), duration: d,
                timingFunction: try TimingFunction(controlPoints: c1, 0.1, 0.6, 1))
            a.timing.autoreverses = true
            a.timing.fillMode = .both
            let s = try scene(a)
            let t = f * d
            let forwards = try z(s, t), backwards = try z(s, 2 * d - t)
            #expect(abs(forwards - backwards) < 1e-9, "d \(d), t \(t): \(forwards) vs \(backwards)")
        }
    }

    @Test func repeatsArePeriodic() async {
        await seededCheck(count: 200, input: Gen.double(in: 0.1...5), Gen.double(in: 0...0.999), Gen.int(in: 1...2), Gen.bool) { d, f, k, reverses in
            var a = Animation.basic("zPosition", from: .number(-5), to: .number(10), duration: d, timingFunction: .easeOut)
            a.timing.repeatCount = 3
            a.timing.autoreverses = reverses
            let s = try scene(a)
            let period = reverses ? 2 * d : d
            let t = f * period
            let first = try z(s, t), later = try z(s, t + Double(k) * period)
            #expect(abs(first - later) < 1e-9, "d \(d), t \(t), pass \(k): \(first) vs \(later)")
        }
    }

    @Test(arguments: FillMode.allCases)
    func fillModesAtTheBoundaries(_ mode: FillMode) throws {
        let s = try scene(
            ramp {
                $0.beginTime = 1
                $0.fillMode = mode
            })
        let backwards = mode == .backwards || mode == .both, forwards = mode == .forwards || mode == .both
        #expect(try z(s, 0) == (backwards ? 0 : -1))
        #expect(try z(s, 0.999) == (backwards ? 0 : -1))
        #expect(try z(s, 1) == 0)
        expectClose(try z(s, 1.5), 5)
        #expect(try z(s, 2) == (forwards ? 10 : -1))
        #expect(try z(s, 7) == (forwards ? 10 : -1))
    }

    @Test func timeOffsetStartsPartWayAndWrapsRound() throws {
        let s = try scene(
            ramp {
                $0.timeOffset = 0.3
                $0.fillMode = .both
            })
        expectClose(try z(s, -1), 3)  // backwards fill shows where it starts
        expectClose(try z(s, 0), 3)
        expectClose(try z(s, 0.5), 8)
        expectClose(try z(s, 0.8), 1, tolerance: 1e-9)
        expectClose(try z(s, 0.9), 2, tolerance: 1e-9)
        expectClose(try z(s, 5), 3, tolerance: 1e-9)  // it ended one duration after it began
        #expect(stops(s.advance(to: 0.99)).isEmpty)
        #expect(stops(s.advance(to: 1)) == [true])
    }

    @Test func animationSpeedScalesItsTime() throws {
        let s = try scene(ramp(duration: 2) { $0.speed = 4 })
        expectClose(try z(s, 0.125), 2.5)
        expectClose(try z(s, 0.25), 5)
        #expect(try z(s, 0.5) == -1)
        #expect(stops(s.advance(to: 0.5)) == [true])
    }

    @Test func futureBeginTimeDelaysTheStart() throws {
        let s = try scene(ramp { $0.beginTime = 2 })
        #expect(try z(s, 1.9) == -1)
        expectClose(try z(s, 2.5), 5)
        let early = s.advance(to: 1)
        #expect(early.isEmpty)
        #expect(s.advance(to: 2.1).contains { if case .animationStarted(layer: "box", key: "a", _) = $0 { true } else { false } })
    }

    @Test func zeroDurationTakesTheTransactionsDuration() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0, Transaction(animationDuration: 4)) {
            $0.addAnimation(.basic("zPosition", from: .number(0), to: .number(8)), forKey: "a", to: "box")
        }
        #expect(try s.animations(of: "box").first?.animation.timing.duration == 4)
        expectClose(try presented(s, "box", "zPosition", at: 1), 2)
        let s2 = makeSceneWithLayer()
        try commit(s2, at: 0) { $0.addAnimation(.basic("zPosition", from: .number(0), to: .number(8)), forKey: "a", to: "box") }
        #expect(try s2.animations(of: "box").first?.animation.timing.duration == 0.25)
    }

    @Test func invalidTimingIsRejected() throws {
        for adjust: (inout MediaTiming) -> Void in [
            { $0.duration = -1 }, { $0.duration = .nan }, { $0.speed = 2000 }, { $0.repeatCount = -1 },
            { $0.repeatCount = .nan }, { $0.repeatDuration = -2 }, { $0.beginTime = .infinity }, { $0.timeOffset = 1e12 },
        ] {
            let s = makeSceneWithLayer()
            expectError("invalid_timing") { try commit(s, at: 0) { $0.addAnimation(ramp(adjust), to: "box") } }
            #expect(try s.animations(of: "box").isEmpty)
        }
    }
}
