import VitrineJSON
import ArgumentParser

struct AnimateCommand: RequestCommand {
    static let protocolCommand = "animation.add"
    static let configuration = CommandConfiguration(
        commandName: "animate",
        abstract: "Add an explicit animation to a layer (animation.add).",
        discussion: """
            --from, --to and --by combine as in CABasicAnimation; what is left out comes from \
            the value underneath. Values are JSON or strings, as for 'set'.
            Example: vitrinectl animate box position.y --to 500 --duration 2 --timing easeInEaseOut
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    @Argument(help: "The key path to animate, e.g. opacity, position.y, transform.rotation.z.")
    var keyPath: String

    @Option(parsing: .unconditional, help: ArgumentHelp("The start value.", valueName: "value"))
    var from: ValueArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("The end value.", valueName: "value"))
    var to: ValueArgument?

    @Option(parsing: .unconditional, help: ArgumentHelp("The change, relative to the start.", valueName: "value"))
    var by: ValueArgument?

    @OptionGroup(title: "Timing") var timing: TimingOptions

    @Option(name: .customLong("repeat"), help: ArgumentHelp("Passes (fractions allowed) or 'infinity'.", valueName: "n"))
    var repeatCount: RepeatCount?

    @Flag(help: "Play each pass forwards, then backwards.")
    var autoreverses = false

    @Option(help: "What shows outside the active time.")
    var fillMode: FillMode?

    @Option(help: "The key to add it under (one under the same key is replaced); default: a new one.")
    var key: String?

    @Flag(help: "Wait until it has ended (transaction.completed).")
    var wait = false

    func validate() throws {
        guard timing.duration != nil || timing.spring else {
            throw ValidationError("give --duration (seconds), or --spring to take the spring's settling time")
        }
        if from == nil, to == nil, by == nil {
            throw ValidationError("give --to, --from or --by: what to animate to or from")
        }
    }

    var fields: [String: JSON] {
        var animation = timing.fields
        animation["keyPath"] = .string(keyPath)
        if let from { animation["from"] = from.json }
        if let to { animation["to"] = to.json }
        if let by { animation["by"] = by.json }
        if let repeatCount { animation["repeatCount"] = repeatCount.json }
        if autoreverses { animation["autoreverses"] = .bool(true) }
        if let fillMode { animation["fillMode"] = .string(fillMode.rawValue) }
        var fields: [String: JSON] = ["layer": .string(layer), "animation": .object(animation)]
        if let key { fields["key"] = .string(key) }
        return fields
    }

    var waitsForCompletion: Bool { wait }
}

struct AnimationsCommand: RequestCommand {
    static let protocolCommand = "animation.list"
    static let configuration = CommandConfiguration(
        commandName: "animations",
        abstract: "List a layer's animations (animation.list).",
        discussion: "Example: vitrinectl animations logo")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    var fields: [String: JSON] { ["layer": .string(layer)] }

    static func summary(_ result: JSON) -> String? { Summary.animations(result) }
}

struct StopCommand: RequestCommand {
    static let protocolCommand = "animation.remove"
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Remove a layer's animation under KEY, or all of them (animation.remove).",
        discussion: "Example: vitrinectl stop logo spin")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    @Argument(help: "The animation's key (default: every animation of the layer).")
    var key: String?

    var fields: [String: JSON] {
        var fields: [String: JSON] = ["layer": .string(layer)]
        if let key { fields["key"] = .string(key) }
        return fields
    }
}
