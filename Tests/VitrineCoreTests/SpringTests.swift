import Foundation
import PropertyBased
import Testing
import VitrineCore

/// CASpringAnimation's damped oscillator: the closed forms against a numerical
/// integration, settling, the perceptual-duration initializer, and springs in a scene.
@Suite struct SpringTests {
    /// Times at which closed form and integration are compared.
    static let sampleTimes = [0.001, 0.01, 0.05, 0.1, 0.2, 0.35, 0.6, 1.0]

    func checkAgainstIntegration(mass: Double, stiffness: Double, damping: Double, velocity: Double) throws {
        let spring = try Spring(mass: mass, stiffness: stiffness, damping: damping, initialVelocity: velocity)
        let reference = integratedSpringProgress(mass: mass, stiffness: stiffness, damping: damping, initialVelocity: velocity, at: Self.sampleTimes)
        for (t, expected) in zip(Self.sampleTimes, reference) {
            let p = spring.progress(at: t)
            #expect(
                abs(p - expected) < 1e-7,
                "m \(mass) k \(stiffness) c \(damping) v \(velocity) ζ \(spring.dampingRatio) at \(t): \(p) vs \(expected)")
        }
    }

    @Test func underdampedMatchesIntegration() async {
        await seededCheck(count: 40, input: Gen.double(in: 0.2...5), Gen.double(in: 5...400), Gen.double(in: 0...0.95), Gen.double(in: -20...20)) {
            m, k, zeta, v in
            try checkAgainstIntegration(mass: m, stiffness: k, damping: 2 * zeta * (k * m).squareRoot(), velocity: v)
        }
    }

    @Test func criticallyDampedMatchesIntegration() async {
        await seededCheck(count: 30, input: Gen.double(in: 0.2...5), Gen.double(in: 5...400), Gen.double(in: -20...20)) { m, k, v in
            let c = 2 * (k * m).squareRoot()
            #expect(abs(try Spring(mass: m, stiffness: k, damping: c).dampingRatio - 1) < 1e-12)
            try checkAgainstIntegration(mass: m, stiffness: k, damping: c, velocity: v)
        }
    }

    @Test func overdampedMatchesIntegration() async {
        await seededCheck(count: 40, input: Gen.double(in: 0.2...5), Gen.double(in: 5...400), Gen.double(in: 1.05...5), Gen.double(in: -20...20)) {
            m, k, zeta, v in
            try checkAgainstIntegration(mass: m, stiffness: k, damping: 2 * zeta * (k * m).squareRoot(), velocity: v)
        }
    }

    @Test func nearlyCriticalDampingIsContinuous() throws {
        // Either side of ζ = 1 the formulas change; the motion must not.
        let critical = try Spring(mass: 1, stiffness: 100, damping: 20, initialVelocity: 3)
        for c in [20 - 1e-7, 20 + 1e-7, 20 - 1e-4, 20 + 1e-4] {
            let near = try Spring(mass: 1, stiffness: 100, damping: c, initialVelocity: 3)
            for t in Self.sampleTimes { expectClose(near.progress(at: t), critical.progress(at: t), tolerance: 1e-5, "c \(c) at \(t)") }
        }
    }

    @Test func velocityIsTheDerivativeOfProgress() async throws {
        await seededCheck(
            count: 60, input: Gen.double(in: 0.5...3), Gen.double(in: 20...300), Gen.double(in: 0.1...3), Gen.double(in: -10...10), Gen.double(in: 0.01...1.5)
        ) { m, k, zeta, v, t in
            let spring = try Spring(mass: m, stiffness: k, damping: 2 * zeta * (k * m).squareRoot(), initialVelocity: v)
            let h = 1e-6
            let numeric = (spring.progress(at: t + h) - spring.progress(at: t - h)) / (2 * h)
            #expect(abs(numeric - spring.velocity(at: t)) < 1e-4 * max(1, abs(numeric)), "\(numeric) vs \(spring.velocity(at: t))")
        }
        let s = try Spring(initialVelocity: 4)
        #expect(s.velocity(at: 0) == 4)
        #expect(s.progress(at: 0) == 0)
    }

    @Test func springSettlesAtOne() throws {
        for spring in [
            try Spring(), try Spring(damping: 17, initialVelocity: 1), try Spring(mass: 2, stiffness: 50, damping: 30),
            try Spring(stiffness: 300, damping: 3, initialVelocity: -5),
        ] {
            let settle = spring.settlingDuration
            #expect(settle > 0 && settle < 120)
            var t = settle
            while t < settle + 5 {
                #expect(abs(spring.progress(at: t) - 1) < 1e-3, "\(spring) at \(t)")
                t += 0.001
            }
            expectClose(spring.progress(at: 60), 1, tolerance: 1e-9)
            // Not settled a moment earlier: the duration is the first settled time.
            let earlier = stride(from: max(0, settle - 0.01), to: settle, by: 0.0001).contains { t in
                abs(spring.progress(at: t) - 1) >= 1e-3 || abs(spring.velocity(at: t)) >= 1e-2
            }
            #expect(earlier, "\(spring) had settled before \(settle)")
        }
    }

    @Test func defaultSpringSettlesInAboutOneAndAHalfSeconds() throws {
        // m 1, k 100, c 10: ζ = 0.5, envelope 1.1547·e^(−5t) reaches 1e-3 at t ≈ 1.41.
        let d = try Spring().settlingDuration
        #expect(d > 1.3 && d < 1.45, "\(d)")
        // Heavier damping settles sooner (but critical damping is no slower than ζ = 0.5).
        #expect(try Spring(damping: 20).settlingDuration < d)
    }

    @Test func perceptualDurationAndBounce() throws {
        let critical = try Spring(perceptualDuration: 0.5, bounce: 0)
        expectClose(critical.mass, 1)
        expectClose(critical.stiffness, pow(2 * .pi / 0.5, 2), tolerance: 1e-9)
        expectClose(critical.dampingRatio, 1, tolerance: 1e-9)
        expectClose(try Spring(perceptualDuration: 2, bounce: 0.3).dampingRatio, 0.7, tolerance: 1e-9)
        expectClose(try Spring(perceptualDuration: 1, bounce: -0.5).dampingRatio, 2, tolerance: 1e-9)
        expectClose(try Spring(perceptualDuration: 1, bounce: 0.3).stiffness, 4 * .pi * .pi, tolerance: 1e-9)
        // Critically damped: never overshoots.
        for i in 1...400 { #expect(critical.progress(at: Double(i) / 100) <= 1 + 1e-12) }
        for (d, b) in [(0.0, 0.0), (-1, 0), (.nan, 0), (.infinity, 0), (1, 1), (1, -1), (1, .nan)] {
            expectError("invalid_animation", "\(d), \(b)") { _ = try Spring(perceptualDuration: d, bounce: b) }
        }
    }

    @Test func invalidSpringsAreRejected() {
        for (m, k, c, v) in [
            (0.0, 100.0, 10.0, 0.0), (-1, 100, 10, 0), (1, 0, 10, 0), (1, -5, 10, 0), (1, 100, -1, 0),
            (.nan, 100, 10, 0), (1, .infinity, 10, 0), (1, 100, 10, .nan), (1e7, 100, 10, 0), (1, 100, 10, 1e7),
        ] {
            expectError("invalid_animation", "\(m) \(k) \(c) \(v)") { _ = try Spring(mass: m, stiffness: k, damping: c, initialVelocity: v) }
        }
    }
}

@Suite struct SpringAnimationTests {
    @Test func springAnimationFollowsTheSpringAndLastsItsSettlingDuration() throws {
        let spring = try Spring(damping: 5)
        let s = makeSceneWithLayer(properties: ["zPosition": .number(100)])
        try commit(s, at: 0) { $0.addAnimation(.spring("zPosition", from: .number(0), to: .number(100), spring: spring), forKey: "s", to: "box") }
        let duration = try #require(try s.animations(of: "box").first?.animation.timing.duration)
        expectClose(duration, spring.settlingDuration, tolerance: 0)
        var highest = 0.0
        for t in stride(from: 0.0, to: duration, by: 0.01) {
            let z = try presented(s, "box", "zPosition", at: t)
            expectClose(z, 100 * spring.progress(at: t), tolerance: 1e-9)
            highest = max(highest, z)
        }
        #expect(highest > 110, "an underdamped spring overshoots")
        #expect(try presented(s, "box", "zPosition", at: duration) == 100)
        #expect(s.advance(to: duration).contains { if case .animationStopped(_, "s", _, true) = $0 { true } else { false } })
    }

    @Test func rollingNumberConfiguration() throws {
        // Seed 001: duration 1, speed 0.3, damping 17, initial velocity 1, kept with a forwards fill.
        let spring = try Spring(damping: 17, initialVelocity: 1)
        let s = makeSceneWithLayer(properties: ["position": .point(Point(x: 0, y: 0))])
        var a = Animation.spring("position.y", from: .number(0), to: .number(-400), spring: spring, duration: 1)
        a.timing.speed = 0.3
        a.timing.fillMode = .forwards
        a.isRemovedOnCompletion = false
        try commit(s, at: 0, quiet) {
            $0.set("box", "position.y", .number(-400))
            $0.addAnimation(a, to: "box")
        }
        // Media time 1 is 0.3 s of spring time.
        expectClose(try presented(s, "box", "position.y", at: 1), -400 * spring.progress(at: 0.3), tolerance: 1e-9)
        #expect(!s.advance(to: 3.3).contains { if case .animationStopped = $0 { true } else { false } })
        #expect(s.advance(to: 3.34).contains { if case .animationStopped(_, _, _, true) = $0 { true } else { false } })
        // Held where the spring was after 1 s of its time.
        expectClose(try presented(s, "box", "position.y", at: 10), -400 * spring.progress(at: 1), tolerance: 1e-9)
        #expect(try s.animations(of: "box").count == 1)
    }

    @Test func springByValueAndAdditive() throws {
        let spring = try Spring(stiffness: 200, damping: 30)
        let s = makeSceneWithLayer(properties: ["zPosition": .number(10)])
        var a = Animation.spring("zPosition", by: .number(5), spring: spring, duration: 2)
        a.isAdditive = true
        try commit(s, at: 0) { $0.addAnimation(a, to: "box") }
        expectClose(try presented(s, "box", "zPosition", at: 0.2), 10 + 5 * spring.progress(at: 0.2), tolerance: 1e-9)
    }
}
