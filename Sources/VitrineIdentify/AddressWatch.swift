import Glibc
import VitrineSystem

/// Says when the machine's network addresses or links change: a route netlink socket
/// (RTMGRP_LINK and the IPv4 and IPv6 address groups) on the event loop. The messages
/// themselves are not parsed — a change is a reason to read the addresses again — and a
/// burst of them (DHCP sets an address, a route and a link state at once) is one call of
/// `changed`, `settle` seconds after its last message.
///
/// Nothing is watched until `start`; `stop` (or release) closes the socket.
public final class AddressWatch {
    private let loop: EventLoop
    private let settle: Double
    private let changed: () -> Void
    private var socket: OwnedDescriptor?
    private var pending: UInt64?

    /// RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR (linux/rtnetlink.h).
    private static let groups: UInt32 = 0x1 | 0x10 | 0x100
    /// NETLINK_ROUTE (linux/netlink.h).
    private static let routeProtocol: Int32 = 0

    /// sockaddr_nl (linux/netlink.h), which Glibc's module leaves out.
    private struct NetlinkAddress {
        var family = sa_family_t(AF_NETLINK)
        var pad: UInt16 = 0
        var pid: UInt32 = 0
        var groups: UInt32
    }

    /// A watch that calls `changed` on `loop` once the addresses stopped changing for
    /// `settle` seconds.
    public init(loop: EventLoop, settle: Double = 0.5, changed: @escaping () -> Void) {
        self.loop = loop
        self.settle = settle
        self.changed = changed
    }

    deinit { stop() }

    /// Opens the socket and watches it.
    ///
    /// - Throws: `SystemError` when the socket cannot be opened or bound (a sandbox that
    ///   refuses AF_NETLINK).
    public func start() throws(SystemError) {
        guard socket == nil else { return }
        let fd = Glibc.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Self.routeProtocol)
        guard fd >= 0 else { throw SystemError("cannot open a route netlink socket: \(String(cString: strerror(errno)))") }
        let owned = OwnedDescriptor(fd)
        var address = NetlinkAddress(groups: Self.groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<NetlinkAddress>.size)) }
        }
        guard bound == 0 else { throw SystemError("cannot listen to address changes: \(String(cString: strerror(errno)))") }
        try loop.watch(fd, for: .readable) { [unowned self] _ in drain() }
        socket = owned
    }

    /// Stops watching and closes the socket.
    public func stop() {
        if let pending { loop.cancel(pending) }
        pending = nil
        guard let socket else { return }
        loop.unwatch(socket.rawValue)
        socket.close()
        self.socket = nil
    }

    private func drain() {
        guard let socket else { return }
        var buffer = [UInt8](repeating: 0, count: 8192)
        while recv(socket.rawValue, &buffer, buffer.count, 0) > 0 {}
        if let pending { loop.cancel(pending) }
        pending = loop.schedule(after: settle) { [unowned self] in
            pending = nil
            changed()
        }
    }
}
