import VitrineJSON
import ArgumentParser

struct HelloCommand: RequestCommand {
    static let protocolCommand = "hello"
    static let configuration = CommandConfiguration(
        commandName: "hello",
        abstract: "Print what the daemon is: versions, outputs, clock, commands, events, kinds (hello).",
        discussion: "Example: vitrinectl hello")

    @OptionGroup var connection: ConnectionOptions

    static func summary(_ result: JSON) -> String? { Summary.hello(result) }
}

struct PingCommand: RequestCommand {
    static let protocolCommand = "ping"
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Check that the daemon answers (ping).",
        discussion: "Example: vitrinectl ping")

    @OptionGroup var connection: ConnectionOptions

    static func summary(_ result: JSON) -> String? { "pong, media time \(result["time"]?.text ?? "?")" }
}

struct StatsCommand: RequestCommand {
    static let protocolCommand = "stats"
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Print the daemon's counters: frames and pixels drawn, layers, clients, whether it animates (stats).",
        discussion: "Example: vitrinectl stats")

    @OptionGroup var connection: ConnectionOptions

    static func summary(_ result: JSON) -> String? { Summary.keyValues(result) }
}

struct ReloadCommand: RequestCommand {
    static let protocolCommand = "config.reload"
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Re-read the daemon's configuration file, as SIGHUP does (config.reload).",
        discussion: "Example: vitrinectl reload")

    @OptionGroup var connection: ConnectionOptions
}

struct ResetCommand: RequestCommand {
    static let protocolCommand = "scene.reset"
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Remove every layer and animation and show the configured initial scene again (scene.reset).",
        discussion: "Example: vitrinectl reset")

    @OptionGroup var connection: ConnectionOptions
}
