import FoundationEssentials
import Glibc
import VitrineCore
import VitrineProtocol

extension Configuration.InitialScene {
    static let keys = ["file", "background", "layers"]

    /// Reads `[scene]`: a scene file (relative paths are relative to the configuration's
    /// directory) or inline `[[scene.layers]]`, each layer checked as `SceneDescription`
    /// checks a layer object.
    init(reading r: TableReader, source: String) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        let written = try r.string("file", "", expected: "the path of a JSON scene file, such as \"/etc/vitrine/scene.json\"")
        background = try r.value("background", nil, expected: colourForm) { readColour($0).map { Optional($0) } }
        layers = try Self.inlineLayers(r)
        if !written.isEmpty && !layers.isEmpty {
            throw r.error("file", "give either file (a JSON scene) or [[scene.layers]] tables, not both")
        }
        if !written.isEmpty {
            file = written.hasPrefix("/")
                ? written
                : URL(fileURLWithPath: source).deletingLastPathComponent().appendingPathComponent(written).standardizedFileURL.path
            let data: Data
            do { data = try readFile(file) } catch {
                throw r.error("file", "cannot read the scene file \(file): \(error.reason)")
            }
            do {
                content = try SceneDescription(json: JSON(parsing: data))
            } catch {
                throw r.error("file", "\(file): \(error.message)")
            }
        } else if !layers.isEmpty {
            content = try? SceneDescription(json: .object(["layers": .array(layers)]))
        }
        if let background {
            if content == nil { content = try? SceneDescription(json: .object([:])) }
            content?.background = background
        }
    }

    private static func inlineLayers(_ r: TableReader) throws(ConfigError) -> [JSON] {
        guard let node = r.entries["layers"] else { return [] }
        guard let items = node.array, items.allSatisfy({ $0.table != nil }) else {
            throw r.error("layers", "must be [[scene.layers]] tables, each with an id, got \(node.written)")
        }
        var layers: [JSON] = []
        for (i, item) in items.enumerated() {
            let key = r.key("layers") + "[\(i)]"
            guard let json = item.json else { throw r.context.error(key, "dates and times are not scene values") }
            do {
                _ = try SceneDescription(json: .object(["layers": .array([json])]))
            } catch {
                throw r.context.error(key, error.message)
            }
            layers.append(json)
        }
        return layers
    }

    /// Applies the scene to a scratch model when every layer's kind is known, so that bad
    /// property values, parents and animations are found now rather than at start. An
    /// inline scene that fails is applied again one `[[scene.layers]]` table at a time to
    /// name the table at fault.
    func tryOut(kinds: [LayerKind], size: PixelSize, reader r: TableReader) throws(ConfigError) {
        guard let content else { return }
        let known = Set(VitrineCore.Scene().kinds.keys).union(kinds.map(\.name))
        guard content.layers.allSatisfy({ known.contains($0.kind) }) else { return }
        guard let failure = Self.failure(applying: content, kinds: kinds, size: size) else { return }
        if !file.isEmpty { throw r.error("file", "\(file): \(failure.message)") }
        for end in layers.indices {
            guard let prefix = try? SceneDescription(json: .object(["layers": .array(Array(layers[...end]))])),
                  let error = Self.failure(applying: prefix, kinds: kinds, size: size) else { continue }
            throw r.context.error(r.key("layers") + "[\(end)]", error.message)
        }
        throw r.error("layers", failure.message)
    }

    private static func failure(applying content: SceneDescription, kinds: [LayerKind], size: PixelSize) -> ProtocolError? {
        let scratch = VitrineCore.Scene()
        for kind in kinds { scratch.register(kind) }
        let root = "vitrine.config.scratch-root"
        do throws(CoreError) {
            try scratch.addRoot(id: root, output: "config", size: Size(width: Double(size.width), height: Double(size.height)))
        } catch { return nil }
        do {
            try content.apply(to: scratch, root: root, at: 0)
            return nil
        } catch {
            return error
        }
    }
}
