@_exported import VitrineTestSupport
import Foundation
import VitrineProtocol

/// The real `vitrined`, started on a socket in a fresh temporary directory (headless,
/// manual clock unless told otherwise), stopped when released.
public final class DaemonProcess {
    public let directory: URL
    public let socketPath: String
    public let screenshotDirectory: String
    private let process: ChildProcess
    private let stderrPath: String

    /// The `vitrined` built next to this test binary.
    public static var executable: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("vitrined")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/vitrined")
    }

    /// `socketPath` defaults to a fresh one; the daemon is ready when a connection to it
    /// succeeds (a stale socket file may be there before it starts).
    /// `screenshotDirectory: ""` leaves the directory to the configuration. `environment`
    /// adds to the daemon's (DISPLAY for a window backend).
    public init(
        clock: String = "manual", screenshotDirectory: String? = nil, socketPath: String? = nil, backend: String = "headless",
        environment: [String: String] = [:], arguments: [String] = []
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.socketPath = socketPath ?? directory.appendingPathComponent("v.sock").path
        self.screenshotDirectory = screenshotDirectory ?? directory.path
        let screenshots = self.screenshotDirectory.isEmpty ? [] : ["--screenshot-dir", self.screenshotDirectory]
        if !self.screenshotDirectory.isEmpty {
            try FileManager.default.createDirectory(atPath: self.screenshotDirectory, withIntermediateDirectories: true)
        }
        stderrPath = directory.appendingPathComponent("vitrined.stderr").path
        process = try ChildProcess(
            Self.executable.path,
            ["--backend", backend, "--socket", self.socketPath, "--clock", clock, "--log-level", "error"] + screenshots + arguments,
            stderrPath: stderrPath, environment: environment)
        let deadline = Date().addingTimeInterval(20)
        while (try? SocketClient(path: self.socketPath)) == nil {
            guard process.isRunning, Date() < deadline else {
                if process.isRunning { _ = process.terminate() }
                throw DaemonError("vitrined did not start: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
            }
            usleep(20_000)
        }
    }

    deinit {
        if process.isRunning { _ = process.terminate() }
        try? FileManager.default.removeItem(at: directory)
    }

    public func connect() throws -> SocketClient { try SocketClient(path: socketPath) }

    /// The process id, for signals.
    public var pid: Int32 { process.pid }

    public var isRunning: Bool { process.isRunning }

    /// What the daemon has written to standard error so far.
    public var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits until the daemon exits by itself (at most `timeout` seconds) and returns its
    /// status, or nil if it is still running.
    public func waitForExit(timeout: Double = 10) -> Int32? { process.wait(timeout: timeout) }

    /// Stops the daemon with SIGTERM and returns its exit status.
    public func stop() -> Int32 { process.terminate() }

    /// Runs `vitrined` with `arguments` to its end (killed after `timeout` seconds) and
    /// returns its exit status and what it wrote to standard error.
    public static func runToExit(_ arguments: [String], timeout: Double = 20, environment: [String: String] = [:]) throws -> (status: Int32, stderr: String) {
        try ChildProcess.runToExit(executable.path, arguments, timeout: timeout, environment: environment)
    }
}

/// The name the daemon tests know the helpers' error by.
public typealias DaemonError = TestError

/// A blocking line client of the daemon's socket.
public final class SocketClient {
    /// -1 once closed: a class whose initializer throws after setting every property is
    /// deinitialized, and must not close a descriptor number another thread may own by then.
    private var fd: Int32
    private var buffer: [UInt8] = []
    /// Events read while waiting for replies, in order.
    public private(set) var events: [JSON] = []
    private var nextID = 0

    /// `receiveBuffer` shrinks the socket's receive buffer (SO_RCVBUF), for clients that
    /// stop reading.
    public init(path: String, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonError("socket() failed") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard connectUnixSocket(fd, path) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            fd = -1
            throw DaemonError("cannot connect to \(path): \(reason)")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Ends the input the daemon reads (shutdown(SHUT_WR), as socat does when its input
    /// ends); replies still come back.
    public func shutdownWriting() { shutdown(fd, Int32(SHUT_WR)) }

    /// Sends raw bytes.
    public func write(_ bytes: [UInt8]) { sendAll(fd, bytes) }

    public func send(_ line: String) { write(Array((line + "\n").utf8)) }

    /// The next line, or nil after `timeout` seconds or at end of stream.
    public func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(remaining * 1000)) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            buffer += chunk[..<n]
        }
    }

    /// Reads up to `count` lines, handing each to `body` without its newline; stops early
    /// when `timeout` seconds pass without a byte or the stream ends. Returns how many
    /// lines were read. For many lines: the buffer is not shifted once per line.
    public func readLines(_ count: Int, timeout: Double = 30, _ body: (ArraySlice<UInt8>) -> Void) -> Int {
        var lines = 0, start = 0
        defer { buffer.removeSubrange(0..<start) }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while lines < count {
            let newline = buffer.withUnsafeBufferPointer { bytes -> Int? in
                guard start < bytes.count, let hit = memchr(bytes.baseAddress! + start, 10, bytes.count - start) else { return nil }
                return UnsafeRawPointer(hit) - UnsafeRawPointer(bytes.baseAddress!)
            }
            if let newline {
                body(buffer[start..<newline])
                start = newline + 1
                lines += 1
                continue
            }
            buffer.removeSubrange(0..<start)
            start = 0
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return lines }
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return lines }
            buffer += chunk[..<n]
        }
        return lines
    }

    /// Sends a request object (its id is set here) and returns the reply, keeping the
    /// events that arrive before it.
    public func request(_ command: [String: JSON]) throws -> JSON {
        nextID += 1
        var object = command
        object["id"] = .number(Double(nextID))
        send(JSON.object(object).text)
        while let line = readLine() {
            let json = try JSON(parsing: Data(line.utf8))
            if json["event"] != nil { events.append(json); continue }
            guard json["id"] == .number(Double(nextID)) else { throw DaemonError("reply out of order: \(line)") }
            return json
        }
        throw DaemonError("no reply to \(JSON.object(object).text)")
    }

    /// `request` from JSON text.
    public func request(_ text: String) throws -> JSON {
        guard case .object(let o) = try JSON(parsing: Data(text.utf8)) else { throw DaemonError("not an object: \(text)") }
        return try request(o)
    }

    /// Sends raw bytes and a newline, and returns the next line that is not an event,
    /// parsed (the reply, as requests are answered in order); nil if none comes.
    public func exchange(_ bytes: [UInt8]) throws -> JSON? {
        write(bytes + [10])
        while let line = readLine() {
            let json = try JSON(parsing: Data(line.utf8))
            if json["event"] != nil { events.append(json); continue }
            return json
        }
        return nil
    }

    /// `exchange` for a text line.
    public func exchange(_ line: String) throws -> JSON? { try exchange(Array(line.utf8)) }

    /// Reads until the daemon closes the connection or `timeout` seconds pass without a
    /// byte; returns the bytes read and whether the end of the stream was reached.
    public func drain(timeout: Double = 5) -> (bytes: Int, closed: Bool) {
        var total = buffer.count
        buffer.removeAll()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) > 0 else { return (total, false) }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return (total, true) }
            total += n
        }
    }

    /// True when the daemon has closed the connection, without reading anything.
    public var peerClosed: Bool {
        let rdhup: Int16 = 0x2000  // POLLRDHUP (Linux), which Glibc does not export to Swift
        var poller = pollfd(fd: fd, events: rdhup, revents: 0)
        return poll(&poller, 1, 0) > 0 && poller.revents & (rdhup | Int16(POLLHUP)) != 0
    }

    /// Takes the events collected so far.
    public func takeEvents() -> [JSON] {
        defer { events.removeAll() }
        return events
    }
}
