import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineRender

/// Every scene in `Scenes/` rendered at its time and compared with its reference image.
@Suite struct GoldenTests {
    /// Scenes drawn at a time other than 0.
    static let times: [String: Double] = [
        "animation-midflight": 0.5, "text-color-animation": 0.5, "gradient-color-names-animation": 0.5, "replicator-spinner": 1.0,
        "layer-mask-wipe": 0.5,
    ]

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

    /// The spinner a quarter of a second later: every copy's opacity three copies on.
    @Test func replicatorSpinnerLater() throws {
        let (scene, _) = try Golden.loadScene("replicator-spinner")
        _ = scene.advance(to: 1.25)
        try Golden.check(try Golden.renderer().snapshot(scene, root: "root", at: 1.25), named: "replicator-spinner-1.25")
    }

    @Test func everySceneHasAReference() {
        #expect(Self.sceneNames.count >= 25)
        for name in Self.sceneNames {
            #expect(FileManager.default.fileExists(atPath: Golden.referencesDirectory.appendingPathComponent(name + ".png").path), "\(name)")
        }
    }
}
