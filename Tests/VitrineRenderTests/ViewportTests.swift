import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// A video wall's screens: a render through a viewport is that rectangle of the whole
/// render, for every scene the golden tests draw (shadows, masks, text, rolling numbers,
/// gradients, images, replicators, shapes), cut anywhere — within 1/255, the rounding of
/// a transformed glyph's position moved by whole pixels.
@Suite struct ViewportTests {
    static let scenes =
        (try? FileManager.default.contentsOfDirectory(atPath: Golden.scenesDirectory.path))?
        .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted() ?? []

    /// Four rectangles tiling `width` × `height`, cut at an odd point off the middle.
    static func quarters(width: Int, height: Int) -> [PixelRect] {
        let cx = width / 2 + 7, cy = height / 2 - 5
        return [
            PixelRect(x: 0, y: 0, width: cx, height: cy), PixelRect(x: cx, y: 0, width: width - cx, height: cy),
            PixelRect(x: 0, y: cy, width: cx, height: height - cy), PixelRect(x: cx, y: cy, width: width - cx, height: height - cy),
        ]
    }

    @Test(arguments: scenes)
    func eachViewportIsItsRectangleOfTheWholeRender(_ name: String) throws {
        let (scene, _) = try Golden.loadScene(name)
        let time = 0.3
        _ = scene.advance(to: time)
        let renderer = Golden.renderer()
        let whole = try renderer.snapshot(scene, root: "root", at: time)
        for rect in Self.quarters(width: whole.width, height: whole.height) {
            let part = try renderer.snapshot(scene, root: "root", at: time, viewport: rect)
            #expect(part.width == rect.width && part.height == rect.height)
            try GoldenImage.expectSamePixels(part, as: whole.copy(rect), name: "viewport-\(name)-\(rect.x)-\(rect.y)", tolerance: 1, "\(name) through \(rect)")
        }
    }

    @Test func theViewportsRepaintOnlyWhatChangedInTheirRectangle() throws {
        let scene = try Golden.scene(
            size: Size(width: 200, height: 100),
            ##"{"layers": [{"id": "bar", "properties": {"bounds": [0, 0, 60, 20], "position": [100, 50], "backgroundColor": "#3080ff", "cornerRadius": 6}}]}"##)
        let renderer = Golden.renderer()
        let left = PixelRect(x: 0, y: 0, width: 100, height: 100), right = PixelRect(x: 100, y: 0, width: 100, height: 100)
        let leftSurface = Surface(width: 100, height: 100), rightSurface = Surface(width: 100, height: 100)
        let tree = try scene.renderTree(root: "root", at: 0)
        renderer.render(tree, into: leftSurface, region: [leftSurface.bounds], viewport: left)
        renderer.render(tree, into: rightSurface, region: [rightSurface.bounds], viewport: right)
        // The bar moves right; the left screen repaints only its own part of the damage.
        var tx = Transaction(disableActions: true)
        tx.set("bar", "position", .point(Point(x: 140, y: 50)))
        try scene.commit(tx, at: 0)
        let moved = try scene.renderTree(root: "root", at: 0)
        let damage = moved.damage(since: tree, refine: renderer.contentDamage).map { PixelRect(covering: $0) }
        for (viewport, surface) in [(left, leftSurface), (right, rightSurface)] {
            let region = damage.map { $0.offsetBy(dx: -viewport.x, dy: -viewport.y).intersection(surface.bounds) }.filter { !$0.isEmpty }
            renderer.render(moved, into: surface, region: region, viewport: viewport)
        }
        let whole = try renderer.snapshot(scene, root: "root", at: 0)
        try GoldenImage.expectSamePixels(leftSurface, as: whole.copy(left), name: "viewport-damage-left", "the left screen after the move")
        try GoldenImage.expectSamePixels(rightSurface, as: whole.copy(right), name: "viewport-damage-right", "the right screen after the move")
    }
}
