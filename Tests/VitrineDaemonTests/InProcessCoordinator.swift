import Foundation
import Logging
import Testing
import VitrineDaemon
import VitrineOutput
import VitrineProtocol
import VitrineRaster

/// A coordinator in the test process (headless, manual clock): requests go through the
/// same decoding and execution as on the socket, without the socket.
final class InProcessCoordinator: ClientConnection {
    let coordinator: Coordinator
    let output: HeadlessOutput
    let clientID = 1
    private(set) var lines: [String] = []
    private var nextID = 0

    init(width: Int = 400, height: Int = 120, settings: DaemonSettings = DaemonSettings()) throws {
        var settings = settings
        settings.clock = .manual
        output = try HeadlessOutput(width: width, height: height)
        coordinator = try Coordinator(settings: settings, output: output, logger: Logger(label: "test"))
        coordinator.connect(self)
    }

    func send(_ line: String) { lines.append(line) }

    /// Runs a request (its id is added) and returns the reply's result, failing the test
    /// on an error reply.
    @discardableResult
    func run(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        nextID += 1
        guard case .object(var o) = try JSON(parsing: Data(text.utf8)) else { throw DaemonError("not an object: \(text)") }
        o["id"] = .number(Double(nextID))
        let reply = try JSON(parsing: Data((coordinator.handle(line: Array(JSON.object(o).text.utf8), from: self) ?? "").utf8))
        coordinator.flush()
        guard reply["ok"] == .bool(true), let result = reply["result"] else {
            Issue.record("\(text) failed: \(reply.text)", sourceLocation: sourceLocation)
            return .null
        }
        return result
    }

    /// The events received so far, and forgets them.
    func takeEvents() -> [JSON] {
        defer { lines.removeAll() }
        return lines.compactMap { try? JSON(parsing: Data($0.utf8)) }.filter { $0["event"] != nil }
    }

    /// What the output shows now, drawn whole.
    func snapshot() throws -> Surface {
        try coordinator.outputSet.renderer.snapshot(coordinator.scene, root: coordinator.root, at: coordinator.now)
    }
}
