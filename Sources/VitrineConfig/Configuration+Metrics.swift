import Glibc

extension Configuration {
    /// `[metrics]`: the daemon's figures (frames, memory, content errors, the broker) in the
    /// Prometheus text format, answered to `GET /metrics` on a local TCP port and/or a Unix
    /// socket (docs/FLEET.md, "Health"). Every key takes effect when the daemon starts.
    public struct Metrics: Sendable, Hashable {
        /// `enabled`: serve the metrics. Default false.
        public var enabled = false
        /// `address`: the IPv4 or IPv6 address the TCP port is bound to. Default
        /// "127.0.0.1", this machine only.
        public var address = "127.0.0.1"
        /// `port`: the TCP port, 1…65535, or 0 for none (the Unix socket alone). Default 9464.
        public var port = 9464
        /// `socket`: an absolute path for a Unix socket served as well; "" for none.
        public var socket = ""
        /// `connections`: scrapers served at once, 1…64; more are closed at once. Default 4.
        public var connections = 4

        /// Every key at its default.
        public init() {}
    }
}

extension Configuration.Metrics {
    static let keys = ["enabled", "address", "port", "socket", "connections"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        enabled = try r.boolean("enabled", enabled)
        address = try r.string("address", address, expected: "an IPv4 or IPv6 address such as \"127.0.0.1\", \"0.0.0.0\" or \"::1\"") {
            SocketAddressText.isAddress($0)
        }
        port = try r.integer("port", port, in: 0...65535, expected: "a port in 1…65535, or 0 for no TCP port")
        socket = try r.absolutePath("socket", socket, allowEmpty: true)
        if socket.utf8.count > 107 { throw r.error("socket", "a Unix socket's path is at most 107 bytes; choose a shorter one") }
        connections = try r.integer("connections", connections, in: 1...64)
        if enabled, port == 0, socket.isEmpty {
            throw r.error("port", "with port = 0 the metrics need a socket: set socket to a path, or a port")
        }
    }
}

/// Whether a string is a numeric IP address (no host names: a bind address is never looked up).
enum SocketAddressText {
    static func isAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
