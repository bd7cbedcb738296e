import Foundation
import VitrineRaster

/// Golden-image comparison as Weston does it, for every test target: an image against a
/// reference PNG, or against another rendering, within ±`tolerance`/255 per channel.
///
/// A failure writes `<name>.actual.png` and `<name>.diff.png` (mismatches red on a faded
/// copy of the expected image) under `.build/golden-failures/` — in a folder named after
/// the test target for a reference (`VitrineRasterTests/card.actual.png`), and with
/// `<name>.expected.png` beside them for another rendering. A missing reference is written
/// and reported; `VITRINE_UPDATE_REFERENCES=1` rewrites references. The expectations that
/// record issues are in `GoldenImage+Testing.swift`.
public enum GoldenImage {
    /// The package's root directory.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Where failures are written; made when first asked for, so a test may write into it.
    public static let failuresDirectory: URL = {
        let url = packageRoot.appendingPathComponent(".build/golden-failures")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
    /// The default tolerance of a comparison with a reference, per channel out of 255.
    public static let tolerance = 2

    /// How two images of one size differ.
    public struct Difference {
        /// How many pixels have a channel off by more than the tolerance.
        public let differing: Int
        /// The largest difference of any channel.
        public let worst: Int
        /// The expected image faded, with the differing pixels red.
        public let image: Surface
    }

    /// Compares two images of one size channel by channel.
    public static func difference(_ actual: Surface, _ expected: Surface, tolerance: Int) -> Difference {
        precondition(actual.width == expected.width && actual.height == expected.height, "images of different sizes")
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
        return Difference(differing: differing, worst: worst, image: diff)
    }

    /// Compares `actual` with the reference `name`.png in `directory`; returns nil when
    /// they match, else what is wrong and where the images were written.
    public static func check(_ actual: Surface, named name: String, in directory: URL, tolerance: Int = tolerance) throws -> String? {
        let reference = directory.appendingPathComponent(name + ".png").path
        // Failures of each target apart: two targets may have references of one name.
        let failures = failuresDirectory.appendingPathComponent(directory.deletingLastPathComponent().lastPathComponent)
        if ProcessInfo.processInfo.environment["VITRINE_UPDATE_REFERENCES"] == "1" {
            try actual.writePNG(to: reference)
            return nil
        }
        guard FileManager.default.fileExists(atPath: reference) else {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try actual.writePNG(to: reference)
            return "no reference for \(name): wrote \(reference); look at it, then commit it"
        }
        let expected = try Surface(contentsOfPNG: reference)
        guard expected.width == actual.width, expected.height == actual.height else {
            let path = try writeFailure(actual, diff: nil, name: name, in: failures)
            return "\(name): size \(actual.width)x\(actual.height), reference \(expected.width)x\(expected.height); see \(path)"
        }
        let difference = difference(actual, expected, tolerance: tolerance)
        guard difference.differing > 0 else {
            // What an earlier failure wrote would mislead now.
            for suffix in [".actual.png", ".diff.png"] {
                try? FileManager.default.removeItem(at: failures.appendingPathComponent(name + suffix))
            }
            return nil
        }
        let paths = try writeFailure(actual, diff: difference.image, name: name, in: failures)
        return "\(name): \(difference.differing) pixels differ by more than \(tolerance)/255 (worst \(difference.worst)); see \(paths)"
    }

    /// Compares two renderings that should agree within `tolerance` (0: exactly); returns
    /// nil when they do, else what differs and where both images and a diff were written
    /// (`name` names them).
    public static func mismatch(_ actual: Surface, expected: Surface, name: String, tolerance: Int = 0) throws -> String? {
        guard actual.width == expected.width, actual.height == expected.height else {
            return "size \(actual.width)x\(actual.height), expected \(expected.width)x\(expected.height); see "
                + (try writeMismatch(actual, expected: expected, diff: nil, name: name))
        }
        if tolerance == 0, actual.hasSamePixels(as: expected) { return nil }
        let difference = difference(actual, expected, tolerance: tolerance)
        guard difference.differing > 0 else { return nil }
        let paths = try writeMismatch(actual, expected: expected, diff: difference.image, name: name)
        return "\(difference.differing) pixels differ by more than \(tolerance)/255 (worst \(difference.worst)); see \(paths)"
    }

    private static func writeMismatch(_ actual: Surface, expected: Surface, diff: Surface?, name: String) throws -> String {
        try FileManager.default.createDirectory(at: failuresDirectory, withIntermediateDirectories: true)
        let expectedPath = failuresDirectory.appendingPathComponent(name + ".expected.png").path
        try expected.writePNG(to: expectedPath)
        return try writeFailure(actual, diff: diff, name: name, in: failuresDirectory) + " and " + expectedPath
    }

    private static func writeFailure(_ actual: Surface, diff: Surface?, name: String, in directory: URL) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let actualPath = directory.appendingPathComponent(name + ".actual.png").path
        try actual.writePNG(to: actualPath)
        guard let diff else { return actualPath }
        let diffPath = directory.appendingPathComponent(name + ".diff.png").path
        try diff.writePNG(to: diffPath)
        return actualPath + " and " + diffPath
    }
}
