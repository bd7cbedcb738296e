import Foundation
import Testing
import VitrineProtocol

/// The real `vitrined`, started on a socket in a fresh temporary directory (headless,
/// manual clock unless told otherwise), stopped when released.
final class DaemonProcess {
    let directory: URL
    let socketPath: String
    let screenshotDirectory: String
    private let process = Process()
    private let errors = Pipe()

    /// The `vitrined` built next to this test binary.
    static var executable: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("vitrined")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/vitrined")
    }

    init(clock: String = "manual", screenshotDirectory: String? = nil, arguments: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socketPath = directory.appendingPathComponent("v.sock").path
        self.screenshotDirectory = screenshotDirectory ?? directory.path
        try FileManager.default.createDirectory(atPath: self.screenshotDirectory, withIntermediateDirectories: true)
        process.executableURL = Self.executable
        process.arguments = ["--backend", "headless", "--socket", socketPath, "--clock", clock, "--screenshot-dir", self.screenshotDirectory, "--log-level", "error"] + arguments
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: socketPath) {
            guard process.isRunning, Date() < deadline else {
                let output = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
                throw DaemonError("vitrined did not start: \(output)")
            }
            usleep(20_000)
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    func connect() throws -> SocketClient { try SocketClient(path: socketPath) }

    var isRunning: Bool { process.isRunning }

    /// Stops the daemon and returns its exit status.
    func stop() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

struct DaemonError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A blocking line client of the daemon's socket.
final class SocketClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Events read while waiting for replies, in order.
    private(set) var events: [JSON] = []
    private var nextID = 0

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw DaemonError("socket() failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { close(fd); throw DaemonError("cannot connect to \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// Sends raw bytes.
    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func send(_ line: String) { write(Array((line + "\n").utf8)) }

    /// The next line, or nil after `timeout` seconds or at end of stream.
    func readLine(timeout: Double = 10) -> String? {
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

    /// Sends a request object (its id is set here) and returns the reply, keeping the
    /// events that arrive before it.
    func request(_ command: [String: JSON]) throws -> JSON {
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
    func request(_ text: String) throws -> JSON {
        guard case .object(let o) = try JSON(parsing: Data(text.utf8)) else { throw DaemonError("not an object: \(text)") }
        return try request(o)
    }

    /// Takes the events collected so far.
    func takeEvents() -> [JSON] {
        defer { events.removeAll() }
        return events
    }
}
