import VitrineJSON
import ArgumentParser

/// Where a layer goes among its siblings: at most one of `--above`, `--below`, `--index`
/// (default: on top).
struct PlacementOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Place it just above this sibling.", valueName: "layer"))
    var above: String?

    @Option(help: ArgumentHelp("Place it just below this sibling.", valueName: "layer"))
    var below: String?

    @Option(help: ArgumentHelp("Place it at this index among its siblings (0 is drawn first).", valueName: "n"))
    var index: Int?

    func validate() throws {
        let given = [above.map { _ in "--above" }, below.map { _ in "--below" }, index.map { _ in "--index" }].compactMap { $0 }
        guard given.count <= 1 else {
            throw ValidationError("give at most one of --above, --below and --index, not \(given.joined(separator: " and "))")
        }
    }

    /// The request fields.
    var fields: [String: JSON] {
        if let above { return ["above": .string(above)] }
        if let below { return ["below": .string(below)] }
        if let index { return ["index": .number(Double(index))] }
        return [:]
    }
}
