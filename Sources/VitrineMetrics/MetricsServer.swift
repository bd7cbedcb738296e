import CLinuxEvents
import Glibc
import Logging
import SystemPackage
import VitrineSystem

/// Answers `GET /metrics` over HTTP/1.1 on the daemon's event loop, on a TCP port and/or a
/// Unix socket: what a Prometheus scraper needs, and nothing more.
///
/// ```swift
/// let server = MetricsServer(loop: loop, connections: 4, logger: logger) { answer in
///     answer(registry.emitToBuffer())        // on the loop, now or later
/// }
/// let port = try server.listen(address: "127.0.0.1", port: 9464)
/// try server.listen(path: "/run/vitrine/metrics.sock")
/// ```
///
/// Every connection carries one request and is closed after its answer (`Connection:
/// close`). Nothing a client sends can hold the loop or grow without bound: a request's
/// head is at most `requestBytes` (else 431), it must arrive within `timeout` seconds of
/// the connection (else 408: a slow sender cannot keep a place), at most `connections` are
/// served at once (another is answered 503 and closed), and accepting is done in bounded
/// batches. A request line that is not HTTP gets 400, a method other than GET or HEAD
/// 405, a path other than `/metrics` 404.
public final class MetricsServer {
    /// Makes the body of a scrape: calls its argument once, on the loop, with the bytes (nil:
    /// the daemon cannot answer now, 503).
    public typealias Body = (_ answer: @escaping ([UInt8]?) -> Void) -> Void

    /// The exposition format's content type (Prometheus text format 0.0.4).
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// Bytes of a request's head (request line and headers) at most.
    public static let requestBytes = 8 << 10
    /// Seconds a connection may take to send its request, and then to read the answer.
    public let timeout: Double
    /// Connections served at once.
    public let connections: Int
    /// Scrapes answered 200, and requests refused (4xx, 5xx), for tests and logs.
    public private(set) var answered = 0
    public private(set) var refused = 0

    private let loop: EventLoop
    private let logger: Logger
    private let body: Body
    private var listeners: [OwnedDescriptor] = []
    private var open: [CInt: Connection] = [:]
    private var scratch = [UInt8](repeating: 0, count: 4096)

    private final class Connection {
        let socket: OwnedDescriptor
        var head: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var phase = Phase.reading
        var timer: UInt64 = 0
        /// The socket's number; -1 once `finish` closed it.
        var fd: CInt { socket.rawValue }
        init(_ socket: OwnedDescriptor) { self.socket = socket }
    }

    private enum Phase {
        /// Reading the request's head.
        case reading
        /// Waiting for the body.
        case answering
        /// Writing the answer.
        case writing
        /// Answered and shut down for writing; reading what the client still sends until
        /// it closes, so that closing does not reset the connection under the answer.
        case draining
    }

    public init(loop: EventLoop, connections: Int = 4, timeout: Double = 5, logger: Logger, body: @escaping Body) {
        self.loop = loop
        self.connections = max(1, connections)
        self.timeout = timeout
        self.logger = logger
        self.body = body
    }

    /// Listens on TCP `address` (numeric IPv4 or IPv6) and `port` (0: one the kernel
    /// picks); returns the port.
    @discardableResult
    public func listen(address: String, port: Int) throws(SystemError) -> Int {
        var v4 = sockaddr_in(), v6 = sockaddr_in6()
        let family: CInt
        if inet_pton(AF_INET, address, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
        } else if inet_pton(AF_INET6, address, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
        } else {
            throw SystemError("metrics.address '\(address)' is not a numeric IPv4 or IPv6 address; use one such as \"127.0.0.1\"")
        }
        let name = family == AF_INET6 ? "[\(address)]:\(port)" : "\(address):\(port)"
        let listener = try Self.socket(family, for: name)
        let fd = listener.rawValue
        var one: CInt = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))
        let bound =
            family == AF_INET
            ? withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            : withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        guard bound == 0 else {
            let code = Errno.last
            let advice =
                switch code {
                case .addressInUse: "another program holds this port; choose another metrics.port"
                case .addressNotAvailable: "this machine has no such address; choose another metrics.address"
                case .permissionDenied: "ports below 1024 need privileges; choose metrics.port above 1023"
                default: ""
                }
            throw SystemError.errno("bind the metrics port", name, code, advice: advice)
        }
        try startListening(listener, name)
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return withUnsafeBytes(of: &address) { raw in
            // (sin_port and sin6_port are both at offset 2)
            Int(UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
        }
    }

    /// Listens on a Unix socket at `path`, which must not exist (remove a stale one first).
    public func listen(path: String) throws(SystemError) {
        guard path.utf8.count < 108 else { throw SystemError("\(path): a socket path is limited to 107 bytes; choose a shorter metrics.socket") }
        let listener = try Self.socket(AF_UNIX, for: path)
        var address = sockaddr_un(path: path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw SystemError.errno("bind the metrics socket", path) }
        try startListening(listener, path)
    }

    private static func socket(_ family: CInt, for name: String) throws(SystemError) -> OwnedDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        do { return OwnedDescriptor(try valueOrErrno { Glibc.socket(family, type, 0) }) } catch {
            throw SystemError.errno("create a socket for", name, error)
        }
    }

    private func startListening(_ listener: OwnedDescriptor, _ name: String) throws(SystemError) {
        let fd = listener.rawValue
        guard Glibc.listen(fd, 16) == 0 else { throw SystemError.errno("listen on", name) }
        try loop.watch(fd, for: .readable) { [unowned self] _ in accept(on: fd) }
        listeners.append(listener)
        logger.info("metrics on \(name)")
    }

    /// Stops listening and closes every connection.
    public func stop() {
        for listener in listeners {
            loop.unwatch(listener.rawValue)
            listener.close()
        }
        listeners.removeAll()
        for connection in Array(open.values) { finish(connection) }
    }

    /// Connections open now (being read, answered or drained).
    public var openConnections: Int { open.count }

    private func accept(on listener: CInt) {
        // A bounded batch: a flood of connections cannot hold the loop.
        for _ in 0..<16 {
            let accepted = vitrine_accept_nonblocking(listener)
            guard accepted >= 0 else { return }
            let socket = OwnedDescriptor(accepted)
            guard open.count < connections else {
                refused += 1
                let text = Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                _ = text.withUnsafeBytes { Glibc.send(accepted, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                continue
            }
            let connection = Connection(socket)
            do {
                try loop.watch(accepted, for: .readable) { [unowned self, unowned connection] events in serve(connection, events) }
            } catch {
                continue
            }
            open[accepted] = connection
            restartTimer(connection)
        }
    }

    private func serve(_ connection: Connection, _ events: EventLoop.Events) {
        switch connection.phase {
        case .reading: readHead(connection)
        case .answering: if events.contains(.closed) { finish(connection) }
        case .writing: write(connection)
        case .draining: drain(connection)
        }
    }

    private func readHead(_ connection: Connection) {
        let room = Self.requestBytes + 1 - connection.head.count
        let n = scratch.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, min(room, $0.count), Int32(MSG_DONTWAIT)) }
        if n < 0, Errno.last.meansTryAgain || Errno.last == .interrupted { return }
        guard n > 0 else { return finish(connection) }
        // (only the new bytes and the two before them can complete the blank line)
        let from = max(0, connection.head.count - 2)
        connection.head += scratch[0..<n]
        if let end = Self.endOfHead(connection.head, from: from) {
            respond(connection, to: connection.head[..<end])
        } else if connection.head.count > Self.requestBytes {
            refuse(connection, 431, "Request Header Fields Too Large", "a request's head is at most \(Self.requestBytes) bytes")
        }
    }

    /// The index where a request's head ends (its blank line), if it has, looking from
    /// `start` on.
    static func endOfHead(_ bytes: [UInt8], from start: Int = 0) -> Int? {
        var i = start
        while i + 1 < bytes.count {
            if bytes[i] == 10 {
                if bytes[i + 1] == 10 { return i }
                if bytes[i + 1] == 13, i + 2 < bytes.count, bytes[i + 2] == 10 { return i }
            }
            i += 1
        }
        return nil
    }

    /// What a request's head asks for: the answer, or a refusal's status and reason.
    enum Request: Equatable {
        case metrics(head: Bool)
        case refused(status: Int, reason: String, message: String)
    }

    /// Reads the request line of `head` (headers are not needed and not read).
    static func parse(_ head: some Collection<UInt8>) -> Request {
        let line = head.prefix { $0 != 10 && $0 != 13 }
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        let text = parts.map { String(decoding: $0, as: UTF8.self) }
        guard parts.count == 3, text[2] == "HTTP/1.1" || text[2] == "HTTP/1.0", !text[0].isEmpty, text[1].hasPrefix("/") || text[1] == "*",
            text[0].utf8.allSatisfy({ $0 >= 65 && $0 <= 90 })
        else {
            return .refused(status: 400, reason: "Bad Request", message: "not an HTTP/1.1 request line; ask GET /metrics HTTP/1.1")
        }
        guard text[0] == "GET" || text[0] == "HEAD" else {
            return .refused(status: 405, reason: "Method Not Allowed", message: "\(text[0]) is not served; the metrics answer GET and HEAD")
        }
        let path = text[1].prefix { $0 != "?" }
        guard path == "/metrics" else {
            return .refused(status: 404, reason: "Not Found", message: "nothing at \(String(path.prefix(64))); the metrics are at /metrics")
        }
        return .metrics(head: text[0] == "HEAD")
    }

    private func respond(_ connection: Connection, to head: ArraySlice<UInt8>) {
        switch Self.parse(head) {
        case .refused(let status, let reason, let message):
            refuse(connection, status, reason, message)
        case .metrics(let headOnly):
            connection.phase = .answering
            // (not read meanwhile: only a hang-up is heard)
            loop.change(connection.fd, to: [])
            body { [weak self, weak connection] bytes in
                guard let self, let connection, open[connection.fd] === connection, connection.phase == .answering else { return }
                guard let bytes else {
                    return refuse(connection, 503, "Service Unavailable", "the daemon is busy; scrape again")
                }
                answered += 1
                let header = "HTTP/1.1 200 OK\r\nContent-Type: \(Self.contentType)\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
                send(connection, Array(header.utf8) + (headOnly ? [] : bytes))
            }
        }
    }

    private func refuse(_ connection: Connection, _ status: Int, _ reason: String, _ message: String) {
        refused += 1
        let text = message + "\n"
        let allow = status == 405 ? "Allow: GET, HEAD\r\n" : ""
        send(
            connection,
            Array(
                "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(text.utf8.count)\r\n\(allow)Connection: close\r\n\r\n\(text)"
                    .utf8))
    }

    /// Writes `bytes` and then closes; the timer starts again for the client to read them.
    private func send(_ connection: Connection, _ bytes: [UInt8]) {
        connection.phase = .writing
        connection.output = bytes
        connection.written = 0
        connection.head = []
        restartTimer(connection)
        write(connection)
    }

    private func write(_ connection: Connection) {
        while connection.written < connection.output.count {
            let n = connection.output.withUnsafeBytes { raw in
                Glibc.send(
                    connection.fd, raw.baseAddress! + connection.written, raw.count - connection.written, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n < 0 {
                if Errno.last == .interrupted { continue }
                if Errno.last.meansTryAgain { return loop.change(connection.fd, to: .writable) }
                return finish(connection)
            }
            connection.written += n
        }
        connection.output = []
        connection.phase = .draining
        shutdown(connection.fd, Int32(SHUT_WR))
        loop.change(connection.fd, to: .readable)
    }

    /// Reads and drops what the client still sends (at most a few reads a wake) until it
    /// closes or the timer ends the connection.
    private func drain(_ connection: Connection) {
        for _ in 0..<4 {
            let n = scratch.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < 0, Errno.last.meansTryAgain || Errno.last == .interrupted { return }
            if n <= 0 { return finish(connection) }
        }
    }

    private func expire(_ connection: Connection) {
        guard open[connection.fd] === connection else { return }
        if connection.phase == .reading {
            // Best effort: a client too slow to send its request may still read why.
            let text = Array("HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            _ = text.withUnsafeBytes { Glibc.send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            refused += 1
        }
        finish(connection)
    }

    private func restartTimer(_ connection: Connection) {
        loop.cancel(connection.timer)
        connection.timer = loop.schedule(after: timeout) { [weak self, weak connection] in
            guard let self, let connection else { return }
            expire(connection)
        }
    }

    private func finish(_ connection: Connection) {
        guard open[connection.fd] === connection else { return }
        open[connection.fd] = nil
        loop.cancel(connection.timer)
        loop.unwatch(connection.fd)
        connection.socket.close()
    }
}

extension MetricsServer {
    /// The Unix socket the daemon serves its metrics on, and `vitrine-fleet` reads them
    /// from: `configured` (`[metrics] socket`), or `metrics.sock` in the directory of the
    /// control socket `controlSocket` (`/run/vitrine/metrics.sock` under systemd) when it
    /// is empty.
    public static func daemonSocketPath(configured: String, controlSocket: String) -> String {
        guard configured.isEmpty else { return configured }
        let directory = controlSocket.lastIndex(of: "/").map { String(controlSocket[..<$0]) } ?? "."
        return directory + "/metrics.sock"
    }
}
