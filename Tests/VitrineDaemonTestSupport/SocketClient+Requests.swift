import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

extension SocketClient {
    /// Sends a request and requires it to succeed.
    public func ok(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reply = try request(line)
        try #require(reply["ok"] == .bool(true), "\(line.prefix(160)): \(reply)", sourceLocation: sourceLocation)
    }

    /// The events sent so far: those sent after the last reply come before a ping's.
    public func drain() throws -> [JSON] {
        _ = try request(#"{"cmd": "ping"}"#)
        return takeEvents()
    }

    /// A screenshot taken now.
    public func screenshot(_ name: String) throws -> Surface {
        let reply = try request(#"{"cmd": "screenshot", "path": "\#(name).png"}"#)
        return try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
    }

    /// Waits up to `timeout` seconds for an event `name` that `matches`; throws, with the
    /// events that came instead, if none does.
    public func waitForEvent(_ name: String, timeout: Double = 10, where matches: (JSON) -> Bool = { _ in true }) throws -> JSON {
        var seen = takeEvents()
        if let event = seen.first(where: { $0["event"] == .string(name) && matches($0) }) { return event }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, let line = readLine(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            let event = try JSON(parsing: Data(line.utf8))
            if event["event"] == .string(name), matches(event) { return event }
            seen.append(event)
        }
        throw DaemonError("no \(name) event came within \(timeout) s; these did: \(seen.map(\.text))")
    }
}
