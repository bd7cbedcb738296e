import Foundation
import Testing
import VitrineCore

/// Animation lifecycle through `advance(to:)`: started / stopped events, transaction
/// completion, replacement and removal, removedOnCompletion and `isAnimating`.
@Suite struct AnimationEventTests {
    func ramp(_ duration: Double, begin: Double = 0) -> Animation {
        var a = Animation.basic("zPosition", from: .number(0), to: .number(10), duration: duration)
        a.timing.beginTime = begin
        return a
    }

    func animationIDs(_ s: Scene, _ layer: String = "box") throws -> [UInt64] { try s.animations(of: layer).map(\.id) }

    @Test func startedThenStoppedThenTransactionCompleted() throws {
        let s = makeSceneWithLayer()
        let tx = try commit(s, at: 0) { $0.addAnimation(ramp(1, begin: 1), forKey: "a", to: "box") }
        let id = try #require(try animationIDs(s).first)
        #expect(s.advance(to: 0.5).isEmpty)
        #expect(s.advance(to: 1) == [.animationStarted(layer: "box", key: "a", animation: id)])
        #expect(s.isAnimating)
        #expect(s.advance(to: 1.5).isEmpty)
        #expect(
            s.advance(to: 2) == [
                .animationStopped(layer: "box", key: "a", animation: id, finished: true),
                .transactionCompleted(transaction: tx),
            ])
        #expect(!s.isAnimating)
        #expect(try s.animations(of: "box").isEmpty)
        #expect(s.advance(to: 3).isEmpty)
    }

    @Test func jumpingPastTheWholeAnimationReportsEverythingInOrder() throws {
        let s = makeSceneWithLayer()
        let tx = try commit(s, at: 0) { $0.addAnimation(ramp(1), forKey: "a", to: "box") }
        let id = try #require(try animationIDs(s).first)
        #expect(
            s.advance(to: 5) == [
                .animationStarted(layer: "box", key: "a", animation: id),
                .animationStopped(layer: "box", key: "a", animation: id, finished: true),
                .transactionCompleted(transaction: tx),
            ])
    }

    @Test func transactionWithoutAnimationsCompletesAtOnce() throws {
        let s = makeSceneWithLayer()
        let tx = try commit(s, at: 0, quiet) { $0.set("box", "opacity", .number(0.5)) }
        #expect(s.takeEvents() == [.transactionCompleted(transaction: tx)])
        let empty = try s.commit(Transaction(), at: 0)
        #expect(empty != tx)
        #expect(s.takeEvents() == [.transactionCompleted(transaction: empty)])
        #expect(s.takeEvents().isEmpty)
    }

    @Test func transactionCompletesWhenItsLastAnimationEnds() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.add(layer: "other", parent: rootID) }
        let tx = try commit(s, at: 0) {
            $0.addAnimation(ramp(1), forKey: "short", to: "box")
            $0.addAnimation(ramp(2), forKey: "long", to: "other")
        }
        _ = s.takeEvents()
        let first = s.advance(to: 1.5)
        #expect(first.contains { if case .animationStopped(_, "short", _, true) = $0 { true } else { false } })
        #expect(!first.contains(.transactionCompleted(transaction: tx)))
        #expect(s.isAnimating)
        let second = s.advance(to: 2)
        #expect(second.filter { $0 == .transactionCompleted(transaction: tx) }.count == 1)
        #expect(second.last == .transactionCompleted(transaction: tx))
        #expect(!s.isAnimating)
    }

    @Test func nestedTransactionsAnimationsCountForTheOuterOne() throws {
        let s = makeSceneWithLayer()
        var inner = Transaction()
        inner.addAnimation(ramp(3), forKey: "inner", to: "box")
        let tx = try commit(s, at: 0) {
            $0.addAnimation(ramp(1), forKey: "outer", to: "box")
            $0.nest(inner)
        }
        #expect(s.takeEvents().isEmpty)
        #expect(!s.advance(to: 2).contains { if case .transactionCompleted = $0 { true } else { false } })
        let end = s.advance(to: 3)
        #expect(end.contains(.transactionCompleted(transaction: tx)))
        #expect(end.filter { if case .transactionCompleted = $0 { true } else { false } }.count == 1)
    }

    @Test func implicitAnimationsCountForTheirTransaction() throws {
        let s = makeSceneWithLayer()
        let tx = try commit(s, at: 0) { $0.set("box", "opacity", .number(0)) }
        #expect(s.takeEvents().isEmpty)
        #expect(!s.advance(to: 0.2).contains(.transactionCompleted(transaction: tx)))
        #expect(s.advance(to: 0.25).contains(.transactionCompleted(transaction: tx)))
    }

    @Test func addingUnderAnExistingKeyReplacesIt() throws {
        let s = makeSceneWithLayer()
        let first = try commit(s, at: 0) { $0.addAnimation(ramp(5), forKey: "k", to: "box") }
        let firstID = try #require(try animationIDs(s).first)
        _ = s.advance(to: 1)
        let second = try commit(s, at: 1) {
            $0.addAnimation(.basic("zPosition", from: .number(100), to: .number(200), duration: 2), forKey: "k", to: "box")
        }
        let events = s.takeEvents()
        #expect(events.first == .animationStopped(layer: "box", key: "k", animation: firstID, finished: false))
        #expect(events.contains(.transactionCompleted(transaction: first)))
        #expect(!events.contains(.transactionCompleted(transaction: second)))
        #expect(try s.animations(of: "box").map(\.key) == ["k"])
        #expect(try animationIDs(s) != [firstID])
        expectClose(try presented(s, "box", "zPosition", at: 2), 150)
    }

    @Test func keylessAnimationsGetUniqueKeys() throws {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) {
            $0.addAnimation(ramp(1), to: "box")
            $0.addAnimation(ramp(1), to: "box")
        }
        let keys = try s.animations(of: "box").map(\.key)
        #expect(keys.count == 2 && Set(keys).count == 2)
    }

    @Test func removingAnimations() throws {
        let s = makeSceneWithLayer()
        let tx = try commit(s, at: 0) {
            $0.addAnimation(ramp(5), forKey: "a", to: "box")
            $0.addAnimation(ramp(5), forKey: "b", to: "box")
            $0.addAnimation(ramp(5), forKey: "c", to: "box")
        }
        let ids = try animationIDs(s)
        _ = s.advance(to: 1)
        try commit(s, at: 1) { $0.operations.append(.removeAnimation(layer: "box", key: "b")) }
        #expect(s.takeEvents().first == .animationStopped(layer: "box", key: "b", animation: ids[1], finished: false))
        #expect(try s.animations(of: "box").map(\.key) == ["a", "c"])
        expectError("unknown_animation") { try commit(s, at: 1) { $0.operations.append(.removeAnimation(layer: "box", key: "b")) } }
        try commit(s, at: 1) { $0.operations.append(.removeAllAnimations(layer: "box")) }
        let events = s.takeEvents()
        #expect(events.contains(.animationStopped(layer: "box", key: "a", animation: ids[0], finished: false)))
        #expect(events.contains(.animationStopped(layer: "box", key: "c", animation: ids[2], finished: false)))
        #expect(events.contains(.transactionCompleted(transaction: tx)))
        #expect(try s.animations(of: "box").isEmpty)
        #expect(!s.hasAnimations)
        #expect(try presented(s, "box", "zPosition", at: 2) == 0)
    }

    @Test func keptAnimationHoldsItsEndAndStopsOnce() throws {
        let s = makeSceneWithLayer(properties: ["zPosition": .number(-1)])
        var a = ramp(1)
        a.isRemovedOnCompletion = false
        a.timing.fillMode = .forwards
        try commit(s, at: 0) { $0.addAnimation(a, forKey: "a", to: "box") }
        let stopsAt1 = s.advance(to: 1).filter { if case .animationStopped = $0 { true } else { false } }
        #expect(stopsAt1.count == 1)
        #expect(!s.isAnimating)
        #expect(try s.animations(of: "box").map(\.key) == ["a"])
        #expect(try presented(s, "box", "zPosition", at: 5) == 10)
        #expect(s.advance(to: 10).isEmpty)
        // Removing it later changes what is shown but reports no second stop.
        try commit(s, at: 10) { $0.operations.append(.removeAnimation(layer: "box", key: "a")) }
        #expect(!s.takeEvents().contains { if case .animationStopped = $0 { true } else { false } })
        #expect(try presented(s, "box", "zPosition", at: 10) == -1)
    }

    @Test func keptAnimationWithoutFillShowsTheModel() throws {
        let s = makeSceneWithLayer(properties: ["zPosition": .number(-1)])
        var a = ramp(1)
        a.isRemovedOnCompletion = false
        try commit(s, at: 0) { $0.addAnimation(a, forKey: "a", to: "box") }
        _ = s.advance(to: 2)
        #expect(try s.animations(of: "box").count == 1)
        #expect(try presented(s, "box", "zPosition", at: 2) == -1)
    }

    @Test func removedOnCompletionDropsTheForwardsFillAtAdvance() throws {
        let s = makeSceneWithLayer(properties: ["zPosition": .number(-1)])
        var a = ramp(1)
        a.timing.fillMode = .forwards
        try commit(s, at: 0) { $0.addAnimation(a, forKey: "a", to: "box") }
        // Until time is advanced past its end, the fill shows the end value.
        #expect(try presented(s, "box", "zPosition", at: 1.5) == 10)
        _ = s.advance(to: 1.5)
        #expect(try s.animations(of: "box").isEmpty)
        #expect(try presented(s, "box", "zPosition", at: 1.5) == -1)
    }

    @Test func eventsAreOrderedByAnimation() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            for i in 0..<6 { $0.add(layer: "l\(i)", parent: rootID) }
        }
        try commit(s, at: 0) {
            for i in 0..<6 { $0.addAnimation(ramp(1), forKey: "a", to: "l\(5 - i)") }
        }
        _ = s.takeEvents()
        let events = s.advance(to: 1)
        let ids = events.compactMap { if case .animationStopped(_, _, let id, _) = $0 { id } else { nil } }
        #expect(ids.count == 6 && ids == ids.sorted())
        let layers = events.compactMap { if case .animationStopped(let layer, _, _, _) = $0 { layer } else { nil } }
        #expect(layers == ["l5", "l4", "l3", "l2", "l1", "l0"])
    }

    @Test func isAnimatingFollowsUnfinishedAnimations() throws {
        let s = makeSceneWithLayer()
        _ = s.advance(to: 0)
        #expect(!s.isAnimating)
        try commit(s, at: 0) { $0.addAnimation(ramp(1), to: "box") }
        _ = s.advance(to: 0.5)
        #expect(s.isAnimating)
        #expect(s.hasAnimations)
        _ = s.advance(to: 1)
        #expect(!s.isAnimating)
        #expect(!s.hasAnimations)
    }
}
