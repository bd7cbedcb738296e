import Glibc
import VitrineSystem

/// What a device says of itself on its identification screen: its host name, its IP
/// addresses and its machine id.
///
/// `read()` reads files and asks the kernel for the addresses: call it off the loop.
public struct DeviceFacts: Sendable, Equatable {
    /// The host name (`gethostname`); "" when none is set (the kernel's "(none)").
    public var hostName: String
    /// The addresses of the interfaces that are up, loopback and IPv6 link-local ones
    /// left out, each with its interface: "192.168.1.20 (eth0)". IPv4 first.
    public var addresses: [String]
    /// `/etc/machine-id`'s 32 hex digits; nil when there is none.
    public var machineID: String?

    public init(hostName: String, addresses: [String], machineID: String?) {
        (self.hostName, self.addresses, self.machineID) = (hostName, addresses, machineID)
    }

    /// The facts now.
    public static func read() -> DeviceFacts {
        DeviceFacts(hostName: hostName(), addresses: addresses(), machineID: machineID())
    }

    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "" }
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host == "(none)" ? "" : host
    }

    static func machineID(path: String = "/etc/machine-id") -> String? {
        guard let bytes = try? SafeFile.read(path, limit: 4096).bytes else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
        guard text.utf8.count == 32, text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return text
    }

    static func addresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var v4: [String] = [], v6: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            let interface = String(cString: entry.pointee.ifa_name)
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                var bits = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                guard inet_ntop(AF_INET, &bits, &text, socklen_t(text.count)) != nil else { continue }
                v4.append("\(String(cString: text)) (\(interface))")
            case AF_INET6:
                var bits = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                let linkLocal = withUnsafeBytes(of: &bits) { $0[0] == 0xfe && $0[1] & 0xc0 == 0x80 }
                guard !linkLocal, inet_ntop(AF_INET6, &bits, &text, socklen_t(text.count)) != nil else { continue }
                v6.append("\(String(cString: text)) (\(interface))")
            default:
                continue
            }
        }
        return v4 + v6
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks.
    var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
