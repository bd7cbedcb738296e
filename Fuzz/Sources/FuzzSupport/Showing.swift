import VitrineCore
import VitrineProtocol
import VitrineRender
import VitrineRolling

/// Shows a decoded scene as the daemon does (`Coordinator.init`, then its frames): on a fresh
/// model with the standard layer kinds, under a root the size of the screen, then a few
/// frames' worth of `advance(to:)` and `renderTree(root:at:)`, where animations are
/// evaluated. No pixels are drawn: that needs fonts and is not parsing.
///
/// - Parameters:
///   - description: The scene, as `SceneDescription(json:)` decoded it.
///   - configuration: The model's settings (`Configuration.sceneConfiguration`).
///   - rolling: The rolling-number defaults the daemon registers its kind with.
///   - size: The screen's size.
///   - background: The root's colour before the scene's own.
public func show(
    _ description: SceneDescription, configuration: Scene.Configuration = Scene.Configuration(),
    rolling: RollingNumberDefaults = RollingNumberDefaults(), size: Size, background: Color = .black
) {
    let scene = Scene(configuration: configuration)
    StandardKinds.register(in: scene, rolling: rolling)
    let root = "root"
    var setup = Transaction(disableActions: true)
    setup.set(root, "backgroundColor", .color(background))
    do {
        try scene.addRoot(id: root, output: "fuzz", size: size)
        try scene.commit(setup, at: 0)
    } catch {
        fatalError("a fresh scene refused its root: \(error)")
    }
    guard (try? description.apply(to: scene, root: root, at: 0)) != nil else { return }
    for time in [0, 0.1, 0.5, 1.5, 4, 60] {
        _ = scene.advance(to: time)
        do {
            _ = try scene.renderTree(root: root, at: time)
        } catch {
            fatalError("the root's render tree failed at \(time) s: \(error)")
        }
    }
}
