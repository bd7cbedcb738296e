import Foundation

/// A child process started with posix_spawn and reaped with waitpid by its owner.
///
/// Foundation's `Process` is not used: on Linux it learns of a child's exit from SIGCHLD,
/// which any of the test runner's many threads may swallow, and then `waitUntilExit()`
/// never returns (seen with a daemon that exits at once). The child gets default signal
/// dispositions and an empty mask, whatever the test process set, and none of its file
/// descriptors besides 0–2 (a client socket leaked into a daemon would keep that
/// connection open after the test closes it).
public final class ChildProcess {
    public let pid: pid_t
    private var exitStatus: Int32?

    /// `environment` adds to (or replaces in) the test process's environment.
    public init(_ executable: String, _ arguments: [String], stderrPath: String, environment: [String: String] = [:]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        Self.closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), mask = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for e in envp { free(e) } }
        var child = pid_t()
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestError("cannot start \(executable): \(String(cString: strerror(result)))") }
        pid = child
    }

    deinit {
        if isRunning { kill(pid, SIGKILL); _ = wait(timeout: 10) }
    }

    /// glibc's posix_spawn_file_actions_addclosefrom_np (not visible to Swift), else a
    /// close action for every descriptor open now.
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
    }

    /// The exit status (128 + the signal for a signal), once the child has ended.
    public var status: Int32? {
        if exitStatus == nil {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                exitStatus = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            }
        }
        return exitStatus
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
