import Foundation

/// `vitrine-bench outputs`: what a second screen costs. The real `vitrined` (release,
/// real-time clock, headless) with one 1920×1080 output, then with two (two `[[outputs]]`
/// tables, emulated), each showing an 8-digit rolling counter that changes every second
/// and rolls at 60 fps; the daemon's CPU over the run as a share of one core. The
/// reference is the one-output run, measured before and after the two-output run in the
/// same process (their mean); the goal is a ratio of at most 2: outputs cost no more
/// together than apart.
func runOutputsBenchmarks(_ options: [String]) {
    let seconds = options.contains("--quick") ? 3 : 8
    do {
        let first = try countersRun(outputs: 1, seconds: seconds)
        let two = try countersRun(outputs: 2, seconds: seconds)
        let second = try countersRun(outputs: 1, seconds: seconds)
        let one = (first.percent + second.percent) / 2
        for (count, run) in [(1, first), (2, two), (1, second)] {
            print(
                "{\"bench\":\"outputs.counters\",\"outputs\":\(count),\"size\":\"1920x1080\",\"seconds\":\(String(format: "%.3f", run.elapsed)),\"frames\":\(run.frames),\"cpu_percent_of_core\":\(String(format: "%.3f", run.percent))}"
            )
        }
        print(
            "{\"bench\":\"outputs.ratio\",\"one_output_percent\":\(String(format: "%.3f", one)),\"two_outputs_percent\":\(String(format: "%.3f", two.percent)),\"ratio\":\(String(format: "%.2f", two.percent / one)),\"goal\":2}"
        )
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench outputs: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

/// A daemon with `outputs` emulated 1080p outputs, a rolling counter on each root, a new
/// value on every counter once a second.
private func countersRun(outputs: Int, seconds: Int) throws -> DaemonRun {
    try BenchCleanup.withTemporaryDirectory { directory in
        let config = directory + "/vitrine.toml"
        let tables = (1...outputs).map { "[[outputs]]\nconnector = \"HDMI-A-\($0)\"\nmode = \"1920x1080@60\"\n" }
        try Data(tables.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: config))
        let child = try DaemonChild(width: 1920, height: 1080, arguments: ["--config", config])
        defer { child.stop() }
        let request = try requester(child)
        let roots = ["root"] + (1..<outputs).map { "HDMI-A-\($0 + 1)" }
        for (i, root) in roots.enumerated() {
            _ = try request(
                #"{"cmd": "layer.add", "layer": "n\#(i)", "parent": "\#(root)", "kind": "rolling-number", "properties": {"bounds": [0, 0, 1200, 200], "position": [960, 540], "fontSize": 140, "alignment": "center", "usesGrouping": false, "value": 10000000}}"#
            )
        }
        var value = 10_000_000
        return try measure(child, request, seconds: seconds) { _ in
            value += Int.random(in: 1...999)
            for i in roots.indices { _ = try request(#"{"cmd": "number.set", "layer": "n\#(i)", "value": \#(value)}"#) }
        }
    }
}
