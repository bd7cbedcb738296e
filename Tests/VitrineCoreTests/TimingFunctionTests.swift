import Foundation
import PropertyBased
import Testing
@testable import VitrineCore

/// CAMediaTimingFunction's cubic Bézier curves.
@Suite struct TimingFunctionTests {
    @Test func namedCurvesHaveCoreAnimationsControlPoints() {
        func points(_ f: TimingFunction) -> [Double] { [f.c1x, f.c1y, f.c2x, f.c2y] }
        #expect(points(.linear) == [0, 0, 1, 1])
        #expect(points(.easeIn) == [0.42, 0, 1, 1])
        #expect(points(.easeOut) == [0, 0, 0.58, 1])
        #expect(points(.easeInEaseOut) == [0.42, 0, 0.58, 1])
        #expect(points(.default) == [0.25, 0.1, 0.25, 1])
        #expect(TimingFunction.named.count == 5)
        #expect(TimingFunction.named["easeInEaseOut"] == .easeInEaseOut)
        #expect(TimingFunction.named["default"] == .default)
        #expect(TimingFunction.easeIn.description == "easeIn")
    }

    @Test(arguments: ["linear", "easeIn", "easeOut", "easeInEaseOut", "default"])
    func endsAreExact(_ name: String) throws {
        let f = try #require(TimingFunction.named[name])
        #expect(f.progress(at: 0) == 0)
        #expect(f.progress(at: 1) == 1)
        #expect(f.progress(at: -0.5) == 0)
        #expect(f.progress(at: 1.5) == 1)
    }

    @Test func knownValues() throws {
        // easeInEaseOut is symmetric: half way in time is half way in progress.
        expectClose(TimingFunction.easeInEaseOut.progress(at: 0.5), 0.5, tolerance: 1e-9)
        expectClose(TimingFunction.linear.progress(at: 0.3), 0.3, tolerance: 0)
        // easeIn and easeOut mirror each other: easeIn(t) = 1 − easeOut(1 − t).
        for t in stride(from: 0.05, to: 1, by: 0.05) {
            expectClose(TimingFunction.easeIn.progress(at: t), 1 - TimingFunction.easeOut.progress(at: 1 - t), tolerance: 1e-9)
            for f in [TimingFunction.easeIn, .easeOut, .easeInEaseOut, .default] {
                expectClose(f.progress(at: t), referenceProgress(f, at: t), tolerance: 1e-9, "\(f) at \(t)")
            }
        }
        // A custom curve: progress(x(s)) = y(s) for s = 0.5.
        let f = try TimingFunction(controlPoints: 0.1, 0.9, 0.6, -0.2)
        expectClose(f.progress(at: bernstein(0.5, 0.1, 0.6)), bernstein(0.5, 0.9, -0.2), tolerance: 1e-9)
    }

    @Test func solvedParameterIsAccurate() async {
        let unit = Gen.double(in: 0...1)
        await seededCheck(count: 1000, input: unit, Gen.double(in: -2...2), unit, Gen.double(in: -2...2), unit) { c1x, c1y, c2x, c2y, t in
            let f = try TimingFunction(controlPoints: c1x, c1y, c2x, c2y)
            let s = f.solveParameter(forX: t)
            #expect(abs(bernstein(s, c1x, c2x) - t) < 1e-7, "x(\(s)) = \(bernstein(s, c1x, c2x)) for t = \(t)")
            expectClose(f.progress(at: t), referenceProgress(c1x, c1y, c2x, c2y, at: t), tolerance: 1e-5)
        }
    }

    @Test func solvedParameterIsAccurateForExtremeCurves() throws {
        // Flat ends (x' = 0 at s = 0 or 1) defeat Newton's method; the bisection must catch it.
        for points in [[0.0, 0.0, 1.0, 1.0], [1, 0, 0, 1], [1, 0, 1, 1], [0, 1, 0, 1], [0.99, 0, 0.01, 1], [1, 1, 1, 0]] {
            let f = try TimingFunction(controlPoints: points[0], points[1], points[2], points[3])
            for i in 0...2000 {
                let t = Double(i) / 2000
                let s = f.solveParameter(forX: t)
                #expect(abs(bernstein(s, points[0], points[2]) - t) < 1e-7, "\(points) at \(t)")
            }
        }
    }

    @Test func monotoneCurvesGiveMonotoneProgress() async {
        let unit = Gen.double(in: 0...1)
        await seededCheck(count: 200, input: unit, unit, unit, unit) { c1x, c1y, c2x, c2y in
            // With control y in 0…1 the curve's y is monotone in s, and so in t.
            let f = try TimingFunction(controlPoints: c1x, c1y, c2x, c2y)
            var previous = 0.0
            for i in 0...1000 {
                let p = f.progress(at: Double(i) / 1000)
                #expect(p >= previous - 1e-9, "not monotone at \(Double(i) / 1000): \(p) < \(previous)")
                #expect((0...1).contains(p))
                previous = p
            }
        }
    }

    @Test func invalidControlPointsAreRejected() {
        for points in [
            [-0.1, 0, 1, 1], [0, 0, 1.1, 1], [Double.nan, 0, 1, 1], [0, Double.infinity, 1, 1],
            [0, 0, 1, -Double.infinity], [0.5, 101, 0.5, 0], [0.5, 0, 0.5, -200],
        ] {
            expectError("invalid_timing", "\(points)") {
                _ = try TimingFunction(controlPoints: points[0], points[1], points[2], points[3])
            }
        }
        // Overshooting y is fine (a "back" curve).
        #expect((try? TimingFunction(controlPoints: 0.3, -0.5, 0.7, 1.5)) != nil)
    }
}
