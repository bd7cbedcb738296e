import Foundation
import Testing
@testable import VitrineCore

/// Flattening and measuring paths: lengths are the curves' own, whatever the tolerance.
@Suite struct PathGeometryTests {
    @Test func lengthsAreTheCurvesOwn() throws {
        // A quarter circle of radius 100 as one cubic: 157.08 (the cubic is 0.027 % long at most).
        let data = try PathData(parsing: "M100 0 C100 55.22847498 55.22847498 100 0 100")
        let coarse = data.elements.flattened(tolerance: 0.5)[0], fine = data.elements.flattened(tolerance: 1e-5)[0]
        var chords = 0.0
        for i in fine.points.indices.dropFirst() { chords += pointDistance(fine.points[i - 1], fine.points[i]) }
        // 1 000 chords fall 2e-5 short of the curve; Gauss–Legendre over 10 does not.
        #expect(abs(coarse.length - fine.length) < 1e-7)
        #expect(abs(coarse.length - chords) < 1e-4)
        #expect(abs(coarse.length - 50 * Double.pi) < 0.05)
    }
}
