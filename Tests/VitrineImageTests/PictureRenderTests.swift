import VitrineCodecs
import Foundation
import Testing
import VitrineCore
import VitrineImage
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// A scene of `width`×`height` whose layers are `layers` (id → properties), under the root.
func scene(width: Double, height: Double, _ layers: [(String, [String: Value])]) throws -> Scene {
    let scene = Scene()
    StandardKinds.register(in: scene)
    try scene.addRoot(id: "root", output: "test", size: Size(width: width, height: height))
    var tx = Transaction(disableActions: true)
    for (id, properties) in layers { tx.add(layer: id, parent: "root", properties: properties) }
    try scene.commit(tx, at: 0)
    return scene
}

/// A layer's properties: `bounds` at `origin`, showing `contents`.
func showing(_ contents: String, x: Double, y: Double = 0, width: Double, height: Double, _ more: [String: Value] = [:]) -> [String: Value] {
    var properties: [String: Value] = [
        "bounds": .rect(Rect(x: 0, y: 0, width: width, height: height)), "anchorPoint": .point(.zero),
        "position": .point(Point(x: x, y: y)), "contents": .string(contents),
    ]
    properties.merge(more) { $1 }
    return properties
}

@Suite struct AnimatedPictureTests {
    /// Red, green, blue, white for 0.1, 0.2, 0.3, 0.4 s, for ever.
    static let gif = ImageFixtures.gif(
        width: 8, height: 8, palette: [0xFF0000, 0x00FF00, 0x0000FF, 0xFFFFFF],
        frames: (0..<4).map { ImageFixtures.GIFFrame(rect: PixelRect(x: 0, y: 0, width: 8, height: 8), index: UInt8($0), delay: 10 * ($0 + 1)) })

    @Test func aGIFPlaysInItsLayersTime() throws {
        let files = try FixtureFiles()
        let path = try files.write("four.gif", Self.gif)
        let s = try scene(
            width: 80, height: 20,
            [
                ("normal", showing(path, x: 0, width: 20, height: 20)),
                ("fast", showing(path, x: 20, width: 20, height: 20, ["speed": .number(2)])),
                ("paused", showing(path, x: 40, width: 20, height: 20, ["speed": .number(0), "timeOffset": .number(0.35)])),
                ("later", showing(path, x: 60, width: 20, height: 20, ["beginTime": .number(1)])),
            ])
        let renderer = StandardKinds.renderer(imageDirectory: files.directory.path, loader: ImageDecoder.readImage)
        func colours(at time: Double) throws -> [UInt32] {
            let frame = try renderer.snapshot(s, root: "root", at: time)
            return [10, 30, 50, 70].map { pixel(frame, $0, 10) }
        }
        // Frames start at 0, 0.1, 0.3 and 0.6 s; one play is 1 s.
        #expect(try colours(at: 0) == [red, red, blue, red])
        #expect(try colours(at: 0.1) == [green, green, blue, red])
        #expect(try colours(at: 0.3 - 1e-6) == [green, blue, blue, red])
        #expect(try colours(at: 0.3) == [blue, white, blue, red])
        #expect(try colours(at: 0.6) == [white, green, blue, red])
        #expect(try colours(at: 1.0) == [red, red, blue, red])
        #expect(try colours(at: 1.15) == [green, blue, blue, green])
    }

    @Test func theRendererDamagesAnAnimationOnlyWhenItsFrameChanges() throws {
        let files = try FixtureFiles()
        let frames = [red, green].map { ImageFixtures.solid($0, width: 4, height: 4) }
        let path = try files.write("two.webp", ImageFixtures.animatedWebP(frames, milliseconds: [250, 250]))
        let s = try scene(width: 40, height: 40, [("a", showing(path, x: 10, y: 10, width: 20, height: 20, ["speed": .number(0.5)]))])
        let renderer = StandardKinds.renderer(imageDirectory: files.directory.path, loader: ImageDecoder.readImage)
        renderer.animations.clock = { s.pictureClock(of: $0, at: $1) }
        let surface = Surface(width: 40, height: 40)
        func frame(at time: Double) throws -> [Rect] {
            renderer.animations.time = time
            let tree = try s.renderTree(root: "root", at: time)
            let damage = renderer.animations.damage(in: tree, images: renderer.images)
            renderer.render(tree, into: surface, region: [surface.bounds])
            return damage
        }
        #expect(try frame(at: 0) == [])  // nothing animated was drawn before
        // At half speed the second frame starts at 0.5 s of media time.
        #expect(abs(try #require(renderer.animations.nextChange) - 0.5) < 1e-9)
        #expect(try frame(at: 0.2) == [])
        #expect(abs(try #require(renderer.animations.nextChange) - 0.3) < 1e-9)
        #expect(pixel(surface, 20, 20) == red)
        let changed = try frame(at: 0.5)
        #expect(changed == [Rect(x: 9, y: 9, width: 22, height: 22)], "\(changed)")  // the visual bounds: a pixel of antialiasing round
        #expect(pixel(surface, 20, 20) == green)
        // Paused: no next change.
        try s.commit(
            {
                var tx = Transaction(disableActions: true); tx.set("a", "speed", .number(0)); return tx
            }(), at: 0.6)
        _ = try frame(at: 0.6)
        #expect(renderer.animations.nextChange == nil)
        // Gone: forgotten, and a still scene costs nothing again.
        try s.commit(
            {
                var tx = Transaction(disableActions: true); tx.set("a", "contents", .string("")); return tx
            }(), at: 0.7)
        _ = try frame(at: 0.7)
        #expect(try frame(at: 0.8) == [])
        #expect(renderer.animations.nextChange == nil)
    }
}

@Suite struct SizedPictureTests {
    static let svg = SVGTests.document

    @Test func anSVGScaledTwiceIsDrawnAtTwiceItsSize() throws {
        let files = try FixtureFiles()
        let path = try files.write("art.svg", Self.svg)
        let scaled = try scene(
            width: 200, height: 100,
            [
                ("art", showing(path, x: 0, width: 100, height: 50, ["transform": .transform(AffineTransform(scaleX: 2, y: 2))]))
            ])
        let large = try scene(width: 200, height: 100, [("art", showing(path, x: 0, width: 200, height: 100))])
        let sharp = try StandardKinds.renderer(imageDirectory: files.directory.path, loader: ImageDecoder.readImage).snapshot(scaled, root: "root", at: 0)
        let expected = try StandardKinds.renderer(imageDirectory: files.directory.path, loader: ImageDecoder.readImage).snapshot(large, root: "root", at: 0)
        try GoldenImage.expectSamePixels(sharp, as: expected, name: "svg-scaled", "an SVG under scale 2 is drawn at 2×, not magnified")
        try GoldenImage.expectMatches(sharp, named: "svg-layer-2x", in: references)
        // Magnified from 1× it would be blurred: not the same pixels.
        let blurred = Surface(width: 200, height: 100)
        blurred.draw(image: try decode(Self.svg).frames[0], in: Rect(x: 0, y: 0, width: 200, height: 100))
        #expect(!sharp.hasSamePixels(as: blurred))
    }

    @Test func anSVGIsDrawnAgainWhenItsScaleChanges() throws {
        let files = try FixtureFiles()
        let path = try files.write("art.svg", Self.svg)
        let s = try scene(width: 400, height: 200, [("art", showing(path, x: 0, width: 100, height: 50))])
        let renderer = StandardKinds.renderer(imageDirectory: files.directory.path, loader: ImageDecoder.readImage)
        func held() -> Int { renderer.images.held(path)?.frames[0].width ?? 0 }
        _ = try renderer.snapshot(s, root: "root", at: 0)
        #expect(held() == 100)
        for (scale, width) in [(1.05, 100), (2.0, 200), (2.1, 200), (4.0, 400), (3.5, 400), (3.0, 300)] {
            try s.commit(
                {
                    var tx = Transaction(disableActions: true); tx.set("art", "transform", .transform(AffineTransform(scaleX: scale, y: scale))); return tx
                }(), at: 0)
            _ = try renderer.snapshot(s, root: "root", at: 0)
            #expect(held() == width, "at scale \(scale)")
        }
    }

    @Test func aJPEGIsDecodedAtTheSizeItIsShown() throws {
        let files = try FixtureFiles()
        let path = try files.write("photo.jpg", ImageFixtures.jpeg(ImageFixtures.quadrants(width: 1600, height: 1200), quality: 80))
        let s = try scene(width: 800, height: 600, [("photo", showing(path, x: 0, width: 200, height: 150))])
        let renderer = StandardKinds.renderer(imageDirectory: files.directory.path, loader: ImageDecoder.readImage)
        func held() -> (Int, Int)? { renderer.images.held(path).map { ($0.frames[0].width, $0.frames[0].height) } }
        let small = try renderer.snapshot(s, root: "root", at: 0)
        #expect(held()! == (200, 150))  // 1/8
        #expect(near(pixel(small, 50, 40), red) && near(pixel(small, 150, 110), white))
        try s.commit(
            {
                var tx = Transaction(disableActions: true); tx.set("photo", "bounds", .rect(Rect(x: 0, y: 0, width: 800, height: 600))); return tx
            }(), at: 0)
        _ = try renderer.snapshot(s, root: "root", at: 0)
        #expect(held()! == (800, 600))  // 4/8, decoded again for the larger size
    }

    @Test func withoutALoaderAResizeIsAskedForOnce() throws {
        let store = ImageStore(loader: nil)
        let picture = try decode(Self.svg)
        #expect(store.store(picture, path: "/a.svg", for: "a.svg"))
        let shown = (size: Size(width: 300, height: 150), gravity: ContentsGravity.resize)
        #expect(store.picture("a.svg", shownIn: shown) === picture)
        #expect(store.takeResizes() == ["a.svg": TargetSize(width: 300, height: 150)])
        #expect(store.picture("a.svg", shownIn: shown) === picture)
        #expect(store.takeResizes().isEmpty)
        #expect(store.picture("b.jpg", shownIn: (Size(width: 64, height: 48), .resizeAspect)) == nil)
        #expect(store.takeMisses() == ["b.jpg": TargetSize(width: 64, height: 48)])
        #expect(store.picture("c.png", shownIn: (Size(width: 64, height: 48), .center)) == nil)
        let full: [String: TargetSize?] = ["c.png": nil]
        #expect(store.takeMisses() == full)
    }
}
