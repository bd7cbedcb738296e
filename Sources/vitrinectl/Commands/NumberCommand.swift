import VitrineJSON
import ArgumentParser

struct NumberCommand: RequestCommand {
    static let protocolCommand = "number.set"
    static let configuration = CommandConfiguration(
        commandName: "number",
        abstract: "Show a new value on a rolling number, its digits rolling to it (number.set).",
        discussion: """
            Each column rolls from the digit it shows to its new one with the layer's spring and \
            animation type, or as the options here say. Prints the formatted text; with --wait, \
            also whether the roll settled or a newer value took over (number.completed); \
            --timeout S bounds that wait to S real seconds (status 4 after), on any clock.
            Example: vitrinectl number counter 245699 --direction up --speed 1 --wait
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The rolling-number layer.")
    var layer: String

    // allUnrecognized lets the value be negative (-12.5); `validate` refuses anything else.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The new value, e.g. 245699 or -12.5.", valueName: "value"))
    var valueWords: [String] = []

    /// The words given as the value, without a `--` before it.
    private var words: [String] { valueWords.filter { $0 != "--" } }

    @Flag(name: .customLong("no-animation"), help: "Show the value at once.")
    var noAnimation = false

    @Option(help: ArgumentHelp("allNumbers, onlyChangedNumbers, allAfterFirstChangedNumber or noAnimation (default: the layer's).", valueName: "type"))
    var animationType: String?

    @Option(help: ArgumentHelp("up, down, or auto: down when the value gets smaller (default: the layer's).", valueName: "direction"))
    var direction: String?

    @Flag(inversion: .prefixedNo, help: "Roll through the digits between the old and the new one, or straight to it (default: the layer's).")
    var throughDigits: Bool?

    @OptionGroup(title: "Spring (default: the layer's)") var spring: NumberSpringOptions

    @Flag(help: "Wait until every column has settled, or a newer value took over (number.completed).")
    var wait = false

    func validate() throws {
        if let option = words.first(where: { $0.hasPrefix("-") && Double($0) == nil }) {
            throw ValidationError("unknown option '\(option)'; see vitrinectl number --help")
        }
        guard words.count == 1, let word = words.first else {
            throw ValidationError(words.isEmpty ? "give the new value, e.g. 245699" : "give one value; got \(words.joined(separator: " "))")
        }
        guard Double(word)?.isFinite == true else {
            throw ValidationError("'\(word)' is not a number (nor an option of 'number'; see --help)")
        }
        if noAnimation, animationType != nil { throw ValidationError("--no-animation and --animation-type exclude each other") }
    }

    var fields: [String: JSON] {
        var fields: [String: JSON] = ["layer": .string(layer), "value": .number(Double(words[0]) ?? 0)]
        if noAnimation { fields["animated"] = .bool(false) }
        if let animationType { fields["animationType"] = .string(animationType) }
        if let direction { fields["direction"] = .string(direction) }
        if let throughDigits { fields["rollThroughDigits"] = .bool(throughDigits) }
        if !spring.fields.isEmpty { fields["spring"] = .object(spring.fields) }
        return fields
    }

    static func summary(_ result: JSON) -> String? { result["text"]?.string }

    func run() throws {
        let session = try connection.connect()
        let result = try connection.send(Self.protocolCommand, fields, on: session, summary: Self.summary)
        guard wait, let transaction = result["transaction"] else { return }
        var settled: Bool?
        try session.waitForCompletion(of: transaction) { message in
            if message.json["event"]?.string == "number.completed", message.json["transaction"] == transaction {
                settled = message.json["finished"]?.bool
                if connection.json { Output.line(message.line) }
            }
        }
        if !connection.json, let settled { Output.line(settled ? "settled" : "superseded by a newer value") }
    }
}

/// The spring of one `number` call, as `number.set`'s `spring` object.
struct NumberSpringOptions: ParsableArguments {
    @Option(
        name: .customLong("spring-duration"), parsing: .unconditional,
        help: ArgumentHelp("Seconds the spring runs, above 0 and at most 60.", valueName: "seconds"))
    var duration: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Playback speed (0.3 plays at 30 %).", valueName: "s"))
    var speed: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Damping, ≥ 0.", valueName: "d"))
    var damping: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Stiffness, > 0.", valueName: "k"))
    var stiffness: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Mass, > 0.", valueName: "m"))
    var mass: Double?

    @Option(parsing: .unconditional, help: ArgumentHelp("Initial velocity.", valueName: "v"))
    var velocity: Double?

    /// The `spring` object's fields given.
    var fields: [String: JSON] {
        let given: [(String, Double?)] = [
            ("duration", duration), ("speed", speed), ("damping", damping), ("stiffness", stiffness), ("mass", mass), ("initialVelocity", velocity),
        ]
        return Dictionary(uniqueKeysWithValues: given.compactMap { name, value in value.map { (name, JSON.number($0)) } })
    }
}
