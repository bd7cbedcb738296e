import CairoReference
import Glibc
import Testing
import VitrineCore
@testable import VitrineRaster

/// Fills and strokes drawn by Vitrine and by cairo on the same path, compared pixel by
/// pixel as coverage (white on transparent): within ±2/255 where an edge passes, equal
/// everywhere else. cairo draws 16 × 16 times larger and is averaged down, since at
/// 1 × it takes a shallow edge's coverage from a few sample rows per pixel (up to 16/255
/// off the exact area, which Vitrine computes).
@Suite struct CairoComparisonTests {
    /// The largest coverage differences, out of 255.
    struct Difference: CustomStringConvertible {
        /// Where cairo's 3 × 3 neighbourhood is all covered or all empty.
        var inside = 0
        /// Where an edge passes.
        var edge = 0
        var description: String { "edge ±\(edge)/255, inside ±\(inside)/255" }
    }

    /// Draws with both and measures, leaving out the pixels `skip` names.
    static func compare(
        width: Int = 200, height: Int = 200, skip: (Int, Int) -> Bool = { _, _ in false }, _ draw: (Surface) -> Void, _ cairo: (CairoCanvas) -> Void
    ) -> Difference {
        let ours = Surface(width: width, height: height)
        draw(ours)
        let theirs = CairoCanvas.supersampled(width: width, height: height, factor: 16, cairo)
        var d = Difference()
        for y in 0..<height {
            for x in 0..<width where !skip(x, y) {
                let a = Int(ours.pixel(x: x, y: y).alpha), b = Int(theirs.pixel(x: x, y: y).alpha)
                var flat = true
                for yy in max(0, y - 1)...min(height - 1, y + 1) {
                    for xx in max(0, x - 1)...min(width - 1, x + 1) {
                        let c = theirs.pixel(x: xx, y: yy).alpha
                        if c != b || (c != 0 && c != 255) { flat = false }
                    }
                }
                if flat { d.inside = max(d.inside, abs(a - b)) } else { d.edge = max(d.edge, abs(a - b)) }
            }
        }
        return d
    }

    static func expectAgreement(_ d: Difference, _ what: String, edge: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(d.edge <= edge && d.inside == 0, "\(what): \(d)", sourceLocation: sourceLocation)
    }

    static func path(_ svg: String) -> Path { Path(try! PathData(parsing: svg)) }

    /// Two circles wound the same way: one disc by the non-zero rule, a ring by even-odd.
    @Test func fillRules() {
        var rings = Path(ellipseIn: Rect(x: 20.3, y: 20.6, width: 160, height: 150))
        rings.addPath(Path(ellipseIn: Rect(x: 60.1, y: 55.4, width: 70, height: 90)))
        for rule in [FillRule.nonZero, .evenOdd] {
            let d = Self.compare({ $0.fill(rings, color: .white, rule: rule, tolerance: Flatness.fine) }, { $0.fill(rings, color: .white, rule: rule) })
            Self.expectAgreement(d, "\(rule)")
        }
    }

    /// Where a star's edges cross, Vitrine's coverage is the winding number's mean over the
    /// pixel, clamped (or folded) — not the area wound: those few pixels are left out.
    @Test func selfCrossingStar() {
        let points = [Point(x: 100, y: 10.3), Point(x: 150.7, y: 185), Point(x: 12, y: 72.4), Point(x: 188, y: 72.4), Point(x: 49.6, y: 185)]
        let star = Self.path("M100 10.3 L150.7 185 L12 72.4 L188 72.4 L49.6 185 Z")
        // The five crossing points.
        var crossings: [Point] = []
        for i in 0..<5 {
            let (a, b) = (points[i], points[(i + 1) % 5])
            for j in 0..<5 where j != i && (j + 1) % 5 != i && (i + 1) % 5 != j {
                let (c, e) = (points[j], points[(j + 1) % 5])
                let den = (b.x - a.x) * (e.y - c.y) - (b.y - a.y) * (e.x - c.x)
                let t = ((c.x - a.x) * (e.y - c.y) - (c.y - a.y) * (e.x - c.x)) / den
                let u = ((c.x - a.x) * (b.y - a.y) - (c.y - a.y) * (b.x - a.x)) / den
                if t > 0, t < 1, u > 0, u < 1 { crossings.append(Point(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))) }
            }
        }
        #expect(crossings.count == 10)
        let near = { (x: Int, y: Int) in crossings.contains { abs(Double(x) + 0.5 - $0.x) < 2 && abs(Double(y) + 0.5 - $0.y) < 2 } }
        for rule in [FillRule.nonZero, .evenOdd] {
            let d = Self.compare(skip: near, { $0.fill(star, color: .white, rule: rule) }, { $0.fill(star, color: .white, rule: rule) })
            Self.expectAgreement(d, "\(rule)")
        }
    }

    @Test func capsAndJoins() {
        let zig = Self.path("M20.3 150 L60 40.6 L100.2 150 L140 40 L180.5 150")
        for cap in LineCap.allCases {
            for join in LineJoin.allCases {
                for limit in [4.0, 2.5] where join == .miter || limit == 4 {
                    let style = StrokeStyle(width: 13, cap: cap, join: join, miterLimit: limit)
                    let d = Self.compare({ $0.stroke(Self.path("M20.3 150 L60 40.6 L100.2 150 L140 40 L180.5 150"), style: style, color: .white) }) {
                        $0.stroke(zig, style: style, color: .white)
                    }
                    Self.expectAgreement(d, "\(cap) \(join) limit \(limit)")
                }
            }
        }
    }

    @Test func dashesWithPhase() {
        let circle = Path(ellipseIn: Rect(x: 30.5, y: 30.25, width: 140, height: 140))
        let wave = Self.path("M10 160 C60 120 100 190 140 150 S 170 140 190 120")
        for (path, style) in [
            (circle, StrokeStyle(width: 6, cap: .round, dashes: [20, 12], dashPhase: 7)),
            (wave, StrokeStyle(width: 5, dashes: [9, 5, 2, 5], dashPhase: -3)),
            (wave, StrokeStyle(width: 4, cap: .square, dashes: [10], dashPhase: 25)),
        ] {
            let d = Self.compare({ $0.stroke(path, style: style, color: .white) }, { $0.stroke(path, style: style, color: .white) })
            // The ends of dashes on curves land up to 0.04 px from where cairo puts them.
            Self.expectAgreement(d, "\(style.dashes) from \(style.dashPhase)", edge: 10)
        }
    }

    /// A curve stroked under a non-uniform scale: both draw the stroke in path space, so
    /// it is wider along the stretched axis.
    @Test func curvesUnderScale() {
        let blob = Self.path("M50 10 C80 5 95 40 85 60 C75 85 30 95 20 70 C10 45 20 15 50 10 Z")
        for t in [
            AffineTransform.identity, AffineTransform(scaleX: 2, y: 1.3),
            AffineTransform(rotationAngle: 0.4).concatenating(AffineTransform(translationX: 60, y: 20)),
        ] {
            let style = StrokeStyle(width: 6, join: .round)
            let d = Self.compare({ $0.stroke(blob, style: style, color: .white, transform: t) }, { $0.stroke(blob, style: style, color: .white, transform: t) })
            Self.expectAgreement(d, "under \(t)")
        }
    }
}
