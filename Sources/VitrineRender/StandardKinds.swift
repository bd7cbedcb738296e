import VitrineCore
import VitrineText

/// The layer kinds Vitrine draws, and a renderer that draws them all.
public enum StandardKinds {
    /// Registers every drawable kind (beyond "layer" and "gradient", which every scene
    /// has) in `scene`.
    public static func register(in scene: Scene) {
        for kind in extraKinds { scene.register(kind) }
    }

    /// A renderer with a content renderer for every kind, loading images relative to
    /// `imageDirectory`.
    public static func renderer(imageDirectory: String = ".", fonts: FontLibrary? = nil) -> Renderer {
        let renderer = Renderer(images: ImageStore(directory: imageDirectory))
        if let library = fonts ?? (try? FontLibrary()) {
            renderer.register(TextRenderer(library: library), forKind: TextLayer.textLayerKind.name)
        }
        return renderer
    }

    static let extraKinds: [LayerKind] = [TextLayer.textLayerKind]
}
