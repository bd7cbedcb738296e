import FoundationEssentials
import Glibc
import SystemPackage
import VitrineSystem

extension SystemError {
    /// An error for `code` (the last call's by default) after `operation` on the socket
    /// file `path`, with advice for the common cases; `key` is the setting that names it.
    static func socket(_ operation: String, _ path: String, _ code: Errno = .last, key: String = "socket.path") -> SystemError {
        let advice: String =
            switch code {
            case .permissionDenied, .notPermitted: "run vitrined as a user that may write there, or choose another \(key)"
            case .noSuchFileOrDirectory: "create the directory first (systemd's RuntimeDirectory=vitrine does)"
            case .addressInUse: "another program holds this address"
            default: ""
            }
        return .errno(operation, path, code, advice: advice)
    }
}

/// Socket file housekeeping: stale files of dead daemons are replaced, a live daemon's
/// socket is never stolen.
enum SocketFile {
    /// Makes `path` free to bind: removes a stale socket (nothing accepts on it) and
    /// refuses when a daemon is listening there or the path is not a socket. Errors name
    /// `key`, the setting that gives the path.
    static func prepare(_ path: String, key: String = "socket.path") throws {
        guard path.utf8.count < 108 else { throw SystemError("\(path): a socket path is limited to 107 bytes; choose a shorter \(key)") }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if Errno.last == .noSuchFileOrDirectory { return }
            throw SystemError.socket("inspect", path, key: key)
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SystemError("\(path) exists and is not a socket; remove it or choose another \(key)")
        }
        if isListening(path) {
            throw SystemError("\(path): another vitrined is listening there; stop it first (systemctl stop vitrine) or choose another \(key)")
        }
        guard unlink(path) == 0 else { throw SystemError.socket("remove the stale socket", path, key: key) }
    }

    /// True when connecting to the socket at `path` succeeds.
    static func isListening(_ path: String) -> Bool {
        guard let probe = try? OwnedDescriptor(valueOrErrno { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0) }) else { return false }
        var address = Self.address(of: path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }

    /// `path` as a Unix socket address (`prepare` has checked that it fits).
    static func address(of path: String) -> sockaddr_un { sockaddr_un(path: path) }

    /// The path a listening Unix socket is bound to (a socket systemd passed in).
    static func boundPath(of fd: CInt) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return path.isEmpty ? nil : path
    }

    /// Sets the socket file's permission bits and, when given, its group.
    static func setPermissions(_ path: String, mode: UInt16, group: String?) throws {
        guard chmod(path, mode_t(mode)) == 0 else { throw SystemError.socket("set permissions of", path) }
        guard let group, !group.isEmpty else { return }
        guard let entry = getgrnam(group) else {
            throw SystemError("\(path): there is no group '\(group)' (socket.group); create it or leave socket.group empty")
        }
        guard chown(path, uid_t.max, entry.pointee.gr_gid) == 0 else { throw SystemError.socket("give group \(group) to", path) }
    }

    /// A non-blocking, close-on-exec Unix stream socket listening at `path` (made free
    /// with `prepare`), with `mode` and `group`; errors name `key`, the setting that gives
    /// the path.
    static func listen(_ path: String, mode: UInt16, group: String?, key: String = "socket.path") throws -> OwnedDescriptor {
        try prepare(path, key: key)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let socket: OwnedDescriptor
        do { socket = OwnedDescriptor(try valueOrErrno { Glibc.socket(AF_UNIX, type, 0) }) } catch {
            throw SystemError.socket("create a socket for", path, error, key: key)
        }
        var address = address(of: path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw SystemError.socket("bind", path, key: key) }
        guard Glibc.listen(socket.rawValue, 64) == 0 else {
            let error = SystemError.socket("listen on", path, key: key)
            unlink(path)
            throw error
        }
        do { try setPermissions(path, mode: mode, group: group) } catch {
            unlink(path)
            throw error
        }
        return socket
    }
}
