import Glibc

extension Configuration {
    /// `[fleet]`: the MQTT bridge that lets a broker drive this screen with the socket's
    /// requests (docs/FLEET.md). Every key takes effect when the daemon starts.
    public struct Fleet: Sendable, Hashable {
        /// `enabled`: connect to the broker. Default false.
        public var enabled = false
        /// `host`: the broker's address or name. Default "127.0.0.1".
        public var host = "127.0.0.1"
        /// `port`: the broker's port, 1…65535. Default 1883 (use 8883 with TLS).
        public var port = 1883
        /// `device`: this screen's name in topics (`vitrine/<device>/…`); "" is the host
        /// name. Letters, digits, `-`, `_` and `.`.
        public var device = ""
        /// `groups`: the groups whose commands this screen takes (`vitrine/<group>/cmd`).
        /// Default none.
        public var groups: [String] = []
        /// `client_id`: the MQTT client id; "" is "vitrine-<device>".
        public var clientID = ""
        /// `username`: "" connects without credentials.
        public var username = ""
        /// `password`: the password for `username`; prefer `password_file`.
        public var password = ""
        /// `password_file`: an absolute path whose first line is the password; "" for none.
        /// Set, `password` must be empty: one of the two gives the password.
        public var passwordFile = ""
        /// `ca_file`: the CA certificates (PEM) that verify the broker; set, the connection
        /// uses TLS. "" for plain TCP.
        public var caFile = ""
        /// `cert_file`, `key_file`: this screen's client certificate and key (PEM) for brokers
        /// that ask for one; both or neither, and only with `ca_file`.
        public var certFile = ""
        public var keyFile = ""
        /// `keepalive`: seconds between pings when nothing else is said, 5…3600. Default 30.
        public var keepalive = 30
        /// `reconnect_max_seconds`: the longest wait between reconnection attempts, which
        /// start at 1 s and double, 1…3600. Default 60.
        public var reconnectMaxSeconds = 60
        /// `thumbnail_every`: seconds between the thumbnails of each output published
        /// (retained) on `vitrine/<device>/thumbnail/<output>`, 0 or 1…86400. Default 0: none.
        public var thumbnailEvery = 0
        /// `thumbnail_width`, `thumbnail_height`: the box thumbnails and `screenshot` replies
        /// are fitted into (keeping the aspect), 16…4096. Default 320×180.
        public var thumbnailWidth = 320
        public var thumbnailHeight = 180
        /// `thumbnail_format`: "jpeg" or "png". Default "jpeg".
        public var thumbnailFormat = "jpeg"
        /// `thumbnail_max_bytes`: the most bytes a thumbnail or an MQTT screenshot may have,
        /// 1024…16777216. Default 65536.
        public var thumbnailMaxBytes = 65536
        /// `screenshot_interval`: the least seconds between two `screenshot` requests taken
        /// from the broker (a sooner one is refused), 0…3600. Default 1.
        public var screenshotInterval = 1.0

        /// Every key at its default.
        public init() {}

        /// `device`, or the host name when it is empty.
        public var deviceName: String {
            guard device.isEmpty else { return device }
            var name = [CChar](repeating: 0, count: 256)
            gethostname(&name, name.count - 1)
            let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return host.isEmpty ? "vitrine" : host
        }
    }
}

extension Configuration.Fleet {
    static let keys = [
        "enabled", "host", "port", "device", "groups", "client_id", "username", "password", "password_file",
        "ca_file", "cert_file", "key_file", "keepalive", "reconnect_max_seconds", "thumbnail_every", "thumbnail_width", "thumbnail_height",
        "thumbnail_format", "thumbnail_max_bytes", "screenshot_interval",
    ]

    /// Whether `name` may be one level of a topic: no wildcards, no separators.
    static func isTopicName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0))
            }
    }

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        enabled = try r.boolean("enabled", enabled)
        host = try r.string("host", host, expected: "the broker's address or host name, such as \"10.0.0.5\" or \"broker.example\"") {
            !$0.isEmpty && $0.utf8.count <= 253 && !$0.contains(" ")
        }
        port = try r.integer("port", port, in: 1...65535)
        let names = "letters, digits, '-', '_' and '.' (at most 64), such as \"lobby-1\""
        device = try r.string("device", device, expected: names + ", or \"\" for the host name") { $0.isEmpty || Self.isTopicName($0) }
        groups = try r.value("groups", groups, expected: "an array of group names of " + names) { node in
            guard let items = node.array else { return nil }
            let names = items.compactMap(\.string).filter(Self.isTopicName)
            return names.count == items.count && names.count <= 64 ? names : nil
        }
        clientID = try r.string("client_id", clientID, expected: "at most 23 letters and digits for any broker (longer where the broker allows)") {
            $0.utf8.count <= 256 && !$0.contains(" ")
        }
        username = try r.string("username", username)
        password = try r.string("password", password)
        passwordFile = try r.absolutePath("password_file", passwordFile, allowEmpty: true)
        if !password.isEmpty, !passwordFile.isEmpty {
            throw r.error(
                "password_file",
                "password and password_file both give the password: keep one (password_file, readable only by the service, keeps it out of this file)")
        }
        caFile = try r.absolutePath("ca_file", caFile, allowEmpty: true)
        certFile = try r.absolutePath("cert_file", certFile, allowEmpty: true)
        keyFile = try r.absolutePath("key_file", keyFile, allowEmpty: true)
        if certFile.isEmpty != keyFile.isEmpty {
            throw r.error(certFile.isEmpty ? "key_file" : "cert_file", "cert_file and key_file go together: set both for a client certificate, or neither")
        }
        if !certFile.isEmpty, caFile.isEmpty {
            throw r.error("cert_file", "a client certificate needs TLS: set ca_file to the CA that signed the broker's certificate")
        }
        keepalive = try r.integer("keepalive", keepalive, in: 5...3600)
        reconnectMaxSeconds = try r.integer("reconnect_max_seconds", reconnectMaxSeconds, in: 1...3600)
        thumbnailEvery = try r.integer("thumbnail_every", thumbnailEvery, in: 0...86400)
        thumbnailWidth = try r.integer("thumbnail_width", thumbnailWidth, in: 16...4096)
        thumbnailHeight = try r.integer("thumbnail_height", thumbnailHeight, in: 16...4096)
        thumbnailFormat = try r.string("thumbnail_format", thumbnailFormat, expected: "\"jpeg\" or \"png\"") { $0 == "jpeg" || $0 == "png" }
        thumbnailMaxBytes = try r.integer("thumbnail_max_bytes", thumbnailMaxBytes, in: 1024...16_777_216)
        screenshotInterval = try r.number("screenshot_interval", screenshotInterval, expected: "seconds within 0…3600") { (0...3600).contains($0) }
    }
}
