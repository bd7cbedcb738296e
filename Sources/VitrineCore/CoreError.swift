/// Why the scene refused a change. Every case has a stable `code` for the wire and a
/// `message` that says what was wrong and what to do; a refused change changes nothing.
public enum CoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownLayer(String)
    case duplicateLayer(String)
    case invalidLayerID(String)
    case unknownKind(String, known: [String])
    case cycle(layer: String, parent: String)
    case rootLayer(String)
    case invalidKeyPath(String, String)
    case unknownKeyPath(String, layer: String)
    /// A new custom key that is a near miss of a property of the layer's kind: key, layer,
    /// kind, the property it is probably a misspelling of.
    case unknownProperty(String, layer: String, kind: String, suggestion: String)
    case typeMismatch(keyPath: String, expected: String, got: String)
    case invalidValue(keyPath: String, String)
    case notAnimatable(String)
    case invalidAnimation(String)
    case unknownAnimation(key: String, layer: String)
    case invalidTiming(String)
    /// A configured bound on what the scene holds would be passed.
    case limitExceeded(String)

    /// A stable identifier for the kind of error.
    public var code: String {
        switch self {
        case .unknownLayer: "unknown_layer"
        case .duplicateLayer: "duplicate_id"
        case .invalidLayerID: "invalid_id"
        case .unknownKind: "unknown_kind"
        case .cycle: "cycle"
        case .rootLayer: "root_layer"
        case .invalidKeyPath: "invalid_key_path"
        case .unknownKeyPath: "unknown_key_path"
        case .unknownProperty: "unknown_property"
        case .typeMismatch: "wrong_type"
        case .invalidValue: "invalid_value"
        case .notAnimatable: "not_animatable"
        case .invalidAnimation: "invalid_animation"
        case .unknownAnimation: "unknown_animation"
        case .invalidTiming: "invalid_timing"
        case .limitExceeded: "limit_exceeded"
        }
    }

    public var message: String {
        switch self {
        case .unknownLayer(let id):
            "there is no layer '\(id)'; layer.tree lists the layers"
        case .duplicateLayer(let id):
            "a layer '\(id)' exists already; choose another id or remove it first"
        case .invalidLayerID(let id):
            "'\(id)' is not a valid layer id: use 1–128 characters of letters, digits, '-', '_', ':' or '.'"
        case .unknownKind(let kind, let known):
            "there is no layer kind '\(kind)'; the kinds are \(known.joined(separator: ", "))"
        case .cycle(let layer, let parent):
            "cannot move '\(layer)' under '\(parent)': '\(parent)' is '\(layer)' or inside it"
        case .rootLayer(let id):
            "'\(id)' is an output's root layer: it cannot be removed or moved"
        case .invalidKeyPath(let path, let hint):
            "'\(path)' is not a valid key path: \(hint)"
        case .unknownKeyPath(let path, let layer):
            "layer '\(layer)' has no property '\(path)'"
        case .unknownProperty(let key, let layer, let kind, let suggestion):
            "layer '\(layer)' (\(kind)) has no property '\(key)'; did you mean '\(suggestion)'? To keep it as a custom property of your own, name it '\(LayerKind.customKeyPrefix)\(key)' (keys that start with '\(LayerKind.customKeyPrefix)' are never checked against the built-in names)"
        case .typeMismatch(let path, let expected, let got):
            "'\(path)' takes \(expected), not \(got)"
        case .invalidValue(let path, let why):
            "invalid value for '\(path)': \(why)"
        case .notAnimatable(let path):
            "'\(path)' cannot be animated; set it without an animation"
        case .invalidAnimation(let why):
            "invalid animation: \(why)"
        case .unknownAnimation(let key, let layer):
            "layer '\(layer)' has no animation '\(key)'; animation.list shows them"
        case .invalidTiming(let why):
            "invalid timing: \(why)"
        case .limitExceeded(let why):
            why
        }
    }

    public var description: String { "\(code): \(message)" }
}
