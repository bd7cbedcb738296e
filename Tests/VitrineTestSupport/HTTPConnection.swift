import Foundation

/// A blocking HTTP/1.1 client connection for the tests: writes a request, reads the answer
/// until the server closes.
public final class HTTPConnection {
    private let fd: Int32

    public struct Answer {
        public let status: Int
        /// Header names in lower case.
        public let headers: [String: String]
        public let body: String
    }

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw TestError("cannot connect to 127.0.0.1:\(port)")
        }
    }

    public init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard connectUnixSocket(fd, path) == 0 else {
            close(fd)
            throw TestError("cannot connect to \(path)")
        }
    }

    deinit { close(fd) }

    public func write(_ text: String) { write(Array(text.utf8)) }

    public func write(_ bytes: [UInt8]) { sendAll(fd, bytes) }

    /// Everything the server sends until it closes, read as an answer; nil after `timeout`
    /// seconds or for bytes that are not one.
    public func answer(timeout: Double = 10) -> Answer? {
        let deadline = Date().addingTimeInterval(timeout)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(remaining * 1000)) > 0 else { return nil }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            bytes += chunk[..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: headers, body: String(text[split.upperBound...]))
    }

    /// A listening socket on 127.0.0.1 and a port the kernel picked.
    public static func listener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else {
            close(fd)
            throw TestError("cannot listen on 127.0.0.1")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A port free on 127.0.0.1 now (one the kernel picked, released again).
    public static func freePort() throws -> Int {
        let (fd, port) = try listener()
        close(fd)
        return port
    }
}
