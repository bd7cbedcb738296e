import ArgumentParser
import VitrineProtocol

struct HelloCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hello",
        abstract: "Print what the daemon is: versions, outputs, clock, commands, events, kinds (hello).",
        discussion: "Example: vitrinectl hello")

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        try connection.send("hello", summary: Summary.hello)
    }
}

struct PingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ping",
        abstract: "Check that the daemon answers (ping).",
        discussion: "Example: vitrinectl ping")

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        try connection.send("ping") { "pong, media time \($0["time"]?.text ?? "?")" }
    }
}

struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Re-read the daemon's configuration file, as SIGHUP does (config.reload).",
        discussion: "Example: vitrinectl reload")

    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        try connection.send("config.reload")
    }
}
