import Glibc
import VitrineSystem

/// A VNC listener's Unix socket, served through a relay: Neat VNC 0.5.4 listens on a
/// socket of its own in a private directory (mode 0700), and the relay accepts viewers on
/// the configured path (mode 0660) and carries their bytes to it and back, on the event
/// loop.
///
/// Neat VNC 0.5.4 writes its greeting as it accepts a connection; on a Unix socket whose
/// viewer already hung up the write fails at once, and Neat VNC frees the connection and
/// then uses it. Through the relay Neat VNC's peer is the relay, which hangs up only after
/// reading the greeting, so Neat VNC always sees an ordinary hang-up.
final class VNCUnixRelay {
    /// The configured path, where viewers connect.
    let path: String
    /// Neat VNC's socket.
    let inner: String
    private let directory: String
    private let loop: EventLoop
    private var listening: CInt = -1
    private var pairs: [CInt: Pair] = [:]
    /// The most viewers relayed at once; more are closed as they come.
    static let most = 64
    /// Bytes held for one direction of one viewer before the relay stops reading its sender.
    static let window = 256 * 1024
    /// The greeting's length ("RFB 003.008\n").
    static let greeting = 12

    /// One viewer's connection (`outer`) and the relay's to Neat VNC (`inner`).
    private final class Pair {
        let outer: CInt, inner: CInt
        var toInner: [UInt8] = [], toOuter: [UInt8] = []
        var fromInner = 0
        var outerGone = false
        var deadline: UInt64?
        init(outer: CInt, inner: CInt) { (self.outer, self.inner) = (outer, inner) }
    }

    /// Listens on `path` (a stale socket there is replaced) and makes the private
    /// directory for Neat VNC's socket beside it.
    ///
    /// - Throws: `SystemError` when the directory or the socket cannot be made.
    init(path: String, loop: EventLoop) throws(SystemError) {
        self.path = path
        self.loop = loop
        let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var template = Array("\(parent.isEmpty ? "" : parent)/.vitrine-vnc-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError.errno("make a private directory beside", path) }
        directory = String(cString: made)
        inner = directory + "/vnc"
        guard inner.utf8.count <= 107 else {
            rmdir(directory)
            throw SystemError("\(path): its directory's path is too long for Neat VNC's socket beside it (\(inner)); use a shorter path")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        var address = sockaddr_un(path: path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, chmod(path, 0o660) == 0, listen(fd, 16) == 0 else {
            let error = SystemError.errno("listen on", path, advice: "is another VNC server (or vitrined) listening there?")
            if fd >= 0 { Glibc.close(fd) }
            rmdir(directory)
            throw error
        }
        listening = fd
        do {
            try loop.watch(fd, for: .readable) { [unowned self] _ in accept() }
        } catch {
            close()
            throw error
        }
    }

    /// Stops listening, ends every relayed connection and removes the sockets.
    func close() {
        for pair in Array(pairs.values) { end(pair) }
        if listening >= 0 {
            loop.unwatch(listening)
            Glibc.close(listening)
            listening = -1
            unlink(path)
        }
        unlink(inner)
        rmdir(directory)
    }

    private func accept() {
        while true {
            let outer = Glibc.accept(listening, nil, nil)
            guard outer >= 0 else { return }
            _ = fcntl(outer, F_SETFL, fcntl(outer, F_GETFL) | O_NONBLOCK)
            _ = fcntl(outer, F_SETFD, FD_CLOEXEC)
            guard pairs.count < Self.most * 2, let inner = connectInner() else {
                Glibc.close(outer)
                continue
            }
            let pair = Pair(outer: outer, inner: inner)
            pairs[outer] = pair
            pairs[inner] = pair
            do {
                try loop.watch(outer, for: .readable) { [unowned self] events in
                    if !events.isDisjoint(with: .closed) { outerLeft(pair) }
                    pump(pair)
                }
                try loop.watch(inner, for: .readable) { [unowned self] events in
                    pump(pair)
                    if !events.isDisjoint(with: .closed), pairs[pair.inner] === pair { end(pair) }
                }
            } catch {
                end(pair)
            }
        }
    }

    private func connectInner() -> CInt? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un(path: inner)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            return nil
        }
        return fd
    }

    /// Moves what each side can send and take, then watches for what is left; a viewer
    /// that hung up is let go once Neat VNC's greeting was read (at most 5 s later).
    private func pump(_ pair: Pair) {
        guard pairs[pair.inner] === pair else { return }
        if !pair.outerGone, pair.toInner.count < Self.window {
            switch receive(pair.outer, into: &pair.toInner) {
            case .ended: outerLeft(pair)
            case .read, .none: break
            }
        }
        if pair.toOuter.count < Self.window {
            switch receive(pair.inner, into: &pair.toOuter) {
            case .ended: return end(pair)
            case .read(let count): pair.fromInner += count
            case .none: break
            }
        }
        if pair.outerGone {
            pair.toOuter = []
        } else if !send(pair.outer, &pair.toOuter) {
            outerLeft(pair)
        }
        guard send(pair.inner, &pair.toInner) else { return end(pair) }
        if pair.outerGone, pair.fromInner >= Self.greeting { return end(pair) }
        var outerEvents: EventLoop.Events = pair.toOuter.isEmpty ? [] : .writable
        if !pair.outerGone, pair.toInner.count < Self.window { outerEvents.insert(.readable) }
        var innerEvents: EventLoop.Events = pair.toInner.isEmpty ? [] : .writable
        if pair.toOuter.count < Self.window { innerEvents.insert(.readable) }
        if !pair.outerGone { loop.change(pair.outer, to: outerEvents) }
        loop.change(pair.inner, to: innerEvents)
    }

    private func outerLeft(_ pair: Pair) {
        guard !pair.outerGone else { return }
        pair.outerGone = true
        pair.toOuter = []
        loop.unwatch(pair.outer)
        pairs[pair.outer] = nil
        Glibc.close(pair.outer)
        pair.deadline = loop.schedule(after: 5) { [unowned self] in
            pair.deadline = nil
            end(pair)
        }
    }

    private func end(_ pair: Pair) {
        if let deadline = pair.deadline { loop.cancel(deadline) }
        pair.deadline = nil
        if !pair.outerGone {
            loop.unwatch(pair.outer)
            Glibc.close(pair.outer)
            pair.outerGone = true
        }
        if pairs[pair.inner] != nil {
            loop.unwatch(pair.inner)
            Glibc.close(pair.inner)
        }
        pairs[pair.outer] = nil
        pairs[pair.inner] = nil
    }

    private enum Received {
        case read(Int)
        case ended
    }

    /// Reads what `fd` has, up to the window; nil when nothing is there now.
    private func receive(_ fd: CInt, into buffer: inout [UInt8]) -> Received? {
        let room = Self.window - buffer.count
        guard room > 0 else { return nil }
        var chunk = [UInt8](repeating: 0, count: min(room, 65536))
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk.prefix(count)
            return .read(count)
        }
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
        return .ended
    }

    /// Writes what `buffer` holds to `fd` as far as it takes it; false when `fd` failed.
    private func send(_ fd: CInt, _ buffer: inout [UInt8]) -> Bool {
        guard !buffer.isEmpty else { return true }
        let count = buffer.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if count > 0 {
            buffer.removeFirst(count)
            return true
        }
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
    }
}
