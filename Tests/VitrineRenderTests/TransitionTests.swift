import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineRender

/// Transitions (CATransition) at exact times: the old rendering of a layer leaving and the
/// new one arriving, by style and direction.
@Suite struct TransitionTests {
    static let red = Color(red: 0.85, green: 0.2, blue: 0.2), blue = Color(red: 0.15, green: 0.35, blue: 0.8)

    /// A 320×200 screen holding `screens`, which holds screen A (red, a white stripe at
    /// x 20…120, y 20…40) shown and screen B (blue, a yellow square at x 245…275,
    /// y 135…165) hidden; at time 1 one transaction hides A, shows B
    /// and adds `transition` (1 s, linear) to `screens`.
    func twoScreens(_ transition: Transition) throws -> Scene {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Size(width: 320, height: 200))
        var setup = Transaction(disableActions: true)
        let full: [String: Value] = ["bounds": .rect(Rect(x: 0, y: 0, width: 320, height: 200)), "position": .point(Point(x: 160, y: 100))]
        setup.set("root", "backgroundColor", .color(.black))
        setup.add(layer: "screens", parent: "root", properties: full)
        setup.add(layer: "a", parent: "screens", properties: full.merging(["backgroundColor": .color(Self.red)]) { $1 })
        setup.add(
            layer: "stripe", parent: "a",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 20)), "position": .point(Point(x: 70, y: 30)), "backgroundColor": .color(.white),
            ])
        setup.add(layer: "b", parent: "screens", properties: full.merging(["backgroundColor": .color(Self.blue), "hidden": .bool(true)]) { $1 })
        setup.add(
            layer: "dot", parent: "b",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 30, height: 30)), "position": .point(Point(x: 260, y: 150)),
                "backgroundColor": .color(Color(red: 1, green: 0.8, blue: 0.1)),
            ])
        try scene.commit(setup, at: 0)
        var change = Transaction(disableActions: true)
        change.set("a", "hidden", .bool(true))
        change.set("b", "hidden", .bool(false))
        change.addAnimation(.transition(transition, duration: 1, timingFunction: .linear), forKey: Animation.transitionKey, to: "screens")
        try scene.commit(change, at: 1)
        return scene
    }

    func frame(_ scene: Scene, at time: Double) throws -> Surface {
        _ = scene.advance(to: time)
        return try StandardKinds.renderer().snapshot(scene, root: "root", at: time)
    }

    @Test(arguments: [Transition.Style.push, .moveIn, .reveal, .fade])
    func goldenFrames(style: Transition.Style) throws {
        let scene = try twoScreens(Transition(style, direction: .fromRight))
        for (name, p) in [("0", 0.0), ("1q", 0.25), ("half", 0.5), ("end", 1.0)] {
            try Golden.check(try frame(scene, at: 1 + p), named: "transition-\(style.rawValue)-\(name)")
        }
    }

    /// At a quarter of a push the old screen has moved a quarter of the way and the new one
    /// fills the gap, in each direction; at the end only the new screen shows.
    @Test(arguments: Transition.Direction.allCases)
    func pushMovesBothScreens(direction: Transition.Direction) throws {
        let scene = try twoScreens(Transition(.push, direction: direction))
        let image = try frame(scene, at: 1.25)
        func color(_ x: Int, _ y: Int) -> Color { image.pixel(x: x, y: y).color }
        func expectColor(_ x: Int, _ y: Int, _ expected: Color) {
            let c = color(x, y)
            #expect(abs(c.red - expected.red) < 0.01 && abs(c.blue - expected.blue) < 0.01, "\(direction) (\(x), \(y)): \(c)")
        }
        switch direction {
        case .fromRight:
            expectColor(235, 100, Self.red)
            expectColor(245, 100, Self.blue)
            expectColor(5, 30, .white)
        case .fromLeft:
            expectColor(75, 100, Self.blue)
            expectColor(85, 100, Self.red)
            expectColor(150, 30, .white)
        case .fromBottom:
            expectColor(160, 145, Self.red)
            expectColor(160, 155, Self.blue)
            expectColor(60, 5, Self.red)
        case .fromTop:
            expectColor(160, 45, Self.blue)
            expectColor(60, 80, .white)
            expectColor(160, 80, Self.red)
        }
        let end = try frame(scene, at: 2.01)
        #expect(end.pixel(x: 5, y: 5).color == PremultipliedColor(Self.blue).color)
    }

    /// A fade halfway is the average of the two screens, not darker.
    @Test func aFadeDissolves() throws {
        let scene = try twoScreens(Transition(.fade))
        let c = try frame(scene, at: 1.5).pixel(x: 160, y: 100).color
        #expect(abs(c.red - (Self.red.red + Self.blue.red) / 2) < 0.01)
        #expect(abs(c.blue - (Self.red.blue + Self.blue.blue) / 2) < 0.01)
        #expect(abs(c.alpha - 1) < 0.01)
    }

    /// A layer that hides itself in the transaction of its fade fades out with its
    /// sublayers (the transition is drawn by the leaving layer).
    @Test func aLayerThatHidesItselfFadesOut() throws {
        let scene = try twoScreens(Transition(.push))
        var hide = Transaction(disableActions: true)
        hide.set("a", "hidden", .bool(false))
        hide.set("b", "hidden", .bool(true))
        try scene.commit(hide, at: 3)
        var fade = Transaction(disableActions: true)
        fade.set("screens", "hidden", .bool(true))
        fade.addAnimation(.transition(Transition(.fade), duration: 1, timingFunction: .linear), to: "screens")
        try scene.commit(fade, at: 4)
        let half = try frame(scene, at: 4.5)
        expectColor(half.pixel(x: 160, y: 100).color, Color(red: Self.red.red / 2, green: Self.red.green / 2, blue: Self.red.blue / 2))
        expectColor(half.pixel(x: 50, y: 30).color, Color(red: 0.5, green: 0.5, blue: 0.5))
        let after = try frame(scene, at: 5.1)
        #expect(after.pixel(x: 160, y: 100).color == PremultipliedColor.black.color)
    }

    func expectColor(_ c: Color, _ expected: Color, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            abs(c.red - expected.red) < 0.01 && abs(c.green - expected.green) < 0.01 && abs(c.blue - expected.blue) < 0.01, "\(c) vs \(expected)",
            sourceLocation: sourceLocation)
    }

    /// startProgress and endProgress: the transition shows only that part of its course.
    @Test func progressBounds() throws {
        let scene = try twoScreens(Transition(.moveIn, direction: .fromRight, startProgress: 0.5, endProgress: 0.75))
        let first = try frame(scene, at: 1)
        #expect(first.pixel(x: 155, y: 100).color == PremultipliedColor(Self.red).color)
        #expect(first.pixel(x: 165, y: 100).color == PremultipliedColor(Self.blue).color)
        let last = try frame(scene, at: 1.999)
        #expect(last.pixel(x: 75, y: 100).color == PremultipliedColor(Self.red).color)
        #expect(last.pixel(x: 85, y: 100).color == PremultipliedColor(Self.blue).color)
    }

    /// Speed 0 on the layer holds the transition where it is.
    @Test func aPausedLayerHoldsItsTransition() throws {
        let scene = try twoScreens(Transition(.push, direction: .fromRight))
        var pause = Transaction(disableActions: true)
        pause.set("screens", "timeOffset", .number(try scene.convertTime(1.25, from: nil, to: "screens")))
        pause.set("screens", "speed", .number(0))
        try scene.commit(pause, at: 1.25)
        let a = try frame(scene, at: 1.5), b = try frame(scene, at: 5)
        #expect(a.hasSamePixels(as: b))
        #expect(b.pixel(x: 245, y: 100).color == PremultipliedColor(Self.blue).color)
        #expect(b.pixel(x: 235, y: 100).color == PremultipliedColor(Self.red).color)
    }

    /// Damage covers what the moving screens cover, and the finished transition's area.
    @Test func damageCoversTheMovingRenderings() throws {
        let scene = try twoScreens(Transition(.push, direction: .fromRight))
        _ = scene.advance(to: 1.2)
        let a = try scene.renderTree(root: "root", at: 1.2)
        _ = scene.advance(to: 1.3)
        let b = try scene.renderTree(root: "root", at: 1.3)
        #expect(b.damage(since: a).contains { $0.contains(Rect(x: 0, y: 0, width: 320, height: 200)) })
        _ = scene.advance(to: 2.1)
        let c = try scene.renderTree(root: "root", at: 2.1)
        #expect(c.damage(since: b).contains { $0.contains(Rect(x: 0, y: 0, width: 320, height: 200)) })
    }
}
