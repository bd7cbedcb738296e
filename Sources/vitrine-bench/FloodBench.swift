import Foundation
import VitrineSystem
import VitrineProtocol

/// `vitrine-bench flood`: fairness under a flood of pipelined requests.
///
/// The release `vitrined` beside this binary runs headless at 1920×1080 on a real-time
/// clock, with `limits.clients` raised for the flood. It shows an 8-digit rolling counter,
/// given a new value every half second by a client of its own, whose text colour pulses
/// without end, so that a frame is due at every 60 Hz slot. Then 100 clients (one thread
/// and one socket each) each write 2 000 requests in one go — `layer.set` of their own
/// layer's opacity and `ping`, alternately — and read the 2 000 replies, checking that they
/// come in order. Meanwhile one unrelated client sends `stats` every 50 ms.
///
/// Reported (`flood`): the frames per second the daemon presented during the flood and
/// just before it (from `stats`' frame count and media time), the unrelated client's
/// reply-time percentiles during the flood, and the flood's throughput.
func runFloodBenchmarks(_ options: [String]) {
    let quick = options.contains("--quick")
    let cleanup = BenchCleanup.shared
    cleanup.installSignalHandlers()
    cleanup.startWatchdog(seconds: quick ? 30 : 90)
    do {
        try flood(clients: quick ? 50 : 100, requestsPerClient: quick ? 500 : 2_000)
    } catch {
        if cleanup.isStopping { sleep(10) }
        FileHandle.standardError.write(Data("vitrine-bench flood: \(error)\n".utf8))
        cleanup.runAll()
        exit(1)
    }
    cleanup.runAll()
}

private func flood(clients: Int, requestsPerClient: Int) throws {
    let configDirectory = try BenchCleanup.makeTemporaryDirectory()
    let token = BenchCleanup.shared.add { BenchCleanup.removeDirectory(configDirectory) }
    defer {
        BenchCleanup.removeDirectory(configDirectory)
        BenchCleanup.shared.remove(token)
    }
    let config = configDirectory + "/vitrine.toml"
    try Data("[limits]\nclients = \(clients + 8)\n".utf8).write(to: URL(fileURLWithPath: config))
    let child = try DaemonChild(width: 1920, height: 1080, arguments: ["--config", config])
    defer { child.stop() }

    let setup = try FloodConnection(path: child.socketPath)
    try setup.call(
        ##"{"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, 1200, 200], "position": [960, 540], "fontSize": 140, "alignment": "center", "usesGrouping": false, "value": 10000000, "textColor": "#ffd166"}}"##
    )
    try setup.call(
        ##"{"cmd": "animation.add", "layer": "n", "key": "pulse", "animation": {"keyPath": "textColor", "from": "#ffd166", "to": "#66d1ff", "duration": 1, "autoreverses": true, "repeatCount": "infinity"}}"##
    )
    for c in 0..<clients {
        try setup.call(
            ##"{"cmd": "layer.add", "layer": "f\##(c)", "properties": {"bounds": [0, 0, 12, 12], "position": [\##(20 + (c % 50) * 16), \##(40 + (c / 50) * 16)], "backgroundColor": "#336699"}}"##
        )
    }

    // The counter's own client: a new value every half second, whatever the flood does.
    let stop = FloodFlag()
    let driverDone = DispatchSemaphore(value: 0)
    let driver = try FloodConnection(path: child.socketPath)
    Thread {
        var value = 10_000_000
        while !stop.isSet {
            value += Int.random(in: 1_000...99_999)
            _ = try? driver.call(#"{"cmd": "number.set", "layer": "n", "value": \#(value)}"#)
            usleep(500_000)
        }
        driverDone.signal()
    }.start()
    Thread.sleep(forTimeInterval: 1)

    let probe = try FloodConnection(path: child.socketPath)
    let quiet0 = try probe.stats()
    Thread.sleep(forTimeInterval: 1)
    let quiet1 = try probe.stats()
    let quietFPS = Double(quiet1.frames - quiet0.frames) / (quiet1.time - quiet0.time)

    // The flood: every client connected and its requests built before any is sent.
    let run = FloodRun(clients: clients)
    let flooders = try (0..<clients).map { _ in try FloodConnection(path: child.socketPath) }
    for (c, connection) in flooders.enumerated() {
        var batch = [UInt8]()
        for n in 1...requestsPerClient {
            let line =
                n % 2 == 0
                ? #"{"id":\#(n),"cmd":"ping"}"#
                : #"{"id":\#(n),"cmd":"layer.set","layer":"f\#(c)","properties":{"opacity":\#(0.3 + Double(n % 70) / 100)},"actions":false}"#
            batch += Array(line.utf8)
            batch.append(10)
        }
        let bytes = batch
        run.done.enter()
        Thread {
            defer { run.done.leave() }
            run.go.wait()
            do {
                try connection.send(bytes)
                try connection.expectReplies(count: requestsPerClient)
            } catch {
                run.fail("client \(c): \(error)")
            }
            run.finished(c)
        }.start()
    }

    let before = try probe.stats()
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<clients { run.go.signal() }
    var latencies: [UInt64] = []
    while run.done.wait(timeout: .now()) == .timedOut {
        let sent = DispatchTime.now().uptimeNanoseconds
        _ = try probe.stats()
        latencies.append(DispatchTime.now().uptimeNanoseconds - sent)
        guard Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < 60 else { throw BenchError("the flood did not end within 60 s") }
        usleep(50_000)
    }
    let end = run.lastFinish
    let after = try probe.stats()
    stop.set()
    _ = driverDone.wait(timeout: .now() + 5)
    guard run.failures.isEmpty else { throw BenchError("flood: \(run.failures.prefix(3).joined(separator: "; "))") }
    guard child.isRunning else { throw BenchError("vitrined exited during the flood: \(child.errorOutput())") }
    guard !latencies.isEmpty else { throw BenchError("the flood ended before the unrelated client's first stats") }

    let seconds = Double(end - start) / 1e9
    let requests = clients * requestsPerClient
    let fps = Double(after.frames - before.frames) / (after.time - before.time)
    let sorted = latencies.sorted()
    func ms(_ p: Double) -> String {
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return String(format: "%.2f", Double(sorted[min(sorted.count - 1, max(0, rank - 1))]) / 1e6)
    }
    print(
        "{\"bench\":\"flood\",\"clients\":\(clients),\"requests_per_client\":\(requestsPerClient),\"requests\":\(requests),\"seconds\":\(String(format: "%.3f", seconds)),\"requests_per_s\":\(Int((Double(requests) / seconds).rounded())),\"fps\":\(String(format: "%.1f", fps)),\"fps_before_flood\":\(String(format: "%.1f", quietFPS)),\"stats_samples\":\(sorted.count),\"stats_p50_ms\":\(ms(0.5)),\"stats_p99_ms\":\(ms(0.99)),\"stats_max_ms\":\(ms(1)),\"errors\":0,\"counter\":\"8 digits rolling, text colour pulsing\",\"mix\":\"layer.set opacity (actions false), ping\",\"output\":\"headless 1920x1080 60Hz\",\"clock\":\"realtime\",\"goal\":\"fps >= 58, stats p99 <= 50 ms\"}"
    )
}

/// A flag set once, read from other threads.
private final class FloodFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// What the flood's client threads share.
private final class FloodRun: @unchecked Sendable {
    let go = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    private let lock = NSLock()
    private var problems: [String] = []
    private var last: UInt64 = 0

    init(clients: Int) {}

    func fail(_ message: String) { lock.withLock { problems.append(message) } }
    func finished(_ client: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock { last = max(last, now) }
    }
    var failures: [String] { lock.withLock { problems } }
    var lastFinish: UInt64 { lock.withLock { last } }
}

/// A blocking connection with 30 s timeouts (a flooded daemon may answer late) that
/// reads replies as lines and checks their ids' order.
private final class FloodConnection: @unchecked Sendable {
    private let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0, end = 0
    private var nextID = 0

    init(path: String) throws {
        fd = try connectUnix(path)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    func send(_ bytes: [UInt8]) throws { try sendAll(fd, bytes) }

    /// Sends a request (given without an id) and returns its successful reply.
    @discardableResult
    func call(_ body: String) throws -> JSON {
        nextID += 1
        try send(Array(("{\"id\": \(nextID), " + body.dropFirst() + "\n").utf8))
        while true {
            let line = try nextLine()
            guard let json = try? JSON(parsing: Data(line)), json["event"] == nil else { continue }
            guard json["id"] == .number(Double(nextID)), json["ok"] == .bool(true) else {
                throw BenchError("\(body) → \(String(decoding: line, as: UTF8.self))")
            }
            return json
        }
    }

    /// `stats`' frame count and media time.
    func stats() throws -> (frames: Int, time: Double) {
        let reply = try call(#"{"cmd": "stats"}"#)
        guard let frames = reply["result"]?["frames"]?.number, let time = reply["result"]?["time"]?.number else {
            throw BenchError("no frames or time in \(reply)")
        }
        return (Int(frames), time)
    }

    /// Reads `count` successful replies with ids 1, 2, … in order (events are skipped).
    func expectReplies(count: Int) throws {
        var expected = 1
        while expected <= count {
            let line = try nextLine()
            if line.starts(with: Array("{\"event\":".utf8)) { continue }
            let prefix = Array("{\"id\":\(expected),\"ok\":true".utf8)
            guard line.starts(with: prefix) else {
                throw BenchError("expected a successful reply to \(expected), got \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
            expected += 1
        }
    }

    private func nextLine() throws -> ArraySlice<UInt8> {
        var scanned = start
        while true {
            if let newline = buffer[scanned..<end].firstIndex(of: 10) {
                let line = buffer[start..<newline]
                start = newline + 1
                return line
            }
            if start > 0 {
                buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
                end -= start
                start = 0
            }
            scanned = end
            if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + end, $0.count - end, 0) }
            if n == 0 { throw BenchError("the daemon closed the connection") }
            if n < 0 { throw BenchError(errno == EAGAIN || errno == EWOULDBLOCK ? "no reply within 30 s" : "recv: \(SystemError.reason(errno: errno))") }
            end += n
        }
    }
}
