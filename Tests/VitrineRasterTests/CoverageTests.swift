import Foundation
import Testing
import VitrineCore
@testable import VitrineRaster

/// Anti-aliased coverage against analytic areas.
///
/// Curves are flattened to chords at most `Rasterizer.tolerance` (0.05 px) inside the
/// curve, so a shape with curved outline of length L loses up to about 2/3·0.05·L of area;
/// `curveSlack` allows for that.
@Suite struct CoverageTests {
    static func curveSlack(_ curvedLength: Double) -> Double { 0.5 + 0.035 * curvedLength }

    /// Exact area of [x0,x1]×[y0,y1] inside pixel (px, py).
    static func overlap(_ r: Rect, _ px: Int, _ py: Int) -> Double {
        let w = max(0, min(r.maxX, Double(px + 1)) - max(r.minX, Double(px)))
        let h = max(0, min(r.maxY, Double(py + 1)) - max(r.minY, Double(py)))
        return w * h
    }

    @Test(arguments: [
        Rect(x: 2.25, y: 3.5, width: 10.3, height: 7.8),
        Rect(x: 0.1, y: 0.9, width: 0.5, height: 0.05),
        Rect(x: 5.5, y: 5.5, width: 1, height: 1),
        Rect(x: -3.3, y: 10.7, width: 40, height: 2.6),
    ])
    func fractionalRectCoverageIsExactPerPixel(_ rect: Rect) {
        let s = Surface(width: 24, height: 24)
        s.fill(rect, color: .white)
        for y in 0..<24 {
            for x in 0..<24 {
                let expected = Self.overlap(rect, x, y) * 255
                let got = Double(s.pixel(x: x, y: y).alpha)
                #expect(abs(got - expected) <= 1, "pixel (\(x), \(y)): \(got) vs \(expected)")
            }
        }
    }

    @Test func circleCoverageIsPiRSquared() {
        let s = Surface(width: 100, height: 100)
        let r = 37.3
        s.fill(Path(ellipseIn: Rect(x: 50.2 - r, y: 49.6 - r, width: 2 * r, height: 2 * r)), color: .white)
        let area = coveredArea(s)
        #expect(abs(area - Double.pi * r * r) < 0.002 * Double.pi * r * r, "area \(area)")
    }

    @Test func rotatedSquareKeepsItsArea() {
        let s = Surface(width: 64, height: 64)
        let t = AffineTransform(translationX: -10, y: -10)
            .concatenating(AffineTransform(rotationAngle: 0.4))
            .concatenating(AffineTransform(translationX: 32.3, y: 31.8))
        s.fill(Rect(x: 0, y: 0, width: 20, height: 20), color: .white, transform: t)
        #expect(abs(coveredArea(s) - 400) < 0.5)
        #expect(s.pixel(x: 32, y: 32).alpha == 255)
        #expect(s.pixel(x: 5, y: 5).alpha == 0)
    }

    @Test func overlappingSubpathsUseNonZeroWinding() {
        var p = Path(rect: Rect(x: 0, y: 0, width: 10, height: 10))
        p.addPath(Path(rect: Rect(x: 5, y: 0, width: 10, height: 10)))
        let s = Surface(width: 20, height: 10)
        s.fill(p, color: .white)
        #expect(coveredArea(s) == 150)
    }

    @Test func borderStaysInsideBoundsAndLeavesTheMiddleEmpty() {
        let s = Surface(width: 60, height: 50)
        let bounds = Rect(x: 10, y: 10, width: 40, height: 30)
        s.drawBorder(of: bounds, width: 4, radii: CornerRadii(8), color: .white)
        // Nothing outside the bounds.
        for y in 0..<50 {
            for x in 0..<60 where !(10..<50 ~= x && 10..<40 ~= y) {
                #expect(s.pixel(x: x, y: y).alpha == 0, "(\(x), \(y))")
            }
        }
        #expect(s.pixel(x: 30, y: 25).alpha == 0)
        #expect(s.pixel(x: 30, y: 11).alpha == 255)
        #expect(s.pixel(x: 11, y: 25).alpha == 255)
        #expect(s.pixel(x: 14, y: 25).alpha == 0)
        // Area: outer rounded rect minus inner one with radius 8 − 4.
        let outer = 40.0 * 30 - (4 - Double.pi) * 64
        let inner = 32.0 * 22 - (4 - Double.pi) * 16
        #expect(abs(coveredArea(s) - (outer - inner)) < Self.curveSlack(2 * Double.pi * 12))
    }

    @Test func maskedCornersRoundOnlyTheChosenCorners() {
        let s = Surface(width: 40, height: 40)
        s.fillRoundedRect(Rect(x: 0, y: 0, width: 40, height: 40), radii: CornerRadii(16), corners: [.maxXMaxY], color: .white)
        #expect(s.pixel(x: 0, y: 0).alpha == 255)
        #expect(s.pixel(x: 39, y: 0).alpha == 255)
        #expect(s.pixel(x: 0, y: 39).alpha == 255)
        #expect(s.pixel(x: 39, y: 39).alpha == 0)
        #expect(abs(coveredArea(s) - (1600 - (4 - Double.pi) * 64)) < Self.curveSlack(Double.pi * 8))
    }

    @Test func clipRectLimitsDrawing() {
        let s = Surface(width: 30, height: 30)
        s.fill(
            Path(ellipseIn: Rect(x: 0, y: 0, width: 30, height: 30)), color: .white,
            clip: Clip(rect: PixelRect(x: 10, y: 10, width: 10, height: 10)))
        #expect(coveredArea(s) == 100)
    }

    @Test func clipMaskMultipliesCoverage() {
        let s = Surface(width: 40, height: 40)
        let clip = Clip(path: Path(ellipseIn: Rect(x: 0, y: 0, width: 40, height: 40)), within: s.bounds)
        s.fill(Rect(x: 0, y: 0, width: 40, height: 40), color: .white, clip: clip)
        #expect(abs(coveredArea(s) - Double.pi * 400) < Self.curveSlack(Double.pi * 40))
        #expect(s.pixel(x: 0, y: 0).alpha == 0)
    }

    @Test func pathRotatedOutsideLeftEdgeStillCoversInterior() {
        let s = Surface(width: 20, height: 20)
        s.fill(
            Rect(x: -100, y: 2.5, width: 110.5, height: 5), color: .white,
            clip: Clip(rect: PixelRect(x: 3, y: 0, width: 17, height: 20)))
        #expect(abs(coveredArea(s) - 7.5 * 5) < 0.05)
    }
}

@Suite struct HostileGeometryTests {
    @Test func hugeAndNonFiniteCoordinatesDoNotCrash() {
        let s = Surface(width: 16, height: 16)
        var p = Path()
        p.move(to: Point(x: -1e300, y: -1e300))
        p.addLine(to: Point(x: 1e300, y: 5))
        p.addLine(to: Point(x: 3, y: 1e300))
        p.close()
        p.move(to: Point(x: .nan, y: 2))
        p.addLine(to: Point(x: 4, y: .infinity))
        p.addCurve(to: Point(x: 1, y: 1), control1: Point(x: 1e200, y: -1e200), control2: Point(x: 0, y: 0))
        s.fill(p, color: .white)
        s.fill(Rect(x: 0, y: 0, width: 1e308, height: 1e308), color: .white, transform: AffineTransform(scaleX: 1e10, y: 1e10))
        s.draw(image: s.copy(), in: Rect(x: 0, y: 0, width: 1e-300, height: 1e300))
        s.drawShadow(Shadow(radius: 1e6), of: .rect(Rect(x: 0, y: 0, width: 4, height: 4)))
        s.drawShadow(Shadow(radius: 4), of: .rect(Rect(x: -1e300, y: -1e300, width: 1e308, height: 1e308)))
        s.drawShadow(Shadow(radius: 4), of: .roundedRect(Rect(x: 0, y: 0, width: 300, height: 300), radii: CornerRadii(1e300), corners: .all))
        s.drawShadow(Shadow(radius: 4), of: .roundedRect(Rect(x: -1e9, y: 2, width: 2e9, height: 1e9), radii: CornerRadii(5), corners: .all))
        #expect(s.width == 16)
    }

    @Test func emptyAndDegenerateShapesDrawNothing() {
        let s = Surface(width: 8, height: 8)
        s.fill(Rect(x: 2, y: 2, width: 0, height: 5), color: .white)
        s.fill(Path(), color: .white)
        s.fillRoundedRect(Rect(x: 1, y: 1, width: 4, height: 4), radii: CornerRadii(100), color: .transparent)
        s.drawBorder(of: Rect(x: 1, y: 1, width: 4, height: 4), width: 0, color: .white)
        #expect(coveredArea(s) == 0)
    }
}

/// Random triangles against exact per-pixel areas from polygon clipping.
@Suite struct ExactAreaTests {
    /// Area of `polygon` inside the unit pixel at (px, py) (Sutherland–Hodgman).
    static func areaInPixel(_ polygon: [Point], _ px: Int, _ py: Int) -> Double {
        var poly = polygon
        let x0 = Double(px), x1 = x0 + 1, y0 = Double(py), y1 = y0 + 1
        let planes: [(Point) -> Double] = [{ $0.x - x0 }, { x1 - $0.x }, { $0.y - y0 }, { y1 - $0.y }]
        for inside in planes {
            var out: [Point] = []
            for i in poly.indices {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                let da = inside(a), db = inside(b)
                if da >= 0 { out.append(a) }
                if (da >= 0) != (db >= 0) {
                    let t = da / (da - db)
                    out.append(Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t))
                }
            }
            poly = out
            if poly.isEmpty { return 0 }
        }
        var twice = 0.0
        for i in poly.indices {
            let a = poly[i], b = poly[(i + 1) % poly.count]
            twice += a.x * b.y - b.x * a.y
        }
        return abs(twice) / 2
    }

    @Test func randomTrianglesMatchExactAreaPerPixel() {
        var rng = SplitMix(seed: 11)
        for _ in 0..<60 {
            let pts = (0..<3).map { _ in Point(x: .random(in: -4...28, using: &rng), y: .random(in: -4...28, using: &rng)) }
            var p = Path()
            p.move(to: pts[0]); p.addLine(to: pts[1]); p.addLine(to: pts[2]); p.close()
            let s = Surface(width: 24, height: 24)
            s.fill(p, color: .white)
            var worst = 0.0
            for y in 0..<24 {
                for x in 0..<24 {
                    let expected = Self.areaInPixel(pts, x, y) * 255
                    worst = max(worst, abs(Double(s.pixel(x: x, y: y).alpha) - expected))
                }
            }
            #expect(worst <= 1, "triangle \(pts): worst pixel off by \(worst)/255")
            // A clip rectangle cuts the same pixels out, untouched elsewhere.
            let window = PixelRect(x: 5, y: 3, width: 13, height: 17)
            let clipped = Surface(width: 24, height: 24)
            clipped.fill(p, color: .white, clip: Clip(rect: window))
            for y in 0..<24 {
                for x in 0..<24 {
                    let inside = window.intersection(PixelRect(x: x, y: y, width: 1, height: 1)) == PixelRect(x: x, y: y, width: 1, height: 1)
                    #expect(clipped.pixel(x: x, y: y) == (inside ? s.pixel(x: x, y: y) : .transparent), "(\(x), \(y))")
                }
            }
        }
    }
}

extension CoverageTests {
    /// An oversized radius becomes half the shorter side: a capsule with circular ends.
    @Test func oversizedRadiusMakesACapsule() {
        let s = Surface(width: 100, height: 40)
        s.fillRoundedRect(Rect(x: 0, y: 0, width: 100, height: 40), radii: CornerRadii(500), color: .white)
        let capsule = 60.0 * 40 + Double.pi * 400
        #expect(abs(coveredArea(s) - capsule) < Self.curveSlack(2 * Double.pi * 20))
        #expect(s.pixel(x: 50, y: 0).alpha == 255)
        #expect(s.pixel(x: 20, y: 20).alpha == 255)
    }
}

@Suite struct ClipMaskTests {
    @Test func glyphMaskThroughClipMaskMultipliesCoverage() {
        let glyph = A8Mask(width: 10, height: 10)
        for y in 0..<10 { for x in 0..<10 { glyph[x, y] = 200 } }
        let half = A8Mask(width: 10, height: 10, originX: 5, originY: 5)
        for y in 0..<10 { for x in 0..<10 { half[x, y] = 128 } }
        let s = Surface(width: 20, height: 20)
        s.draw(glyph, color: .white, offsetX: 5, offsetY: 5, clip: Clip(mask: half))
        #expect(s.pixel(x: 7, y: 7).alpha == UInt8((200 * 128 + 127) / 255))
        #expect(s.pixel(x: 4, y: 4).alpha == 0)
    }

    @Test func intersectingTwoMaskClipsMultipliesThem() {
        let bounds = PixelRect(x: 0, y: 0, width: 40, height: 40)
        let a = Clip(path: Path(ellipseIn: Rect(x: 0, y: 0, width: 40, height: 40)), within: bounds)
        let b = Clip(path: Path(rect: Rect(x: 20, y: 0.5, width: 20, height: 39)), within: bounds)
        let both = a.intersecting(b)
        #expect(both.rect == PixelRect(x: 20, y: 0, width: 20, height: 40))
        let s = Surface(width: 40, height: 40)
        s.fill(Rect(x: 0, y: 0, width: 40, height: 40), color: .white, clip: both)
        // The area inside both, sampled 20×20 per pixel.
        var inside = 0
        for j in 0..<800 {
            for i in 0..<800 {
                let x = (Double(i) + 0.5) / 20, y = (Double(j) + 0.5) / 20
                if (x - 20) * (x - 20) + (y - 20) * (y - 20) <= 400, x >= 20, y >= 0.5, y <= 39.5 { inside += 1 }
            }
        }
        let expected = Double(inside) / 400
        #expect(abs(coveredArea(s) - expected) < CoverageTests.curveSlack(Double.pi * 20), "\(coveredArea(s)) vs \(expected)")
        #expect(s.pixel(x: 10, y: 20).alpha == 0)
    }
}

extension CoverageTests {
    @Test func evenOddLeavesTheOverlapEmpty() {
        var p = Path(rect: Rect(x: 0, y: 0, width: 10, height: 10))
        p.addPath(Path(rect: Rect(x: 5, y: 0, width: 10, height: 10)))
        let s = Surface(width: 20, height: 10)
        s.fill(p, color: .white, rule: .evenOdd)
        #expect(coveredArea(s) == 100)
        #expect(s.pixel(x: 7, y: 5).alpha == 0)
        #expect(s.pixel(x: 2, y: 5).alpha == 255)
    }
}
