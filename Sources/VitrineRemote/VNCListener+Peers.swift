import Glibc

/// Where a viewer connects from. Neat VNC 0.5 keeps its connections' descriptors to
/// itself, so the listener finds the one a new viewer came on among the process's
/// descriptors: a connected socket on the listener's own address that no session has.
extension VNCListener {
    /// The descriptor of the connection to `address` (where Neat VNC listens) that just
    /// finished its handshake; nil when none, or more than one, fits.
    func newestDescriptor(known: Set<CInt>, on address: RemoteSettings.Address) -> CInt? {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let last = CInt(min(limit.rlim_cur, 4096))
        var found: [CInt] = []
        for fd in 3..<max(3, last) where !known.contains(fd) && Self.isConnection(fd, to: address) {
            found.append(fd)
            if found.count > 1 { return nil }
        }
        return found.first
    }

    private static func isConnection(_ fd: CInt, to address: RemoteSettings.Address) -> Bool {
        var local = sockaddr_storage(), peer = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size), peerLength = localLength
        let named = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &localLength) } }
        guard named == 0 else { return false }
        let connected = withUnsafeMutablePointer(to: &peer) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &peerLength) } }
        guard connected == 0 else { return false }
        switch address {
        case .unix(let path):
            guard local.ss_family == sa_family_t(AF_UNIX) else { return false }
            let name = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr_un.self, capacity: 1) { un in
                    withUnsafeBytes(of: un.pointee.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                }
            }
            return name == path
        case .tcp(_, let port):
            return Self.port(of: local) == port
        }
    }

    /// "192.0.2.7:40122", "[2001:db8::7]:40122", or "unix" for a Unix socket's viewer.
    static func peer(_ fd: CInt) -> String {
        var peer = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &peer) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) } }
        guard let (host, port) = internet(peer) else { return "unix" }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func port(of address: sockaddr_storage) -> Int? { internet(address)?.port }

    /// The numeric host and the port of an IPv4 or IPv6 address; nil for another family.
    private static func internet(_ address: sockaddr_storage) -> (host: String, port: Int)? {
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(address.ss_family)
        let port: UInt16
        switch family {
        case AF_INET:
            port = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var host = v4.pointee.sin_addr
                    inet_ntop(AF_INET, &host, &text, socklen_t(text.count))
                    return v4.pointee.sin_port
                }
            }
        case AF_INET6:
            port = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var host = v6.pointee.sin6_addr
                    inet_ntop(AF_INET6, &host, &text, socklen_t(text.count))
                    return v6.pointee.sin6_port
                }
            }
        default:
            return nil
        }
        return (String(cString: text), Int(UInt16(bigEndian: port)))
    }
}
