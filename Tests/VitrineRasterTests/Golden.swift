import Foundation
import Testing
import VitrineRaster
import VitrineTestSupport

/// The raster tests' reference images, `Golden/` beside this file.
let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

/// Compares a rendering with `Golden/<name>.png` through `GoldenImage`, each channel within
/// `tolerance` (1: the kernels are exact up to rounding).
func expectMatchesGolden(_ surface: Surface, _ name: String, tolerance: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try GoldenImage.expectMatches(surface, named: name, in: goldenDirectory, tolerance: tolerance, sourceLocation: sourceLocation)
}
