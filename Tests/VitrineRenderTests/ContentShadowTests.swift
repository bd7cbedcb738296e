import Testing
import VitrineCore
import VitrineProtocol
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// Shadows drawn from what a layer and its sublayers show, across frames: kept while the
/// subtree stays the same, made again when it changes, and frames repainted over their
/// damage alone equal fresh full repaints — the shadow's damage included.
@Suite struct ContentShadowTests {
    /// A translucent card with a shadow, and a number on it.
    func makeScene() throws -> Scene {
        try Golden.scene(
            size: Size(width: 320, height: 200),
            """
            {"layers": [
              {"id": "background", "properties": {"bounds": [0, 0, 320, 200], "position": [160, 100], "backgroundColor": "#c8d2dc"}},
              {"id": "card", "properties": {"bounds": [0, 0, 220, 100], "position": [160, 95], "cornerRadius": 16,
                 "backgroundColor": "#ffffff30", "shadowOpacity": 0.8, "shadowRadius": 8, "shadowOffset": [4, 12]},
               "sublayers": [{"id": "number", "kind": "text", "properties": {"bounds": [0, 0, 200, 60], "position": [110, 50],
                 "string": "245 699", "fontSize": 44, "alignmentMode": "center", "foregroundColor": "#ffd166"}}]}]}
            """)
    }

    /// Commits `change` at `time` and returns the tree then.
    func commit(_ scene: Scene, at time: Double, _ change: (inout Transaction) -> Void) throws -> RenderTree {
        var tx = Transaction(disableActions: true)
        change(&tx)
        try scene.commit(tx, at: time)
        return try scene.renderTree(root: "root", at: time)
    }

    /// Repaints `tree` into `surface` over its damage since `previous`, as the frame
    /// pipeline does with a single buffer.
    func repaint(_ renderer: Renderer, _ tree: RenderTree, since previous: RenderTree, into surface: Surface) {
        let region = tree.damage(since: previous, refine: renderer.contentDamage)
            .map { PixelRect(covering: $0).intersection(surface.bounds) }.filter { !$0.isEmpty }
        renderer.render(tree, into: surface, region: region)
    }

    /// The scene, a renderer and a surface it has drawn the scene's first tree on.
    func start() throws -> (Scene, Renderer, Surface, RenderTree) {
        let scene = try makeScene()
        let renderer = StandardKinds.renderer()
        let surface = Surface(width: 320, height: 200)
        let tree = try scene.renderTree(root: "root", at: 0)
        renderer.render(tree, into: surface, region: [surface.bounds])
        return (scene, renderer, surface, tree)
    }

    @Test func aStaticShadowIsMadeOnce() throws {
        let (scene, renderer, surface, tree) = try start()
        #expect(renderer.shadows.misses == 1)
        // Repainted in two pieces: the kept mask serves both.
        renderer.render(tree, into: surface, region: [PixelRect(x: 0, y: 0, width: 320, height: 100), PixelRect(x: 0, y: 100, width: 320, height: 100)])
        #expect(renderer.shadows.misses == 1)
        #expect(renderer.shadows.hits == 2)

        // Fading the card, or changing its shadow's colour, draws the same silhouette.
        let faded = try commit(scene, at: 1) {
            $0.set("card", "opacity", .number(0.5))
            $0.set("card", "shadowColor", .color(Color(css: "#203040")!))
        }
        renderer.render(faded, into: surface, region: [surface.bounds])
        #expect(renderer.shadows.misses == 1)
        try GoldenImage.expectSamePixels(
            surface, as: StandardKinds.renderer().snapshot(scene, root: "root", at: 1), name: "content-shadow-faded", "faded")

        // A new string is a new silhouette.
        renderer.render(try commit(scene, at: 2) { $0.set("number", "string", .string("1 000 000")) }, into: surface, region: [surface.bounds])
        #expect(renderer.shadows.misses == 2)
    }

    @Test func framesRepaintedOverTheirDamageEqualFullRepaints() throws {
        let (scene, renderer, surface, first) = try start()
        var previous = first
        let changes: [(String, (inout Transaction) -> Void)] = [
            // The number changes frame after frame: only the damaged part of the shadow
            // is made, and nothing kept.
            ("digit 1", { $0.set("number", "string", .string("245 700")) }),
            ("digit 2", { $0.set("number", "string", .string("245 701")) }),
            ("digit 3", { $0.set("number", "string", .string("245 781")) }),
            ("shadow colour", { $0.set("card", "shadowColor", .color(Color(css: "#401010")!)) }),
            ("shadow offset", { $0.set("card", "shadowOffset", .size(Size(width: -6, height: 4))) }),
            ("background", { $0.set("card", "backgroundColor", .color(Color(css: "#ffffff80")!)) }),
            ("moved", { $0.set("number", "position", .point(Point(x: 118, y: 44))) }),
        ]
        for (k, (name, change)) in changes.enumerated() {
            let time = Double(k + 1)
            let tree = try commit(scene, at: time, change)
            repaint(renderer, tree, since: previous, into: surface)
            previous = tree
            if name == "digit 2" { #expect(renderer.shadows.count == 0, "a changing silhouette is not kept") }
            try GoldenImage.expectSamePixels(
                surface, as: StandardKinds.renderer().snapshot(scene, root: "root", at: time),
                name: "content-shadow-\(k)", "after \(name)")
        }
        // At rest again: the next repaint makes the whole shadow and keeps it.
        renderer.render(previous, into: surface, region: [surface.bounds])
        let misses = renderer.shadows.misses
        renderer.render(previous, into: surface, region: [surface.bounds])
        #expect(renderer.shadows.misses == misses)
        #expect(renderer.shadows.count == 1)
    }

    /// Content that changes without its layer changing (as a video's frames do): a square
    /// shown or not, with the state as its version.
    final class Blinker: ContentRenderer {
        var on = false
        func draw(_ node: RenderTree.Node, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
            if on { surface.fill(Rect(x: 10, y: 10, width: 30, height: 30), color: .white, transform: transform, clip: clip) }
        }
        func contentVersion(of node: RenderTree.Node) -> AnyHashable? { on }
    }

    @Test func contentThatChangesByItselfMakesTheShadowAgain() throws {
        let scene = Scene()
        scene.register(LayerKind(name: "blinker"))
        try scene.addRoot(id: "root", output: "test", size: Size(width: 120, height: 100))
        var tx = Transaction(disableActions: true)
        tx.add(
            layer: "b", kind: "blinker", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 50, height: 50)), "position": .point(Point(x: 50, y: 40)),
                "shadowOpacity": .number(1), "shadowRadius": .number(4), "shadowOffset": .size(Size(width: 0, height: 8)),
            ])
        try scene.commit(tx, at: 0)
        let tree = try scene.renderTree(root: "root", at: 0)
        /// A renderer drawing the tree with the square `on` or not, and its drawing.
        func drawn(_ on: Bool, by renderer: Renderer? = nil) -> (Surface, Renderer) {
            let blinker = Blinker()
            blinker.on = on
            let renderer = renderer ?? Renderer()
            renderer.register(blinker, forKind: "blinker")
            let surface = Surface(width: 120, height: 100)
            renderer.render(tree, into: surface, region: [surface.bounds])
            return (surface, renderer)
        }
        let (_, kept) = drawn(false)
        let (shown, _) = drawn(true, by: kept)
        #expect(kept.shadows.misses == 2)
        try GoldenImage.expectSamePixels(shown, as: drawn(true).0, name: "content-shadow-blinker", "the square's shadow")
    }
}
