import FoundationEssentials
import Glibc
import VitrineCore
import VitrineProtocol
import VitrineSystem

extension Configuration.InitialScene {
    static let keys = ["file", "background", "layers", "bindings", "identify"]

    /// Reads `[scene]`: a scene file (relative paths are relative to the configuration's
    /// directory) or inline `[[scene.layers]]`, each layer checked as `SceneDescription`
    /// checks a layer object, and `[[scene.bindings]]` (added to the file's), each checked
    /// as `binding.add` checks its fields.
    init(reading r: TableReader, source: String) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        let written = try r.string("file", "", expected: "the path of a JSON scene file, such as \"/etc/vitrine/scene.json\"")
        background = try r.value("background", nil, expected: colourForm) { readColour($0).map { Optional($0) } }
        layers = try Self.inlineLayers(r)
        bindings = try Self.inlineBindings(r)
        identify = try r.value("identify", identify, expected: "true, false or \"auto\"") { node in
            switch node {
            case .bool(let on): on ? .always : .never
            case .string("auto"): .auto
            default: nil
            }
        }
        if !written.isEmpty && !layers.isEmpty {
            throw r.error("file", "give either file (a JSON scene) or [[scene.layers]] tables, not both")
        }
        if !written.isEmpty {
            file =
                written.hasPrefix("/")
                ? written
                : URL(fileURLWithPath: source).deletingLastPathComponent().appendingPathComponent(written).standardizedFileURL.path
            let data: Data
            do { data = Data(try SafeFile.read(file, limit: SceneDescription.fileLimit).bytes) } catch {
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
        if !bindings.isEmpty {
            if content == nil { content = try? SceneDescription(json: .object([:])) }
            content?.bindings += bindings.compactMap { json in json.object.flatMap { try? BindingSpec(object: $0, context: "bindings") } }
        }
        if let background {
            if content == nil { content = try? SceneDescription(json: .object([:])) }
            content?.background = background
        }
    }

    private static func inlineLayers(_ r: TableReader) throws(ConfigError) -> [JSON] {
        try inlineTables(r, "layers", holding: "an id") { json throws(ProtocolError) in
            _ = try SceneDescription(json: .object(["layers": .array([json])]))
        }
    }

    private static func inlineBindings(_ r: TableReader) throws(ConfigError) -> [JSON] {
        try inlineTables(r, "bindings", holding: "on, layer (or key) and commands") { json throws(ProtocolError) in
            _ = try BindingSpec(object: json.object ?? [:], context: "binding")
        }
    }

    /// The `[[scene.NAME]]` tables as JSON objects, each checked by `check`, whose error
    /// names the table.
    private static func inlineTables(
        _ r: TableReader, _ name: String, holding fields: String, check: (JSON) throws(ProtocolError) -> Void
    ) throws(ConfigError) -> [JSON] {
        guard let node = r.entries[name] else { return [] }
        guard let items = node.array, items.allSatisfy({ $0.table != nil }) else {
            throw r.error(name, "must be [[scene.\(name)]] tables, each with \(fields), got \(node.written)")
        }
        var tables: [JSON] = []
        for (i, item) in items.enumerated() {
            let key = r.key(name) + "[\(i)]"
            guard let json = item.json else { throw r.context.error(key, "dates and times are not scene values") }
            do {
                try check(json)
            } catch {
                throw r.context.error(key, error.message)
            }
            tables.append(json)
        }
        return tables
    }

    /// Applies the scene to a scratch model when every layer's kind is known, so that bad
    /// property values, parents and animations are found now rather than at start. An
    /// inline scene that fails is applied again one `[[scene.layers]]` table at a time to
    /// name the table at fault.
    func tryOut(kinds: [LayerKind], size: PixelSize, reader r: TableReader) throws(ConfigError) {
        guard let content else { return }
        let known = Set(VitrineCore.Scene().kinds.keys).union(kinds.map(\.name))
        guard content.layers.allSatisfy({ known.contains($0.kind) }) else { return }
        guard let failure = Self.failure(applying: content, kinds: kinds, size: size) else {
            return try checkBindings(of: content, reader: r)
        }
        if !file.isEmpty { throw r.error("file", "\(file): \(failure.message)") }
        for end in layers.indices {
            guard let prefix = try? SceneDescription(json: .object(["layers": .array(Array(layers[...end]))])),
                let error = Self.failure(applying: prefix, kinds: kinds, size: size)
            else { continue }
            throw r.context.error(r.key("layers") + "[\(end)]", error.message)
        }
        throw r.error("layers", failure.message)
    }

    /// Every binding's layer is one of the scene's: the error names the binding at fault.
    private func checkBindings(of content: SceneDescription, reader r: TableReader) throws(ConfigError) {
        // "root" is the daemon's root layer.
        let ids = Set(content.layers.map(\.id) + ["root"])
        let fromFile = content.bindings.count - bindings.count
        for (i, binding) in content.bindings.enumerated() {
            guard let layer = binding.layer, !ids.contains(layer) else { continue }
            let message = "binding on \(binding.trigger.rawValue) of layer '\(layer)': the scene has no layer '\(layer)'"
            if i < fromFile { throw r.error("file", "\(file): bindings[\(i)]: \(message)") }
            throw r.context.error(r.key("bindings") + "[\(i - fromFile)]", message)
        }
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
