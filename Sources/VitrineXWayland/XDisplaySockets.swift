import Glibc
import VitrineSystem

/// An X11 display's listening sockets, held by the daemon so that X11 programs can connect
/// before Xwayland runs: the first free display number from 0 (its lock file
/// `/tmp/.X<n>-lock` made, holding our pid, as X servers do), the abstract socket
/// `@/tmp/.X11-unix/X<n>` and the file `/tmp/.X11-unix/X<n>`. Xwayland is handed both
/// (`-listenfd`) and accepts on them itself.
///
/// ```swift
/// let sockets = try XDisplaySockets()
/// sockets.display           // ":0"
/// try loop.watch(sockets.fileSocket.rawValue, for: .readable) { _ in startXwayland() }
/// ```
///
/// The lock file and the socket file are removed when the sockets go. A lock file whose
/// process is gone is taken over; one of a live process, or a socket in use, moves on to
/// the next number.
final class XDisplaySockets {
    /// The display's number.
    let number: Int
    /// The listening sockets (non-blocking, close-on-exec).
    let abstractSocket: OwnedDescriptor
    let fileSocket: OwnedDescriptor

    static let directory = "/tmp/.X11-unix"
    /// Display numbers tried.
    static let numbers = 0...32

    /// ":N", what `DISPLAY` names.
    var display: String { ":\(number)" }

    /// Opens the first free display.
    /// - Throws: `SystemError` when `/tmp/.X11-unix` cannot be used or no display of the
    ///   first 33 is free.
    init() throws(SystemError) {
        try Self.prepareDirectory()
        var lastProblem = "every one is taken"
        for number in Self.numbers {
            guard Self.lock(number) else { continue }
            do {
                let abstract = try Self.listen(number, abstract: true)
                let file = try Self.listen(number, abstract: false)
                (self.number, abstractSocket, fileSocket) = (number, abstract, file)
                return
            } catch {
                lastProblem = error.message
                unlink(Self.lockPath(number))
            }
        }
        throw SystemError("no X11 display of :0 to :32 is free for Xwayland (\(lastProblem)); remove stale /tmp/.X*-lock files")
    }

    deinit {
        unlink(Self.socketPath(number))
        unlink(Self.lockPath(number))
    }

    static func lockPath(_ number: Int) -> String { "/tmp/.X\(number)-lock" }
    static func socketPath(_ number: Int) -> String { "\(directory)/X\(number)" }

    /// `/tmp/.X11-unix` exists (made sticky and writable by all, as X servers make it) and
    /// is not another user's to tamper with.
    private static func prepareDirectory() throws(SystemError) {
        if mkdir(directory, 0o1777) == 0 {
            chmod(directory, 0o1777)
            return
        }
        guard errno == EEXIST else { throw SystemError.errno("make", directory) }
        var info = stat()
        guard lstat(directory, &info) == 0 else { throw SystemError.errno("inspect", directory) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemError("\(directory) is not a directory; remove it so that X11 sockets can be made") }
        guard info.st_uid == 0 || info.st_uid == getuid() else {
            throw SystemError("\(directory) belongs to another user (uid \(info.st_uid)); X11 sockets there are not safe")
        }
        guard info.st_mode & S_ISVTX != 0 || info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw SystemError("\(directory) is writable by others without the sticky bit; chmod 1777 it")
        }
    }

    /// Takes display `number`'s lock file: made with our pid, or taken over from a process
    /// that is gone. False when it is another live process's (or cannot be made).
    private static func lock(_ number: Int) -> Bool {
        let path = lockPath(number)
        for _ in 0..<2 {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
            if fd >= 0 {
                let text = Array(String(repeating: " ", count: max(0, 10 - String(getpid()).count)).utf8) + Array("\(getpid())\n".utf8)
                let written = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
                if written == text.count { return true }
                unlink(path)
                return false
            }
            guard errno == EEXIST, let owner = owner(of: path), owner > 0 else { return false }
            // A lock of a process that is gone is stale.
            guard kill(pid_t(owner), 0) != 0, errno == ESRCH, unlink(path) == 0 else { return false }
        }
        return false
    }

    /// The pid a lock file holds.
    private static func owner(of path: String) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return Int(String(decoding: bytes[0..<count], as: UTF8.self).trimmingCharacters(in: " \n"))
    }

    /// A listening socket for display `number`: the abstract one, or the file (a stale file
    /// is replaced: the lock is ours).
    private static func listen(_ number: Int, abstract: Bool) throws(SystemError) -> OwnedDescriptor {
        let path = socketPath(number)
        let socket = OwnedDescriptor(Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0))
        guard socket.isOpen else { throw SystemError.errno("make a socket for", path) }
        // The abstract name is the path after a NUL byte, without a final NUL; the file's
        // name ends with one.
        let name = (abstract ? [0] : []) + Array(path.utf8)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + (abstract ? 0 : 1))
        if !abstract { unlink(path) }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.rawValue, $0, length) } }
        guard bound == 0 else { throw SystemError.errno("bind", abstract ? "@" + path : path) }
        guard Glibc.listen(socket.rawValue, 16) == 0 else {
            let error = SystemError.errno("listen on", abstract ? "@" + path : path)
            if !abstract { unlink(path) }
            throw error
        }
        if !abstract { chmod(path, 0o777) }
        return socket
    }
}

extension String {
    /// The string without `characters` at either end.
    fileprivate func trimmingCharacters(in characters: String) -> String {
        let set = Set(characters)
        return String(drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}
