import Foundation
import Testing
import VitrineCore
@testable import VitrineProtocol

@Suite struct SceneDescriptionTests {
    private func scene(_ text: String) throws -> SceneDescription { try SceneDescription(json: JSON(parsing: Data(text.utf8))) }

    private func rootScene() throws -> Scene {
        let s = Scene()
        try s.addRoot(id: "root", output: "test", size: Size(width: 200, height: 100))
        return s
    }

    @Test func nestedLayersAndAnimationsApply() throws {
        let description = try scene(
            #"""
            {"size": [200, 100], "background": "black",
             "layers": [{"id": "card", "properties": {"bounds": [0, 0, 50, 50], "position": [100, 50], "count": 1},
                         "animations": [{"keyPath": "position.x", "from": 0, "to": 100, "duration": 2},
                                        {"keyPath": "count", "to": 11, "duration": 1, "delay": 1}],
                         "sublayers": [{"id": "dot", "properties": {"opacity": 0.5}}]}]}
            """#)
        #expect(description.size == Size(width: 200, height: 100))
        let s = try rootScene()
        try description.apply(to: s, root: "root", at: 0)
        #expect(try s.parent(of: "dot") == "card")
        #expect(try s.presentationValue("position.x", of: "card", at: 1) == .number(50))
        #expect(try s.presentationValue("count", of: "card", at: 1.5) == .number(6))
        #expect(try s.modelValue("backgroundColor", of: "root") == .color(.black))
    }

    @Test func mistakesAreNamedAndChangeNothing() throws {
        let s = try rootScene()
        for text in [
            #"{"layers": [{"id": "a", "properties": {"position": "left"}}]}"#,
            #"{"layers": [{"id": "a", "colour": "red"}]}"#,
            #"{"layers": [{"id": "a", "kind": "video"}]}"#,
            #"{"layers": [{"id": "a", "animations": [{"keyPath": "nope", "to": 1}]}]}"#,
            #"{"layers": [{"id": "a", "animations": [{"keyPath": "opacity", "to": 1, "durration": 2}]}]}"#,
            #"{"sizes": [1, 2]}"#,
        ] {
            #expect(throws: ProtocolError.self, "\(text)") {
                try scene(text).apply(to: s, root: "root", at: 0)
            }
            #expect(try s.sublayers(of: "root").isEmpty, "\(text)")
        }
    }

    @Test func animationFieldsDecode() throws {
        let j = try JSON(
            parsing: Data(
                #"""
                {"type": "spring", "keyPath": "position.y", "to": 500, "damping": 17, "duration": 1, "speed": 0.3,
                 "repeatCount": "infinity", "autoreverses": true, "fillMode": "both", "key": "drop"}
                """#.utf8))
        let d = try AnimationDescription(json: j) { _ in .number }
        #expect(d.key == "drop")
        #expect(d.animation.timing.speed == 0.3)
        #expect(d.animation.timing.repeatCount == .infinity)
        #expect(d.animation.timing.fillMode == .both)
        guard case .spring(let e, let spring) = d.animation.kind else { Issue.record("not a spring"); return }
        #expect(e.to == .number(500))
        #expect(spring.damping == 17)
        #expect(throws: ProtocolError.self) {
            try AnimationDescription(json: JSON(parsing: Data(#"{"keyPath": "x", "timing": "bouncy"}"#.utf8))) { _ in .number }
        }
    }

    /// Issue 22 item 8: an animation's array values decode with the property's element
    /// type, so CSS colour names in a gradient's `colors` are colours (as hex ones are), and
    /// the model refuses an array holding strings instead of drawing nothing mid-flight.
    @Test func gradientColorNamesInAnAnimationAreColors() throws {
        let j = try JSON(parsing: Data(##"{"keyPath": "colors", "from": ["red", "blue"], "to": ["lime", "#000080"], "duration": 1}"##.utf8))
        let d = try AnimationDescription(json: j) { path in LayerKind.gradient.valueShape(at: path) }
        guard case .basic(let e) = d.animation.kind else { Issue.record("not basic"); return }
        #expect(e.from == .array([.color(Color(css: "red")!), .color(Color(css: "blue")!)]))
        #expect(e.to == .array([.color(Color(css: "lime")!), .color(Color(css: "#000080")!)]))

        let s = try rootScene()
        s.register(.gradient)
        var add = Transaction(disableActions: true)
        add.add(layer: "g", kind: "gradient", parent: "root", properties: ["colors": .array([.color(.white)])])
        try s.commit(add, at: 0)
        var bad = Transaction(disableActions: true)
        bad.addAnimation(
            Animation(
                kind: .basic(Animation.Endpoints(to: .array([.string("lime")]))), keyPath: "colors",
                timing: {
                    var t = MediaTiming(); t.duration = 1; return t
                }()), forKey: "c", to: "g")
        #expect(throws: CoreError.self) { try s.commit(bad, at: 0) }
    }
}
