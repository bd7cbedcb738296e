import Testing
import VitrineCore
import VitrineOutput
import VitrineOutputSet
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// The renderer's shadow and gradient caches across frames: static shadows are blurred
/// once, a changed shadow is blurred again, and the frames equal fresh full repaints.
@Suite struct RendererCacheTests {
    func makeScene() throws -> Scene {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Size(width: 400, height: 200))
        var tx = Transaction(disableActions: true)
        tx.add(
            layer: "background", kind: "gradient", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 400, height: 200)), "position": .point(Point(x: 200, y: 100)),
                "colors": .array([.color(Color(css: "#0f2027")!), .color(Color(css: "#2c5364")!)]),
                "startPoint": .point(Point(x: 0, y: 0)), "endPoint": .point(Point(x: 1, y: 1)),
            ])
        for i in 0..<3 {
            tx.add(
                layer: "card\(i)", parent: "root",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 120)), "position": .point(Point(x: Double(70 + 130 * i), y: 100)),
                    "cornerRadius": .number(12), "backgroundColor": .color(Color(css: "#ffffff22")!),
                    "shadowOpacity": .number(0.45), "shadowRadius": .number(10), "shadowOffset": .size(Size(width: 0, height: 6)),
                ])
        }
        try scene.commit(tx, at: 0)
        return scene
    }

    @Test func staticShadowsAreBlurredOnce() throws {
        let scene = try makeScene()
        let output = try HeadlessOutput(width: 400, height: 200, bufferCount: 2)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        let shadows = pipeline.renderer.shadows, gradients = pipeline.renderer.gradients
        try pipeline.render(scene.renderTree(root: "root", at: 0))
        // Three cards of one shape: one blur, one colour table.
        #expect((shadows.misses, shadows.hits) == (1, 2))
        #expect(gradients.misses == 1)

        for (frame, change) in [("move", 1.0), ("shadow", 2.0)].enumerated() {
            var tx = Transaction(disableActions: true)
            if change.0 == "move" {
                tx.set("card1", "position", .point(Point(x: 207, y: 96)))  // whole pixels: same blur
            } else {
                tx.set("card2", "shadowRadius", .number(14))  // a new shape: blurred again
            }
            try scene.commit(tx, at: change.1)
            let missesBefore = shadows.misses
            try pipeline.render(scene.renderTree(root: "root", at: change.1))
            #expect(shadows.misses == missesBefore + (change.0 == "move" ? 0 : 1), "\(change.0)")
            #expect(gradients.misses == 1)
            try GoldenImage.expectSamePixels(
                output.frontBuffer, as: StandardKinds.renderer().snapshot(scene, root: "root", at: change.1),
                name: "renderer-cache-\(frame)", "frame \(frame): \(change.0)")
        }
    }
}
