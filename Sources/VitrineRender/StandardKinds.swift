import VitrineCore
import VitrineImage
import VitrineRolling
import VitrineText

/// The layer kinds Vitrine draws, and a renderer that draws them all.
public enum StandardKinds {
    /// Registers every drawable kind (beyond "layer" and "gradient", which every scene
    /// has) in `scene`, with `rolling` as rolling numbers' defaults and `fontFamily` as
    /// the family of text layers that name none. Registering again changes the defaults
    /// of layers added afterwards.
    public static func register(in scene: Scene, rolling: RollingNumberDefaults = RollingNumberDefaults(), fontFamily: String = FontLibrary.defaultFamily) {
        scene.register(LayerKind.shape)
        scene.register(TextLayer.kind(defaultFamily: fontFamily))
        scene.register(RollingNumber.kind(defaults: rolling))
    }

    /// A renderer with a content renderer for every kind. `images` holds the decoded
    /// `contents`; by default a store that reads files relative to `imageDirectory` with
    /// `loader` when they are first drawn (none: they are not shown), as `vitrined render`
    /// does (the daemon passes a store its content host fills).
    public static func renderer(
        imageDirectory: String = ".", loader: ((String, TargetSize?) throws -> Picture)? = nil, images: ImageStore? = nil, fonts: FontLibrary? = nil,
        rolling: RollingNumberDefaults = RollingNumberDefaults()
    ) -> Renderer {
        let renderer = Renderer(images: images ?? ImageStore(directory: imageDirectory, loader: loader))
        renderer.register(ShapeRenderer(), forKind: LayerKind.shape.name)
        if let library = fonts ?? (try? FontLibrary()) {
            renderer.register(TextRenderer(library: library), forKind: TextLayer.textLayerKind.name)
            renderer.register(RollingNumberRenderer(library: library, kind: RollingNumber.kind(defaults: rolling)), forKind: RollingNumber.kindName)
        }
        return renderer
    }
}
