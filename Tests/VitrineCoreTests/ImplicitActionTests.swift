import Foundation
import PropertyBased
import Testing
import VitrineCore

/// Transactions and implicit actions (CATransaction, actions): the default 0.25 s animation, inherited
/// transaction settings, disableActions, actions maps, borrowed action rules with the
/// explicit-only policy, and retargeting mid-animation without a jump.
@Suite struct ImplicitActionTests {
    func opacity(_ s: Scene, _ t: Double, _ layer: String = "box") throws -> Double { try presented(s, layer, "opacity", at: t) }

    @Test func settingAnAnimatablePropertyAnimatesFromThePresentationValue() throws {
        let s = makeSceneWithLayer()
        let tx = try commit(s, at: 2) { $0.set("box", "opacity", .number(0)) }
        #expect(try model(s, "box", "opacity") == 0)
        let info = try #require(try s.animations(of: "box").first)
        #expect(info.key == "opacity")
        #expect(info.transaction == tx)
        #expect(info.animation.timing.duration == 0.25)
        #expect(info.animation.timing.beginTime == 2)
        #expect(info.animation.timingFunction == .default)
        expectClose(try opacity(s, 2), 1)
        for f in [0.2, 0.4, 0.8] {
            expectClose(try opacity(s, 2 + 0.25 * f), 1 - referenceProgress(.default, at: f), tolerance: 1e-7)
        }
        #expect(try opacity(s, 2.25) == 0)
    }

    @Test func otherTypesAnimateImplicitlyToo() throws {
        let s = makeSceneWithLayer(properties: ["backgroundColor": .color(.clear)])
        try commit(s, at: 0, Transaction(animationDuration: 1, timingFunction: .linear)) {
            $0.set("box", "position", .point(Point(x: 150, y: 250)))
            $0.set("box", "bounds.size.width", .number(300))
            $0.set("box", "backgroundColor", .color(Color(red: 0, green: 1, blue: 0)))
            $0.set("box", "transform", .transform(AffineTransform(rotationAngle: 1)))
        }
        #expect(try Set(s.animations(of: "box").map(\.key)) == ["position", "bounds.size.width", "backgroundColor", "transform"])
        expectClose(try s.presentationValue("position", of: "box", at: 0.5), .point(Point(x: 100, y: 150)))
        expectClose(try presented(s, "box", "bounds.size.width", at: 0.5), 200)
        expectClose(try s.presentationValue("backgroundColor", of: "box", at: 0.5), .color(Color(red: 0, green: 1, blue: 0, alpha: 0.5)))
        expectClose(try s.presentationValue("transform", of: "box", at: 0.5), .transform(AffineTransform(rotationAngle: 0.5)))
    }

    @Test func settingTheShownValueDoesNotAnimate() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.set("box", "opacity", .number(1)) }
        #expect(try s.animations(of: "box").isEmpty)
    }

    @Test func configurationSetsTheDefaults() throws {
        var configuration = Scene.Configuration()
        configuration.implicitDuration = 2
        configuration.implicitTimingFunction = .linear
        let s = Scene(configuration: configuration)
        try s.addRoot(id: rootID, output: "X", size: Size(width: 10, height: 10))
        try commit(s, at: 0) { $0.add(layer: "box", parent: rootID) }
        try commit(s, at: 0) { $0.set("box", "opacity", .number(0)) }
        expectClose(try opacity(s, 0.5), 0.75)
    }

    @Test func nestedBatchesInheritDurationAndCurve() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.add(layer: "b2", parent: rootID) }
        try commit(s, at: 0) { $0.add(layer: "b3", parent: rootID) }
        var deeper = Transaction()
        deeper.set("b3", "opacity", .number(0))
        var inner = Transaction()
        inner.set("box", "opacity", .number(0))
        inner.nest(deeper)
        var own = Transaction(animationDuration: 2)
        own.set("b2", "opacity", .number(0))
        try commit(s, at: 0, Transaction(animationDuration: 1, timingFunction: .linear)) {
            $0.nest(inner)
            $0.nest(own)
        }
        expectClose(try opacity(s, 0.5), 0.5)
        expectClose(try opacity(s, 0.5, "b3"), 0.5)
        expectClose(try opacity(s, 0.5, "b2"), 0.75)  // its own duration, the outer curve
        #expect(try s.animations(of: "b2").first?.animation.timingFunction == .linear)
    }

    @Test func disableActionsStopsImplicitAnimationAndIsInherited() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.add(layer: "b2", parent: rootID) }
        var inner = Transaction()
        inner.set("box", "opacity", .number(0))
        var reenabled = Transaction(disableActions: false)
        reenabled.set("b2", "opacity", .number(0))
        try commit(s, at: 0, quiet) {
            $0.set("box", "position", .point(Point(x: 1, y: 1)))
            $0.nest(inner)
            $0.nest(reenabled)
        }
        #expect(try s.animations(of: "box").isEmpty)
        #expect(try opacity(s, 0.1) == 0)
        #expect(try s.animations(of: "b2").count == 1)
        // Explicit animations are still added with actions disabled.
        try commit(s, at: 0, quiet) { $0.addAnimation(.basic("zPosition", to: .number(5), duration: 1), to: "box") }
        #expect(try s.animations(of: "box").count == 1)
    }

    @Test func actionsMapNoneDisablesAKey() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.operations.append(.setActions(layer: "box", actions: ["opacity": ActionRule.none, "position.x": ActionRule.none])) }
        try commit(s, at: 0) {
            $0.set("box", "opacity", .number(0))
            $0.set("box", "position.x", .number(10))
            $0.set("box", "position.y", .number(10))
            $0.set("box", "zPosition", .number(3))
        }
        #expect(try Set(s.animations(of: "box").map(\.key)) == ["position.y", "zPosition"])
        #expect(try s.actionRules(of: "box").actions["opacity"] == ActionRule.none)
        // Deleting the entry restores the default action.
        try commit(s, at: 0) { $0.operations.append(.setActions(layer: "box", actions: ["opacity": nil])) }
        #expect(try s.actionRules(of: "box").actions["opacity"] == nil)
        try commit(s, at: 1) { $0.set("box", "opacity", .number(1)) }
        #expect(try s.animations(of: "box").contains { $0.key == "opacity" })
    }

    @Test func actionsMapAnimationIsUsed() throws {
        let spring = try Spring(stiffness: 200, damping: 12)
        let s = makeSceneWithLayer()
        var curve = Animation.basic("position", duration: 2, timingFunction: .easeIn)
        curve.timing.fillMode = .both
        try commit(s, at: 0) {
            $0.operations.append(
                .setActions(
                    layer: "box",
                    actions: [
                        "opacity": .animation(.spring("opacity", spring: spring)),
                        "position": .animation(curve),
                    ]))
        }
        try commit(s, at: 0) {
            $0.set("box", "opacity", .number(0.2))
            $0.set("box", "position", .point(Point(x: 250, y: 50)))
        }
        let springInfo = try #require(try s.animations(of: "box").first { $0.key == "opacity" })
        guard case .spring(let endpoints, let used) = springInfo.animation.kind else {
            Issue.record("expected a spring, got \(springInfo.animation.kind)")
            return
        }
        #expect(used == spring)
        #expect(endpoints.from == .number(1))
        expectClose(springInfo.animation.timing.duration, spring.settlingDuration, tolerance: 0)
        for t in [0.05, 0.2, 0.5] {
            expectClose(try opacity(s, t), 1 + (0.2 - 1) * spring.progress(at: t), tolerance: 1e-9)
        }
        // position.x uses the template's 2 s easeIn; it also applies to position's parts.
        expectClose(try presented(s, "box", "position.x", at: 1), 50 + 200 * referenceProgress(.easeIn, at: 0.5), tolerance: 1e-7)
        try commit(s, at: 5) { $0.set("box", "position.y", .number(150)) }
        let partInfo = try #require(try s.animations(of: "box").first { $0.key == "position.y" })
        #expect(partInfo.animation.timing.duration == 2)
        #expect(partInfo.animation.timingFunction == .easeIn)
    }

    @Test func invalidActionTemplatesAreRejected() throws {
        let s = makeSceneWithLayer()
        expectError("invalid_timing") {
            var a = Animation.basic("opacity", duration: 1)
            a.timing.speed = .nan
            try commit(s, at: 0) { $0.operations.append(.setActions(layer: "box", actions: ["opacity": .animation(a)])) }
        }
        #expect(try s.actionRules(of: "box").actions.isEmpty)
        expectError("unknown_layer") { try commit(s, at: 0) { $0.operations.append(.setActionsFrom(layer: "box", source: "nobody")) } }
    }

    /// root → view (explicitOnly, like a UIView's backing layer) → sub (takes its rules from view).
    func viewScene() throws -> Scene {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(layer: "view", parent: rootID)
            $0.add(layer: "sub", parent: "view")
            $0.operations.append(.setActionPolicy(layer: "view", policy: .explicitOnly))
            $0.operations.append(.setActionsFrom(layer: "sub", source: "view"))
        }
        return s
    }

    @Test func explicitOnlyRulesAnimateOnlyWhenAsked() throws {
        let s = try viewScene()
        #expect(try s.actionRules(of: "sub").from == "view")
        #expect(try s.actionRules(of: "view").policy == .explicitOnly)
        #expect(try s.actionRules(of: "sub").policy == .implicit)
        try commit(s, at: 0) {
            $0.set("sub", "opacity", .number(0))
            $0.set("view", "opacity", .number(0.5))
        }
        #expect(try s.animations(of: "sub").isEmpty)
        #expect(try s.animations(of: "view").isEmpty)
        // Inside an animated batch (UIView.animate) both animate with the batch's settings.
        try commit(s, at: 1, Transaction(animationDuration: 0.5, isAnimated: true)) {
            $0.set("sub", "opacity", .number(1))
            $0.set("view", "opacity", .number(1))
        }
        expectClose(try opacity(s, 1.25, "sub"), referenceProgress(.default, at: 0.5), tolerance: 1e-7)
        #expect(try s.animations(of: "view").count == 1)
        // A nested batch inherits isAnimated.
        var inner = Transaction()
        inner.set("sub", "zPosition", .number(4))
        try commit(s, at: 2, Transaction(isAnimated: true)) { $0.nest(inner) }
        #expect(try s.animations(of: "sub").contains { $0.key == "zPosition" })
    }

    @Test func theSourcesActionsMapAnswersFirst() throws {
        let s = try viewScene()
        try commit(s, at: 0) {
            $0.operations.append(.setActions(layer: "view", actions: ["opacity": .animation(.basic("opacity", duration: 2))]))
            $0.operations.append(.setActions(layer: "sub", actions: ["zPosition": ActionRule.none]))
        }
        try commit(s, at: 0) {
            $0.set("sub", "opacity", .number(0))
            $0.set("sub", "zPosition", .number(3))
        }
        #expect(try s.animations(of: "sub").map(\.key) == ["opacity"])
        expectClose(try opacity(s, 1, "sub"), 0.5)
        // Without the borrowed rules the sublayer animates like any layer.
        try commit(s, at: 5) { $0.operations.append(.setActionsFrom(layer: "sub", source: nil)) }
        try commit(s, at: 5) { $0.set("sub", "position.x", .number(9)) }
        #expect(try s.animations(of: "sub").contains { $0.key == "position.x" })
    }

    @Test func nonAnimatablePropertiesNeverAnimate() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) {
            $0.operations.append(
                .setActions(
                    layer: "box",
                    actions: [
                        "masksToBounds": .animation(.basic("masksToBounds", duration: 1)),
                        "contents": .animation(.basic("contents", duration: 1)),
                    ]))
        }
        try commit(s, at: 0, Transaction(isAnimated: true)) {
            $0.set("box", "masksToBounds", .bool(true))
            $0.set("box", "contents", .string("image.png"))
            $0.set("box", "speed", .number(2))
            $0.set("box", "contentsGravity", .string("center"))
        }
        #expect(try s.animations(of: "box").isEmpty)
        #expect(try s.presentationValue("masksToBounds", of: "box", at: 0) == .bool(true))
        #expect(try s.presentationValue("contents", of: "box", at: 0) == .string("image.png"))
    }

    @Test func customKeysDoNotAnimateImplicitlyByDefault() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.set("box", "count", .number(0)) }
        try commit(s, at: 0) {
            $0.set("box", "count", .number(10))
            $0.set("box", "touches.a.scale", .number(1))
        }
        try commit(s, at: 0) { $0.set("box", "touches.a.scale", .number(2)) }
        #expect(try s.animations(of: "box").isEmpty)
        #expect(try presented(s, "box", "count", at: 0.1) == 10)
        // An actions entry makes them animate.
        try commit(s, at: 1) {
            $0.operations.append(.setActions(layer: "box", actions: ["count": .animation(.basic("count", duration: 1, timingFunction: .linear))]))
        }
        try commit(s, at: 1) { $0.set("box", "count", .number(20)) }
        expectClose(try presented(s, "box", "count", at: 1.5), 15)
    }

    @Test func retargetingMidAnimationStartsFromTheShownValue() async {
        await seededCheck(count: 200, input: Gen.double(in: 0...1), Gen.double(in: 0...1), Gen.double(in: 0.001...0.4), Gen.double(in: 0.001...0.4)) {
            v1, v2, t1, t2 in
            let s = makeSceneWithLayer()
            try commit(s, at: 0) {
                $0.set("box", "opacity", .number(v1))
                $0.set("box", "position", .point(Point(x: 400 * v1, y: -100)))
            }
            for (time, value) in [(t1, v2), (t1 + t2, v1 / 2)] {
                let before = try s.presentationValues(of: "box", at: time)
                try commit(s, at: time) {
                    $0.set("box", "opacity", .number(value))
                    $0.set("box", "position", .point(Point(x: 400 * value, y: 100 * value)))
                }
                let after = try s.presentationValues(of: "box", at: time)
                #expect(maxDifference(before[.opacity], after[.opacity]) < 1e-9, "opacity jumped at \(time)")
                #expect(maxDifference(before[.position], after[.position]) < 1e-9, "position jumped at \(time)")
                // And it arrives at the new value 0.25 s later.
                expectClose(try presented(s, "box", "opacity", at: time + 0.25), value, tolerance: 1e-9)
            }
        }
    }
}
