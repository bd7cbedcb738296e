import Foundation
import Testing
import VitrineCore

/// Keyframe animations along a path (CAKeyframeAnimation's `path`, `rotationMode` and
/// `cubicPaced`), checked against values worked out by hand.
@Suite struct PathKeyframeTests {
    /// A layer animated by `keyframes` on `position` over `duration` seconds from time 0.
    func scene(_ keyframes: Keyframes, duration: Double) throws -> Scene {
        let s = makeSceneWithLayer()
        try commit(s, at: 0) { $0.addAnimation(.keyframe("position", keyframes, duration: duration), forKey: "move", to: "box") }
        return s
    }

    func position(_ s: Scene, _ t: Double) throws -> Point { try #require(s.presentationValue("position", of: "box", at: t).point) }
    func angle(_ s: Scene, _ t: Double) throws -> Double { try #require(s.presentationValue("transform.rotation.z", of: "box", at: t).number) }

    static func path(_ svg: String) -> PathData { try! PathData(parsing: svg) }

    static func near(_ a: Point, _ b: Point, _ tolerance: Double = 1e-6) -> Bool { abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance }

    /// Linear: every segment takes the same share of the time; paced: the same speed all
    /// the way (150 px in 3 s: 50 px/s).
    @Test func linearAndPacedAlongLines() throws {
        let corner = Self.path("M0 0 L100 0 L100 50")
        let linear = try scene(Keyframes(values: [], path: corner), duration: 2)
        #expect(Self.near(try position(linear, 0.5), Point(x: 50, y: 0)))
        #expect(Self.near(try position(linear, 1.5), Point(x: 100, y: 25)))
        let paced = try scene(Keyframes(values: [], calculationMode: .paced, path: corner), duration: 3)
        for (t, want) in [(0.6, Point(x: 30, y: 0)), (1.9, Point(x: 95, y: 0)), (2.5, Point(x: 100, y: 25)), (2.9, Point(x: 100, y: 45))] {
            #expect(Self.near(try position(paced, t), want), "t = \(t)")
        }
        let discrete = try scene(Keyframes(values: [], calculationMode: .discrete, path: corner), duration: 3)
        #expect(try position(discrete, 0.5) == Point(x: 0, y: 0))
        #expect(try position(discrete, 1.5) == Point(x: 100, y: 0))
        #expect(try position(discrete, 2.5) == Point(x: 100, y: 50))
    }

    /// A quarter circle of radius 100 (one cubic) then a line: paced motion covers equal
    /// arc lengths in equal times, measured here by summing 20 000 tiny chords.
    @Test func pacedAlongACurveKeepsItsSpeed() throws {
        let k = 0.552_284_749_830_793_4 * 100
        let svg = "M100 0 C100 \(k) \(k) 100 0 100 L-100 100"
        func curve(_ t: Double) -> Point {
            let u = 1 - t
            return Point(x: u * u * u * 100 + 3 * u * u * t * 100 + 3 * u * t * t * k, y: 3 * u * u * t * k + 3 * u * t * t * 100 + t * t * t * 100)
        }
        var arc = 0.0
        var previous = curve(0)
        var table: [(Double, Point)] = [(0, previous)]
        for i in 1...20_000 {
            let p = curve(Double(i) / 20_000)
            arc += ((p.x - previous.x) * (p.x - previous.x) + (p.y - previous.y) * (p.y - previous.y)).squareRoot()
            table.append((arc, p))
            previous = p
        }
        let total = arc + 100
        let s = try scene(Keyframes(values: [], calculationMode: .paced, path: Self.path(svg)), duration: 4)
        for t in [0.25, 0.5, 1.0, 1.7, 2.5, 3.2] {
            let distance = total * t / 4
            let want: Point
            if distance <= arc {
                let i = table.firstIndex { $0.0 >= distance }!
                want = table[i].1
            } else {
                want = Point(x: -(distance - arc), y: 100)
            }
            let got = try position(s, t)
            #expect(Self.near(got, want, 0.02), "t = \(t): \(got) vs \(want)")
        }
    }

    /// rotationMode turns the layer to the motion's direction: along +x, then +y (90°),
    /// and 180° more for autoReverse; on the quarter circle, the tangent at its middle is
    /// 135°.
    @Test func rotationFollowsTheTangent() throws {
        let corner = Self.path("M0 0 L100 0 L100 50")
        let auto = try scene(Keyframes(values: [], path: corner, rotationMode: .auto), duration: 2)
        #expect(abs(try angle(auto, 0.5)) < 1e-9)
        #expect(abs(try angle(auto, 1.5) - Double.pi / 2) < 1e-9)
        let reverse = try scene(Keyframes(values: [], path: corner, rotationMode: .autoReverse), duration: 2)
        #expect(abs(abs(try angle(reverse, 0.5)) - Double.pi) < 1e-9)
        #expect(abs(try angle(reverse, 1.5) + Double.pi / 2) < 1e-9)
        let k = 0.552_284_749_830_793_4 * 100
        let arc = try scene(
            Keyframes(values: [], calculationMode: .paced, path: Self.path("M100 0 C100 \(k) \(k) 100 0 100"), rotationMode: .auto), duration: 1)
        #expect(abs(try angle(arc, 0.5) - 3 * Double.pi / 4) < 1e-9)
        #expect(Self.near(try position(arc, 0.5), Point(x: 100 * 0.5.squareRoot(), y: 100 * 0.5.squareRoot()), 0.03))
        // Without a rotation mode the layer keeps its own rotation.
        let plain = try scene(Keyframes(values: [], path: corner), duration: 2)
        #expect(try angle(plain, 1.5) == 0)
    }

    /// cubicPaced: the Catmull-Rom curve through the values, at constant speed.
    @Test func cubicPacedKeepsItsSpeed() throws {
        let values: [Value] = [.point(Point(x: 0, y: 0)), .point(Point(x: 100, y: 0)), .point(Point(x: 100, y: 100))]
        let s = try scene(Keyframes(values: values, calculationMode: .cubicPaced), duration: 1)
        let cubic = try scene(Keyframes(values: values, calculationMode: .cubic), duration: 1)
        var points: [Point] = []
        for i in 0...200 { points.append(try position(s, Double(i) / 200 * 0.999)) }
        let steps = zip(points, points.dropFirst()).map { (($1.x - $0.x) * ($1.x - $0.x) + ($1.y - $0.y) * ($1.y - $0.y)).squareRoot() }
        let mean = steps.reduce(0, +) / Double(steps.count)
        #expect(steps.allSatisfy { abs($0 - mean) < 1e-3 * mean }, "steps \(steps.min()!)…\(steps.max()!)")
        #expect(points.first == Point(x: 0, y: 0) && Self.near(points.last!, Point(x: 100, y: 100), 0.5))
        // The same curve as cubic mode: both pass (100, 0); cubic at the keyframe's time, cubicPaced where the length says.
        #expect(Self.near(try position(cubic, 0.5), Point(x: 100, y: 0)))
        #expect(points.contains { Self.near($0, Point(x: 100, y: 0), 0.5) })
    }

    @Test func badPathsAreRefused() throws {
        let s = makeSceneWithLayer()
        #expect(throws: CoreError.self) {
            try commit(s, at: 0) { $0.addAnimation(.keyframe("position", Keyframes(values: [], path: Self.path("M10 10")), duration: 1), to: "box") }
        }
        #expect(throws: CoreError.self) {
            try commit(s, at: 0) { $0.addAnimation(.keyframe("opacity", Keyframes(values: [], path: Self.path("M0 0 L1 1")), duration: 1), to: "box") }
        }
        #expect(throws: CoreError.self) {
            try commit(s, at: 0) {
                $0.addAnimation(.keyframe("position", Keyframes(values: [], keyTimes: [0, 1], path: Self.path("M0 0 L1 1 L2 2")), duration: 1), to: "box")
            }
        }
    }
}
