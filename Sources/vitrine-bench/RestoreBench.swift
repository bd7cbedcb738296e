import Foundation
import VitrineCore
import VitrineDaemon
import VitrineProtocol
import VitrineRender

// vitrine-bench restore: from exec of the release `vitrined` to its first frame, with a
// 1 000-layer scene to restore from the journal, against the same with no journal.
//
// The journal is made by a real daemon: a transaction adds 900 rectangles (every fourth
// animating for ever), 80 text labels and 20 rolling numbers (set rolling), then SIGTERM
// writes it. Each run copies that file into a fresh state directory and starts
// `vitrined --state-dir DIR`; the clock starts just before exec and stops when the socket
// answers `stats` with `frames` ≥ 1. The daemon serves requests only after it has shown
// its first frame, so that is the first moment a client can see the restored screen.

private let runs = 9

func runRestoreBenchmarks(_ arguments: [String]) {
    BenchCleanup.shared.installSignalHandlers()
    do {
        let count = arguments.contains("--quick") ? 3 : runs
        let work = try BenchCleanup.makeTemporaryDirectory()
        defer { BenchCleanup.removeDirectory(work) }
        let journal = try makeJournal(in: work)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
        // The in-process parts: decode the file, rebuild the scene, draw it once (cold).
        let decode = medianOf(count) { _ = try? SceneJournal.Record(decoding: Array(bytes)) }
        let record = try SceneJournal.Record(decoding: Array(bytes))
        var scene = Scene()
        let restore = medianOf(count) {
            scene = Scene()
            StandardKinds.register(in: scene)
            try? scene.addRoot(id: "root", output: "bench", size: Size(width: 1280, height: 800))
            try? scene.restore(record.scene)
        }
        let renderer = StandardKinds.renderer()
        let draw = medianOf(1) { _ = try? renderer.snapshot(scene, root: "root", at: record.mediaTime) }
        var restored: [Double] = [], empty: [Double] = []
        for run in 0..<count {
            // Alternated, so that a slower moment of a shared machine falls on both.
            for withJournal in run % 2 == 0 ? [true, false] : [false, true] {
                let state = work + "/state-\(run)-\(withJournal)"
                mkdir(state, 0o700)
                if withJournal { try bytes.write(to: URL(fileURLWithPath: state + "/scene.json")) }
                let ms = try timeToFirstFrame(stateDirectory: state, socket: work + "/r.sock")
                if withJournal { restored.append(ms) } else { empty.append(ms) }
            }
        }
        let r = restored.sorted()[restored.count / 2], e = empty.sorted()[empty.count / 2]
        print(
            "{\"bench\":\"restore.first_frame\",\"layers\":1000,\"journal_bytes\":\(bytes.count),\"runs\":\(count),\"restored_ms\":\(f1(r)),\"restored_max_ms\":\(f1(restored.max()!)),\"empty_ms\":\(f1(e)),\"ratio\":\(String(format: "%.2f", r / e)),\"decode_ms\":\(f1(decode)),\"restore_ms\":\(f1(restore)),\"first_draw_ms\":\(f1(draw))}"
        )
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench restore: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

private func f1(_ x: Double) -> String { String(format: "%.1f", x) }

private func medianOf(_ n: Int, _ body: () -> Void) -> Double {
    (0..<n).map { _ in
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }.sorted()[n / 2]
}

/// Builds the 1 000-layer scene in a daemon and returns the journal its SIGTERM wrote.
private func makeJournal(in work: String) throws -> String {
    let state = work + "/source"
    mkdir(state, 0o700)
    let socket = work + "/s.sock"
    let daemon = try startDaemon(stateDirectory: state, socket: socket)
    defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
    while !SocketProbe.isListening(socket) {
        guard daemon.isRunning else { throw BenchError("vitrined did not start") }
        usleep(5_000)
    }
    let client = try BlockingLineClient(path: socket)
    var commands: [JSON] = []
    func add(_ id: String, _ kind: String, _ properties: [String: JSON]) {
        commands.append(.object(["cmd": .string("layer.add"), "layer": .string(id), "kind": .string(kind), "properties": .object(properties)]))
    }
    for i in 0..<900 {
        let (x, y) = (Double(i % 36) * 35 + 20, Double(i / 36) * 30 + 20)
        add(
            "r\(i)", "layer",
            [
                "bounds": .array([0, 0, 30, 24].map(JSON.number)), "position": .array([.number(x), .number(y)]),
                "backgroundColor": .string(["#ff6b6b", "#4ecdc4", "#ffe66d", "#1a535c"][i % 4]), "cornerRadius": .number(4),
            ])
        if i % 4 == 0 {
            commands.append(
                .object([
                    "cmd": .string("animation.add"), "layer": .string("r\(i)"),
                    "animation": .object([
                        "keyPath": .string("opacity"), "from": .number(1), "to": .number(0.3), "duration": .number(2),
                        "autoreverses": .bool(true), "repeatCount": .string("infinity"),
                    ]),
                ]))
        }
    }
    for i in 0..<80 {
        add(
            "t\(i)", "text",
            [
                "bounds": .array([0, 0, 150, 24].map(JSON.number)), "position": .array([.number(Double(i % 8) * 160 + 80), .number(Double(i / 8) * 28 + 560)]),
                "string": .string("Label \(i)"), "fontSize": .number(18),
            ])
    }
    for i in 0..<20 {
        add(
            "n\(i)", "rolling-number",
            [
                "bounds": .array([0, 0, 240, 48].map(JSON.number)), "position": .array([.number(Double(i % 5) * 250 + 130), .number(Double(i / 5) * 50 + 30)]),
                "fontSize": .number(36), "value": .number(Double(1000 * i + 1234)),
            ])
    }
    let transaction = JSON.object(["id": .number(1), "cmd": .string("transaction"), "disableActions": .bool(true), "commands": .array(commands)])
    try client.expectOK(id: 1, transaction.text)
    for i in 0..<20 {
        try client.expectOK(id: 2 + i, #"{"id":\#(2 + i),"cmd":"number.set","layer":"n\#(i)","value":\#(1000 * i + 98765)}"#)
    }
    kill(daemon.processIdentifier, SIGTERM)
    daemon.waitUntilExit()
    let path = state + "/scene.json"
    let record = try SceneJournal.Record(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    guard record.scene.layers.count == 1001 else { throw BenchError("the journal holds \(record.scene.layers.count) layers, not 1001") }
    return path
}

private func startDaemon(stateDirectory: String, socket: String) throws -> Process {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vitrined")
    guard FileManager.default.isExecutableFile(atPath: executable.path) else {
        throw BenchError("\(executable.path) is missing: build it first (swift build -c release --product vitrine-bench)")
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = [
        "--backend", "headless", "--size", "1280x800", "--clock", "realtime", "--socket", socket,
        "--screenshot-dir", stateDirectory, "--state-dir", stateDirectory, "--log-level", "warning",
    ]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return process
}

/// Milliseconds from exec to the first `stats` reply (which follows the first frame).
private func timeToFirstFrame(stateDirectory: String, socket: String) throws -> Double {
    unlink(socket)
    let start = DispatchTime.now().uptimeNanoseconds
    let daemon = try startDaemon(stateDirectory: stateDirectory, socket: socket)
    defer {
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline, daemon.isRunning {
        if let client = try? BlockingLineClient(path: socket) {
            try client.send(Array("{\"id\":1,\"cmd\":\"stats\"}\n".utf8))
            let reply = try JSON(parsing: Data(try client.replyLine(id: 1).utf8))
            if let frames = reply["result"]?["frames"]?.number, frames >= 1 {
                return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            }
        }
        usleep(500)
    }
    throw BenchError("vitrined showed no frame within 20 s")
}
