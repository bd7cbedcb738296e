import Foundation
import Testing
@testable import VitrineRaster

/// Compares a rendering with `Golden/<name>.png` next to this file, Weston-style: each
/// channel may differ by `tolerance`. On a mismatch it writes `<name>.actual.png` and a
/// `<name>.diff.png` (differing pixels in red) beside the reference and fails; when the
/// reference is missing it writes one and fails, so a new golden is always looked at.
func expectMatchesGolden(_ surface: Surface, _ name: String, tolerance: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    let reference = directory.appendingPathComponent("\(name).png").path
    let actual = directory.appendingPathComponent("\(name).actual.png").path
    let diffPath = directory.appendingPathComponent("\(name).diff.png").path
    guard FileManager.default.fileExists(atPath: reference) else {
        try surface.writePNG(to: reference)
        Issue.record("no golden image for \(name); wrote \(reference) — look at it and commit it", sourceLocation: sourceLocation)
        return
    }
    let expected = try Surface(contentsOfPNG: reference)
    guard expected.width == surface.width, expected.height == surface.height else {
        try surface.writePNG(to: actual)
        Issue.record("\(name): size \(surface.width)×\(surface.height), golden is \(expected.width)×\(expected.height)", sourceLocation: sourceLocation)
        return
    }
    let diff = Surface(width: surface.width, height: surface.height)
    var bad = 0, worst = 0
    for y in 0..<surface.height {
        for x in 0..<surface.width {
            let a = surface.pixel(x: x, y: y).argb, b = expected.pixel(x: x, y: y).argb
            var d = 0
            for shift in stride(from: UInt32(0), through: 24, by: 8) {
                d = max(d, abs(Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF)))
            }
            worst = max(worst, d)
            if d > tolerance {
                bad += 1
                diff.setPixel(x: x, y: y, PremultipliedColor(unchecked: 0xFFFF_0000))
            } else {
                diff.setPixel(x: x, y: y, PremultipliedColor(unchecked: 0x4000_0000))
            }
        }
    }
    if bad > 0 {
        try surface.writePNG(to: actual)
        try diff.writePNG(to: diffPath)
        Issue.record("\(name): \(bad) pixels differ (worst by \(worst)); see \(actual) and \(diffPath)", sourceLocation: sourceLocation)
    } else {
        try? FileManager.default.removeItem(atPath: actual)
        try? FileManager.default.removeItem(atPath: diffPath)
    }
}
