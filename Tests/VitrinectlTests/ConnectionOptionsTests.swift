import Foundation
import Testing
import VitrineJSON
@testable import vitrinectl

/// `--socket`, `--timeout` and `--json` before the subcommand as well as after it: the real
/// `vitrinectl` against the real `vitrined`, with `VITRINE_SOCKET` naming no socket, so that
/// only the option can reach the daemon.
@Suite struct ConnectionOptionsTests {
    static let absent = "/nonexistent/vitrine.sock"

    /// Runs `vitrinectl` with `VITRINE_SOCKET` set to a path where no daemon is.
    func ctl(_ arguments: String..., daemon: Daemon) throws -> Ctl.Result {
        try Ctl(arguments, socket: Self.absent, stdin: nil, in: daemon.directory).wait()
    }

    @Test func socketBeforeSend() throws {
        let daemon = try Daemon()
        let send = try ctl("--socket", daemon.socketPath, "send", #"{"id":1,"cmd":"hello"}"#, daemon: daemon)
        #expect(send.status == 0 && send.stderr.isEmpty && send.lines.count == 1, "\(send)")
        let reply = try JSON(parsing: send.stdout)
        #expect(reply["id"] == .number(1) && reply["ok"] == .bool(true), "\(send)")
        #expect(reply["result"]?["version"] != nil)
    }

    @Test func socketBeforeOtherSubcommands() throws {
        let daemon = try Daemon()
        let add = try ctl("--socket", daemon.socketPath, "add", "box", "opacity", "0.5", daemon: daemon)
        #expect(add.status == 0 && add.stdout.isEmpty && add.stderr.isEmpty, "\(add)")
        #expect(try ctl("--socket=\(daemon.socketPath)", "get", "box", "opacity", daemon: daemon).lines == ["opacity = 0.5"])
        // A subcommand's subcommand, and --json before it.
        #expect(try ctl("--socket", daemon.socketPath, "clock", "advance", "2", daemon: daemon).status == 0)
        let ping = try ctl("--json", "--socket", daemon.socketPath, "ping", daemon: daemon)
        #expect(try JSON(parsing: ping.stdout)["result"]?["time"] == .number(2), "\(ping)")
    }

    @Test func theOptionAfterTheSubcommandWins() throws {
        let daemon = try Daemon()
        let after = try ctl("--socket", Self.absent, "ping", "--socket", daemon.socketPath, daemon: daemon)
        #expect(after.status == 0 && after.lines.first?.hasPrefix("pong") == true, "\(after)")
        let before = try ctl("--socket", daemon.socketPath, "ping", "--socket", Self.absent, daemon: daemon)
        #expect(before.status == 3 && before.stderr.contains(Self.absent), "\(before)")
    }

    /// `--timeout` before the subcommand bounds its waits as after it.
    @Test func timeoutBeforeTheSubcommand() throws {
        let daemon = try Daemon()
        try daemon.ctl("add", "n", "--kind", "rolling-number", "bounds", "[0,0,600,120]", "value", "1")
        let start = Date()
        let wait = try ctl("--timeout", "0.5", "--socket", daemon.socketPath, "number", "n", "10", "--wait", daemon: daemon)
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(wait.status == 4 && wait.stderr.hasSuffix(" did not complete within 0.5 s (see --timeout); its animations go on\n"), "\(wait)")
        let refused = try ctl("--timeout", "0", "ping", daemon: daemon)
        #expect(refused.status == 2 && refused.stderr.contains("--timeout is a number of seconds above 0"), "\(refused)")
    }

    @Test func parsedOnEitherSide() throws {
        func socket(_ arguments: [String]) throws -> String? {
            (try Vitrinectl.parseAsRoot(arguments) as? SendCommand)?.connection.socket
        }
        #expect(try socket(["--socket", "/a", "send", "{}"]) == "/a")
        #expect(try socket(["send", "{}", "--socket", "/b"]) == "/b")
        #expect(try socket(["--socket", "/a", "send", "--socket", "/b", "{}"]) == "/b")
        let ping = try #require(try Vitrinectl.parseAsRoot(["--timeout", "3", "--json", "ping"]) as? PingCommand)
        #expect(ping.connection.timeout == 3 && ping.connection.json)
    }

    @Test func theProtocolCommandHintKeepsTheOptions() {
        #expect(
            Vitrinectl.protocolCommandHint(["--socket", "/tmp/v.sock", "--json", "layer.tree", "{}"])?
                .contains(#"vitrinectl --socket /tmp/v.sock --json send '{"cmd": "layer.tree"}'"#) == true)
        #expect(Vitrinectl.protocolCommandHint(["--socket=/s", "surface.list"])?.contains(#"vitrinectl --socket=/s send '{"cmd""#) == true)
        #expect(Vitrinectl.protocolCommandHint(["--sockets", "layer.tree"]) == nil)
    }
}
