import Foundation
import Testing
import VitrineRaster

extension GoldenImage {
    /// Records an issue unless `actual` matches the reference `name`.png in `directory`
    /// within `tolerance`, with the images written as `check` writes them.
    public static func expectMatches(
        _ actual: Surface, named name: String, in directory: URL, tolerance: Int = tolerance,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        if let failure = try check(actual, named: name, in: directory, tolerance: tolerance) {
            Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
        }
    }

    /// Records an issue when `actual` differs from `expected` by more than `tolerance` (0:
    /// in any pixel), with both images and a diff written where failures are written
    /// (`name` names them).
    public static func expectSamePixels(
        _ actual: Surface?, as expected: Surface, name: String, tolerance: Int = 0, _ comment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let actual = try #require(actual, sourceLocation: sourceLocation)
        if let failure = try mismatch(actual, expected: expected, name: name, tolerance: tolerance) {
            Issue.record(Comment(rawValue: "\(comment): \(failure)"), sourceLocation: sourceLocation)
        }
    }
}
