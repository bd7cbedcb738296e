import Testing
import VitrineCore
import VitrineOutput
import VitrineOutputSet
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// Repainting only the damage (with buffer ages 1, 2 and 3) gives the same pixels as
/// drawing the new state whole.
@Suite struct DamageTests {
    /// A change to the scene and its name.
    typealias Change = (String, @Sendable (inout Transaction) -> Void)

    static let changes: [Change] = [
        ("move", { $0.set("card", "position", .point(Point(x: 250, y: 120))) }),
        ("recolour", { $0.set("dot", "backgroundColor", .color(Color(css: "purple")!)) }),
        ("rotate", { $0.set("card", "transform.rotation.z", .number(0.3)) }),
        ("hide", { $0.set("stripe", "hidden", .bool(true)) }),
        ("remove", { $0.remove(layer: "dot") }),
        (
            "add",
            {
                $0.add(
                    layer: "new", parent: "root",
                    properties: [
                        "bounds": .rect(Rect(x: 0, y: 0, width: 30, height: 30)), "position": .point(Point(x: 40, y: 150)), "backgroundColor": .color(.white),
                    ])
            }
        ),
        ("reorder", { $0.move(layer: "card", to: "root", placement: .top) }),
        ("text", { $0.set("label", "string", .string("Changed")) }),
        ("shadow", { $0.set("card", "shadowRadius", .number(12)) }),
        ("opacity", { $0.set("card", "opacity", .number(0.5)) }),
        // The card is on top since "reorder": its nodes are the last ones.
        ("remove-top", { $0.remove(layer: "card") }),
    ]

    private func makeScene() throws -> Scene {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Size(width: 320, height: 200))
        var tx = Transaction(disableActions: true)
        tx.set("root", "backgroundColor", .color(Color(css: "#202830")!))
        tx.add(
            layer: "card", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 120, height: 80)), "position": .point(Point(x: 100, y: 80)),
                "backgroundColor": .color(Color(css: "#f0e0c0")!), "cornerRadius": .number(12),
                "shadowOpacity": .number(0.5), "shadowRadius": .number(6), "masksToBounds": .bool(false),
            ])
        tx.add(
            layer: "stripe", parent: "card",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 120, height: 20)), "position": .point(Point(x: 60, y: 10)),
                "backgroundColor": .color(Color(css: "#c04040")!),
            ])
        tx.add(
            layer: "dot", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 40, height: 40)), "position": .point(Point(x: 260, y: 60)),
                "cornerRadius": .number(20), "backgroundColor": .color(Color(css: "#40a0f0")!),
            ])
        tx.add(
            layer: "label", kind: "text", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 30)), "position": .point(Point(x: 200, y: 170)),
                "string": .string("Damage"), "fontSize": .number(20),
            ])
        try scene.commit(tx, at: 0)
        return scene
    }

    @Test(arguments: [1, 2, 3])
    func partialRepaintEqualsFullRepaint(bufferCount: Int) throws {
        let scene = try makeScene()
        let output = try HeadlessOutput(width: 320, height: 200, bufferCount: bufferCount)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        let full = StandardKinds.renderer()
        try pipeline.render(scene.renderTree(root: "root", at: 0))
        var time = 0.0
        for (frame, (name, change)) in Self.changes.enumerated() {
            time += 1
            var tx = Transaction(disableActions: true)
            change(&tx)
            try scene.commit(tx, at: time)
            let report = try pipeline.render(scene.renderTree(root: "root", at: time))
            #expect(report.presented, "\(name)")
            if frame + 1 >= bufferCount {
                #expect(report.repaintedPixels < 320 * 200, "\(name) repainted the whole screen")
            }
            try GoldenImage.expectSamePixels(
                output.frontBuffer, as: full.snapshot(scene, root: "root", at: time), name: "damage-\(name)-buffers\(bufferCount)",
                "\(name) with \(bufferCount) buffers: the partial repaint")
        }
    }

    /// A tap added after the first frame sees the whole picture, then each frame's
    /// damage: a copy kept from what it saw equals what the screen shows.
    @Test func frameTapKeepsAnExactCopy() throws {
        final class Shadow: FrameTap {
            let copy = Surface(width: 320, height: 200)
            var frames = 0
            func frame(_ surface: Surface, damage: [PixelRect]) {
                frames += 1
                for rect in damage { copy.copyPixels(rect, from: surface) }
            }
        }
        let scene = try makeScene()
        let output = try HeadlessOutput(width: 320, height: 200, bufferCount: 2)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        try pipeline.render(scene.renderTree(root: "root", at: 0))
        let shadow = Shadow()
        pipeline.add(shadow)
        var time = 0.0
        for (name, change) in Self.changes.prefix(5) {
            let report = try pipeline.render(scene.renderTree(root: "root", at: time))
            #expect(report.presented || time > 0, "\(name)")
            #expect(output.frontBuffer.map(shadow.copy.hasSamePixels) == true, "\(name): the tap's copy")
            time += 1
            var tx = Transaction(disableActions: true)
            change(&tx)
            try scene.commit(tx, at: time)
        }
        pipeline.remove(shadow)
        let seen = shadow.frames
        try pipeline.render(scene.renderTree(root: "root", at: time))
        #expect(shadow.frames == seen)
    }

    @Test func unchangedSceneIsNotPresented() throws {
        let scene = try makeScene()
        let output = try HeadlessOutput(width: 320, height: 200)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        try pipeline.render(scene.renderTree(root: "root", at: 0))
        let report = try pipeline.render(scene.renderTree(root: "root", at: 5))
        #expect(!report.presented)
        #expect(output.presentedFrames == 1)
    }

    @Test func animatedFramesAgreeWithFullRepaints() throws {
        let scene = try makeScene()
        var tx = Transaction()
        tx.addAnimation(.basic("position.x", from: .number(60), to: .number(260), duration: 1), to: "dot")
        tx.addAnimation(.basic("transform.rotation.z", from: .number(0), to: .number(1), duration: 1), to: "card")
        try scene.commit(tx, at: 0)
        let output = try HeadlessOutput(width: 320, height: 200, bufferCount: 3)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        let full = StandardKinds.renderer()
        for frame in 0...12 {
            let t = Double(frame) / 12
            _ = scene.advance(to: t)
            try pipeline.render(scene.renderTree(root: "root", at: t))
            try GoldenImage.expectSamePixels(
                output.frontBuffer, as: full.snapshot(scene, root: "root", at: t), name: "damage-animated-\(frame)", "frame \(frame)")
        }
    }

    /// A number whose last digits change over a card with a shadow, as on a kiosk.
    private func makeCounter(_ text: String) throws -> Scene {
        let scene = try makeScene()
        var tx = Transaction(disableActions: true)
        tx.add(
            layer: "counter", kind: "text", parent: "card",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 116, height: 40)), "position": .point(Point(x: 60, y: 45)),
                "string": .string(text), "fontSize": .number(26), "alignmentMode": .string("center"),
                "foregroundColor": .color(Color(css: "#ffd166")!),
            ])
        try scene.commit(tx, at: 0)
        return scene
    }

    /// Changing a text layer's string damages the glyphs that changed, not the layer,
    /// and the partial repaints still equal full repaints.
    @Test(arguments: [1, 2, 3])
    func changedDigitsDamageOnlyTheirGlyphs(bufferCount: Int) throws {
        let scene = try makeCounter("245 699")
        let output = try HeadlessOutput(width: 320, height: 200, bufferCount: bufferCount)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        let full = StandardKinds.renderer()
        try pipeline.render(scene.renderTree(root: "root", at: 0))
        let layerArea = 118 * 42
        for (frame, text) in ["245 700", "245 701", "245 711", "245 711 ", "1", "245 711"].enumerated() {
            let time = Double(frame + 1)
            var tx = Transaction(disableActions: true)
            tx.set("counter", "string", .string(text))
            try scene.commit(tx, at: time)
            let report = try pipeline.render(scene.renderTree(root: "root", at: time))
            let damaged = report.damage.reduce(0) { $0 + $1.width * $1.height }
            if text.hasSuffix(" ") {
                // Trailing spaces are not set: the same glyphs, nothing to present.
                #expect(!report.presented, "\(text): \(report.damage)")
            } else if text.count == 7 {
                #expect(report.presented && damaged > 0 && damaged < layerArea / 2, "\(text): \(report.damage)")
            }
            try GoldenImage.expectSamePixels(
                output.frontBuffer, as: full.snapshot(scene, root: "root", at: time), name: "damage-digits-\(frame)-buffers\(bufferCount)",
                "\(text) with \(bufferCount) buffers: the partial repaint")
        }
    }

    /// A string change together with a move is not narrowed: both places are damaged.
    @Test func movedTextIsDamagedWhole() throws {
        let scene = try makeCounter("245 699")
        let renderer = StandardKinds.renderer()
        let before = try scene.renderTree(root: "root", at: 0)
        var tx = Transaction(disableActions: true)
        tx.set("counter", "string", .string("245 700"))
        tx.set("counter", "position", .point(Point(x: 61, y: 45)))
        try scene.commit(tx, at: 1)
        let after = try scene.renderTree(root: "root", at: 1)
        var consulted = 0
        let damage = after.damage(since: before) { old, new in
            consulted += 1
            return renderer.contentDamage(from: old, to: new)
        }
        #expect(consulted == 0)
        let area = damage.reduce(0.0) { $0 + $1.width * $1.height }
        #expect(area >= 118 * 42)
    }
}
