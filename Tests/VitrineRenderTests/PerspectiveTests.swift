import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineProtocol
import VitrineRender
import VitrineTestSupport

/// Layers seen in perspective: a card flipping about y under a parent whose
/// sublayerTransform has m34 perspective, drawn at exact manual-clock times.
@Suite struct PerspectiveTests {
    func frame(_ scene: Scene, at time: Double) throws -> Surface {
        _ = scene.advance(to: time)
        return try Golden.renderer().snapshot(scene, root: "root", at: time)
    }

    @Test(arguments: [("45", 0.25), ("90", 0.5), ("135", 0.75)])
    func flipCardFrames(name: String, time: Double) throws {
        let (scene, _) = try Golden.loadScene("flip-card")
        try Golden.check(try frame(scene, at: time), named: "flip-card-\(name)")
    }
}

/// docs/examples/flip-card.json drawn at 0.5 s is docs/examples/flip-card.png, its
/// screenshot.
@Suite struct FlipCardExampleTests {
    @Test func theExampleDrawsItsScreenshot() throws {
        try Golden.checkExample("flip-card", at: 0.5)
    }
}
