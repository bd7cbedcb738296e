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

    static func renderer() -> Renderer {
        StandardKinds.renderer(imageDirectory: scenesDirectory.path)
    }
}
