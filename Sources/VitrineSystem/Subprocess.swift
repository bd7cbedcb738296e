import CLinuxEvents
import Glibc
import SystemPackage

/// A program started with `posix_spawn` in a process group of its own, watched through a
/// pidfd instead of a blocking wait or SIGCHLD.
///
/// ```swift
/// let child = try Subprocess(program: "/usr/bin/foot", arguments: ["foot"], environment: ["WAYLAND_DISPLAY=…"])
/// try loop.watch(child.pidfd, for: .readable) { _ in
///     let ending = child.reap()    // the process has ended: its status, never a wait
/// }
/// child.signalGroup(SIGTERM)       // the program and whatever it started
/// ```
///
/// The child gets a clean start whatever the daemon set for itself: default signal
/// dispositions, no blocked signals, standard input from /dev/null, standard output and
/// error into one pipe (`output`, non-blocking, for the caller to read), and no other
/// descriptor of ours (every one from 3 on is closed in the child before the program runs,
/// close-on-exec or not).
public final class Subprocess {
    /// How a process ended.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
        /// It ended, but its status was collected elsewhere (SIGCHLD set to be ignored).
        case unknown

        /// Whether it exited with status 0.
        public var succeeded: Bool { self == .exited(0) }

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signaled(let number): "signal \(Subprocess.signalName(number))"
            case .unknown: "an unknown status"
            }
        }
    }

    /// Where the program's standard output and error go.
    public enum Output: Sendable {
        /// Into one pipe, `output`, for the caller to read.
        case pipe
        /// Standard output nowhere, standard error into the file at this path (made or
        /// emptied): for a program whose log is read once it has ended.
        case errorsTo(String)
    }

    /// The process id, which is also its process group's id.
    public let pid: pid_t
    /// Readable once the process has ended (until `reap`).
    public var pidfd: CInt { process.rawValue }
    /// The read end of the pipe that the program's standard output and error go to
    /// (non-blocking); -1 once `closeOutput` closed it, and with `Output.errorsTo`.
    public var output: CInt { outputPipe?.rawValue ?? -1 }
    private let process: OwnedDescriptor
    private var outputPipe: OwnedDescriptor?
    /// How it ended, once `reap` has seen it.
    public private(set) var ending: Ending?

    /// Starts `program` (an absolute path; see `resolve`) with `arguments` (the first is the
    /// program's name for itself) and exactly `environment` ("NAME=value" entries), in
    /// `directory` (nil: the daemon's), its output going where `output` says; the program
    /// gets `passing` as its descriptors 3, 4, … (a socket to talk over), and no others.
    /// - Throws: `SystemError` naming the program and why it could not start.
    public init(
        program: String, arguments: [String], environment: [String], directory: String? = nil, output: Output = .pipe, passing: [CInt] = []
    ) throws(SystemError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var ours: OwnedDescriptor?, theirs: OwnedDescriptor?
        switch output {
        case .pipe:
            var pipe: [CInt] = [-1, -1]
            guard pipe2(&pipe, O_CLOEXEC | O_NONBLOCK) == 0 else { throw SystemError.errno("make a pipe for the output of", program) }
            (ours, theirs) = (OwnedDescriptor(pipe[0]), OwnedDescriptor(pipe[1]))
            // Only our end stays non-blocking: a program may not expect EAGAIN on its stdout.
            _ = fcntl(pipe[1], F_SETFL, 0)
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        case .errorsTo(let path):
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        // (moved out of the way first: a descriptor may be numbered as another's target)
        let moved = passing.map { OwnedDescriptor(fcntl($0, F_DUPFD_CLOEXEC, 100)) }
        for (index, descriptor) in moved.enumerated() {
            guard descriptor.isOpen else { throw SystemError.errno("pass a descriptor to", program) }
            posix_spawn_file_actions_adddup2(&actions, descriptor.rawValue, 3 + CInt(index))
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3 + CInt(passing.count))
        if let directory { posix_spawn_file_actions_addchdir_np(&actions, directory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), mask = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for p in argv + envp { free(p) } }
        var child = pid_t()
        // (the moved descriptors must stay open until the child has taken them)
        let result = withExtendedLifetime(moved) { posix_spawn(&child, program, &actions, &attributes, argv, envp) }
        theirs?.close()
        guard result == 0 else {
            let code = Errno(rawValue: result)
            let place = directory.map { " in \($0)" } ?? ""
            throw SystemError.errno("start", program + place, code, advice: Self.advice(code))
        }
        let fd = vitrine_pidfd_open(child)
        guard fd >= 0 else {
            let code = Errno.last
            kill(-child, SIGKILL)
            var status: Int32 = 0
            _ = retryingOnInterrupt { waitpid(child, &status, 0) }
            throw SystemError.errno("watch", "the process of \(program)", code, advice: "pidfd_open needs Linux 5.3 or later")
        }
        pid = child
        process = OwnedDescriptor(fd)
        outputPipe = ours
    }

    deinit {
        if ending == nil {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            _ = retryingOnInterrupt { waitpid(pid, &status, 0) }
        }
    }

    /// Sends `signal` to the process group: the program and the processes it started that
    /// stayed in its group. Does nothing once the process has been reaped (its id may then
    /// belong to another).
    public func signalGroup(_ signal: CInt) {
        guard ending == nil else { return }
        kill(-pid, signal)
    }

    /// How the process ended, collected without waiting (the zombie is reaped); nil while
    /// it runs. Before reaping, what is left of its group gets SIGKILL: a program's
    /// helpers do not outlive it (as systemd's control-group kill mode does for services).
    @discardableResult
    public func reap() -> Ending? {
        if let ending { return ending }
        // The pidfd tells without reaping, so the group is killed while its id cannot be reused.
        var ready = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        guard retryingOnInterrupt({ poll(&ready, 1, 0) }) == 1 else { return nil }
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        let reaped = retryingOnInterrupt { waitpid(pid, &status, WNOHANG) }
        guard reaped == pid || (reaped < 0 && errno == ECHILD) else { return nil }
        let ended: Ending = reaped < 0 ? .unknown : status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        ending = ended
        return ended
    }

    /// Closes our end of the output pipe (the caller has unwatched it).
    public func closeOutput() { outputPipe = nil }

    /// The path `execve` would run for `program`: itself when it holds a "/" (relative to
    /// `directory`), else the first executable regular file of that name in `searchPath`
    /// (PATH's form).
    /// - Throws: `SystemError` saying that the program is missing or not executable, and
    ///   where it was looked for.
    public static func resolve(_ program: String, searchPath: String, directory: String?) throws(SystemError) -> String {
        guard !program.isEmpty else { throw SystemError("the program's name is empty; give the program as the command's first element") }
        if program.contains("/") {
            let path = program.hasPrefix("/") || directory == nil ? program : directory! + "/" + program
            if let problem = Self.problem(path) { throw SystemError("\(path) \(problem)", code: .noSuchFileOrDirectory) }
            return path
        }
        var seen: [String] = []
        for entry in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let folder = entry.isEmpty ? "." : String(entry)
            let path = folder + "/" + program
            if Self.problem(path) == nil { return path }
            seen.append(folder)
        }
        throw SystemError(
            "there is no executable '\(program)' in PATH (\(seen.joined(separator: ":"))); install it, or give its absolute path",
            code: .noSuchFileOrDirectory)
    }

    /// Why the file at `path` cannot be run, or nil when it can.
    private static func problem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "does not exist; give the path of an installed program" }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "is not a regular file; give the path of a program" }
        guard access(path, X_OK) == 0 else { return "is not executable (chmod +x it, or run it through its interpreter)" }
        return nil
    }

    private static func advice(_ code: Errno) -> String {
        switch code.rawValue {
        case ENOENT: "check the program's path and the working directory"
        case EACCES: "the daemon's user may not run it or enter the directory"
        case ENOEXEC: "the file is not a program this machine can run"
        default: ""
        }
    }

    /// Variables systemd sets for the service's own process, which a program it starts must
    /// not take for its own (it would speak to systemd as the service).
    public static let serviceOnly: Set<String> = [
        "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_PID", "WATCHDOG_USEC", "JOURNAL_STREAM",
        "INVOCATION_ID", "MAINPID",
    ]

    /// This process's environment less `serviceOnly`: what a program it starts inherits.
    public static func inheritedEnvironment() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") { variables[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            entry += 1
        }
        for name in serviceOnly { variables[name] = nil }
        return variables
    }

    /// The path of the running program (/proc/self/exe), or nil.
    public static func ownExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// "SIGTERM" for 15, "signal 99" for a number without a name.
    public static func signalName(_ number: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT",
            SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1", SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2",
            SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
        ]
        return names[number] ?? "signal \(number)"
    }
}
