import Foundation
import Testing
import VitrineCore
import VitrineProtocol
import VitrineRaster
import VitrineRender

/// Golden-image comparison as Weston does it: the actual image against
/// `References/<name>.png` within ±2/255 per channel. A failure writes the actual image and
/// a diff under `.build/golden-failures/`; a missing reference is written and fails;
/// `VITRINE_UPDATE_REFERENCES=1` rewrites references.
enum GoldenImage {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let referencesDirectory = testsDirectory.appendingPathComponent("References")
    static let scenesDirectory = testsDirectory.appendingPathComponent("Scenes")
    static let failuresDirectory = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/golden-failures")
    static let tolerance = 2

    static func check(_ actual: Surface, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = referencesDirectory.appendingPathComponent(name + ".png").path
        if ProcessInfo.processInfo.environment["VITRINE_UPDATE_REFERENCES"] == "1" {
            try actual.writePNG(to: reference)
            return
        }
        guard FileManager.default.fileExists(atPath: reference) else {
            try actual.writePNG(to: reference)
            Issue.record("no reference for \(name): wrote \(reference); look at it, then commit it", sourceLocation: sourceLocation)
            return
        }
        let expected = try Surface(contentsOfPNG: reference)
        guard expected.width == actual.width, expected.height == actual.height else {
            try writeFailure(actual, diff: nil, name: name)
            Issue.record("\(name): size \(actual.width)x\(actual.height), reference \(expected.width)x\(expected.height)", sourceLocation: sourceLocation)
            return
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
        if differing > 0 {
            let paths = try writeFailure(actual, diff: diff, name: name)
            Issue.record("\(name): \(differing) pixels differ by more than \(tolerance)/255 (worst \(worst)); see \(paths)", sourceLocation: sourceLocation)
        }
    }

    /// Writes a mismatch between two renderings for a person to look at.
    static func writeFailure(_ actual: Surface, expected: Surface, name: String) throws -> String {
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

    /// A scene from `Scenes/<name>.json` on a fresh model, started at time 0.
    static func loadScene(_ name: String) throws -> (Scene, SceneDescription) {
        let description = try SceneDescription(contentsOf: scenesDirectory.appendingPathComponent(name + ".json"))
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: description.size ?? Size(width: 320, height: 200))
        try description.apply(to: scene, root: "root", at: 0)
        return (scene, description)
    }

    static func renderer() -> Renderer {
        StandardKinds.renderer(imageDirectory: scenesDirectory.path)
    }
}
