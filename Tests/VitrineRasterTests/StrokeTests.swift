import Glibc
import Testing
import VitrineCore
@testable import VitrineRaster

/// Fills by both rules and strokes with every cap, join, miter limit and dash setting,
/// against references inspected by eye; and the stroke's geometry measured.
@Suite struct StrokeTests {
    static let ink = PremultipliedColor(Color(red: 0.1, green: 0.2, blue: 0.5))
    static let paper = PremultipliedColor(Color(red: 0.97, green: 0.96, blue: 0.92))
    static let guide = PremultipliedColor(Color(red: 0.9, green: 0.2, blue: 0.1))

    static func path(_ svg: String) -> Path { Path(try! PathData(parsing: svg)) }

    @Test func fillRules() throws {
        let s = Surface(width: 240, height: 120)
        s.clear(Self.paper)
        let star = "M60 10 L90 105 L10 45 L110 45 L30 105 Z"
        s.fill(Self.path(star), color: Self.ink, rule: .nonZero)
        s.fill(Self.path(star), color: Self.ink, transform: AffineTransform(translationX: 120, y: 0), rule: .evenOdd)
        try expectMatchesGolden(s, "shape-fill-rules")
    }

    /// A surface of paper with each path stroked in ink, its centre line in red over it.
    static func strokes(width: Int, height: Int, _ items: [(Path, StrokeStyle)]) -> Surface {
        let s = Surface(width: width, height: height)
        s.clear(paper)
        for (p, style) in items {
            s.stroke(p, style: style, color: ink)
            s.stroke(p, style: StrokeStyle(width: 1), color: guide)
        }
        return s
    }

    @Test func caps() throws {
        let s = Self.strokes(
            width: 200, height: 130,
            LineCap.allCases.enumerated().map { i, cap in
                let y = 25.5 + Double(i) * 40
                return (Self.path("M40 \(y) L160 \(y)"), StrokeStyle(width: 20, cap: cap))
            })
        try expectMatchesGolden(s, "shape-caps")
    }

    @Test func joins() throws {
        let s = Self.strokes(
            width: 300, height: 120,
            LineJoin.allCases.enumerated().map { i, join in
                (Self.path("M20 90 L50 25 L80 90").applying(AffineTransform(translationX: Double(i) * 100, y: 0)), StrokeStyle(width: 16, join: join))
            })
        try expectMatchesGolden(s, "shape-joins")
    }

    /// A 30° corner's miter is 1/sin(15°) ≈ 3.86 line widths long: drawn under limit 4,
    /// bevelled under limit 3.8.
    @Test func miterLimit() throws {
        let s = Self.strokes(
            width: 220, height: 120,
            [4.0, 3.8].enumerated().map { i, limit in
                let tip = 60 + Double(i) * 110, spread = 70 * tan(15 * Double.pi / 180)
                return (Self.path("M\(tip - spread) 100 L\(tip) 30 L\(tip + spread) 100"), StrokeStyle(width: 8, join: .miter, miterLimit: limit))
            })
        try expectMatchesGolden(s, "shape-miter-limit")
        // The miter reaches 8 / 2 / sin(15°) ≈ 15.5 px above the tip (y = 30), the bevel 4·cos(15°) ≈ 3.9 px.
        #expect(s.pixel(x: 60, y: 16).alpha > 200)
        #expect(s.pixel(x: 170, y: 24) == Self.paper)
    }

    @Test func dashes() throws {
        let s = Surface(width: 260, height: 170)
        s.clear(Self.paper)
        let rows: [(StrokeStyle, String)] = [
            (StrokeStyle(width: 8, dashes: [30, 10]), "M20 20.5 L240 20.5"),
            (StrokeStyle(width: 8, dashes: [30, 10], dashPhase: 15), "M20 50.5 L240 50.5"),
            (StrokeStyle(width: 8, cap: .round, dashes: [0, 16]), "M20 80.5 L240 80.5"),
            (StrokeStyle(width: 6, cap: .square, join: .round, dashes: [24, 8, 4, 8], dashPhase: -6), "M20 150 L70 105 L130 150 L190 105 Q240 105 240 150"),
        ]
        for (style, svg) in rows {
            s.stroke(Self.path(svg), style: style, color: Self.ink)
        }
        try expectMatchesGolden(s, "shape-dashes")
        // Phase 0 starts with a dash, phase 15 with the dash's second half.
        #expect(s.pixel(x: 22, y: 20).alpha > 250)
        #expect(s.pixel(x: 36, y: 50).alpha > 250)
        #expect(s.pixel(x: 40, y: 50) == Self.paper)
        #expect(s.pixel(x: 55, y: 50).alpha > 250)
    }

    /// A 10 px stroke of a circle of radius 40 covers π((45)² − (35)²) px².
    @Test func strokeCoversItsArea() {
        let s = Surface(width: 120, height: 120)
        s.stroke(Path(ellipseIn: Rect(x: 20.3, y: 20.6, width: 80, height: 80)), style: StrokeStyle(width: 10), color: .white)
        let expected = Double.pi * (45 * 45 - 35 * 35)
        // Four cubics approximate the circle to 0.03 % of its radius.
        #expect(abs(coveredArea(s) - expected) < 4)
    }

    /// strokeStart and strokeEnd cut the path by length: a quarter of a 200 px line.
    @Test func trimmedByLength() {
        let s = Surface(width: 240, height: 20)
        let p = Self.path("M20 10 L120 10 L220 10")
        s.stroke(p, style: StrokeStyle(width: 4, start: 0.25, end: 0.5), color: .white)
        #expect(abs(coveredArea(s) - 50 * 4) < 0.01)
        #expect(s.pixel(x: 69, y: 10).alpha == 0)
        #expect(s.pixel(x: 70, y: 10).alpha == 255)
        #expect(s.pixel(x: 119, y: 10).alpha == 255)
        #expect(s.pixel(x: 120, y: 10).alpha == 0)
    }

    /// Scaled 4×, a 1 px stroke of a curve is 4 px wide and its circle stays round.
    @Test func scaledStrokeStaysSharp() {
        let s = Surface(width: 200, height: 200)
        let circle = Path(ellipseIn: Rect(x: 5, y: 5, width: 40, height: 40))
        s.stroke(circle, style: StrokeStyle(width: 1), color: .white, transform: AffineTransform(scaleX: 4, y: 4))
        #expect(abs(coveredArea(s) - 2 * Double.pi * 80 * 4) < 2)
        // Fully covered on the middle of the ring at every angle.
        for k in 0..<16 {
            let a = Double(k) * Double.pi / 8
            let x = Int((100 + 80 * cos(a)).rounded(.down)), y = Int((100 + 80 * sin(a)).rounded(.down))
            #expect(s.pixel(x: x, y: y).alpha >= 250, "angle \(k)")
        }
    }
}
