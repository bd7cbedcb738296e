import ArgumentParser
import VitrineJSON

/// `vitrinectl osk show|hide|layout`: the daemon's on-screen keyboard.
struct KeyboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "osk",
        abstract: "Show or hide the on-screen keyboard, or change its layout (osk.show, osk.hide, osk.layout; [osk] enabled).",
        discussion: "Examples: vitrinectl osk show --layout de; vitrinectl osk layout numeric; vitrinectl osk hide",
        subcommands: [KeyboardShowCommand.self, KeyboardHideCommand.self, KeyboardLayoutCommand.self])

    /// What the keyboard's replies read as: its state and layout.
    static func summary(_ result: JSON) -> String? {
        "\(result["state"]?.string ?? "?"), layout \(result["layout"]?.string ?? "?")"
    }
}

struct KeyboardShowCommand: RequestCommand {
    static let protocolCommand = "osk.show"
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Slide the keyboard in (osk.show).", discussion: "Example: vitrinectl osk show --layout de")

    @OptionGroup var connection: ConnectionOptions
    @Option(help: "A layout of [osk] layouts to show it with.") var layout: String?

    var fields: [String: JSON] { layout.map { ["layout": .string($0)] } ?? [:] }
    static func summary(_ result: JSON) -> String? { KeyboardCommand.summary(result) }
}

struct KeyboardHideCommand: RequestCommand {
    static let protocolCommand = "osk.hide"
    static let configuration = CommandConfiguration(
        commandName: "hide", abstract: "Slide the keyboard out (osk.hide).", discussion: "Example: vitrinectl osk hide")

    @OptionGroup var connection: ConnectionOptions

    static func summary(_ result: JSON) -> String? { KeyboardCommand.summary(result) }
}

struct KeyboardLayoutCommand: RequestCommand {
    static let protocolCommand = "osk.layout"
    static let configuration = CommandConfiguration(
        commandName: "layout", abstract: "Show another layout: the one named, else the next (osk.layout).", discussion: "Example: vitrinectl osk layout ru")

    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "A layout of [osk] layouts; without it, the next one.") var layout: String?

    var fields: [String: JSON] { layout.map { ["layout": .string($0)] } ?? [:] }
    static func summary(_ result: JSON) -> String? { KeyboardCommand.summary(result) }
}
