import Foundation
import Testing
import VitrineCore

/// Basic, additive, cumulative, keyframe and group animations, checked through
/// presentation values, and the errors of adding a bad one.
@Suite struct BasicAnimationTests {
    /// A layer "box" with zPosition 100 and `animation` added under "a" at media time 0.
    func scene(_ animation: Animation, model: Double = 100) throws -> Scene {
        let s = makeSceneWithLayer(properties: ["zPosition": .number(model)])
        try commit(s, at: 0) { $0.addAnimation(animation, forKey: "a", to: "box") }
        return s
    }

    func z(_ s: Scene, _ t: Double) throws -> Double { try presented(s, "box", "zPosition", at: t) }

    /// CABasicAnimation's documented combinations, with the model (and presentation
    /// underneath) at 100: (from, to, by) → (start, end).
    static let combinations: [(Double?, Double?, Double?, Double, Double)] = [
        (10, 20, nil, 10, 20),  // from and to
        (10, nil, 5, 10, 15),  // from and by: from → from + by
        (nil, 20, 5, 15, 20),  // by and to: to − by → to
        (10, nil, nil, 10, 100),  // from only: from → current value
        (nil, 20, nil, 100, 20),  // to only: current value → to
        (nil, nil, 5, 100, 105),  // by only: current → current + by
        (nil, nil, nil, 100, 100),  // none: current → current
        (10, 20, 5, 10, 20),  // all three: by is ignored
    ]

    @Test(arguments: combinations.indices)
    func fromToByCombinations(_ i: Int) throws {
        let (from, to, by, start, end) = Self.combinations[i]
        let s = try scene(.basic("zPosition", from: from.map(Value.number), to: to.map(Value.number), by: by.map(Value.number), duration: 1))
        expectClose(try z(s, 0), start)
        expectClose(try z(s, 0.5), (start + end) / 2)
        expectClose(try z(s, 0.999), start + (end - start) * 0.999, tolerance: 1e-9)
        #expect(try z(s, 1) == 100)
    }

    @Test func additiveAnimationsAddToTheModel() throws {
        var a = Animation.basic("zPosition", from: .number(0), to: .number(50), duration: 1)
        a.isAdditive = true
        let s = try scene(a)
        expectClose(try z(s, 0.5), 125)
        // A second additive animation adds on top of the first.
        var b = Animation.basic("zPosition", by: .number(20), duration: 1)
        b.isAdditive = true
        try commit(s, at: 0) { $0.addAnimation(b, forKey: "b", to: "box") }
        expectClose(try z(s, 0.5), 135)
        // And it follows the model when the model changes.
        try commit(s, at: 0.5, quiet) { $0.set("box", "zPosition", .number(0)) }
        expectClose(try z(s, 0.5), 35)
    }

    @Test func additiveTransformActsInTheModelsSpace() throws {
        let s = makeSceneWithLayer(properties: ["transform": .transform(AffineTransform(rotationAngle: .pi / 2))])
        var a = Animation.basic("transform", from: .transform(.identity), to: .transform(AffineTransform(translationX: 10, y: 0)), duration: 1)
        a.isAdditive = true
        try commit(s, at: 0) { $0.addAnimation(a, to: "box") }
        let t = try #require(try s.presentationValue("transform", of: "box", at: 0.5).transform)
        // Translate (5, 0) first, then the model's quarter turn: (0, 0) → (5, 0) → (0, 5).
        expectClose(t.apply(to: .zero), Point(x: 0, y: 5))
        expectClose(t.apply(to: Point(x: 1, y: 0)), Point(x: 0, y: 6))
    }

    @Test func cumulativeRepeatsStartWhereThePreviousEnded() throws {
        var a = Animation.basic("zPosition", from: .number(0), to: .number(10), duration: 1)
        a.timing.repeatCount = 3
        a.isCumulative = true
        a.timing.fillMode = .forwards
        let s = try scene(a)
        expectClose(try z(s, 0.5), 5)
        expectClose(try z(s, 1.5), 15)
        expectClose(try z(s, 2.5), 25)
        expectClose(try z(s, 3), 30)
        expectClose(try z(s, 10), 30)
        // Without isCumulative every pass starts again.
        var plain = a
        plain.isCumulative = false
        expectClose(try z(try scene(plain), 2.5), 5)
    }

    @Test func cumulativeKeyframes() throws {
        var a = Animation.keyframe("zPosition", Keyframes(values: [.number(0), .number(4), .number(10)]), duration: 2)
        a.timing.repeatCount = 2
        a.isCumulative = true
        let s = try scene(a)
        expectClose(try z(s, 1), 4)
        expectClose(try z(s, 3), 14)
    }

    @Test func pointsAndColoursAnimate() throws {
        let s = makeSceneWithLayer(properties: ["backgroundColor": .color(.clear)])
        try commit(s, at: 0) {
            $0.addAnimation(.basic("position", from: .point(Point(x: 0, y: 0)), to: .point(Point(x: 100, y: -50)), duration: 2), to: "box")
            $0.addAnimation(.basic("backgroundColor", to: .color(Color(red: 1, green: 0.5, blue: 0)), duration: 2), to: "box")
            $0.addAnimation(.basic("bounds.size.width", to: .number(300), duration: 2), to: "box")
        }
        expectClose(try s.presentationValue("position", of: "box", at: 0.5), .point(Point(x: 25, y: -12.5)))
        // From clear the colour keeps its hue, only its alpha grows.
        expectClose(try s.presentationValue("backgroundColor", of: "box", at: 0.5), .color(Color(red: 1, green: 0.5, blue: 0, alpha: 0.25)))
        expectClose(try s.presentationValue("bounds", of: "box", at: 1), .rect(Rect(x: 0, y: 0, width: 200, height: 100)))
    }

    @Test func transformPartsAnimateThroughTheirKeyPaths() throws {
        let s = makeSceneWithLayer(properties: ["transform": .transform(AffineTransform(scaleX: 2, y: 2))])
        try commit(s, at: 0) {
            // A full turn: by number, not by matrices (which would not move at all).
            $0.addAnimation(.basic("transform.rotation.z", from: .number(0), to: .number(2 * .pi), duration: 1), forKey: "spin", to: "box")
        }
        for (t, angle) in [(0.25, Double.pi / 2), (0.5, .pi), (0.75, 1.5 * .pi)] {
            let shown = try #require(try s.presentationValue("transform", of: "box", at: t).transform)
            expectClose(shown, AffineTransform(scaleX: 2, y: 2).concatenating(AffineTransform(rotationAngle: angle)), tolerance: 1e-9, "at \(t)")
        }
        try commit(s, at: 0) {
            $0.addAnimation(.basic("transform.translation.x", from: .number(0), to: .number(40), duration: 1), forKey: "move", to: "box")
        }
        let both = try #require(try s.presentationValue("transform", of: "box", at: 0.25).transform)
        expectClose(
            both,
            AffineTransform(scaleX: 2, y: 2).concatenating(AffineTransform(rotationAngle: .pi / 2))
                .concatenating(AffineTransform(translationX: 10, y: 0)), tolerance: 1e-9)
    }

    @Test func laterAnimationsApplyOnTopOfEarlierOnes() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) {
            $0.addAnimation(.basic("position", from: .point(Point(x: 0, y: 0)), to: .point(Point(x: 100, y: 100)), duration: 1), forKey: "move", to: "box")
            $0.addAnimation(.basic("position.x", by: .number(1000), duration: 1), forKey: "nudge", to: "box")
        }
        // position.x: 50 from the first, then by 1000 × 0.5 on top of that.
        expectClose(try s.presentationValue("position", of: "box", at: 0.5), .point(Point(x: 550, y: 50)))
    }

    @Test func invalidAnimationsAreRejected() throws {
        let s = makeSceneWithLayer()
        expectError("not_animatable") { try commit(s, at: 0) { $0.addAnimation(.basic("masksToBounds", to: .bool(true), duration: 1), to: "box") } }
        expectError("not_animatable") { try commit(s, at: 0) { $0.addAnimation(.basic("contents", to: .string("x"), duration: 1), to: "box") } }
        expectError("unknown_key_path") { try commit(s, at: 0) { $0.addAnimation(.basic("position.z", to: .number(1), duration: 1), to: "box") } }
        expectError("wrong_type") { try commit(s, at: 0) { $0.addAnimation(.basic("opacity", to: .point(.zero), duration: 1), to: "box") } }
        expectError("invalid_value") { try commit(s, at: 0) { $0.addAnimation(.basic("opacity", to: .number(.nan), duration: 1), to: "box") } }
        expectError("unknown_layer") { try commit(s, at: 0) { $0.addAnimation(.basic("opacity", to: .number(0), duration: 1), to: "nope") } }
        expectError("invalid_animation") {
            try commit(s, at: 0) { $0.addAnimation(Animation(kind: .basic(.init(to: .number(1))), keyPath: nil), to: "box") }
        }
        expectError("invalid_animation") {
            var g = Animation.group([.basic("opacity", to: .number(0))], duration: 1)
            g.keyPath = "opacity"
            try commit(s, at: 0) { $0.addAnimation(g, to: "box") }
        }
        let spring = try Spring()
        expectError("invalid_animation") { try commit(s, at: 0) { $0.addAnimation(.spring("opacity", spring: spring), to: "box") } }
        expectError("not_animatable") {
            try commit(s, at: 0) { $0.addAnimation(.group([.basic("masksToBounds", to: .bool(true))], duration: 1), to: "box") }
        }
        #expect(try s.animations(of: "box").isEmpty)
    }
}

@Suite struct KeyframeAnimationTests {
    func scene(_ keyframes: Keyframes, duration: Double = 1) throws -> Scene {
        let s = makeSceneWithLayer(properties: ["zPosition": .number(-1)])
        try commit(s, at: 0) { $0.addAnimation(.keyframe("zPosition", keyframes, duration: duration), forKey: "k", to: "box") }
        return s
    }

    func z(_ s: Scene, _ t: Double) throws -> Double { try presented(s, "box", "zPosition", at: t) }

    @Test func linearWithKeyTimes() throws {
        let s = try scene(Keyframes(values: [.number(0), .number(10), .number(40)], keyTimes: [0, 0.25, 1]))
        expectClose(try z(s, 0), 0)
        expectClose(try z(s, 0.125), 5)
        expectClose(try z(s, 0.25), 10)
        expectClose(try z(s, 0.5), 20)
        expectClose(try z(s, 0.999), 39.96, tolerance: 1e-9)
    }

    @Test func linearSpacesEvenlyWithoutKeyTimes() throws {
        let s = try scene(Keyframes(values: [.number(0), .number(10), .number(40)]), duration: 2)
        expectClose(try z(s, 0.5), 5)
        expectClose(try z(s, 1.5), 25)
    }

    @Test func keyTimesLaterThanZeroHoldTheFirstValue() throws {
        let s = try scene(Keyframes(values: [.number(10), .number(20)], keyTimes: [0.5, 1]))
        expectClose(try z(s, 0.25), 10)
        expectClose(try z(s, 0.75), 15)
    }

    @Test func discreteWithNKeyTimes() throws {
        let s = try scene(Keyframes(values: [.number(1), .number(2), .number(3)], keyTimes: [0, 0.2, 0.7], calculationMode: .discrete))
        #expect(try z(s, 0.1) == 1)
        #expect(try z(s, 0.3) == 2)
        #expect(try z(s, 0.69) == 2)
        #expect(try z(s, 0.71) == 3)
        #expect(try z(s, 0.99) == 3)
    }

    @Test func discreteWithNPlusOneKeyTimes() throws {
        let s = try scene(Keyframes(values: [.number(1), .number(2), .number(3)], keyTimes: [0, 0.2, 0.7, 1], calculationMode: .discrete))
        #expect(try z(s, 0.1) == 1)
        #expect(try z(s, 0.5) == 2)
        #expect(try z(s, 0.8) == 3)
    }

    @Test func discreteSpacesEvenlyWithoutKeyTimes() throws {
        let s = try scene(Keyframes(values: [.number(1), .number(2), .number(3), .number(4)], calculationMode: .discrete))
        #expect(try z(s, 0.2) == 1)
        #expect(try z(s, 0.3) == 2)
        #expect(try z(s, 0.6) == 3)
        #expect(try z(s, 0.8) == 4)
    }

    @Test func discreteStringsAndBools() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) {
            $0.set("box", "label", .string("a"))
        }
        try commit(s, at: 0) {
            $0.addAnimation(.keyframe("label", Keyframes(values: [.string("x"), .string("y")], calculationMode: .discrete), duration: 1), to: "box")
            $0.addAnimation(.keyframe("hidden", Keyframes(values: [.bool(true), .bool(false)], calculationMode: .discrete), duration: 1), to: "box")
        }
        #expect(try s.presentationValue("label", of: "box", at: 0.4) == .string("x"))
        #expect(try s.presentationValue("label", of: "box", at: 0.6) == .string("y"))
        #expect(try s.presentationValue("hidden", of: "box", at: 0.4) == .bool(true))
        #expect(try s.presentationValue("hidden", of: "box", at: 0.6) == .bool(false))
    }

    @Test func pacedMovesAtOneSpeed() throws {
        // Segments of length 10 and 30: paced, the first takes a quarter of the time.
        for keyTimes in [nil, [0, 0.5, 1]] as [[Double]?] {
            let s = try scene(Keyframes(values: [.number(0), .number(10), .number(40)], keyTimes: keyTimes, calculationMode: .paced))
            for f in [0.1, 0.25, 0.5, 0.75, 0.9] { expectClose(try z(s, f), 40 * f, tolerance: 1e-9, "at \(f)") }
        }
        // Points: lengths 50 (3-4-5) and 100.
        let s = makeSceneWithLayer()
        let values: [Value] = [.point(Point(x: 0, y: 0)), .point(Point(x: 30, y: 40)), .point(Point(x: 30, y: 140))]
        try commit(s, at: 0) { $0.addAnimation(.keyframe("position", Keyframes(values: values, calculationMode: .paced), duration: 3), to: "box") }
        expectClose(try s.presentationValue("position", of: "box", at: 0.5), .point(Point(x: 15, y: 20)))
        expectClose(try s.presentationValue("position", of: "box", at: 1), .point(Point(x: 30, y: 40)))
        expectClose(try s.presentationValue("position", of: "box", at: 2), .point(Point(x: 30, y: 90)))
    }

    @Test func cubicPassesThroughItsKeyframesAndCurves() throws {
        // Catmull-Rom reproduces a parabola through evenly spaced samples of it.
        let values: [Value] = [0, 1, 4, 9].map { Value.number($0) }
        let s = try scene(Keyframes(values: values, calculationMode: .cubic), duration: 3)
        for (i, v) in [0.0, 1, 4].enumerated() { expectClose(try z(s, Double(i)), v, tolerance: 1e-9) }
        expectClose(try z(s, 2.999), 9, tolerance: 0.01)
        expectClose(try z(s, 1.5), 2.25, tolerance: 1e-9)
        // Linear would give 2.5 half way between 1 and 4.
        let linear = try scene(Keyframes(values: values, calculationMode: .linear), duration: 3)
        expectClose(try z(linear, 1.5), 2.5, tolerance: 1e-9)
        // With key times too, every keyframe is hit at its time.
        let timed = try scene(Keyframes(values: [.number(3), .number(-2), .number(7), .number(1)], keyTimes: [0, 0.1, 0.6, 1], calculationMode: .cubic))
        for (t, v) in [(0.0, 3.0), (0.1, -2), (0.6, 7)] { expectClose(try z(timed, t), v, tolerance: 1e-9) }
    }

    @Test func perSegmentTimingFunctions() throws {
        let s = try scene(Keyframes(values: [.number(0), .number(10), .number(20)], timingFunctions: [.easeIn, .linear]))
        expectClose(try z(s, 0.25), 10 * referenceProgress(.easeIn, at: 0.5), tolerance: 1e-7)
        expectClose(try z(s, 0.75), 15, tolerance: 1e-9)
        let one = try scene(Keyframes(values: [.number(0), .number(10), .number(20)], timingFunctions: [.easeOut]))
        expectClose(try z(one, 0.25), 10 * referenceProgress(.easeOut, at: 0.5), tolerance: 1e-7)
        expectClose(try z(one, 0.75), 10 + 10 * referenceProgress(.easeOut, at: 0.5), tolerance: 1e-7)
    }

    @Test func invalidKeyframesAreRejected() {
        let cases: [Keyframes] = [
            Keyframes(values: []),
            Keyframes(values: [.number(0), .point(.zero)]),
            Keyframes(values: [.number(0), .number(1)], keyTimes: [0, 0.5, 1]),
            Keyframes(values: [.number(0), .number(1)], keyTimes: [0, 0.5, 0.7, 1], calculationMode: .discrete),
            Keyframes(values: [.number(0), .number(1), .number(2)], keyTimes: [0, 0.8, 0.5]),
            Keyframes(values: [.number(0), .number(1)], keyTimes: [0, 1.5]),
            Keyframes(values: [.number(0), .number(1)], keyTimes: [.nan, 1]),
            Keyframes(values: [.number(0), .number(1), .number(2)], timingFunctions: [.linear, .linear, .linear]),
        ]
        for k in cases {
            let s = makeSceneWithLayer()
            expectError("invalid_animation", "\(k.values) \(k.keyTimes ?? [])") {
                try commit(s, at: 0) { $0.addAnimation(.keyframe("zPosition", k, duration: 1), to: "box") }
            }
        }
        let s = makeSceneWithLayer()
        expectError("wrong_type") {
            try commit(s, at: 0) { $0.addAnimation(.keyframe("zPosition", Keyframes(values: [.point(.zero)]), duration: 1), to: "box") }
        }
    }
}

@Suite struct GroupAnimationTests {
    @Test func childrenRunInGroupTime() throws {
        let s = makeSceneWithLayer(properties: ["zPosition": .number(-1), "position": .point(Point(x: 7, y: 7))])
        var late = Animation.basic("position.x", from: .number(0), to: .number(100), duration: 1)
        late.timing.beginTime = 0.5
        let group = Animation.group(
            [
                .basic("zPosition", from: .number(0), to: .number(10)),  // duration 0: the group's
                late,
            ], duration: 2)
        try commit(s, at: 1) { $0.addAnimation(group, forKey: "g", to: "box") }
        #expect(try s.animations(of: "box").first?.animation.timing.beginTime == 1)
        expectClose(try presented(s, "box", "zPosition", at: 2), 5)
        expectClose(try presented(s, "box", "zPosition", at: 2.5), 7.5)
        // The late child has not begun a quarter into the group, is half done at 1 s in
        // group time and over at 1.5 s.
        #expect(try presented(s, "box", "position.x", at: 1.25) == 7)
        expectClose(try presented(s, "box", "position.x", at: 2), 50)
        #expect(try presented(s, "box", "position.x", at: 2.75) == 7)
        // The whole group ends after its duration.
        #expect(try presented(s, "box", "zPosition", at: 3) == -1)
        #expect(s.advance(to: 3).contains { if case .animationStopped(_, "g", _, true) = $0 { true } else { false } })
    }

    @Test func groupTimingScalesItsChildren() throws {
        let s = makeSceneWithLayer(properties: ["zPosition": .number(-1)])
        var group = Animation.group([.basic("zPosition", from: .number(0), to: .number(10), duration: 4)], duration: 2)
        group.timing.speed = 2
        group.timing.fillMode = .forwards
        try commit(s, at: 0) { $0.addAnimation(group, to: "box") }
        // Group time runs twice as fast; the group cuts its child off at 2 s of group time.
        expectClose(try presented(s, "box", "zPosition", at: 0.5), 2.5)
        expectClose(try presented(s, "box", "zPosition", at: 0.999), 4.995)
        // Filled at its end: the child is held at its 2 s, value 5.
        expectClose(try presented(s, "box", "zPosition", at: 5), 5)
    }
}
