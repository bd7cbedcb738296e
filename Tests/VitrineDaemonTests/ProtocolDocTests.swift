import Foundation
import Testing
import VitrineProtocol

/// Runs every `session` block of docs/PROTOCOL.md against a fresh daemon and compares
/// each reply and event with the documented one. `VITRINE_UPDATE_DOCS=1` rewrites the
/// documented lines from what the daemon answers.
@Suite(.serialized) struct ProtocolDocTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/PROTOCOL.md")
    static let screenshots = "/tmp/vitrine-shots"

    /// A session: requests, each with the lines documented after it.
    struct Session: CustomTestStringConvertible, Sendable {
        let index: Int
        let steps: [(request: String, expected: [String])]
        var testDescription: String { "session \(index): \(steps.first?.request.prefix(60) ?? "")" }
    }

    static func sessions() throws -> [Session] {
        let text = try String(contentsOf: document, encoding: .utf8)
        var sessions: [Session] = []
        var steps: [(String, [String])]?
        for line in text.components(separatedBy: "\n") {
            if line == "```session" { steps = []; continue }
            guard steps != nil else { continue }
            if line == "```" {
                sessions.append(Session(index: sessions.count, steps: steps!))
                steps = nil
            } else if line.hasPrefix("> ") {
                steps!.append((String(line.dropFirst(2)), []))
            } else if line.hasPrefix("< "), !steps!.isEmpty {
                steps![steps!.count - 1].1.append(String(line.dropFirst(2)))
            }
        }
        return sessions
    }

    @Test func documentHasSessions() throws {
        #expect(try Self.sessions().count >= 15)
    }

    @Test(arguments: try sessions())
    func sessionMatchesDocument(_ session: Session) throws {
        let daemon = try DaemonProcess(screenshotDirectory: Self.screenshots)
        let client = try daemon.connect()
        let updating = ProcessInfo.processInfo.environment["VITRINE_UPDATE_DOCS"] == "1"
        var actualSteps: [(String, [String])] = []
        for (request, expected) in session.steps {
            client.send(request)
            var lines: [String] = []
            if updating {
                while let line = client.readLine(timeout: 0.3) { lines.append(line) }
            } else {
                for _ in expected { if let line = client.readLine() { lines.append(line) } }
            }
            actualSteps.append((request, lines))
            guard !updating else { continue }
            #expect(lines.count == expected.count, "\(request): expected \(expected.count) lines, got \(lines)")
            for (got, want) in zip(lines, expected) {
                #expect(try JSON(parsing: Data(got.utf8)) == JSON(parsing: Data(want.utf8)), "\(request)\n  got:  \(got)\n  want: \(want)")
            }
        }
        if !updating {
            #expect(client.readLine(timeout: 0.2) == nil, "more lines than documented")
        } else {
            try Self.rewrite(session.index, actualSteps)
        }
    }

    /// Replaces the lines of session `index` in the document.
    private static func rewrite(_ index: Int, _ steps: [(String, [String])]) throws {
        let text = try String(contentsOf: document, encoding: .utf8)
        var out: [String] = []
        var count = -1
        var inside = false
        for line in text.components(separatedBy: "\n") {
            if line == "```session" {
                count += 1; inside = count == index; out.append(line); if inside { for (r, ls) in steps { out.append("> " + r); out += ls.map { "< " + $0 } } };
                continue
            }
            if inside, line == "```" { inside = false }
            if !inside { out.append(line) }
        }
        try out.joined(separator: "\n").write(to: document, atomically: true, encoding: .utf8)
    }
}
