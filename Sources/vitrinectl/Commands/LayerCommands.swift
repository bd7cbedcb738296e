import VitrineJSON
import ArgumentParser

/// The properties of `add` and `set`: KEY VALUE pairs.
private let propertiesHelp = ArgumentHelp(
    "Properties as KEY VALUE pairs, e.g. position '[100,200]' backgroundColor red string 'Hello world'. "
        + "A VALUE that parses as JSON is that JSON; anything else is a string.",
    valueName: "key value")

struct AddCommand: RequestCommand {
    static let protocolCommand = "layer.add"
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a layer (layer.add).",
        discussion: "Example: vitrinectl add title --kind text --parent card string 'Hello world' position '[150,30]'")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The new layer's id (letters, digits, '-', '_', ':', '.').")
    var layer: String

    // allUnrecognized lets a VALUE be a negative number; PropertyPairs refuses other dashes.
    @Argument(parsing: .allUnrecognized, help: propertiesHelp)
    var properties: [String] = []

    @Option(help: "The layer kind: layer, text, gradient… ('vitrinectl hello' lists them).")
    var kind: String?

    @Option(help: ArgumentHelp("The parent layer (default: the output's root).", valueName: "layer"))
    var parent: String?

    @OptionGroup var placement: PlacementOptions

    func validate() throws { try PropertyPairs.validate(properties) }

    var fields: [String: JSON] {
        var fields = placement.fields
        fields["layer"] = .string(layer)
        if let kind { fields["kind"] = .string(kind) }
        if let parent { fields["parent"] = .string(parent) }
        if !properties.isEmpty { fields["properties"] = PropertyPairs.object(properties) }
        return fields
    }
}

struct SetCommand: RequestCommand {
    static let protocolCommand = "layer.set"
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a layer's properties (layer.set), animated by its actions or by the options here.",
        discussion: """
            Without animation options the change animates as the layer's actions say (0.25 s by \
            default; --no-actions: not at all). With any of them every property animates from \
            what is shown to its new value that way.
            Example: vitrinectl set title textColor '#0000ff' --duration 3
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    // allUnrecognized lets a VALUE be a negative number; PropertyPairs refuses other dashes.
    @Argument(parsing: .allUnrecognized, help: propertiesHelp)
    var properties: [String] = []

    @OptionGroup(title: "Animation") var timing: TimingOptions

    @Flag(name: .customLong("no-actions"), help: "Change at once, without implicit animation.")
    var noActions = false

    @Flag(help: "Wait until the change's animations have ended (transaction.completed).")
    var wait = false

    func validate() throws {
        guard !properties.isEmpty else { throw ValidationError("give at least one KEY VALUE pair to set") }
        try PropertyPairs.validate(properties)
        if noActions, timing.isGiven { throw ValidationError("--no-actions and animation options exclude each other") }
    }

    var fields: [String: JSON] {
        var fields: [String: JSON] = ["layer": .string(layer), "properties": PropertyPairs.object(properties)]
        if timing.isGiven { fields["animation"] = .object(timing.fields) }
        if noActions { fields["actions"] = .bool(false) }
        return fields
    }

    var waitsForCompletion: Bool { wait }
}

struct GetCommand: RequestCommand {
    static let protocolCommand = "layer.get"
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print a layer's properties (layer.get) as 'key = value' lines.",
        discussion: "Example: vitrinectl get box position backgroundColor --presentation")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    @Argument(help: ArgumentHelp("Key paths to print (default: every property).", valueName: "key"))
    var keys: [String] = []

    @Flag(help: "What is on screen now (the presentation values) instead of the model values.")
    var presentation = false

    var fields: [String: JSON] {
        var fields: [String: JSON] = ["layer": .string(layer)]
        if !keys.isEmpty { fields["keys"] = .array(keys.map(JSON.string)) }
        if presentation { fields["presentation"] = .bool(true) }
        return fields
    }

    static func summary(_ result: JSON) -> String? { Summary.keyValues(result["properties"]) }
}

struct TreeCommand: RequestCommand {
    static let protocolCommand = "layer.tree"
    static let configuration = CommandConfiguration(
        commandName: "tree",
        abstract: "Print the layer tree (layer.tree), indented, in drawing order.",
        discussion: "Example: vitrinectl tree card")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer to start at (default: the output's root).")
    var root: String?

    var fields: [String: JSON] { root.map { ["root": .string($0)] } ?? [:] }

    static func summary(_ result: JSON) -> String? { Summary.tree(result) }
}

struct RemoveCommand: RequestCommand {
    static let protocolCommand = "layer.remove"
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a layer and everything under it (layer.remove).",
        discussion: "Example: vitrinectl remove card")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    var fields: [String: JSON] { ["layer": .string(layer)] }
}

struct MoveCommand: RequestCommand {
    static let protocolCommand = "layer.move"
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move a layer under a parent, or among its siblings (layer.move).",
        discussion: "Example: vitrinectl move title card --index 0")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer to move.")
    var layer: String

    @Argument(help: "Its new parent (its current one to reorder it).")
    var parent: String

    @OptionGroup var placement: PlacementOptions

    var fields: [String: JSON] {
        var fields = placement.fields
        fields["layer"] = .string(layer)
        fields["parent"] = .string(parent)
        return fields
    }
}
