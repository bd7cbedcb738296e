import FoundationEssentials
import Glibc
import VitrineCore
import VitrineSystem

/// A scene in JSON, in the vocabulary of the socket protocol: what `vitrined render`
/// draws and what the configuration's initial scene holds.
///
/// ```json
/// {
///   "size": [1280, 800],
///   "background": "#101820",
///   "layers": [
///     {"id": "card", "properties": {"bounds": [0, 0, 400, 240], "position": [640, 400],
///                                    "backgroundColor": "white", "cornerRadius": 16},
///      "animations": [{"keyPath": "opacity", "from": 0, "to": 1, "duration": 0.5}],
///      "sublayers": [{"id": "title", "kind": "text", "properties": {"string": "Hello"}}]}
///   ]
/// }
/// ```
/// Layers without a `parent` go under the root (or under the layer whose `sublayers`
/// hold them); `kind` defaults to "layer".
public struct SceneDescription: Sendable {
    /// One layer, flattened: parents come before their sublayers.
    public struct LayerDescription: Sendable {
        public var id: String
        public var kind: String
        /// nil: the root, unless `isDetached`.
        public var parent: String?
        public var properties: [(String, JSON)]
        public var animations: [JSON]
        public var displayKeys: [String]
        /// `"parent": null`: outside the tree (a mask).
        public var isDetached = false
    }

    public var size: Size?
    public var background: Color?
    public var layers: [LayerDescription] = []
    /// Reactions to gestures and keys, in `binding.add`'s vocabulary; the daemon adds them
    /// after the layers (`vitrined render` draws without them).
    public var bindings: [BindingSpec] = []

    static let sceneFields: Set = ["size", "background", "layers", "bindings"]
    static let layerFields: Set = ["id", "kind", "parent", "properties", "animations", "displayKeys", "sublayers"]

    /// The largest scene file read.
    public static let fileLimit = 16 << 20

    /// Reads a scene file: a regular file of at most `fileLimit` bytes.
    public init(contentsOf url: URL) throws(ProtocolError) {
        let bytes: [UInt8]
        do { bytes = try SafeFile.read(url.path, limit: Self.fileLimit).bytes } catch {
            throw ProtocolError(.invalidValue, "cannot read the scene file \(url.path): \(error.reason)")
        }
        try self.init(json: JSON(parsing: Data(bytes)))
    }

    public init(json: JSON) throws(ProtocolError) {
        guard let o = json.object else { throw ProtocolError(.notAnObject, "a scene is a JSON object with \"layers\"") }
        if let extra = o.keys.sorted().first(where: { !Self.sceneFields.contains($0) }) {
            throw ProtocolError(.unknownField, "a scene has no field '\(extra)'; it has size, background, layers and bindings")
        }
        if let s = o["size"] {
            guard case .size(let size) = try Value(json: s, as: .size, at: "size"), size.width >= 1, size.height >= 1, size.width <= 16384, size.height <= 16384
            else {
                throw ProtocolError(.invalidValue, "size is [width, height] in pixels, each 1…16384")
            }
            self.size = size
        }
        if let b = o["background"] {
            guard case .color(let c) = try Value(json: b, as: .color, at: "background") else { throw ProtocolError(.wrongType, "background is a colour") }
            background = c
        }
        if let list = o["bindings"] {
            guard let items = list.array else { throw ProtocolError(.wrongType, "bindings is an array of binding objects") }
            for (i, item) in items.enumerated() {
                guard let object = item.object else {
                    throw ProtocolError(.notAnObject, "bindings[\(i)] is an object such as {\"layer\": …, \"on\": \"tap\", \"commands\": […]}")
                }
                bindings.append(try BindingSpec(object: object, context: "bindings[\(i)]"))
            }
        }
        guard let list = o["layers"]?.array else {
            if o["layers"] == nil { return }
            throw ProtocolError(.wrongType, "layers is an array of layer objects")
        }
        for item in list { try flatten(item, parent: nil) }
    }

    private mutating func flatten(_ json: JSON, parent: String?) throws(ProtocolError) {
        guard let o = json.object else { throw ProtocolError(.notAnObject, "a layer is an object with an \"id\"") }
        guard let id = o["id"]?.string else { throw ProtocolError(.missingField, "every layer needs an \"id\" string") }
        if let extra = o.keys.sorted().first(where: { !Self.layerFields.contains($0) }) {
            throw ProtocolError(.unknownField, "layer '\(id)' has no field '\(extra)'; the fields are \(Self.layerFields.sorted().joined(separator: ", "))")
        }
        let reader = FieldReader(object: o, context: "layer '\(id)'")
        guard o["properties"] == nil || o["properties"]?.object != nil else { throw ProtocolError(.wrongType, "layer '\(id)': properties is an object") }
        guard o["animations"] == nil || o["animations"]?.array != nil else { throw ProtocolError(.wrongType, "layer '\(id)': animations is an array") }
        let keys = o["displayKeys"]?.array?.compactMap(\.string) ?? []
        layers.append(
            LayerDescription(
                id: id, kind: try reader.string("kind") ?? "layer", parent: o["parent"] == .null ? nil : try reader.string("parent") ?? parent,
                properties: (o["properties"]?.object ?? [:]).sorted { $0.key < $1.key },
                animations: o["animations"]?.array ?? [], displayKeys: keys, isDetached: o["parent"] == .null))
        for sub in o["sublayers"]?.array ?? [] { try flatten(sub, parent: id) }
    }

    /// Adds the scene's layers under `root` and starts their animations at media time
    /// `time`, in two transactions without implicit actions. On error nothing is added.
    public func apply(to scene: Scene, root: String, at time: Double, springDefaults: Spring = .coreAnimation) throws(ProtocolError) {
        let (setup, animate) = try transactions(for: scene, root: root, at: time, springDefaults: springDefaults)
        do throws(CoreError) {
            try scene.commit(setup, at: time)
        } catch { throw ProtocolError(error) }
        do throws(CoreError) {
            try scene.commit(animate, at: time)
        } catch {
            var undo = Transaction(disableActions: true)
            for layer in layers where layer.parent == nil { undo.remove(layer: layer.id) }
            _ = try? scene.commit(undo, at: time)
            throw ProtocolError(error)
        }
    }

    /// The two transactions `apply` commits: the layers (with the root's background), and
    /// their animations beginning at `time`.
    public func transactions(for scene: Scene, root: String, at time: Double, springDefaults: Spring = .coreAnimation) throws(ProtocolError) -> (
        setup: Transaction, animate: Transaction
    ) {
        var setup = Transaction(disableActions: true)
        if let background { setup.set(root, "backgroundColor", .color(background)) }
        var customValues: [String: [String: Value]] = [:]
        // Masks are set once every layer is there, so that a mask may come after its layer.
        var masks = Transaction(disableActions: true)
        for layer in layers {
            guard let kind = scene.kinds[layer.kind] else {
                throw ProtocolError(CoreError.unknownKind(layer.kind, known: scene.kinds.keys.sorted()))
            }
            var properties: [(KeyPath, Value)] = []
            for (name, json) in layer.properties {
                let path: KeyPath
                do { path = try KeyPath(parsing: name) } catch { throw ProtocolError(error) }
                let value = try Value(json: json, shape: kind.valueShape(at: path), at: "\(layer.id).\(name)")
                if kind.slot(of: path.property) == nil { customValues[layer.id, default: [:]][name] = value }
                if path.components == ["mask"] {
                    masks.set(layer.id, path, value)
                } else {
                    properties.append((path, value))
                }
            }
            setup.operations.append(
                .addLayer(id: layer.id, kind: layer.kind, parent: layer.isDetached ? nil : layer.parent ?? root, placement: .top, properties: properties))
            if !layer.displayKeys.isEmpty {
                setup.operations.append(.setDisplayKeys(layer: layer.id, keys: Set(layer.displayKeys)))
            }
        }
        setup.nest(masks)
        var animate = Transaction(disableActions: true)
        for layer in layers {
            let kind = scene.kinds[layer.kind]!
            for json in layer.animations {
                let description = try AnimationDescription(json: json, springDefaults: springDefaults) { path in
                    kind.valueShape(at: path) ?? customValues[layer.id]?[path.property]?.component(path.subpath).map { ($0.type, nil) }
                }
                var animation = description.animation
                if let delay = description.delay { animation.timing.beginTime = time + delay }
                animate.addAnimation(animation, forKey: description.key, to: layer.id)
            }
        }
        return (setup, animate)
    }
}
