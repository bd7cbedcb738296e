import ArgumentParser
import Foundation
import VitrineProtocol

/// The options every subcommand shares: where the daemon is and how to print its replies.
struct ConnectionOptions: ParsableArguments {
    static let defaultSocket = "/run/vitrine/vitrine.sock"

    @Option(
        help: ArgumentHelp("The daemon's socket: $VITRINE_SOCKET if set, else \(defaultSocket).", valueName: "path"),
        completion: .file())
    var socket: String = ProcessInfo.processInfo.environment["VITRINE_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultSocket

    @Flag(help: "Print the daemon's reply line as it came (JSON) instead of a summary.")
    var json = false

    @Option(help: ArgumentHelp("Seconds to wait for each reply.", valueName: "seconds"))
    var timeout: Double = 10

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout is a number of seconds above 0 and at most 86400")
        }
    }

    func connect() throws(Failure) -> Connection {
        try Connection(path: socket, timeout: timeout)
    }

    /// Sends one request and returns its result. With `--json` the reply line is printed
    /// as it came; otherwise `summary(result)` is, unless it is nil. An error reply throws.
    @discardableResult
    func send(
        _ cmd: String, _ fields: [String: JSON] = [:], on connection: Connection? = nil,
        summary: (JSON) -> String? = { _ in nil }
    ) throws(Failure) -> JSON {
        let session = if let connection { connection } else { try connect() }
        let reply = try session.request(cmd, fields)
        if json { Output.line(reply.line) }
        if let failure = reply.failure { throw failure }
        let result = reply.json["result"] ?? .null
        if !json, let text = summary(result) { Output.line(text) }
        return result
    }
}
