import Foundation
import VitrineRaster

/// Golden-image comparison as Weston does it: an image against a reference PNG within
/// ±`tolerance`/255 per channel. A failure writes the actual image and a diff (mismatches
/// red on a faded copy of the reference) under `.build/golden-failures/`; a missing
/// reference is written and reported; `VITRINE_UPDATE_REFERENCES=1` rewrites references.
public enum GoldenImage {
    /// The package's root directory.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let failuresDirectory = packageRoot.appendingPathComponent(".build/golden-failures")
    public static let tolerance = 2

    /// Compares `actual` with the reference `name`.png in `directory`; returns nil when
    /// they match, else what is wrong and where the images were written.
    public static func check(_ actual: Surface, named name: String, in directory: URL) throws -> String? {
        let reference = directory.appendingPathComponent(name + ".png").path
        if ProcessInfo.processInfo.environment["VITRINE_UPDATE_REFERENCES"] == "1" {
            try actual.writePNG(to: reference)
            return nil
        }
        guard FileManager.default.fileExists(atPath: reference) else {
            try actual.writePNG(to: reference)
            return "no reference for \(name): wrote \(reference); look at it, then commit it"
        }
        let expected = try Surface(contentsOfPNG: reference)
        guard expected.width == actual.width, expected.height == actual.height else {
            let path = try writeFailure(actual, diff: nil, name: name)
            return "\(name): size \(actual.width)x\(actual.height), reference \(expected.width)x\(expected.height); see \(path)"
        }
        let diff = Surface(width: actual.width, height: actual.height)
        var worst = 0, differing = 0
        for y in 0..<actual.height {
            for x in 0..<actual.width {
                let a = actual.pixel(x: x, y: y).argb, e = expected.pixel(x: x, y: y).argb
                var d = 0
                for shift in stride(from: 0, to: 32, by: 8) {
                    d = max(d, abs(Int((a >> UInt32(shift)) & 0xff) - Int((e >> UInt32(shift)) & 0xff)))
                }
                worst = max(worst, d)
                if d > tolerance {
                    differing += 1
                    diff.setPixel(x: x, y: y, PremultipliedColor(unchecked: 0xFFFF_0000))
                } else {
                    let grey = UInt32(((e >> 8) & 0xff) / 3 + 170)
                    diff.setPixel(x: x, y: y, PremultipliedColor(unchecked: 0xFF00_0000 | grey << 16 | grey << 8 | grey))
                }
            }
        }
        guard differing > 0 else { return nil }
        let paths = try writeFailure(actual, diff: diff, name: name)
        return "\(name): \(differing) pixels differ by more than \(tolerance)/255 (worst \(worst)); see \(paths)"
    }

    /// Writes two renderings that should agree, for a person to look at.
    public static func writeMismatch(_ actual: Surface, expected: Surface, name: String) throws -> String {
        try FileManager.default.createDirectory(at: failuresDirectory, withIntermediateDirectories: true)
        let expectedPath = failuresDirectory.appendingPathComponent(name + ".expected.png").path
        try expected.writePNG(to: expectedPath)
        return try writeFailure(actual, diff: nil, name: name) + " and " + expectedPath
    }

    @discardableResult
    private static func writeFailure(_ actual: Surface, diff: Surface?, name: String) throws -> String {
        try FileManager.default.createDirectory(at: failuresDirectory, withIntermediateDirectories: true)
        let actualPath = failuresDirectory.appendingPathComponent(name + ".actual.png").path
        try actual.writePNG(to: actualPath)
        guard let diff else { return actualPath }
        let diffPath = failuresDirectory.appendingPathComponent(name + ".diff.png").path
        try diff.writePNG(to: diffPath)
        return actualPath + " and " + diffPath
    }
}
