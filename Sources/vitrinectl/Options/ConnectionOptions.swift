import VitrineJSON
import ArgumentParser
import Glibc

/// The options every subcommand shares: where the daemon is and how to print its replies.
struct ConnectionOptions: ParsableArguments {
    static let defaultSocket = "/run/vitrine/vitrine.sock"
    /// Seconds to wait for each reply without `--timeout`.
    static let defaultTimeout = 10.0

    @Option(
        name: .customLong("socket"),
        help: ArgumentHelp("The daemon's socket: $VITRINE_SOCKET if set, else \(defaultSocket).", valueName: "path"),
        completion: .file())
    var givenSocket: String?

    /// The daemon's socket: `--socket`, else `$VITRINE_SOCKET` if set and not empty, else
    /// the default. (The option has no default value: argument-parser would describe it
    /// for the help at every start, a conformance look-up through the whole binary.)
    var socket: String {
        givenSocket ?? getenv("VITRINE_SOCKET").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultSocket
    }

    @Flag(help: "Print the daemon's reply line as it came (JSON) instead of a summary.")
    var json = false

    @Option(
        name: .customLong("timeout"),
        help: ArgumentHelp(
            "Real seconds (on any daemon clock) to wait for each reply (default 10), and for --wait or watch to end (default: no limit).",
            valueName: "seconds"))
    var givenTimeout: Double?

    /// Seconds to wait for each reply.
    var timeout: Double { givenTimeout ?? Self.defaultTimeout }

    func validate() throws {
        guard timeout.isFinite, timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout is a number of seconds above 0 and at most 86400")
        }
    }

    func connect() throws(Failure) -> Connection {
        try Connection(path: socket, timeout: timeout, waitTimeout: givenTimeout)
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
