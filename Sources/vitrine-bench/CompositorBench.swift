import Foundation

/// `vitrine-bench compositor`: a 1920×1080 Wayland client redrawing its whole window on
/// every frame callback, shown full screen by the release `vitrined` (headless, real-time
/// clock, a `surface` layer filling the root) and, in the same run, by Weston
/// (`--backend=headless-backend.so --use-pixman`, desktop shell without panel, so the
/// 1920×1080 window sits at the origin and covers the output) for the same time.
///
/// The client is `vitrined --backend wayland` showing a full-screen layer whose colour
/// animates and a bar that crosses it: it paces itself on the compositor's frame
/// callbacks and damages the whole window each frame. Reported per compositor: its CPU as
/// a share of one core, the client's frames per second, and CPU per client frame; the
/// ratios are vitrined's over Weston's (goal ≤ 1). A client paced by frame callbacks
/// draws at the compositor's rate only when each commit is shown in the very next frame
/// (the callback comes with that frame): `client_frames_per_refresh` (the client's frames
/// over the 60 Hz refresh both outputs have) is 1 then, and 0.5 when each commit waits a
/// refresh more. `output_fps` is vitrined's presented frames (`stats`).
func runCompositorBenchmarks(_ options: [String]) {
    let seconds = options.contains("--quick") ? 3.0 : 8.0
    guard let weston = ["/usr/bin/weston", "/usr/local/bin/weston"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        FileHandle.standardError.write(Data("vitrine-bench compositor: weston is not installed (apt-get install weston)\n".utf8))
        exit(1)
    }
    do {
        let ours = try compositorRun(seconds: seconds, weston: nil)
        let theirs = try compositorRun(seconds: seconds, weston: weston)
        for (name, run) in [("vitrined", ours), ("weston", theirs)] {
            print(
                "{\"bench\":\"compositor.client_1080p\",\"compositor\":\"\(name)\",\"seconds\":\(f3(run.elapsed)),\"cpu_percent_of_core\":\(f3(run.percent)),\"client_fps\":\(f3(run.clientFPS)),\"cpu_ms_per_client_frame\":\(f3(run.msPerFrame)),\"client_frames_per_refresh\":\(f3(run.clientFPS / 60)),\"output_fps\":\(run.outputFPS.map(f3) ?? "null")}"
            )
        }
        print(
            "{\"bench\":\"compositor.ratio\",\"cpu_per_second\":\(String(format: "%.2f", ours.percent / theirs.percent)),\"cpu_per_client_frame\":\(String(format: "%.2f", ours.msPerFrame / theirs.msPerFrame)),\"client_fps\":[\(f3(ours.clientFPS)),\(f3(theirs.clientFPS))],\"goal\":1}"
        )
        try printPresentationLatencies(seconds: seconds, weston: weston)
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench compositor: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

private func f3(_ value: Double) -> String { String(format: "%.3f", value) }

/// `compositor.presentation`: commit-to-presentation latency as clients measure it with
/// presentation-time, under vitrined and under Weston: the bench's own 1920×1080 client
/// (`benchClientRun`) and `weston-presentation-shm` (`presentationRun`), in milliseconds
/// and in 60 Hz frames; `compositor.latency`: vitrined's over Weston's (goal: the next
/// frame, 1).
private func printPresentationLatencies(seconds: Double, weston: String) throws {
    let period = 1000.0 / 60
    var runs: [(client: String, ours: PresentationRun, theirs: PresentationRun)] = [
        ("vitrine-bench 1920x1080", try benchClientRun(seconds: seconds, weston: nil), try benchClientRun(seconds: seconds, weston: weston))
    ]
    let shm = "/usr/bin/weston-presentation-shm"
    if FileManager.default.isExecutableFile(atPath: shm), FileManager.default.isExecutableFile(atPath: "/usr/bin/stdbuf") {
        runs.append(
            (
                "weston-presentation-shm", try presentationRun(seconds: seconds, weston: nil, client: shm),
                try presentationRun(seconds: seconds, weston: weston, client: shm)
            ))
    } else {
        FileHandle.standardError.write(Data("vitrine-bench compositor: no \(shm): its latency is not measured (apt-get install weston)\n".utf8))
    }
    for run in runs {
        for (name, result) in [("vitrined", run.ours), ("weston", run.theirs)] {
            print("{\"bench\":\"compositor.presentation\",\"compositor\":\"\(name)\",\"client\":\"\(run.client)\",\(result.fields(period: period))}")
        }
        guard !run.ours.latencies.isEmpty, !run.theirs.latencies.isEmpty else { continue }
        let ratio = { (p: Double) in String(format: "%.2f", percentile(run.ours.latencies, p) / percentile(run.theirs.latencies, p)) }
        print("{\"bench\":\"compositor.latency\",\"client\":\"\(run.client)\",\"p50_ratio\":\(ratio(0.5)),\"p99_ratio\":\(ratio(0.99)),\"goal_frames\":1}")
    }
}

/// One compositor's run: its CPU, the client's frames, and (vitrined's) output frames.
private struct CompositorRun {
    var elapsed = 0.0, cpu = 0.0, clientFrames = 0, outputFrames: Int?
    var percent: Double { cpu / elapsed * 100 }
    var clientFPS: Double { Double(clientFrames) / elapsed }
    var outputFPS: Double? { outputFrames.map { Double($0) / elapsed } }
    var msPerFrame: Double { cpu * 1000 / Double(max(1, clientFrames)) }
}

/// The client scene: the whole window changes colour every frame, and a bar crosses it.
private let clientScene = """
    {"size": [1920, 1080], "background": "#000000",
     "layers": [
      {"id": "field", "properties": {"bounds": [0, 0, 1920, 1080], "position": [960, 540], "backgroundColor": "#203040"},
       "animations": [{"keyPath": "backgroundColor", "from": "#203040", "to": "#c08020", "duration": 1, "autoreverses": true, "repeatCount": "infinity"}]},
      {"id": "bar", "properties": {"bounds": [0, 0, 200, 1080], "position": [100, 540], "backgroundColor": "#ffffff"},
       "animations": [{"keyPath": "position.x", "from": 100, "to": 1820, "duration": 2, "repeatCount": "infinity"}]}]}
    """

/// vitrined (`weston` nil) or Weston composing the client for `seconds`, after a second
/// to settle.
private func compositorRun(seconds: Double, weston: String?) throws -> CompositorRun {
    try BenchCleanup.withTemporaryDirectory { directory in
        let scene = directory + "/client.json"
        try Data(clientScene.utf8).write(to: URL(fileURLWithPath: scene))
        let compositor = try BenchCompositor(in: directory, weston: weston, rule: "app_id = \"vitrined\"")
        defer { compositor.stop() }
        let client = try DaemonChild(
            backend: "wayland", environment: ["WAYLAND_DISPLAY": compositor.socket], arguments: ["--mode", "1920x1080@60", "--scene", scene])
        defer { client.stop() }
        let ask = try requester(client)
        let outputs = try compositor.daemon.map { try requester($0) }
        sleep(1)
        let cpu0 = cpuSeconds(compositor.pid), client0 = try counters(ask).frames, output0 = try outputs.map { try counters($0).frames }
        let start = Date()
        usleep(UInt32(seconds * 1_000_000))
        let cpu1 = cpuSeconds(compositor.pid), client1 = try counters(ask).frames, output1 = try outputs.map { try counters($0).frames }
        return CompositorRun(
            elapsed: Date().timeIntervalSince(start), cpu: cpu1 - cpu0, clientFrames: client1 - client0,
            outputFrames: output1.flatMap { end in output0.map { end - $0 } })
    }
}

/// A compositor for a run, on a Wayland socket in `directory`: Weston
/// (`--backend=headless-backend.so --use-pixman`, desktop shell without panel, 1920×1080)
/// or the release vitrined (headless 1920×1080, `[compositor]`, a surface layer `app`
/// filling the root that the toplevels `rule` matches go to; `extra` configuration after
/// the rule).
final class BenchCompositor {
    let pid: Int32
    let socket: String
    /// vitrined's process, nil for Weston.
    let daemon: DaemonChild?
    private let weston: Process?

    init(in directory: String, weston path: String?, rule: String, extra: String = "") throws {
        if let path {
            socket = directory + "/weston-0"
            let ini = directory + "/weston.ini"
            try Data("[core]\nidle-time=0\n[shell]\npanel-position=none\nlocking=false\nanimation=none\nstartup-animation=none\n".utf8)
                .write(to: URL(fileURLWithPath: ini))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = [
                "--backend=headless-backend.so", "--use-pixman", "--shell=desktop-shell.so", "--width=1920", "--height=1080", "--socket=\(socket)",
                "--config=\(ini)", "--idle-time=0",
            ]
            process.environment = ProcessInfo.processInfo.environment.merging(["XDG_RUNTIME_DIR": directory]) { $1 }
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            weston = process
            daemon = nil
            pid = process.processIdentifier
        } else {
            let config = directory + "/vitrine.toml", root = directory + "/root.json"
            try Data("[compositor]\nenabled = true\nsocket = \"wl\"\n[[compositor.rules]]\n\(rule)\nlayer = \"app\"\n\(extra)".utf8)
                .write(to: URL(fileURLWithPath: config))
            try Data(
                #"{"size": [1920, 1080], "layers": [{"id": "app", "kind": "surface", "properties": {"bounds": [0, 0, 1920, 1080], "position": [960, 540]}}]}"#
                    .utf8
            ).write(to: URL(fileURLWithPath: root))
            let child = try DaemonChild(width: 1920, height: 1080, arguments: ["--config", config, "--scene", root])
            daemon = child
            weston = nil
            pid = child.processIdentifier
            socket = child.directory + "/wl"
        }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline else {
                stop()
                throw BenchError("the compositor made no Wayland socket at \(socket) within 10 s")
            }
            usleep(20_000)
        }
    }

    func stop() {
        daemon?.stop()
        if let weston, weston.isRunning {
            weston.terminate()
            weston.waitUntilExit()
        }
    }
}
