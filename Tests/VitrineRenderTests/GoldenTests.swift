import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineRender

/// Every scene in `Scenes/` rendered at its time and compared with its reference image.
@Suite struct GoldenTests {
    /// Scenes drawn at a time other than 0.
    static let times: [String: Double] = ["animation-midflight": 0.5, "text-color-animation": 0.5, "gradient-color-names-animation": 0.5]

    static var sceneNames: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: Golden.scenesDirectory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    @Test(arguments: sceneNames)
    func sceneMatchesReference(_ name: String) throws {
        let (scene, _) = try Golden.loadScene(name)
        let time = Self.times[name] ?? 0
        _ = scene.advance(to: time)
        let image = try Golden.renderer().snapshot(scene, root: "root", at: time)
        try Golden.check(image, named: name)
    }

    @Test func everySceneHasAReference() {
        #expect(Self.sceneNames.count >= 25)
        for name in Self.sceneNames {
            #expect(FileManager.default.fileExists(atPath: Golden.referencesDirectory.appendingPathComponent(name + ".png").path), "\(name)")
        }
    }
}
