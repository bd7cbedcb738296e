import CSystemdID
import Glibc
import VitrineSystem

/// What a device says of itself on its identification screen: its host name, its IP
/// addresses and its id.
///
/// `read()` reads files and asks the kernel for the addresses: call it off the loop.
public struct DeviceFacts: Sendable, Equatable {
    /// The host name (`gethostname`); "" when none is set (the kernel's "(none)").
    public var hostName: String
    /// The addresses of the interfaces that are up, loopback and IPv6 link-local ones
    /// left out, each with its interface: "192.168.1.20 (eth0)". IPv4 first.
    public var addresses: [String]
    /// The machine's id as Vitrine shows it: 32 hex digits derived from `/etc/machine-id`
    /// for this application (`sd_id128_get_machine_app_specific`), so that the machine id
    /// itself, which systemd asks to keep confidential, is never shown; nil when there is
    /// none or libsystemd cannot be opened.
    public var deviceID: String?

    public init(hostName: String, addresses: [String], deviceID: String?) {
        (self.hostName, self.addresses, self.deviceID) = (hostName, addresses, deviceID)
    }

    /// The facts now.
    public static func read() -> DeviceFacts {
        DeviceFacts(hostName: hostName(), addresses: addresses(), deviceID: deviceID())
    }

    /// The application id the machine id is keyed with (`systemd-id128 machine-id
    /// --app-specific=9fbbcedf7a844a418b81619349459624` prints the same id).
    static let application: [UInt8] = [
        0x9f, 0xbb, 0xce, 0xdf, 0x7a, 0x84, 0x4a, 0x41, 0x8b, 0x81, 0x61, 0x93, 0x49, 0x45, 0x96, 0x24,
    ]

    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "" }
        let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return host == "(none)" ? "" : host
    }

    static func deviceID() -> String? {
        guard vitrine_systemd_id_load() == nil else { return nil }
        var app = sd_id128_t()
        withUnsafeMutableBytes(of: &app) { $0.copyBytes(from: application) }
        var id = sd_id128_t()
        guard sd_id128_get_machine_app_specific(app, &id) == 0 else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: &id) { bytes in
            String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
        }
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
