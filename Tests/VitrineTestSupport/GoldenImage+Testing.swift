import Testing
import VitrineRaster

extension GoldenImage {
    /// Records an issue when `actual` differs from `expected` in any pixel, with the actual
    /// and expected images written where failures are written (`name` names them).
    public static func expectSamePixels(
        _ actual: Surface?, as expected: Surface, name: String, _ comment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let actual = try #require(actual, sourceLocation: sourceLocation)
        guard !actual.hasSamePixels(as: expected) else { return }
        let paths = try writeMismatch(actual, expected: expected, name: name)
        Issue.record(Comment(rawValue: "\(comment): differs from the expected pixels; see \(paths)"), sourceLocation: sourceLocation)
    }
}
