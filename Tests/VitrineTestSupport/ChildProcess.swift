import Foundation
import VitrineSystem

/// A program a test runs: a `Subprocess` (a process group of its own, a clean start,
/// standard output discarded and standard error into a file), reaped by its owner.
///
/// Foundation's `Process` is not used: on Linux it learns of a child's exit from SIGCHLD,
/// which any of the test runner's many threads may swallow, and then `waitUntilExit()`
/// never returns (seen with a daemon that exits at once).
public final class ChildProcess {
    private let process: Subprocess

    public var pid: pid_t { process.pid }

    /// `environment` adds to (or replaces in) the test process's environment.
    public init(_ executable: String, _ arguments: [String], stderrPath: String, environment: [String: String] = [:]) throws {
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        do {
            process = try Subprocess(
                program: executable, arguments: [executable] + arguments, environment: variables.map { "\($0.key)=\($0.value)" },
                output: .errorsTo(stderrPath))
        } catch {
            throw TestError(error.message)
        }
    }

    /// The exit status (128 + the signal for a signal), once the child has ended.
    public var status: Int32? {
        switch process.reap() {
        case nil: nil
        case .exited(let code): code
        case .signaled(let number): 128 + number
        case .unknown: -1
        }
    }

    public var isRunning: Bool { status == nil }

    /// Waits at most `timeout` seconds for the child to end; its status, or nil.
    public func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while status == nil, Date() < deadline { usleep(5_000) }
        return status
    }

    /// SIGTERM, then the status (SIGKILL after `timeout` seconds).
    public func terminate(timeout: Double = 10) -> Int32 {
        kill(pid, SIGTERM)
        if let status = wait(timeout: timeout) { return status }
        kill(pid, SIGKILL)
        return wait(timeout: 10) ?? -1
    }
}

/// A test helper's failure (a process that did not start, a socket that did not connect):
/// what went wrong, in words.
extension ChildProcess {
    /// Runs `executable` with `arguments` to its end (killed after `timeout` seconds) and
    /// returns its exit status and what it wrote to standard error.
    public static func runToExit(
        _ executable: String, _ arguments: [String], timeout: Double = 20, environment: [String: String] = [:]
    ) throws -> (status: Int32, stderr: String) {
        let name = URL(fileURLWithPath: executable).lastPathComponent
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).stderr").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = try ChildProcess(executable, arguments, stderrPath: log, environment: environment)
        let status = process.wait(timeout: timeout) ?? process.terminate()
        return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }
}

public struct TestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Sends `bytes` on the socket `fd`, blocking, until they are sent or the peer is gone.
public func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { return }
        offset += n
    }
}

/// Connects the Unix stream socket `fd` to `path`; connect(2)'s result.
public func connectUnixSocket(_ fd: Int32, _ path: String) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        let bytes = Array(path.utf8)
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}
