import VitrineCodecs
import Foundation
import Testing
import VitrineCore
import VitrineProtocol
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// The render tests' scenes and references.
enum Golden {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let referencesDirectory = testsDirectory.appendingPathComponent("References")
    static let scenesDirectory = testsDirectory.appendingPathComponent("Scenes")

    static func check(_ actual: Surface, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try GoldenImage.expectMatches(actual, named: name, in: referencesDirectory, sourceLocation: sourceLocation)
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

    /// A fresh scene of `size` holding what the scene-file JSON `json` describes, at time 0.
    static func scene(size: Size, _ json: String) throws -> Scene {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: size)
        try SceneDescription(json: JSON(parsing: json)).apply(to: scene, root: "root", at: 0)
        return scene
    }

    /// Checks that `docs/examples/<name>.json` drawn at `time` is `docs/examples/<name>.png`,
    /// its screenshot.
    static func checkExample(_ name: String, at time: Double, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let examples = testsDirectory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/examples")
        let description = try SceneDescription(contentsOf: examples.appendingPathComponent(name + ".json"))
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: try #require(description.size, sourceLocation: sourceLocation))
        try description.apply(to: scene, root: "root", at: 0)
        _ = scene.advance(to: time)
        let image = try StandardKinds.renderer(imageDirectory: examples.path, loader: ImageDecoder.readImage).snapshot(scene, root: "root", at: time)
        let expected = try Surface(contentsOfPNG: examples.appendingPathComponent(name + ".png").path)
        try GoldenImage.expectSamePixels(
            image, as: expected, name: name + "-example", tolerance: GoldenImage.tolerance, "\(name) example", sourceLocation: sourceLocation)
    }

    static func renderer() -> Renderer {
        StandardKinds.renderer(imageDirectory: scenesDirectory.path, loader: ImageDecoder.readImage)
    }
}
