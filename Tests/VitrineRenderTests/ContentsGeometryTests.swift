import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineRender

/// contentsRect, contentsCenter and contentsScale on image contents, and conic gradients,
/// checked against the pixels they must give.
@Suite struct ContentsGeometryTests {
    /// The four frames of `sprites.png` (16×16 each, side by side): their colours.
    static let spriteColors: [PremultipliedColor] = [
        PremultipliedColor(unchecked: 0xFFE6_2828), PremultipliedColor(unchecked: 0xFF28_C83C), PremultipliedColor(unchecked: 0xFF28_50E6),
        PremultipliedColor(unchecked: 0xFFF0_D21E),
    ]

    static func frameRect(_ k: Int) -> Value { .rect(Rect(x: Double(k) / 4, y: 0, width: 0.25, height: 1)) }

    func scene(_ layers: [String: [String: Value]], size: Size = Size(width: 200, height: 120), background: Color = Color(css: "#dddddd")!) throws -> Scene {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: size)
        var tx = Transaction(disableActions: true)
        tx.set("root", "backgroundColor", .color(background))
        for (id, properties) in layers.sorted(by: { $0.key < $1.key }) {
            tx.add(layer: id, kind: properties["colors"] == nil ? "layer" : "gradient", parent: "root", properties: properties)
        }
        try scene.commit(tx, at: 0)
        return scene
    }

    func near(_ a: PremultipliedColor, _ b: PremultipliedColor, _ tolerance: Int = 2) -> Bool {
        let x = a.argb, y = b.argb
        return (0..<4).allSatisfy { (k: Int) -> Bool in
            let p = Int((x >> UInt32(k * 8)) & 0xFF), q = Int((y >> UInt32(k * 8)) & 0xFF)
            return abs(p - q) <= tolerance
        }
    }

    @Test func contentsRectAnimatesThroughASpriteSheetAtExactTimes() throws {
        let s = try scene([
            "sprite": [
                "bounds": .rect(Rect(x: 0, y: 0, width: 64, height: 64)), "position": .point(Point(x: 50, y: 50)),
                "contents": .string("sprites.png"),
            ]
        ])
        var tx = Transaction()
        let frames = Keyframes(values: (0..<4).map(Self.frameRect), calculationMode: .discrete)
        tx.addAnimation(.keyframe("contentsRect", frames, duration: 0.4), forKey: "walk", to: "sprite")
        try s.commit(tx, at: 0)
        let renderer = Golden.renderer()
        for (k, time) in [0.0, 0.1, 0.2, 0.3].enumerated() {
            for t in [time + 0.001, time + 0.099] {
                _ = s.advance(to: t)
                let image = try renderer.snapshot(s, root: "root", at: t)
                // The frame's colour away from its white dot, and the dot at its place.
                #expect(image.pixel(x: 60, y: 60) == Self.spriteColors[k], "time \(t)")
                #expect(image.pixel(x: 18 + 4 * 3, y: 18 + 4 * 3) == PremultipliedColor(unchecked: 0xFFFF_FFFF), "time \(t)")
            }
        }
    }

    @Test func contentsRectBetweenTwoFramesShowsHalfOfEach() throws {
        let s = try scene([
            "sprite": [
                "bounds": .rect(Rect(x: 0, y: 0, width: 64, height: 64)), "position": .point(Point(x: 50, y: 50)),
                "contents": .string("sprites.png"),
            ]
        ])
        var tx = Transaction()
        tx.addAnimation(.basic("contentsRect", from: Self.frameRect(1), to: Self.frameRect(2), duration: 1), to: "sprite")
        try s.commit(tx, at: 0)
        _ = s.advance(to: 0.5)
        let image = try Golden.renderer().snapshot(s, root: "root", at: 0.5)
        // Half a frame on: the green frame's right half, then the blue frame's left half.
        #expect(image.pixel(x: 30, y: 60) == Self.spriteColors[1])
        #expect(image.pixel(x: 60, y: 60) == Self.spriteColors[2])
        #expect(image.pixel(x: 18 + 48, y: 18 + 16) == PremultipliedColor(unchecked: 0xFFFF_FFFF))
    }

    @Test(arguments: [(40.0, 40.0, 1.0), (120, 60, 1), (150, 90, 1), (100, 50, 2)])
    func nineSliceKeepsTheCornersPixelForPixel(width: Double, height: Double, scale: Double) throws {
        let third = 1.0 / 3
        let s = try scene([
            "frame": [
                "bounds": .rect(Rect(x: 0, y: 0, width: width, height: height)), "position": .point(Point(x: 20 + width / 2, y: 10 + height / 2)),
                "contents": .string("nine.png"), "contentsScale": .number(scale),
                "contentsCenter": .rect(Rect(x: third, y: third, width: third, height: third)),
            ]
        ])
        let image = try Golden.renderer().snapshot(s, root: "root", at: 0)
        let source = try Surface(contentsOfPNG: Golden.scenesDirectory.appendingPathComponent("nine.png").path)
        let background = Surface(width: 1, height: 1)
        background.setPixel(x: 0, y: 0, PremultipliedColor(Color(css: "#dddddd")!))
        let corner = Int(10 / scale), w = Int(width), h = Int(height)
        for (sx, sy, dx, dy) in [(0, 0, 0, 0), (20, 0, w - corner, 0), (0, 20, 0, h - corner), (20, 20, w - corner, h - corner)] {
            for y in 0..<corner {
                for x in 0..<corner {
                    let shown = image.pixel(x: 20 + dx + x, y: 10 + dy + y)
                    if scale == 1 {
                        // Drawn over the background: compare with the source pixel over it.
                        let expected = Surface(width: 1, height: 1)
                        expected.setPixel(x: 0, y: 0, background.pixel(x: 0, y: 0))
                        let one = Surface(width: 1, height: 1)
                        one.setPixel(x: 0, y: 0, source.pixel(x: sx + x, y: sy + y))
                        expected.composite(one, x: 0, y: 0)
                        #expect(shown == expected.pixel(x: 0, y: 0), "corner (\(sx), \(sy)) pixel (\(x), \(y)) at \(width)×\(height)")
                    } else {
                        #expect(shown.alpha == 255)
                    }
                }
            }
        }
        // The middle stretches: white, and the edges keep their stripes' colours.
        #expect(image.pixel(x: 20 + w / 2, y: 10 + h / 2) == PremultipliedColor(unchecked: 0xFFFF_FFFF))
    }

    @Test func contentsScaleSetsTheSizeGravityPlaces() throws {
        let s = try scene([
            "sprite": [
                "bounds": .rect(Rect(x: 0, y: 0, width: 60, height: 60)), "position": .point(Point(x: 50, y: 50)),
                "contents": .string("sprites.png"), "contentsGravity": .string("topLeft"), "contentsScale": .number(2),
            ]
        ])
        let image = try Golden.renderer().snapshot(s, root: "root", at: 0)
        // 64×16 pixels at 2 per point: 32×8 points from the top-left corner (20, 20).
        #expect(image.pixel(x: 20 + 4, y: 20 + 6) == Self.spriteColors[0])
        #expect(image.pixel(x: 20 + 28, y: 20 + 6) == Self.spriteColors[3])
        #expect(image.pixel(x: 20 + 33, y: 20 + 4) == PremultipliedColor(Color(css: "#dddddd")!))
        #expect(image.pixel(x: 20 + 4, y: 20 + 9) == PremultipliedColor(Color(css: "#dddddd")!))
    }

    @Test(arguments: [(Point(x: 0.5, y: 0.5), Point(x: 0.5, y: 0)), (Point(x: 0.4, y: 0.6), Point(x: 1, y: 1))])
    func conicGradientColoursFollowTheAngle(start: Point, end: Point) throws {
        let colors = ["red", "yellow", "#00ff0080", "blue", "red"].map { Color(css: $0)! }
        let s = try scene(
            [
                "wheel": [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 160)), "position": .point(Point(x: 110, y: 90)),
                    "colors": .array(colors.map(Value.color)), "locations": .array([0, 0.2, 0.5, 0.7, 1].map(Value.number)),
                    "startPoint": .point(start), "endPoint": .point(end), "type": .string("conic"),
                ]
            ], size: Size(width: 220, height: 180), background: .clear)
        let renderer = Golden.renderer()
        renderer.clearColor = .transparent
        let image = try renderer.snapshot(s, root: "root", at: 0)
        let gradient = Gradient(colors: colors, locations: [0, 0.2, 0.5, 0.7, 1])
        let origin = Point(x: 10, y: 10)
        let centre = Point(x: origin.x + start.x * 200, y: origin.y + start.y * 160)
        let ray = Point(x: origin.x + end.x * 200 - centre.x, y: origin.y + end.y * 160 - centre.y)
        let startAngle = atan2(ray.y, ray.x)
        var checked = 0
        for y in stride(from: 12, to: 168, by: 3) {
            for x in stride(from: 12, to: 208, by: 3) {
                let dx = Double(x) + 0.5 - centre.x, dy = Double(y) + 0.5 - centre.y
                guard dx * dx + dy * dy > 36 else { continue }
                var turn = (atan2(dy, dx) - startAngle) / (2 * .pi)
                turn -= turn.rounded(.down)
                // Within a pixel of the seam the colour is either end's.
                guard turn > 0.002, turn < 0.998 else { continue }
                let expected = PremultipliedColor(gradient.color(at: turn))
                #expect(near(image.pixel(x: x, y: y), expected, 3), "(\(x), \(y)) at turn \(turn)")
                checked += 1
            }
        }
        #expect(checked > 3000)
    }
}
