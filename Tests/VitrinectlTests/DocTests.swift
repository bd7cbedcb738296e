import Foundation
import Testing

/// Runs the `console` blocks of docs/VITRINECTL.md, in order, against one fresh daemon and
/// compares what each `$ vitrinectl …` line prints (standard output, then standard error,
/// then the status for `; echo $?`) with the lines documented under it.
@Suite struct DocTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/VITRINECTL.md")

    struct Step {
        let line: Int
        let command: String
        var expected: [String] = []
    }

    static func steps() throws -> [Step] {
        var steps: [Step] = []
        var inside = false
        for (number, line) in try String(contentsOf: document, encoding: .utf8).components(separatedBy: "\n").enumerated() {
            if line == "```console" { inside = true; continue }
            guard inside else { continue }
            if line == "```" {
                inside = false
            } else if line.hasPrefix("$ ") {
                steps.append(Step(line: number + 1, command: String(line.dropFirst(2))))
            } else if !steps.isEmpty {
                steps[steps.count - 1].expected.append(line)
            }
        }
        return steps
    }

    @Test func examplesPrintWhatTheDocumentSays() throws {
        let steps = try Self.steps()
        #expect(steps.count >= 25)
        let daemon = try Daemon(screenshotDirectory: "/tmp/vitrine-shots")
        for step in steps {
            var command = step.command
            let echoStatus = command.hasSuffix("; echo $?")
            if echoStatus { command.removeLast("; echo $?".count) }
            let words = try ShellWords.split(command)
            try #require(words.first == "vitrinectl", "line \(step.line): \(step.command)")
            let result = try daemon.ctl(Array(words.dropFirst()))
            var lines = result.lines + result.stderr.split(separator: "\n").map(String.init)
            if echoStatus { lines.append(String(result.status)) }
            #expect(lines == step.expected, "docs/VITRINECTL.md:\(step.line): \(step.command)")
            #expect(echoStatus || result.stderr.isEmpty == (result.status == 0), "line \(step.line): exit \(result.status)")
        }
    }
}

/// Splits a command line into words as a POSIX shell does for the quoting the document
/// uses: spaces separate words; '…' and "…" quote (with \" and \\ inside double quotes).
enum ShellWords {
    struct Unterminated: Error {}

    static func split(_ line: String) throws -> [String] {
        var words: [String] = []
        var word: String?
        var iterator = line.makeIterator()
        while let c = iterator.next() {
            switch c {
            case " ":
                if let w = word { words.append(w); word = nil }
            case "'":
                word = word ?? ""
                while true {
                    guard let q = iterator.next() else { throw Unterminated() }
                    if q == "'" { break }
                    word!.append(q)
                }
            case "\"":
                word = word ?? ""
                while true {
                    guard let q = iterator.next() else { throw Unterminated() }
                    if q == "\"" { break }
                    if q == "\\", let escaped = iterator.next() { word!.append(escaped); continue }
                    word!.append(q)
                }
            default:
                word = (word ?? "") + String(c)
            }
        }
        if let w = word { words.append(w) }
        return words
    }
}
