import Glibc

/// A connected Unix stream socket that carries lines: the whole transport of `vitrinectl`.
///
/// Blocking, with timeouts from `poll`; the descriptor is closed when the socket is released.
final class LineSocket {
    /// Why the socket could not be used.
    enum Failure: Error {
        /// `connect` failed; `reason` says why (`No such file or directory`, …).
        case cannotConnect(reason: String)
        /// The peer closed the connection, or a write found it gone.
        case closed
        /// No complete line arrived in time.
        case timedOut
        /// Another system call failed.
        case system(call: String, reason: String)
    }

    let path: String
    private let descriptor: Int32
    /// Bytes received after the last complete line.
    private var pending: [UInt8] = []

    /// Connects to the socket at `path`.
    init(path: String) throws(Failure) {
        self.path = path
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            throw .cannotConnect(reason: "the path is \(bytes.count) bytes long; socket paths hold at most \(capacity - 1)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", reason: Self.errorText()) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = Self.errorText()
            close(fd)
            throw .cannotConnect(reason: reason)
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Sends `line` and its newline.
    func send(line: String) throws(Failure) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = try Self.retrying("send") {
                bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            offset += sent
        }
    }

    /// The next line without its newline, waiting until `deadline` at most (nil: for ever).
    func readLine(until deadline: Deadline?) throws(Failure) -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > pending.startIndex, pending[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            try waitForInput(until: deadline)
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = try Self.retrying("recv") { recv(descriptor, &chunk, chunk.count, 0) }
            guard count > 0 else { throw .closed }
            pending += chunk[..<count]
        }
    }

    private func waitForInput(until deadline: Deadline?) throws(Failure) {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            // poll's own timeout runs on the monotonic clock; after EINTR it is measured
            // again from the deadline.
            let milliseconds = deadline.map { Int32(min($0.remaining * 1000, 86_400_000).rounded(.up)) } ?? -1
            let ready = poll(&request, 1, milliseconds)
            if ready > 0 { return }
            if ready == 0 {
                if let deadline, deadline.remaining > 0 { continue }
                throw .timedOut
            }
            if errno != EINTR { throw .system(call: "poll", reason: Self.errorText()) }
        }
    }

    /// Runs a system call, again after `EINTR`; a broken connection is `.closed`.
    private static func retrying(_ call: String, _ body: () -> Int) throws(Failure) -> Int {
        while true {
            let result = body()
            if result >= 0 { return result }
            switch errno {
            case EINTR: continue
            case EPIPE, ECONNRESET: throw .closed
            default: throw .system(call: call, reason: errorText())
            }
        }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}
