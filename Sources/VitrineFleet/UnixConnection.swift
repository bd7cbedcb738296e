import Glibc
import SystemPackage
import VitrineSystem

/// A client's connection to a Unix stream socket, served on an event loop: what the
/// bridge uses to reach the daemon's control socket and its metrics socket.
///
/// ```swift
/// let connection = try UnixConnection(path: "/run/vitrine/vitrine.sock", loop: loop)
/// connection.onBytes = { bytes in … }               // on the loop, as they arrive
/// connection.onClose = { reason in … }              // once, on the loop
/// connection.send(Array("{\"cmd\": \"ping\"}\n".utf8))
/// ```
///
/// Nothing blocks: the socket is non-blocking, what cannot be written now waits (at most
/// `outputLimit` bytes, else the connection is closed) until the socket takes it, and a
/// connection the peer closes or that fails ends with `onClose` and the reason. `close`
/// ends it without calling `onClose`.
public final class UnixConnection {
    /// The socket's path, as given.
    public let path: String
    /// Bytes that may wait to be written; past it the connection is closed.
    public let outputLimit: Int
    /// Called with each chunk read.
    public var onBytes: (UnsafeRawBufferPointer) -> Void = { _ in }
    /// Called once when the connection ends by itself, with why ("closed by the peer",
    /// an errno's words).
    public var onClose: (String) -> Void = { _ in }

    private let loop: EventLoop
    private let socket: OwnedDescriptor
    private var output: [UInt8] = []
    private var written = 0
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)

    /// Connects to the socket at `path`. Throws when the connection cannot be started at
    /// all (no socket there, no permission, nothing listening), with what to do.
    public init(path: String, loop: EventLoop, outputLimit: Int = 4 << 20) throws(SystemError) {
        self.path = path
        self.loop = loop
        self.outputLimit = outputLimit
        guard path.utf8.count < 108 else { throw SystemError("\(path): a socket path is limited to 107 bytes") }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        do { socket = OwnedDescriptor(try valueOrErrno { Glibc.socket(AF_UNIX, type, 0) }) } catch {
            throw SystemError.errno("create a socket for", path, error)
        }
        var address = sockaddr_un(path: path)
        let result = retryingOnInterrupt {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        // A Unix socket connects at once or not at all (EAGAIN: its backlog is full).
        guard result == 0 else {
            let code = Errno.last
            let advice =
                switch code {
                case .noSuchFileOrDirectory, .connectionRefused: "is vitrined running? (systemctl start vitrine.socket)"
                case .permissionDenied: "run as a user in the socket's group (the vitrine group)"
                case .resourceTemporarilyUnavailable: "the daemon's backlog is full; trying again"
                default: ""
                }
            throw SystemError.errno("connect to", path, code, advice: advice)
        }
        try loop.watch(socket.rawValue, for: .readable) { [unowned self] events in serve(events) }
    }

    deinit { close() }

    /// Whether the connection is still open.
    public var isOpen: Bool { socket.isOpen }

    /// Bytes waiting to be written.
    public var pendingOutput: Int { output.count - written }

    /// Queues `bytes` and writes what the socket takes now.
    public func send(_ bytes: [UInt8]) {
        guard socket.isOpen else { return }
        guard pendingOutput + bytes.count <= outputLimit else {
            return end("more than \(outputLimit) bytes waited to be written")
        }
        output += bytes
        flush()
    }

    /// Closes the connection; `onClose` is not called.
    public func close() {
        guard socket.isOpen else { return }
        loop.unwatch(socket.rawValue)
        socket.close()
    }

    private func serve(_ events: EventLoop.Events) {
        if events.contains(.writable) { flush() }
        if events.contains(.readable) || events.contains(.closed) { read() }
    }

    private func read() {
        // A bounded batch: a fast peer cannot hold the loop.
        for _ in 0..<16 where socket.isOpen {
            let n = scratch.withUnsafeMutableBytes { recv(socket.rawValue, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                scratch.withUnsafeBytes { onBytes(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
                continue
            }
            if n == 0 { return end("closed by the peer") }
            let code = Errno.last
            if code == .interrupted { continue }
            if code.meansTryAgain { return }
            return end(code.description)
        }
    }

    private func flush() {
        while socket.isOpen, written < output.count {
            let n = output.withUnsafeBytes { raw in
                Glibc.send(socket.rawValue, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n > 0 {
                written += n
                continue
            }
            let code = Errno.last
            if code == .interrupted { continue }
            if code.meansTryAgain { break }
            return end(code.description)
        }
        guard socket.isOpen else { return }
        if written == output.count {
            output.removeAll(keepingCapacity: output.count <= 64 << 10)
            written = 0
        }
        loop.change(socket.rawValue, to: pendingOutput > 0 ? [.readable, .writable] : .readable)
    }

    private func end(_ reason: String) {
        guard socket.isOpen else { return }
        close()
        onClose(reason)
    }
}
