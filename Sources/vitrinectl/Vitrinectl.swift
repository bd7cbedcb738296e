import ArgumentParser
import Glibc

/// `vitrinectl`: drives a running `vitrined` over its socket, one subcommand per protocol
/// command (docs/PROTOCOL.md, docs/VITRINECTL.md).
@main
struct Vitrinectl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitrinectl",
        abstract: "Control the Vitrine display daemon.",
        discussion: """
            Exit status: 0 on success, 1 when the daemon refuses a request, 2 for usage \
            errors, 3 when the daemon cannot be reached, 4 when --wait or watch --count \
            runs out of --timeout.
            """,
        version: "0.1.0",
        subcommands: [
            HelloCommand.self, PingCommand.self, StatsCommand.self,
            AddCommand.self, SetCommand.self, GetCommand.self, TreeCommand.self, RemoveCommand.self, MoveCommand.self,
            AnimateCommand.self, AnimationsCommand.self, StopCommand.self, NumberCommand.self,
            PauseCommand.self, ResumeCommand.self, SpeedCommand.self, TimeCommand.self, ClockCommand.self,
            ScreenshotCommand.self, ReloadCommand.self, ResetCommand.self,
            SendCommand.self, WatchCommand.self, KeyboardCommand.self,
        ])

    /// The connection options, which may also come before the subcommand: argument-parser
    /// reads a command's options anywhere on the line, and gives each subcommand's
    /// `ConnectionOptions` group this value, so where one is given twice the later wins.
    @OptionGroup var connection: ConnectionOptions

    /// What to type instead when the first argument after any connection options is a
    /// protocol command's name (`layer.add`, `surface.list`), which no subcommand has: the
    /// request for `send`, built from a JSON object that follows it.
    static func protocolCommandHint(_ arguments: [String]) -> String? {
        var rest = arguments[...]
        var options = ""
        while let first = rest.first {
            let option = first.prefix { $0 != "=" }
            guard ["--json", "--socket", "--timeout"].contains(option) else { break }
            let count = option == first && option != "--json" ? 2 : 1
            options += rest.prefix(count).joined(separator: " ") + " "
            rest = rest.dropFirst(count)
        }
        guard let name = rest.first, name.contains("."),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == ".") })
        else { return nil }
        var request = #"{"cmd": "\#(name)"}"#
        if rest.count == 2, let object = rest.last, object.hasPrefix("{"), object.hasSuffix("}") {
            let body = object.dropFirst().drop(while: \.isWhitespace)
            request = #"{"cmd": "\#(name)""# + (body.hasPrefix("}") ? "}" : ", " + body)
        }
        return "'\(name)' is no subcommand but reads as a protocol command, which is sent as a request: "
            + "vitrinectl \(options)send '\(request)' (vitrinectl --help lists the subcommands)"
    }

    /// The exit status of usage errors. argument-parser's own is EX_USAGE (64); 2 is what
    /// shells and most command-line tools use.
    static let usageError: Int32 = 2

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let hint = protocolCommandHint(arguments) {
            Output.write("vitrinectl: \(hint)\n", to: STDERR_FILENO)
            Glibc.exit(usageError)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as Failure {
            Output.error(failure.message)
            Glibc.exit(failure.exitCode)
        } catch {
            if exitCode(for: error) == .validationFailure {
                Output.write(fullMessage(for: error) + "\n", to: STDERR_FILENO)
                Glibc.exit(usageError)
            }
            exit(withError: error)
        }
    }
}
