import Glibc
import SystemPackage

/// What identifies a file's contents on disk: a cache keyed by it reads a file again when
/// it is replaced or rewritten, and never twice for two spellings of one path.
public struct FileIdentity: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64
    /// Modification time in nanoseconds.
    public let modified: Int64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    /// The identity of the file at `path` (following links), or nil when there is none.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }
}

/// Reading and writing files the way a daemon that runs as a service user (or root) must:
/// nothing that can block on the event loop's behalf, nothing that follows a planted link.
///
/// Reads open with `O_NONBLOCK` (a FIFO or a device does not hang the open), accept
/// regular files only, and stop at a size cap. Writes create a new file exclusively next to
/// the target (`O_EXCL | O_NOFOLLOW`, so a symbolic link planted at the temporary name is
/// never followed), fsync it, rename it over the target and fsync the directory; a
/// directory that another user may write is refused, as OpenSSH's StrictModes does.
public enum SafeFile {
    /// Reads the regular file at `path`, up to `limit` bytes.
    ///
    /// Files the kernel makes as they are read (`/proc/self/statm`, `/sys/…`) report a size
    /// of 0: such a file is read to its end, and refused when that is over `limit`.
    ///
    /// ```swift
    /// let scene = try SafeFile.read("/etc/vitrine/scene.json", limit: 16 << 20).bytes
    /// ```
    /// - Throws: `SystemError` naming the path and what is wrong (no such file, not a
    ///   regular file, too large, unreadable) and what to do; its `reason` says it without
    ///   the path.
    public static func read(_ path: String, limit: Int) throws(SystemError) -> (bytes: [UInt8], identity: FileIdentity) {
        let (file, identity) = try open(path, limit: limit)
        return (try readAll(file.descriptor, path, size: Int(identity.size), limit: limit), identity)
    }

    /// Opens the regular file at `path` for reading, when it holds at most `limit` bytes,
    /// with the checks of `read` but without reading it: for another process to read (a
    /// decoder), which then needs no access to the path.
    /// - Throws: `SystemError` as `read` does.
    public static func open(_ path: String, limit: Int) throws(SystemError) -> (file: OwnedDescriptor, identity: FileIdentity) {
        let file: OwnedDescriptor
        do {
            file = OwnedDescriptor(
                try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec, .init(rawValue: O_NOCTTY)], retryOnInterrupt: true))
        } catch {
            let code = Errno(thrown: error)
            throw readError(path, openReason(code), code)
        }
        var info = stat()
        guard fstat(file.rawValue, &info) == 0 else { throw .errno("inspect", path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw readError(path, "it is \(kindName(info.st_mode)), not a regular file", .invalidArgument)
        }
        guard info.st_size <= limit else { throw readError(path, "it is \(info.st_size) bytes, over the \(limit) bytes a file may have here", .fileTooLarge) }
        return (file, FileIdentity(info))
    }

    /// Reads the whole of the regular file `file` (from its start), up to `limit` bytes;
    /// `name` says which file it is in errors.
    /// - Throws: `SystemError` when it is no regular file, too large, or unreadable.
    public static func read(_ file: OwnedDescriptor, name: String, limit: Int) throws(SystemError) -> [UInt8] {
        var info = stat()
        guard fstat(file.rawValue, &info) == 0 else { throw .errno("inspect", name) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw readError(name, "it is \(kindName(info.st_mode)), not a regular file", .invalidArgument)
        }
        guard info.st_size <= limit else { throw readError(name, "it is \(info.st_size) bytes, over the \(limit) bytes a file may have here", .fileTooLarge) }
        guard lseek(file.rawValue, 0, SEEK_SET) == 0 else { throw .errno("rewind", name) }
        return try readAll(file.descriptor, name, size: Int(info.st_size), limit: limit)
    }

    /// The file's bytes: `size` of them, or to its end when its size is 0 (generated).
    private static func readAll(_ fd: FileDescriptor, _ path: String, size: Int, limit: Int) throws(SystemError) -> [UInt8] {
        let generated = size == 0
        // (one byte over the limit tells a generated file that is too large)
        var bytes = [UInt8](repeating: 0, count: generated ? min(limit, (1 << 16) - 1) + 1 : size)
        var filled = 0
        while true {
            if filled == bytes.count {
                guard generated, bytes.count <= limit else { break }
                bytes += repeatElement(0, count: min(bytes.count, (limit - bytes.count) + 1))
            }
            let count: Int
            do {
                count = try bytes.withUnsafeMutableBytes { raw in
                    try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), retryOnInterrupt: true)
                }
            } catch {
                let code = Errno(thrown: error)
                throw readError(path, code.description.lowercased(), code)
            }
            if count == 0 { break }
            filled += count
        }
        if filled > limit { throw readError(path, "it is over the \(limit) bytes a file may have here", .fileTooLarge) }
        // A file that shrank while read is what it now holds; one that grew is cut at its size.
        if filled < bytes.count { bytes.removeSubrange(filled...) }
        return bytes
    }

    /// "PATH: cannot read: REASON", with the reason on its own.
    private static func readError(_ path: String, _ reason: String, _ code: Errno) -> SystemError {
        SystemError("\(path): cannot read: \(reason)", code: code, reason: reason)
    }

    /// Replaces the file at `path` with `bytes`, atomically: readers see the old file or
    /// the whole new one, and after a power cut one of the two is on disk.
    /// - Parameter mode: permission bits of the new file.
    /// - Throws: `SystemError` when the directory is unsafe (writable by other users),
    ///   the target is not a regular file, or a call fails.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(SystemError) {
        let (directory, name) = split(path)
        try checkDirectory(directory)
        var existing = stat()
        if lstat(path, &existing) == 0, (existing.st_mode & S_IFMT) != S_IFREG {
            throw SystemError("\(path) is \(kindName(existing.st_mode)); only a regular file is replaced there", code: .invalidArgument)
        }
        let directoryFD: FileDescriptor
        do {
            directoryFD = try .open(directory, .readOnly, options: [.directory, .closeOnExec], retryOnInterrupt: true)
        } catch {
            throw .errno("open the directory", directory, Errno(thrown: error))
        }
        defer { try? directoryFD.close() }
        let temporary = ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        // swift-system opens no path relative to a directory descriptor: openat by hand.
        let fd: FileDescriptor
        do {
            fd = FileDescriptor(
                rawValue: try valueOrErrno { openat(directoryFD.rawValue, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode) })
        } catch {
            throw .errno("create a temporary file in", directory, error)
        }
        var renamed = false
        defer { if !renamed { unlinkat(directoryFD.rawValue, temporary, 0) } }
        do {
            defer { try? fd.close() }
            do {
                try fd.writeAll(bytes)
            } catch {
                let code = Errno(thrown: error)
                throw SystemError.errno("write", path, code, advice: code == .noSpace ? "the disk is full" : "")
            }
            guard fsync(fd.rawValue) == 0 else { throw SystemError.errno("flush to disk", path) }
        }
        guard renameat(directoryFD.rawValue, temporary, directoryFD.rawValue, name) == 0 else { throw .errno("rename the new file over", path) }
        renamed = true
        _ = fsync(directoryFD.rawValue)
    }

    /// Throws unless `directory` is a directory that no other user can write into: owned
    /// by root or by the daemon's user, and not writable by group or others (a sticky
    /// world-writable directory such as /tmp is refused too: another user could plant
    /// names in it).
    public static func checkDirectory(_ directory: String) throws(SystemError) {
        var info = stat()
        guard stat(directory, &info) == 0 else { throw .errno("use the directory", directory, advice: "create it first") }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw SystemError("\(directory) is not a directory", code: .notDirectory) }
        let me = geteuid()
        guard info.st_uid == 0 || info.st_uid == me else {
            throw SystemError(
                "\(directory) belongs to user \(info.st_uid), not to root or to the daemon's user \(me); files are written only into directories that no other user controls",
                code: .notPermitted)
        }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            throw SystemError(
                "\(directory) is writable by \(info.st_mode & S_IWOTH != 0 ? "every user" : "its group") (mode \(mode)); files are written only into directories that no other user can write — chmod go-w \(directory)",
                code: .notPermitted)
        }
    }

    /// The directory and the file name of `path`.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func openReason(_ code: Errno) -> String {
        switch code {
        case .permissionDenied, .notPermitted: "permission denied — make it readable by the user the daemon runs as"
        case .noSuchFileOrDirectory: "no such file"
        case .notDirectory: "a part of the path is not a directory"
        case .tooManySymbolicLinkLevels: "too many levels of symbolic links"
        default: code.description.lowercased()
        }
    }

    /// "a directory", "a FIFO", … for messages.
    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "a regular file"
        }
    }
}
