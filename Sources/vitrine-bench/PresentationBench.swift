import Foundation

/// A client's commit-to-presentation latency under one compositor, as the client measures
/// it with `wp_presentation` (on the compositor's presentation clock).
struct PresentationRun {
    /// Commit to presentation of each commit presented, milliseconds, sorted.
    var latencies: [Double]
    /// Presentation to the next presentation, milliseconds, sorted.
    var intervals: [Double]
    /// Commits discarded (never shown).
    var discarded: Int

    /// `{"p50_ms": …, "p99_ms": …, "p50_frames": …, "p99_frames": …}` at a refresh of `period` ms.
    func fields(period: Double) -> String {
        guard !latencies.isEmpty else { return "\"presented\":0,\"discarded\":\(discarded)" }
        let (p50, p99) = (percentile(latencies, 0.5), percentile(latencies, 0.99))
        let interval = intervals.isEmpty ? Double.nan : percentile(intervals, 0.5)
        return "\"presented\":\(latencies.count),\"discarded\":\(discarded),\"p50_ms\":\(f2(p50)),\"p99_ms\":\(f2(p99)),"
            + "\"p50_frames\":\(f2(p50 / period)),\"p99_frames\":\(f2(p99 / period)),\"frame_interval_p50_ms\":\(f2(interval))"
    }
}

private func f2(_ value: Double) -> String { String(format: "%.2f", value) }

/// Weston's `weston-presentation-shm -f` (a 250×250 window redrawn and committed on every
/// frame callback, each commit with `wp_presentation_feedback`) under vitrined (`weston`
/// nil: shown by the surface layer filling the 1920×1080 root, so every commit repaints the
/// whole output) or Weston, for `seconds` after a second to settle: the latency from each
/// commit (the client's clock reading just before `wl_surface.commit`) to the presentation
/// time the compositor reports for it.
func presentationRun(seconds: Double, weston: String?, client: String) throws -> PresentationRun {
    try BenchCleanup.withTemporaryDirectory { directory in
        let compositor = try BenchCompositor(in: directory, weston: weston, rule: "title = \"presentation-shm: feedback [Delay 0 msecs]\"")
        defer { compositor.stop() }
        let log = directory + "/presentation-shm.out"
        FileManager.default.createFile(atPath: log, contents: nil)
        guard let output = FileHandle(forWritingAtPath: log) else { throw BenchError("cannot write \(log)") }
        let process = Process()
        // Line-buffered: each presentation is written as it comes.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", client, "-f"]
        process.environment = ProcessInfo.processInfo.environment.merging(["WAYLAND_DISPLAY": compositor.socket]) { $1 }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        sleep(1)
        let settled = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        usleep(UInt32(seconds * 1_000_000))
        guard process.isRunning else {
            throw BenchError("\(client) stopped: \(String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self))")
        }
        let text = String(decoding: (FileManager.default.contents(atPath: log) ?? Data()).dropFirst(settled), as: UTF8.self)
        return parsePresentationShm(text)
    }
}

/// The bench's own 1920×1080 client (`BenchWaylandClient`: the whole window redrawn and
/// committed on every frame callback) under vitrined (`weston` nil: in the surface layer
/// filling the root) or Weston, for `seconds` after a second to settle.
func benchClientRun(seconds: Double, weston: String?) throws -> PresentationRun {
    try BenchCleanup.withTemporaryDirectory { directory in
        let compositor = try BenchCompositor(in: directory, weston: weston, rule: "app_id = \"vitrine-bench-client\"")
        defer { compositor.stop() }
        return try BenchWaylandClient(socket: compositor.socket, width: 1920, height: 1080).measure(settle: 1, seconds: seconds)
    }
}

/// Reads `weston-presentation-shm -f`'s lines: "     7: f2c  0 ms, c2p 16 ms, f2p 16 ms,
/// p2p 16670 us, t2p  16633, [____], seq 0" (t2p: commit to presentation, microseconds;
/// p2p: since the previous presentation) and "discarded 12".
func parsePresentationShm(_ text: String) -> PresentationRun {
    var run = PresentationRun(latencies: [], intervals: [], discarded: 0)
    func number(after key: String, in line: Substring) -> Double? {
        guard let range = line.range(of: key + " ") else { return nil }
        return Double(line[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber })
    }
    for line in text.split(separator: "\n") {
        if line.hasPrefix("discarded") {
            run.discarded += 1
        } else if let t2p = number(after: "t2p", in: line), let p2p = number(after: "p2p", in: line) {
            run.latencies.append(t2p / 1000)
            if p2p > 0 { run.intervals.append(p2p / 1000) }
        }
    }
    run.latencies.sort()
    run.intervals.sort()
    return run
}
