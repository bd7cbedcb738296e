import Foundation
import Logging
import VitrineDaemon
import VitrineOutput

/// `vitrine-bench protocol`: the daemon as scripts see it, over its Unix socket.
///
/// * `protocol.reply`: the release `vitrined` built next to this binary runs as a child
///   process (headless 640×400, real-time clock, on a socket in a fresh temporary
///   directory). 1 and then 50 concurrent clients (one thread and one blocking socket
///   each) send a fixed number of requests, one at a time (send, wait for the reply), in a
///   mix of `layer.set` (a number and a colour, with and without animation), `layer.get`
///   and `ping`. Reported: commands per second over all clients and request → reply
///   latency percentiles.
/// * `protocol.frame`: there is no frame event on the wire, so a `Daemon` runs in this
///   process on its own real socket, with a `HeadlessOutput` whose `frameDone` (called as
///   each frame is presented, just before `DaemonHooks.framePresented`) reads the pixel
///   under a probe layer. A client thread sets the probe's colour without animation and
///   the time from sending that request to the presentation of the first frame whose
///   pixel has the new colour is recorded — with an idle scene (the frame is rendered
///   as soon as the command is applied) and with an animation running elsewhere (frames
///   paced at 60 Hz, so the change waits for the next frame slot).
///
/// The daemon is always stopped and its temporary directory removed: on return, on
/// errors, on SIGINT / SIGTERM, and by a watchdog that ends the run after 58 s (9.5 s
/// with `--quick`).
func runProtocolBenchmarks(_ options: [String]) {
    let quick = options.contains("--quick")
    let cleanup = BenchCleanup.shared
    cleanup.installSignalHandlers()
    cleanup.startWatchdog(seconds: quick ? 9.5 : 58)
    let status: Int32
    do {
        try runProtocolReplyBenchmarks(quick: quick)
        try runProtocolFrameBenchmarks(quick: quick)
        status = 0
    } catch {
        // A signal's handler is cleaning up and exits with the signal's status.
        if cleanup.isStopping { sleep(10) }
        FileHandle.standardError.write(Data("vitrine-bench protocol: \(error)\n".utf8))
        status = 1
    }
    cleanup.runAll()
    if status != 0 { exit(status) }
}

let benchWidth = 640
let benchHeight = 400
private let outputNote = "\"output\":\"headless \(benchWidth)x\(benchHeight) 60Hz\",\"clock\":\"realtime\""

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Request → reply, against the vitrined process

private func runProtocolReplyBenchmarks(quick: Bool) throws {
    let daemon = try DaemonChild()
    defer { daemon.stop() }

    // Fifty boxes on a grid, one per client, so every client changes its own layer.
    let clientCount = 50
    let setup = try BlockingLineClient(path: daemon.socketPath)
    var id = 0
    for i in 0..<clientCount {
        id += 1
        let x = 32 + (i % 10) * 64, y = 40 + (i / 10) * 80
        try setup.expectOK(
            id: id,
            "{\"id\":\(id),\"cmd\":\"layer.add\",\"layer\":\"b\(i)\",\"properties\":{\"bounds\":[0,0,40,40],\"position\":[\(x),\(y)],\"backgroundColor\":\"#336699\",\"cornerRadius\":6}}"
        )
    }
    setup.close()

    // Warm-up: one client, not measured.
    _ = try measureReplies(socketPath: daemon.socketPath, clients: 1, requestsPerClient: quick ? 100 : 300, secondsLimit: quick ? 0.5 : 2)

    let single = try measureReplies(socketPath: daemon.socketPath, clients: 1, requestsPerClient: quick ? 600 : 5_000, secondsLimit: quick ? 1.5 : 10)
    single.print()
    let many = try measureReplies(socketPath: daemon.socketPath, clients: clientCount, requestsPerClient: quick ? 30 : 300, secondsLimit: quick ? 2 : 15)
    many.print()
    guard daemon.isRunning else { throw BenchError("vitrined exited during the benchmark: \(daemon.errorOutput())") }
}

/// The request a client sends as its `n`th: a cycle of six, four `layer.set` (a number
/// and a colour, each with and without animation), one `layer.get` and one `ping`.
private func mixedRequest(_ n: Int, id: Int, layer: String) -> String {
    let v = n / 6
    switch n % 6 {
    case 0:
        return "{\"id\":\(id),\"cmd\":\"layer.set\",\"layer\":\"\(layer)\",\"properties\":{\"opacity\":\(0.5 + Double(v % 50) / 100)},\"actions\":false}"
    case 1:
        return
            "{\"id\":\(id),\"cmd\":\"layer.set\",\"layer\":\"\(layer)\",\"properties\":{\"backgroundColor\":\"\(hexColor(v))\"},\"animation\":{\"duration\":0.25,\"timing\":\"easeInEaseOut\"}}"
    case 2:
        return
            "{\"id\":\(id),\"cmd\":\"layer.get\",\"layer\":\"\(layer)\",\"keys\":[\"opacity\",\"backgroundColor\",\"position\"],\"presentation\":\(v % 2 == 0)}"
    case 3:
        return
            "{\"id\":\(id),\"cmd\":\"layer.set\",\"layer\":\"\(layer)\",\"properties\":{\"position.y\":\(40 + (v % 7) * 3)},\"animation\":{\"duration\":0.3}}"
    case 4:
        return "{\"id\":\(id),\"cmd\":\"layer.set\",\"layer\":\"\(layer)\",\"properties\":{\"backgroundColor\":\"\(hexColor(v + 17))\"},\"actions\":false}"
    default:
        return "{\"id\":\(id),\"cmd\":\"ping\"}"
    }
}

private func hexColor(_ n: Int) -> String {
    let r = (n * 53) % 256, g = (n * 97 + 80) % 256, b = (n * 29 + 160) % 256
    return String(format: "#%02x%02x%02x", r, g, b)
}

private struct ReplyResult {
    let clients: Int
    let requests: Int
    let seconds: Double
    let latenciesNs: [UInt64]

    func print() {
        let sorted = latenciesNs.sorted()
        func us(_ p: Double) -> String { String(format: "%.1f", Double(percentile(sorted, p)) / 1000) }
        Swift.print(
            "{\"bench\":\"protocol.reply\",\"clients\":\(clients),\"requests\":\(requests),\"seconds\":\(String(format: "%.3f", seconds)),\"commands_per_s\":\(Int((Double(requests) / seconds).rounded())),\"p50_us\":\(us(0.50)),\"p90_us\":\(us(0.90)),\"p99_us\":\(us(0.99)),\"max_us\":\(us(1)),\"errors\":0,\"mix\":\"layer.set x4 (number/colour, animated/not), layer.get, ping\",\(outputNote)}"
        )
    }
}

/// Nearest-rank percentile of sorted values (`p` in 0…1).
func percentile<T>(_ sorted: [T], _ p: Double) -> T {
    precondition(!sorted.isEmpty)
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}

/// Shared between the client threads of one measurement.
private final class ReplyRun: @unchecked Sendable {
    let lock = NSLock()
    var latencies: [[UInt64]]
    var failures: [String] = []
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    var deadline: UInt64 = .max

    init(clients: Int) { latencies = Array(repeating: [], count: clients) }

    func fail(_ message: String) { lock.withLock { failures.append(message) } }

    var failureSummary: String {
        lock.withLock { failures.prefix(3).joined(separator: "; ") + (failures.count > 3 ? " (and \(failures.count - 3) more clients)" : "") }
    }
}

/// `clients` threads each connect, send 5 unmeasured requests, wait for the others, then
/// send `requestsPerClient` requests one at a time (fewer if `secondsLimit` passes).
private func measureReplies(socketPath: String, clients: Int, requestsPerClient: Int, secondsLimit: Double) throws -> ReplyResult {
    let run = ReplyRun(clients: clients)
    for c in 0..<clients {
        run.done.enter()
        let thread = Thread {
            defer { run.done.leave() }
            var client: BlockingLineClient?
            var signalled = false
            do {
                let connection = try BlockingLineClient(path: socketPath)
                client = connection
                let layer = "b\(c)"
                var id = 0
                for n in 0..<5 {
                    id += 1
                    try connection.expectOK(id: id, mixedRequest(n + c, id: id, layer: layer))
                }
                run.ready.signal()
                signalled = true
                run.go.wait()
                var samples: [UInt64] = []
                samples.reserveCapacity(requestsPerClient)
                for n in 0..<requestsPerClient {
                    id += 1
                    let line = Array((mixedRequest(n + c, id: id, layer: layer) + "\n").utf8)
                    let start = DispatchTime.now().uptimeNanoseconds
                    try connection.send(line)
                    try connection.awaitReply(id: id)
                    let end = DispatchTime.now().uptimeNanoseconds
                    samples.append(end - start)
                    if end > run.deadline { break }
                }
                run.lock.withLock { run.latencies[c] = samples }
            } catch {
                run.fail("client \(c): \(error)")
                if !signalled { run.ready.signal() }
            }
            client?.close()
        }
        thread.start()
    }
    // Every client connected and warmed up (or failed), then all start at once.
    for _ in 0..<clients {
        guard run.ready.wait(timeout: .now() + 10) == .success else { throw BenchError("clients did not connect within 10 s") }
    }
    if !run.failures.isEmpty {
        for _ in 0..<clients { run.go.signal() }
        _ = run.done.wait(timeout: .now() + 10)
        throw BenchError("request → reply with \(clients) clients: \(run.failureSummary)")
    }
    let start = DispatchTime.now().uptimeNanoseconds
    run.deadline = start + UInt64(secondsLimit * 1e9)
    for _ in 0..<clients { run.go.signal() }
    guard run.done.wait(timeout: .now() + secondsLimit + 10) == .success else {
        throw BenchError("clients did not finish within \(secondsLimit + 10) s")
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    if !run.failures.isEmpty { throw BenchError("request → reply with \(clients) clients: \(run.failureSummary)") }
    let all = run.latencies.flatMap { $0 }
    return ReplyResult(clients: clients, requests: all.count, seconds: seconds, latenciesNs: all)
}

// MARK: - Request → first frame showing it, in-process

private func runProtocolFrameBenchmarks(quick: Bool) throws {
    let directory = try BenchCleanup.makeTemporaryDirectory()
    let token = BenchCleanup.shared.add { BenchCleanup.removeDirectory(directory) }
    defer {
        BenchCleanup.removeDirectory(directory)
        BenchCleanup.shared.remove(token)
    }
    let probe = FrameProbe(x: 100, y: 100)
    let serving = try InProcessDaemon.probed(by: probe, directory: directory, width: benchWidth, height: benchHeight)
    defer { serving.stop() }

    let client = try BlockingLineClient(path: serving.socketPath)
    defer { client.close() }
    var id = 0
    func request(_ body: String) throws {
        id += 1
        try client.expectOK(id: id, "{\"id\":\(id),\(body)}")
    }
    try request("\"cmd\":\"layer.add\",\"layer\":\"probe\",\"properties\":{\"bounds\":[0,0,80,80],\"position\":[100,100],\"backgroundColor\":\"#000080\"}")

    let samples = quick ? 40 : 200
    let idle = try measureFrames(client: client, id: &id, probe: probe, samples: samples, secondsLimit: quick ? 2 : 12)
    idle.print(scene: "idle", note: "nothing animates: the frame is rendered as soon as the command is applied")

    try request("\"cmd\":\"layer.add\",\"layer\":\"spinner\",\"properties\":{\"bounds\":[0,0,60,60],\"position\":[520,300],\"backgroundColor\":\"#cc8800\"}")
    try request(
        "\"cmd\":\"animation.add\",\"layer\":\"spinner\",\"key\":\"spin\",\"animation\":{\"keyPath\":\"transform.rotation.z\",\"from\":0,\"to\":\"360deg\",\"duration\":2,\"repeatCount\":\"infinity\"}"
    )
    usleep(100_000)
    let animating = try measureFrames(client: client, id: &id, probe: probe, samples: samples, secondsLimit: quick ? 2 : 12)
    animating.print(scene: "animating", note: "a layer spins elsewhere: frames are paced at 60 Hz and the change waits for the next frame slot")
}

/// Watches presented frames for the colour a client is waiting for.
final class FrameProbe: @unchecked Sendable {
    let x: Int, y: Int
    private let lock = NSLock()
    private var expected: ((UInt32) -> Bool)?
    private var sentAt: UInt64 = 0
    private var latency: UInt64?
    private let seen = DispatchSemaphore(value: 0)
    private(set) var frames = 0

    init(x: Int, y: Int) { self.x = x; self.y = y }

    /// Arms the probe for `colour` (0xAARRGGBB, within 2 a channel) and returns the send time.
    func arm(_ colour: UInt32) -> UInt64 { arm { closeColours($0, colour) } }

    /// Arms the probe for the first pixel `matches` accepts and returns the send time.
    func arm(where matches: @escaping (UInt32) -> Bool) -> UInt64 {
        lock.withLock {
            expected = matches
            latency = nil
            sentAt = DispatchTime.now().uptimeNanoseconds
            return sentAt
        }
    }

    /// On the daemon's event loop, as a frame is presented.
    func framePresented(pixel: UInt32) {
        let now = DispatchTime.now().uptimeNanoseconds
        let matched: Bool = lock.withLock {
            frames += 1
            guard let matches = expected, matches(pixel) else { return false }
            expected = nil
            latency = now - sentAt
            return true
        }
        if matched { seen.signal() }
    }

    /// Waits for the armed colour to be presented; the latency in nanoseconds, or nil.
    func wait(seconds: Double) -> UInt64? {
        guard seen.wait(timeout: .now() + seconds) == .success else {
            lock.withLock { expected = nil }
            // A frame may have matched between the timeout and disarming.
            return seen.wait(timeout: .now()) == .success ? lock.withLock { latency } : nil
        }
        return lock.withLock { latency }
    }

    var frameCount: Int { lock.withLock { frames } }
}

private func closeColours(_ a: UInt32, _ b: UInt32) -> Bool {
    for shift in stride(from: 0, through: 24, by: 8) {
        let x = Int((a >> UInt32(shift)) & 0xFF), y = Int((b >> UInt32(shift)) & 0xFF)
        if abs(x - y) > 2 { return false }
    }
    return true
}

private struct FrameResult {
    let samples: [UInt64]
    let replies: [UInt64]
    let missed: Int
    let frames: Int
    let seconds: Double

    func print(scene: String, note: String) {
        let s = samples.sorted(), r = replies.sorted()
        func ms(_ v: UInt64) -> String { String(format: "%.3f", Double(v) / 1e6) }
        Swift.print(
            "{\"bench\":\"protocol.frame\",\"clients\":1,\"scene\":\"\(scene)\",\"samples\":\(s.count),\"missed\":\(missed),\"p50_ms\":\(ms(percentile(s, 0.5))),\"p90_ms\":\(ms(percentile(s, 0.9))),\"p99_ms\":\(ms(percentile(s, 0.99))),\"max_ms\":\(ms(s.last!)),\"min_ms\":\(ms(s.first!)),\"reply_p50_ms\":\(ms(percentile(r, 0.5))),\"frames_per_s\":\(String(format: "%.1f", Double(frames) / seconds)),\"change\":\"layer.set backgroundColor, actions false\",\"note\":\"\(note)\",\"daemon\":\"in-process\",\(outputNote)}"
        )
    }
}

/// Sets the probe's colour `samples` times, at random phases (20–37 ms apart), and
/// times each request to the first presented frame that shows the colour.
private func measureFrames(client: BlockingLineClient, id: inout Int, probe: FrameProbe, samples: Int, secondsLimit: Double) throws -> FrameResult {
    var latencies: [UInt64] = [], replies: [UInt64] = []
    var missed = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let framesBefore = probe.frameCount
    for n in 0..<samples {
        // Consecutive colours differ by far more than the comparison's tolerance.
        let r = n % 2 == 0 ? 0x20 : 0xE0, g = (n * 37) % 256, b = 0x60
        let hex = String(format: "#%02x%02x%02x", r, g, b)
        id += 1
        let line = Array("{\"id\":\(id),\"cmd\":\"layer.set\",\"layer\":\"probe\",\"properties\":{\"backgroundColor\":\"\(hex)\"},\"actions\":false}\n".utf8)
        let sent = probe.arm(0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b))
        try client.send(line)
        try client.awaitReply(id: id)
        replies.append(DispatchTime.now().uptimeNanoseconds - sent)
        if let latency = probe.wait(seconds: 1) { latencies.append(latency) } else { missed += 1 }
        if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 > secondsLimit { break }
        usleep(useconds_t(Int.random(in: 20_000...37_000)))
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    guard !latencies.isEmpty else { throw BenchError("no frame showed a requested change (\(missed) missed)") }
    return FrameResult(samples: latencies, replies: replies, missed: missed, frames: probe.frameCount - framesBefore, seconds: seconds)
}

/// A `Daemon` serving on a thread of its own until `stop`.
final class InProcessDaemon: @unchecked Sendable {
    let daemon: Daemon
    private(set) var socketPath = ""

    /// A daemon started on a headless `width`×`height` output with the real-time clock,
    /// its socket and screenshots in `directory`, whose presented frames `probe` watches;
    /// `configure` changes its settings first.
    static func probed(
        by probe: FrameProbe, directory: String, width: Int, height: Int, configure: (inout DaemonSettings) -> Void = { _ in }
    ) throws -> InProcessDaemon {
        var settings = DaemonSettings()
        settings.socketPath = directory + "/v.sock"
        settings.screenshotDirectory = directory
        settings.clock = .realtime
        (settings.headlessWidth, settings.headlessHeight) = (width, height)
        configure(&settings)
        var logger = Logger(label: "vitrine-bench.daemon")
        logger.logLevel = .warning
        let output = try HeadlessOutput(width: width, height: height, refreshRate: settings.headlessRate)
        output.watcher = { front in probe.framePresented(pixel: front.pixel(x: probe.x, y: probe.y).argb) }
        let serving = InProcessDaemon(try Daemon(settings: settings, output: output, logger: logger))
        try BenchCleanup.shared.keepingSignalHandlers { try serving.start(socketPath: settings.socketPath) }
        return serving
    }
    private let finished = DispatchSemaphore(value: 0)
    private var failure: Error?
    private var started = false

    init(_ daemon: Daemon) {
        self.daemon = daemon
        // Daemon.run leaves signal sources that refer to the daemon unowned: it must
        // outlive them, so it is kept until the process exits.
        _ = Unmanaged.passRetained(daemon)
    }

    func start(socketPath: String) throws {
        started = true
        self.socketPath = socketPath
        let thread = Thread { [self] in
            do { try daemon.run() } catch { failure = error }
            finished.signal()
        }
        thread.start()
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: socketPath) {
            if finished.wait(timeout: .now()) == .success {
                started = false
                throw BenchError("the in-process daemon did not start: \(failure.map { "\($0)" } ?? "it returned")")
            }
            guard Date() < deadline else { throw BenchError("the in-process daemon did not listen within 5 s") }
            usleep(5_000)
        }
    }

    func stop() {
        guard started else { return }
        started = false
        daemon.stop()
        if finished.wait(timeout: .now() + 5) == .timedOut {
            FileHandle.standardError.write(Data("vitrine-bench protocol: the in-process daemon did not stop within 5 s\n".utf8))
        }
    }
}
