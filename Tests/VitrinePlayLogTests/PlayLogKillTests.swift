import Foundation
import Logging
import Testing
import VitrinePlayLog
import VitrineProtocol
import VitrineTestSupport

/// A process recording items (`playlog-probe`: the daemon's loop, workers and play log)
/// is killed with SIGKILL: every call it made more than a second before is in the log.
@Suite struct PlayLogKillTests {
    static var probe: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("playlog-probe").path
    }

    /// What the probe said it did: each token's began, frame and ended wall-clock times.
    struct Calls {
        var run = ""
        var began: [Int: Double] = [:]
        var framed: [Int: Double] = [:]
        var ended: [Int: Double] = [:]

        init(_ text: String) {
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if words.count == 2, words[0] == "run" { run = String(words[1]) }
                guard words.count == 3, let token = Int(words[1]), let time = Double(words[2]) else { continue }
                switch words[0] {
                case "began": began[token] = time
                case "frame": framed[token] = time
                case "ended": ended[token] = time
                default: break
                }
            }
        }
    }

    static func wallClock() -> Double { Date().timeIntervalSince1970 }

    @Test(arguments: [0.02, 0.3])
    func afterSIGKILLEverythingUpToASecondBeforeIsThere(itemSeconds: Double) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("playlog-kill-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let said = directory + "/probe.stderr"
        let process = try ChildProcess(Self.probe, [directory + "/playlog", String(itemSeconds)], stderrPath: said)
        usleep(2_600_000)
        let killed = Self.wallClock()
        kill(process.pid, SIGKILL)
        #expect(process.wait(timeout: 10) == 128 + SIGKILL)

        let calls = Calls(try String(contentsOfFile: said, encoding: .utf8))
        #expect(!calls.run.isEmpty && calls.began.count >= 3)
        let store = PlayLogStore(directory: directory + "/playlog", limits: .init(maxBytes: 64 << 20, keepSeconds: 86_400), logger: Logger(label: "test"))
        let answer = try store.read(PlayLogQuery(limit: PlayLogQuery.maximumLimit))
        let logged = Dictionary(answer.entries.map { ($0.id, $0) }) { a, _ in a }
        let cutoff = killed - 1.0
        var missing: [String] = []
        for (token, time) in calls.began where time <= cutoff {
            guard let entry = logged["\(calls.run)-\(token)"] else {
                missing.append("began \(token) at \(killed - time) s before the kill")
                continue
            }
            if entry.start != time { missing.append("start of \(token)") }
            if let framed = calls.framed[token], framed <= cutoff, entry.hash == nil { missing.append("hash of \(token)") }
            if let ended = calls.ended[token], ended <= cutoff, entry.end != ended || entry.completed != true {
                missing.append("end of \(token) at \(killed - ended) s before the kill")
            }
        }
        #expect(missing.isEmpty, "\(missing.prefix(10))")
        // What the log lost at most: the time from its newest call to the kill.
        let newest = answer.entries.map { max($0.start, $0.end ?? 0) }.max() ?? 0
        #expect(killed - newest < 1.0)
        #expect(answer.entries.count <= calls.began.count && answer.skipped <= 1)
    }
}
