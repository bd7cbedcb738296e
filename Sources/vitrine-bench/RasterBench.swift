import CPixman
import CairoReference
import Foundation
import VitrineCore
import VitrineRaster
import VitrineRender

/// Rasterizer benchmarks at 1920×1080, each beside pixman (cairo for paths and strokes)
/// doing the same work on the same memory in the same run. Prints one JSON object per
/// line; `ratio` is vitrine / reference (median of the repetitions; below 1 means faster).
///
///     swift run -c release --scratch-path .build-raster vitrine-bench raster [--quick] [name…]
func runRasterBenchmarks(_ options: [String]) {
    let quick = options.contains("--quick")
    let only = options.filter { !$0.hasPrefix("--") }
    let bench = RasterBench(repetitions: quick ? 5 : 15)
    for (name, run) in bench.cases where only.isEmpty || only.contains(where: name.contains) {
        run(name)
    }
}

private final class RasterBench {
    let width = 1920, height = 1080
    let repetitions: Int
    let surface: Surface
    let image: pixman_image_t

    init(repetitions: Int) {
        self.repetitions = repetitions
        surface = Surface(width: width, height: height)
        image = pixmanImage(surface)
    }

    deinit { pixman_image_unref(image) }

    var cases: [(String, (String) -> Void)] {
        [
            ("raster.fill", fill), ("raster.over_solid", overSolid), ("raster.mask_over", maskOver),
            ("raster.image_over", imageOver), ("raster.image_over_opacity", imageOverOpacity),
            ("raster.image_bilinear_scale", bilinear),
            ("raster.image_bilinear_rotate", bilinearRotate), ("raster.image_perspective", perspective),
            ("raster.rounded_rect_aa", roundedRect), ("raster.glyph_run", glyphs),
            ("raster.gradient_linear", linearGradient), ("raster.gradient_radial", radialGradient),
            ("raster.path_fill", pathFill), ("raster.path_stroke", pathStroke), ("raster.path_dashed", pathDashed),
            ("raster.masked_image", maskedImage),
        ]
    }

    /// Times `vitrine` and `pixman` alternately and prints the medians, with the largest
    /// channel difference between one run of each from the same starting pixels
    /// (`max_diff` 0 means bit-exact).
    func report(_ name: String, iterations: Int = 1, reference: String = "pixman", vitrine: () -> Void, pixman: () -> Void) {
        resetDestination()
        vitrine()
        let ours = surface.copy()
        resetDestination()
        pixman()
        let diff = maxChannelDifference(ours, surface)
        resetDestination()
        var v: [Double] = [], p: [Double] = []
        for _ in 0..<repetitions {
            p.append(time(iterations, pixman))
            v.append(time(iterations, vitrine))
        }
        let vm = median(v), pm = median(p)
        print(
            String(
                format: "{\"bench\":\"%@\",\"vitrine_ms\":%.3f,\"%@_ms\":%.3f,\"ratio\":%.3f,\"max_diff\":%d}",
                name, vm, reference, pm, vm / pm, diff))
        fflush(nil)
    }

    func time(_ n: Int, _ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<n { body() }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(n)
    }

    func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

    func maxChannelDifference(_ a: Surface, _ b: Surface) -> Int {
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y).argb, q = b.pixel(x: x, y: y).argb
                if p == q { continue }
                for shift in stride(from: 0, through: 24, by: 8) {
                    worst = max(worst, abs(Int((p >> UInt32(shift)) & 0xFF) - Int((q >> UInt32(shift)) & 0xFF)))
                }
            }
        }
        return worst
    }

    func resetDestination() {
        surface.clear(PremultipliedColor(unchecked: 0xFF20_4060))
    }

    // MARK: Cases

    func fill(_ name: String) {
        let color = PremultipliedColor(unchecked: 0xFF33_6699)
        var pc = pixmanColor(color)
        var rect = pixman_rectangle16_t(x: 0, y: 0, width: UInt16(width), height: UInt16(height))
        report(
            name, iterations: 4,
            vitrine: {
                surface.fill(surface.bounds, color, mode: .source)
            },
            pixman: {
                pixman_image_fill_rectangles(PIXMAN_OP_SRC, image, &pc, 1, &rect)
            })
    }

    func overSolid(_ name: String) {
        let color = PremultipliedColor(Color(red: 0.9, green: 0.3, blue: 0.2, alpha: 0.6))
        var pc = pixmanColor(color)
        let solid = pixman_image_create_solid_fill(&pc)!
        defer { pixman_image_unref(solid) }
        resetDestination()
        report(
            name, iterations: 4,
            vitrine: {
                surface.fill(surface.bounds, color)
            },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, solid, nil, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
    }

    func maskOver(_ name: String) {
        let mask = A8Mask(width: width, height: height)
        // Text-like coverage: runs of empty, partial and full pixels.
        for y in 0..<height {
            for x in 0..<width {
                let v = (x * 7 + y * 13) % 97
                mask[x, y] = v < 40 ? 0 : v < 70 ? 255 : UInt8((v * 37) & 255)
            }
        }
        let pm = pixmanMask(mask)
        defer { pixman_image_unref(pm) }
        let color = PremultipliedColor(Color(red: 0.1, green: 0.2, blue: 0.9, alpha: 1))
        var pc = pixmanColor(color)
        let solid = pixman_image_create_solid_fill(&pc)!
        defer { pixman_image_unref(solid) }
        resetDestination()
        report(
            name, iterations: 2,
            vitrine: {
                surface.draw(mask, color: color)
            },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, solid, pm, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
        let small = Clip(rect: PixelRect(x: 0, y: 0, width: 512, height: 32))
        report(
            name + "_l2_resident", iterations: 200,
            vitrine: {
                surface.draw(mask, color: color, clip: small)
            },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, solid, pm, image, 0, 0, 0, 0, 0, 0, 512, 32)
            })
    }

    func makeImage(width w: Int, height h: Int) -> Surface {
        let s = Surface(width: w, height: h)
        for y in 0..<h {
            for x in 0..<w {
                let a = UInt8((x / 8 + y / 8) % 3 == 0 ? 255 : (x &* 3 &+ y) & 255)
                s.setPixel(x: x, y: y, PremultipliedColor(straightRed: UInt8(x & 255), green: UInt8(y & 255), blue: 200, alpha: a))
            }
        }
        return s
    }

    func imageOver(_ name: String) {
        let src = makeImage(width: width, height: height)
        let ps = pixmanImage(src)
        defer { pixman_image_unref(ps) }
        resetDestination()
        report(
            name, iterations: 2,
            vitrine: {
                surface.composite(src, x: 0, y: 0)
            },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, ps, nil, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
    }

    /// Group opacity's last step: an offscreen surface composited at 70 %.
    func imageOverOpacity(_ name: String) {
        let src = makeImage(width: width, height: height)
        let ps = pixmanImage(src)
        defer { pixman_image_unref(ps) }
        var alpha = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(179) * 257)
        let mask = pixman_image_create_solid_fill(&alpha)!
        defer { pixman_image_unref(mask) }
        report(
            name, iterations: 2,
            vitrine: {
                surface.composite(src, x: 0, y: 0, opacity: 179.0 / 255)
            },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, ps, mask, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
    }

    func bilinear(_ name: String) {
        let src = makeImage(width: width / 2, height: height / 2)
        let ps = pixmanImage(src)
        defer { pixman_image_unref(ps) }
        var t = pixman_transform_t()
        pixman_transform_init_scale(&t, fixed(0.5), fixed(0.5))
        pixman_image_set_transform(ps, &t)
        pixman_image_set_filter(ps, PIXMAN_FILTER_BILINEAR, nil, 0)
        // Vitrine clamps samples to the edge pixels, as PAD does.
        pixman_image_set_repeat(ps, PIXMAN_REPEAT_PAD)
        let dest = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
        report(
            name,
            vitrine: {
                surface.draw(image: src, in: dest)
            },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, ps, nil, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
    }

    /// A 960×540 image rotated by 0.3 rad and scaled by 1.5 around the screen centre.
    func bilinearRotate(_ name: String) {
        let src = makeImage(width: width / 2, height: height / 2)
        let ps = pixmanImage(src)
        defer { pixman_image_unref(ps) }
        let layer = AffineTransform(translationX: -Double(width / 4), y: -Double(height / 4))
            .concatenating(AffineTransform(scaleX: 1.5, y: 1.5))
            .concatenating(AffineTransform(rotationAngle: 0.3))
            .concatenating(AffineTransform(translationX: Double(width / 2), y: Double(height / 2)))
        let inverse = layer.inverted!
        // pixman maps destination to source.
        var t = pixman_transform_t()
        t.matrix.0 = (fixed(inverse.a), fixed(inverse.c), fixed(inverse.tx))
        t.matrix.1 = (fixed(inverse.b), fixed(inverse.d), fixed(inverse.ty))
        t.matrix.2 = (0, 0, fixed(1))
        pixman_image_set_transform(ps, &t)
        pixman_image_set_filter(ps, PIXMAN_FILTER_BILINEAR, nil, 0)
        let bounds = Rect(x: 0, y: 0, width: Double(src.width), height: Double(src.height))
        report(
            name,
            vitrine: {
                surface.draw(image: src, in: bounds, transform: layer)
            },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, ps, nil, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
    }

    /// A 512×512 image turned 0.6 rad about its vertical axis under m34 = −1/800 perspective,
    /// scaled 1.5× to the middle of the screen; pixman with the same projective transform
    /// and bilinear filter (it has no anti-aliased edges there).
    func perspective(_ name: String) {
        let src = makeImage(width: 512, height: 512)
        let ps = pixmanImage(src)
        defer { pixman_image_unref(ps) }
        let card = Transform3D(translationX: -256, y: -256).concatenating(Transform3D(rotationAngle: 0.6, x: 0, y: 1, z: 0))
            .concatenating(Transform3D(perspective: 800)).concatenating(Transform3D(scaleX: 1.5, y: 1.5))
            .concatenating(Transform3D(translationX: Double(width / 2), y: Double(height / 2))).flattened
        let i = card.inverted!
        // pixman maps destination to source with column vectors in 16.16 fixed point: scaled
        // (a projective map is the same at any scale) so that the largest entry nears
        // pixman's limit and the small perspective row keeps its precision.
        let entries = [i.m11, i.m21, i.m41, i.m12, i.m22, i.m42, i.m14, i.m24, i.m44]
        let k = 30000 / entries.map(abs).max()! * (i.m44 < 0 ? -1 : 1)
        var t = pixman_transform_t()
        t.matrix.0 = (fixed(i.m11 * k), fixed(i.m21 * k), fixed(i.m41 * k))
        t.matrix.1 = (fixed(i.m12 * k), fixed(i.m22 * k), fixed(i.m42 * k))
        t.matrix.2 = (fixed(i.m14 * k), fixed(i.m24 * k), fixed(i.m44 * k))
        pixman_image_set_transform(ps, &t)
        pixman_image_set_filter(ps, PIXMAN_FILTER_BILINEAR, nil, 0)
        let bounds = Rect(x: 0, y: 0, width: 512, height: 512)
        report(
            name,
            vitrine: { surface.draw(image: src, in: bounds, projection: card) },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, ps, nil, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
    }

    /// Opaque stops, so straight and premultiplied interpolation agree.
    static let stops: [(Double, Color)] = [
        (0, Color(red: 0.1, green: 0.2, blue: 0.8)), (0.4, Color(red: 0.95, green: 0.95, blue: 0.9)),
        (1, Color(red: 0.8, green: 0.1, blue: 0.2)),
    ]

    func pixmanStops() -> [pixman_gradient_stop_t] {
        Self.stops.map { pixman_gradient_stop_t(x: fixed($0.0), color: pixmanColor(PremultipliedColor($0.1))) }
    }

    /// Corner to corner across the screen.
    func linearGradient(_ name: String) {
        let g = Gradient(colors: Self.stops.map(\.1), locations: Self.stops.map(\.0), startPoint: .zero, endPoint: Point(x: 1, y: 1))
        var p1 = pixman_point_fixed_t(x: 0, y: 0)
        var p2 = pixman_point_fixed_t(x: fixed(Double(width)), y: fixed(Double(height)))
        let stops = pixmanStops()
        let pg = pixman_image_create_linear_gradient(&p1, &p2, stops, Int32(stops.count))!
        defer { pixman_image_unref(pg) }
        reportGradient(name, g, pg)
    }

    /// A circle of radius 540 at the centre of the screen.
    func radialGradient(_ name: String) {
        let r = 540.0
        let g = Gradient(
            colors: Self.stops.map(\.1), locations: Self.stops.map(\.0), startPoint: Point(x: 0.5, y: 0.5),
            endPoint: Point(x: 0.5 + r / Double(width), y: 0.5 + r / Double(height)), kind: .radial)
        var centre = pixman_point_fixed_t(x: fixed(Double(width) / 2), y: fixed(Double(height) / 2))
        let stops = pixmanStops()
        let pg = pixman_image_create_radial_gradient(&centre, &centre, 0, fixed(r), stops, Int32(stops.count))!
        defer { pixman_image_unref(pg) }
        reportGradient(name, g, pg)
    }

    /// Times `g` filling the screen beside pixman compositing the same gradient `pg`,
    /// padded beyond its ends as Core Animation continues the end colours.
    private func reportGradient(_ name: String, _ g: Gradient, _ pg: OpaquePointer) {
        pixman_image_set_repeat(pg, PIXMAN_REPEAT_PAD)
        let bounds = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
        report(
            name,
            vitrine: {
                surface.fill(bounds, gradient: g)
            },
            pixman: {
                pixman_image_composite32(PIXMAN_OP_OVER, pg, nil, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
    }

    func roundedRect(_ name: String) {
        let rect = Rect(x: 160.5, y: 90.25, width: 1600, height: 900)
        let radius = 40.0
        let color = PremultipliedColor(Color(red: 0.2, green: 0.7, blue: 0.3, alpha: 0.7))
        var pc = pixmanColor(color)
        let solid = pixman_image_create_solid_fill(&pc)!
        defer { pixman_image_unref(solid) }
        var traps = roundedRectTrapezoids(rect, radius: radius)
        resetDestination()
        report(
            name, iterations: 2,
            vitrine: {
                surface.fillRoundedRect(rect, radii: CornerRadii(radius), color: color)
            },
            pixman: {
                pixman_composite_trapezoids(PIXMAN_OP_OVER, solid, image, PIXMAN_a8, 0, 0, 0, 0, Int32(traps.count), &traps)
            })
    }

    /// A closed wavy ring of 200 cubic Béziers (Catmull-Rom through points on a rose),
    /// 800 px across.
    var curve: Path {
        let n = 200
        let points = (0..<n).map { i -> Point in
            let a = Double(i) / Double(n) * 2 * Double.pi
            let r = 400 + 80 * sin(7 * a)
            return Point(x: 960 + r * cos(a), y: 540 + r * sin(a))
        }
        var p = Path()
        p.move(to: points[0])
        for i in 0..<n {
            let p0 = points[(i + n - 1) % n], p1 = points[i], p2 = points[(i + 1) % n], p3 = points[(i + 2) % n]
            p.addCurve(
                to: p2, control1: Point(x: p1.x + (p2.x - p0.x) / 6, y: p1.y + (p2.y - p0.y) / 6),
                control2: Point(x: p2.x - (p3.x - p1.x) / 6, y: p2.y - (p3.y - p1.y) / 6))
        }
        p.close()
        return p
    }

    /// Vitrine and cairo drawing the same path with the same flattening tolerance
    /// (`Flatness.fine`, a shape layer's), OVER the same pixels.
    func reportPath(_ name: String, vitrine: @escaping () -> Void, cairo: @escaping (CairoCanvas) -> Void) {
        let canvas = CairoCanvas(surface, tolerance: Flatness.fine)
        report(
            name, iterations: 2, reference: "cairo", vitrine: vitrine,
            pixman: {
                cairo(canvas); canvas.flush()
            })
    }

    func pathFill(_ name: String) {
        let path = curve
        let color = Color(red: 0.2, green: 0.7, blue: 0.3, alpha: 0.8)
        reportPath(name, vitrine: { self.surface.fill(path, color: PremultipliedColor(color), tolerance: Flatness.fine) }) {
            $0.fill(path, color: color)
        }
    }

    func pathStroke(_ name: String) {
        let path = curve
        let color = Color(red: 0.9, green: 0.8, blue: 0.2, alpha: 1)
        let style = StrokeStyle(width: 12, join: .round)
        reportPath(name, vitrine: { self.surface.stroke(path, style: style, color: PremultipliedColor(color)) }) {
            $0.stroke(path, style: style, color: color)
        }
    }

    func pathDashed(_ name: String) {
        let path = curve
        let color = Color(red: 0.9, green: 0.3, blue: 0.2, alpha: 1)
        let style = StrokeStyle(width: 6, cap: .round, dashes: [18, 10], dashPhase: 4)
        reportPath(name, vitrine: { self.surface.stroke(path, style: style, color: PremultipliedColor(color)) }) {
            $0.stroke(path, style: style, color: color)
        }
    }

    func glyphs(_ name: String) {
        var rng = SystemRandomNumberGenerator()
        let masks = (0..<16).map { k -> A8Mask in
            let m = A8Mask(width: 24, height: 32)
            for y in 0..<32 {
                for x in 0..<24 {
                    let dx = Double(x) - 12, dy = Double(y) - 16
                    let d = (dx * dx + dy * dy).squareRoot() - Double(6 + k % 5)
                    m[x, y] = UInt8(max(0, min(255, (2 - abs(d)) * 128)))
                }
            }
            return m
        }
        let pixmanMasks = masks.map(pixmanMask)
        defer { pixmanMasks.forEach { pixman_image_unref($0) } }
        let positions = (0..<200).map { _ in (Int.random(in: 0..<(width - 24), using: &rng), Int.random(in: 0..<(height - 32), using: &rng)) }
        let color = PremultipliedColor(Color(red: 1, green: 1, blue: 1, alpha: 0.9))
        var pc = pixmanColor(color)
        let solid = pixman_image_create_solid_fill(&pc)!
        defer { pixman_image_unref(solid) }
        resetDestination()
        report(
            name, iterations: 20,
            vitrine: {
                for (i, p) in positions.enumerated() {
                    surface.draw(masks[i & 15], color: color, offsetX: p.0, offsetY: p.1)
                }
            },
            pixman: {
                for (i, p) in positions.enumerated() {
                    pixman_image_composite32(PIXMAN_OP_OVER, solid, pixmanMasks[i & 15], image, 0, 0, 0, 0, Int32(p.0), Int32(p.1), 24, 32)
                }
            })
    }
}

// MARK: pixman helpers

private typealias pixman_image_t = OpaquePointer

/// A pixman image sharing the surface's pixels (a8r8g8b8 is the same layout).
extension RasterBench {
    /// A layer showing a 1080p image through a moving mask (a wipe with a soft edge),
    /// repainted whole by the renderer from its render tree — the mask drawn, the image
    /// composited through its alpha — beside pixman clearing and compositing the image
    /// OVER through the same alpha as an a8 mask.
    func maskedImage(_ name: String) {
        let src = makeImage(width: width, height: height)
        let ps = pixmanImage(src)
        defer { pixman_image_unref(ps) }
        let images = ImageStore()
        images.store(src, path: "/bench/photo.png", for: "photo.png")
        let renderer = Renderer(images: images)
        func scene(masked: Bool) -> Scene {
            let scene = Scene()
            try! scene.addRoot(id: "root", output: "bench", size: Size(width: Double(width), height: Double(height)))
            var tx = Transaction(disableActions: true)
            let full = Rect(x: 0, y: 0, width: Double(width), height: Double(height))
            let wipe: [String: Value] = [
                "bounds": .rect(Rect(x: 0, y: 0, width: 2400, height: full.height)), "anchorPoint": .point(.zero),
                "colors": .array([.color(.white), .color(.white), .color(Color(red: 1, green: 1, blue: 1, alpha: 0))]),
                "locations": .array([.number(0), .number(0.875), .number(1)]),
                "startPoint": .point(Point(x: 0, y: 0.5)), "endPoint": .point(Point(x: 1, y: 0.5)),
            ]
            tx.add(layer: "wipe", kind: "gradient", parent: masked ? nil : "root", properties: wipe)
            if masked {
                tx.add(
                    layer: "photo", parent: "root",
                    properties: [
                        "bounds": .rect(full), "position": .point(Point(x: full.midX, y: full.midY)), "contents": .string("photo.png"), "mask": .string("wipe"),
                    ])
            }
            tx.addAnimation(.basic("position.x", from: .number(-2400), to: .number(0), duration: 1, timingFunction: .linear), to: "wipe")
            try! scene.commit(tx, at: 0)
            return scene
        }
        let masked = scene(masked: true)
        // pixman's mask: the wipe's alpha where the first frame has it.
        let start = 0.6
        let alpha = Renderer()
        alpha.clearColor = .transparent
        let drawn = try! alpha.snapshot(scene(masked: false), root: "root", at: start)
        let mask = A8Mask(width: width, height: height)
        mask.copyAlpha(of: drawn, drawn.bounds, toX: 0, y: 0)
        let pm = pixmanMask(mask)
        defer { pixman_image_unref(pm) }
        var black = pixmanColor(.black)
        var rect = pixman_rectangle16_t(x: 0, y: 0, width: UInt16(width), height: UInt16(height))
        var frame = 0
        report(
            name,
            vitrine: {
                // The mask moves a frame's worth (at 60 Hz) on every repaint.
                let tree = try! masked.renderTree(root: "root", at: start + Double(frame % 8) / 60)
                frame += 1
                renderer.render(tree, into: surface, region: [surface.bounds])
            },
            pixman: {
                pixman_image_fill_rectangles(PIXMAN_OP_SRC, image, &black, 1, &rect)
                pixman_image_composite32(PIXMAN_OP_OVER, ps, pm, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            })
    }
}

private func pixmanImage(_ s: Surface) -> pixman_image_t {
    pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(s.width), Int32(s.height), s.pixels, Int32(s.stride * 4))!
}

private func pixmanMask(_ m: A8Mask) -> pixman_image_t {
    let raw = UnsafeMutableRawPointer(m.bytes).assumingMemoryBound(to: UInt32.self)
    return pixman_image_create_bits(PIXMAN_a8, Int32(m.width), Int32(m.height), raw, Int32(m.stride))!
}

/// pixman colours are premultiplied 16-bit channels.
private func pixmanColor(_ c: PremultipliedColor) -> pixman_color_t {
    func w(_ v: UInt8) -> UInt16 { UInt16(v) * 257 }
    return pixman_color_t(red: w(c.red), green: w(c.green), blue: w(c.blue), alpha: w(c.alpha))
}

private func fixed(_ v: Double) -> pixman_fixed_t { pixman_fixed_t((v * 65536).rounded()) }

/// The rounded rectangle as horizontal bands of trapezoids (flattened corners, 24 chords
/// per quarter), the input pixman's own rasterizer takes.
private func roundedRectTrapezoids(_ r: Rect, radius: Double) -> [pixman_trapezoid_t] {
    var ys: [Double] = []
    var left: [Double] = [], right: [Double] = []
    let n = 24
    for i in 0...n {
        let a = Double.pi / 2 * Double(i) / Double(n)
        let dy = radius * (1 - sin(a)), dx = radius * (1 - cos(a))
        ys.append(r.minY + dy); left.append(r.minX + dx); right.append(r.maxX - dx)
    }
    var traps: [pixman_trapezoid_t] = []
    func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> pixman_line_fixed_t {
        pixman_line_fixed_t(p1: pixman_point_fixed_t(x: fixed(x0), y: fixed(y0)), p2: pixman_point_fixed_t(x: fixed(x1), y: fixed(y1)))
    }
    func band(_ top: Double, _ bottom: Double, _ l0: Double, _ l1: Double, _ r0: Double, _ r1: Double) {
        traps.append(
            pixman_trapezoid_t(
                top: fixed(top), bottom: fixed(bottom), left: line(l0, top, l1, bottom), right: line(r0, top, r1, bottom)))
    }
    // Top corners: ys decrease as i grows from the corner's side to its top.
    for i in stride(from: n, to: 0, by: -1) {
        band(ys[i], ys[i - 1], left[i], left[i - 1], right[i], right[i - 1])
    }
    band(r.minY + radius, r.maxY - radius, r.minX, r.minX, r.maxX, r.maxX)
    for i in 0..<n {
        let t = r.maxY - (ys[i] - r.minY), b = r.maxY - (ys[i + 1] - r.minY)
        band(t, b, left[i], left[i + 1], right[i], right[i + 1])
    }
    return traps
}
