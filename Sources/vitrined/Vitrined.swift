import ArgumentParser

/// The Vitrine display daemon.
@main
struct Vitrined: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitrined",
        abstract: "Vitrine, the display daemon for kiosks and signage.",
        subcommands: [RunCommand.self, RenderCommand.self],
        defaultSubcommand: RunCommand.self)
}
