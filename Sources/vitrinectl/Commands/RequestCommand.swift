import VitrineJSON
import ArgumentParser

/// A subcommand that is one request to the daemon, declared as data: the protocol
/// command, the fields its arguments make, and how its result reads.
protocol RequestCommand: ParsableCommand {
    /// The protocol command, e.g. `layer.set`.
    static var protocolCommand: String { get }
    var connection: ConnectionOptions { get }
    /// The request's fields besides `id` and `cmd`.
    var fields: [String: JSON] { get }
    /// What is printed without `--json`; nil prints nothing (commands that change
    /// something succeed silently).
    static func summary(_ result: JSON) -> String?
    /// True to return only when the request's transaction has completed (`--wait`).
    var waitsForCompletion: Bool { get }
}

extension RequestCommand {
    var fields: [String: JSON] { [:] }
    static func summary(_ result: JSON) -> String? { nil }
    var waitsForCompletion: Bool { false }

    func run() throws {
        let session = try connection.connect()
        let result = try connection.send(Self.protocolCommand, fields, on: session, summary: Self.summary)
        if waitsForCompletion, let transaction = result["transaction"] { try session.waitForCompletion(of: transaction) }
    }
}
