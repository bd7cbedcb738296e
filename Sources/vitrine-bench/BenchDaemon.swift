import Foundation
import VitrineSystem
import VitrineProtocol

// MARK: - The vitrined child process

/// The release `vitrined` beside this binary, on a socket in a fresh temporary directory.
final class DaemonChild {
    let directory: String
    let socketPath: String
    private let process = Process()
    private let errors = Pipe()
    private var cleanupToken = 0
    private var stopped = false

    /// `backend` other than headless takes its size from `arguments` (`--mode`);
    /// `environment` adds to the daemon's (`WAYLAND_DISPLAY`).
    init(width: Int = benchWidth, height: Int = benchHeight, backend: String = "headless", environment: [String: String] = [:], arguments: [String] = []) throws
    {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vitrined")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BenchError("\(executable.path) is missing: build it first (swift build -c release --product vitrine-bench)")
        }
        directory = try BenchCleanup.makeTemporaryDirectory()
        socketPath = directory + "/v.sock"
        process.executableURL = executable
        process.arguments =
            [
                "--backend", backend, "--clock", "realtime",
                "--socket", socketPath, "--screenshot-dir", directory, "--log-level", "warning",
            ] + (backend == "headless" ? ["--size", "\(width)x\(height)"] : []) + arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw BenchError("cannot start \(executable.path): \(error)")
        }
        let process = self.process, directory = self.directory
        cleanupToken = BenchCleanup.shared.add {
            if process.isRunning { process.terminate() }
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            BenchCleanup.removeDirectory(directory)
        }
        let deadline = Date().addingTimeInterval(10)
        while !SocketProbe.isListening(socketPath) {
            guard process.isRunning, Date() < deadline else {
                let message = process.isRunning ? "it did not listen within 10 s" : errorOutput()
                stop()
                throw BenchError("vitrined did not start: \(message)")
            }
            usleep(10_000)
        }
    }

    var isRunning: Bool { process.isRunning }
    var processIdentifier: Int32 { process.processIdentifier }

    func errorOutput() -> String {
        String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
    }

    /// SIGTERM, then SIGKILL after 3 s; removes the temporary directory.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        BenchCleanup.removeDirectory(directory)
        BenchCleanup.shared.remove(cleanupToken)
    }

    deinit { stop() }
}

/// What must be undone however the run ends.
final class BenchCleanup: @unchecked Sendable {
    static let shared = BenchCleanup()
    private let lock = NSLock()
    private var actions: [Int: () -> Void] = [:]
    private var next = 0
    private var sources: [DispatchSourceSignal] = []
    private var stopping = false

    /// True once a signal's handler has begun to clean up.
    var isStopping: Bool { lock.withLock { stopping } }

    func add(_ action: @escaping () -> Void) -> Int {
        lock.withLock {
            next += 1
            actions[next] = action
            return next
        }
    }

    func remove(_ token: Int) { lock.withLock { actions[token] = nil } }

    func runAll() {
        let pending = lock.withLock {
            defer { actions.removeAll() }
            return actions.sorted { $0.key > $1.key }.map(\.value)
        }
        for action in pending { action() }
    }

    /// SIGINT / SIGTERM: clean up and exit.
    func installSignalHandlers() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                lock.withLock { stopping = true }
                FileHandle.standardError.write(Data("vitrine-bench protocol: signal \(number), stopping the daemon\n".utf8))
                runAll()
                exit(128 + number)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Runs `body`, which starts a `Daemon`, and then gives SIGINT and SIGTERM back the
    /// handlers they had.
    ///
    /// On Linux, libdispatch installs its own handler when the first signal source for a
    /// signal starts. `Daemon.run` sets SIGINT and SIGTERM to SIG_IGN before it adds its
    /// sources; in a process that already has sources for them (this one) nothing
    /// re-installs libdispatch's handler and both signals would be ignored — neither this
    /// benchmark's clean-up nor the daemon's own stop would run. Restoring the handler
    /// makes both sets of sources fire again.
    func keepingSignalHandlers(_ body: () throws -> Void) throws {
        let signals = [SIGINT, SIGTERM]
        var saved: [Int32: sigaction] = [:]
        for number in signals {
            var action = sigaction()
            sigaction(number, nil, &action)
            saved[number] = action
        }
        try body()
        // Daemon.run ignores the signals just after it starts listening.
        let deadline = Date().addingTimeInterval(2)
        while !signals.allSatisfy(Self.isIgnored), Date() < deadline { usleep(1_000) }
        for number in signals {
            guard var action = saved[number], Self.isIgnored(number) else { continue }
            sigaction(number, &action, nil)
        }
    }

    private static func isIgnored(_ number: Int32) -> Bool {
        var action = sigaction()
        sigaction(number, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    func startWatchdog(seconds: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            FileHandle.standardError.write(Data("vitrine-bench protocol: still running after \(seconds) s; stopping the daemon and giving up\n".utf8))
            runAll()
            exit(3)
        }
    }

    /// Removes `path` and what is in it; tries again if a daemon removing its socket
    /// at the same time made a pass fail.
    static func removeDirectory(_ path: String) {
        for _ in 0..<5 {
            try? FileManager.default.removeItem(atPath: path)
            guard FileManager.default.fileExists(atPath: path) else { return }
            usleep(20_000)
        }
    }

    /// Runs `body` with a fresh temporary directory, removed afterwards however the run ends.
    static func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = try makeTemporaryDirectory()
        let token = shared.add { removeDirectory(directory) }
        defer {
            removeDirectory(directory)
            shared.remove(token)
        }
        return try body(directory)
    }

    static func makeTemporaryDirectory() throws -> String {
        // Short, so that the socket path stays well under the 107-byte limit.
        var template = Array("/tmp/vitrine-bench-XXXXXX".utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
        guard let made else { throw BenchError("cannot create a temporary directory: \(SystemError.reason(errno: errno))") }
        return made
    }
}

enum SocketProbe {
    static func isListening(_ path: String) -> Bool {
        guard let fd = try? connectUnix(path) else { return false }
        Glibc.close(fd)
        return true
    }
}

/// Writes all of `bytes` to the blocking socket `fd`.
func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { throw BenchError("send: \(SystemError.reason(errno: errno))") }
        offset += n
    }
}

func connectUnix(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket(): \(SystemError.reason(errno: errno))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { Glibc.close(fd); throw BenchError("socket path too long: \(path)") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else {
        let reason = SystemError.reason(errno: errno)
        Glibc.close(fd)
        throw BenchError("cannot connect to \(path): \(reason)")
    }
    return fd
}

// MARK: - Asking and measuring a running daemon

/// A request function over a new connection to `child`: sends one JSON object (given
/// without an id) and returns its reply line.
func requester(_ child: DaemonChild) throws -> (String) throws -> String {
    let client = try BlockingLineClient(path: child.socketPath)
    var id = 0
    return { body in
        id += 1
        let line = "{\"id\": \(id), " + body.dropFirst()
        try client.send(Array((line + "\n").utf8))
        return try client.replyLine(id: id)
    }
}

/// Frames presented so far and the pixels they repainted, from `stats`.
func counters(_ request: (String) throws -> String) throws -> (frames: Int, pixels: Int) {
    let reply = try request(#"{"cmd": "stats"}"#)
    guard let json = try? JSON(parsing: Data(reply.utf8)), let frames = json["result"]?["frames"]?.number,
        let pixels = json["result"]?["pixels"]?.number
    else {
        throw BenchError("no frame or pixel count in \(reply)")
    }
    return (Int(frames), Int(pixels))
}

/// CPU seconds `pid` has run, all its threads, user and system: the scheduler's
/// nanosecond count (/proc/PID/task/*/schedstat) where the kernel keeps it, else the
/// 10 ms ticks of /proc/PID/stat.
func cpuSeconds(_ pid: Int32) -> Double {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var nanoseconds = 0.0
    var found = false
    for task in tasks {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
            let onCPU = text.split(separator: " ").first.flatMap({ Double($0) })
        else { continue }
        nanoseconds += onCPU
        found = true
    }
    return found ? nanoseconds / 1e9 : processCPUSeconds(pid)
}

/// CPU seconds `pid` has run, user and system, threads that have ended included: the
/// 10 ms ticks of /proc/PID/stat.
func processCPUSeconds(_ pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The processes whose parent is `pid` (the daemon's helpers).
func childProcesses(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry in
        guard let child = Int32(entry), let status = try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8),
            status.contains("\nPPid:\t\(pid)\n")
        else { return nil }
        return child
    }
}

// MARK: - A blocking JSON-lines client

/// One connection with blocking I/O (5 s timeouts). Lines are not parsed as JSON: a reply
/// is a line that starts `{"id":` (the daemon writes object keys sorted, so a successful
/// reply starts with its id and `"ok":true` follows) or `{"error":` (a failure); any other
/// line is an event and is skipped.
final class BlockingLineClient {
    private var fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0, end = 0
    private var numbered = 0

    init(path: String) throws {
        fd = try connectUnix(path)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
    }

    deinit { close() }

    func send(_ bytes: [UInt8]) throws { try sendAll(fd, bytes) }

    /// Sends the request whose fields (without an id) are `fields`, numbered after the
    /// last one this method sent, and requires a successful reply.
    func expectOK(fields: String) throws {
        numbered += 1
        try expectOK(id: numbered, "{\"id\":\(numbered),\(fields)}")
    }

    /// Sends `line` and requires a successful reply to `id`.
    func expectOK(id: Int, _ line: String) throws {
        try send(Array((line + "\n").utf8))
        try awaitReply(id: id)
    }

    /// Reads lines until the reply to `id`, which must be a success.
    func awaitReply(id: Int) throws {
        while true {
            let (lineStart, lineEnd) = try nextLine()
            let ok: Bool? = buffer.withUnsafeBufferPointer { b in
                let line = UnsafeBufferPointer(rebasing: b[lineStart..<lineEnd])
                if line.starts(with: idPrefix) {
                    var i = idPrefix.count, value = 0
                    while i < line.count, line[i] >= 48, line[i] <= 57 { value = value * 10 + Int(line[i] - 48); i += 1 }
                    return value == id && line[i...].starts(with: okTrue)
                }
                if line.starts(with: errorPrefix) { return false }
                return nil
            }
            switch ok {
            case .some(true): return
            case .some(false):
                throw BenchError("request \(id) failed: \(String(decoding: buffer[lineStart..<lineEnd], as: UTF8.self))")
            case .none: continue  // an event
            }
        }
    }

    /// Reads lines until the reply to `id` and returns it (success or not); events are skipped.
    func replyLine(id: Int) throws -> String {
        let prefix = Array("{\"id\":\(id),".utf8)
        while true {
            let (lineStart, lineEnd) = try nextLine()
            if buffer[lineStart..<lineEnd].starts(with: prefix) {
                return String(decoding: buffer[lineStart..<lineEnd], as: UTF8.self)
            }
            if buffer[lineStart..<lineEnd].starts(with: errorPrefix) {
                let line = String(decoding: buffer[lineStart..<lineEnd], as: UTF8.self)
                if line.contains("\"id\":\(id),") { return line }
            }
        }
    }

    /// The bounds of the next line in `buffer` (without its newline).
    private func nextLine() throws -> (Int, Int) {
        var scanned = start
        while true {
            if let newline = buffer[scanned..<end].firstIndex(of: 10) {
                let bounds = (start, newline)
                start = newline + 1
                return bounds
            }
            scanned = end
            if start == end { start = 0; end = 0; scanned = 0 }
            if end == buffer.count {
                if start > 0 {
                    buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
                    end -= start; scanned -= start; start = 0
                } else {
                    buffer += [UInt8](repeating: 0, count: buffer.count)
                }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + end, $0.count - end, 0) }
            if n == 0 { throw BenchError("the daemon closed the connection") }
            if n < 0 { throw BenchError(errno == EAGAIN || errno == EWOULDBLOCK ? "no reply within 5 s" : "recv: \(SystemError.reason(errno: errno))") }
            end += n
        }
    }
}

private let idPrefix = Array("{\"id\":".utf8)
private let okTrue = Array(",\"ok\":true".utf8)
private let errorPrefix = Array("{\"error\":".utf8)
