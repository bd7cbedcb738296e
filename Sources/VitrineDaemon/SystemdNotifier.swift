import FoundationEssentials
import CLinuxEvents
import Glibc
import VitrineSystem

/// Tells systemd about the service's state (`sd_notify`'s protocol: datagrams to
/// `$NOTIFY_SOCKET`) when systemd started it as `Type=notify`; does nothing otherwise.
///
/// ```swift
/// let systemd = SystemdNotifier()
/// systemd.notify("READY=1\nSTATUS=serving /run/vitrine/vitrine.sock")
/// if let interval = systemd.watchdogInterval { … send "WATCHDOG=1" every interval / 2 … }
/// ```
final class SystemdNotifier {
    private let address: sockaddr_un?
    private let length: socklen_t
    private let socket: OwnedDescriptor?
    /// Seconds within which systemd expects `WATCHDOG=1` (`WatchdogSec=`), when it does.
    let watchdogInterval: Double?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let path = environment["NOTIFY_SOCKET"] ?? ""
        let bytes = Array(path.utf8)
        let pidMatches = environment["WATCHDOG_PID"].flatMap(Int32.init).map { $0 == getpid() } ?? true
        watchdogInterval = pidMatches ? environment["WATCHDOG_USEC"].flatMap(Double.init).map { $0 / 1e6 } : nil
        guard (path.hasPrefix("/") || path.hasPrefix("@")), bytes.count < 108 else {
            address = nil
            length = 0
            socket = nil
            return
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            if path.hasPrefix("@") { raw[0] = 0 }
        }
        self.address = address
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        socket = try? OwnedDescriptor(valueOrErrno { Glibc.socket(AF_UNIX, type, 0) })
    }

    /// Sends `state` ("READY=1", "WATCHDOG=1", "STATUS=…", newline-separated); never blocks.
    func notify(_ state: String) {
        guard let fd = socket?.rawValue, var address else { return }
        let length = self.length
        _ = state.withCString { message in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, message, strlen(message), Int32(MSG_NOSIGNAL), $0, length) }
            }
        }
    }
}
