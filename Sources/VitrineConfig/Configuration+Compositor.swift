extension Configuration {
    /// `[compositor]`: the Wayland server that shows other programs' windows as `surface`
    /// layers (docs/COMPOSITOR.md). Read at start.
    public struct Compositor: Sendable, Hashable {
        /// `enabled`: serve Wayland clients. Default false.
        public var enabled = false
        /// `socket`: the socket's name, made in the directory of `socket.path` (the
        /// service's runtime directory); clients find it with `WAYLAND_DISPLAY` set to the
        /// whole path. Default "wayland-0".
        public var socket = "wayland-0"
        /// `[[compositor.rules]]`: which layer shows a toplevel, by its app id and title.
        /// Changed on reload.
        public var rules: [Rule] = []
        /// `ping_timeout`: seconds a client showing a window may leave `xdg_wm_base.ping`
        /// unanswered before it is reported unresponsive; 0 sends no pings. 0 or 0.5…600;
        /// default 5. Changed on reload.
        public var pingTimeout = 5.0
        /// `max_objects_per_client`: Wayland objects (surfaces, buffers, regions, callbacks…)
        /// a client may hold at once; past it the client is disconnected with a log line.
        /// 100…1,000,000; default 10,000. Read at start.
        public var maxObjectsPerClient = 10_000
        /// `max_shm_pools_per_client`: `wl_shm_pool`s a client may hold at once (each one is
        /// mapped in the daemon); past it the client is disconnected with a log line.
        /// 4…10,000; default 256. Read at start.
        public var maxShmPoolsPerClient = 256

        /// Every key at its default.
        public init() {}

        /// One `[[compositor.rules]]` table: a toplevel whose app id and title match (an
        /// empty field matches any) is shown by the `surface` layer `layer`. The first
        /// rule that matches wins.
        public struct Rule: Sendable, Hashable {
            /// `app_id`: the toplevel's app id exactly; "" for any.
            public var appID: String
            /// `title`: the toplevel's title exactly; "" for any.
            public var title: String
            /// `layer`: the id of the `surface` layer that shows it.
            public var layer: String

            public init(appID: String = "", title: String = "", layer: String) {
                self.appID = appID
                self.title = title
                self.layer = layer
            }

            /// Whether a toplevel with `appID` and `title` matches.
            public func matches(appID: String, title: String) -> Bool {
                (self.appID.isEmpty || self.appID == appID) && (self.title.isEmpty || self.title == title)
            }
        }
    }
}

extension Configuration.Compositor {
    static let keys = ["enabled", "socket", "rules", "ping_timeout", "max_objects_per_client", "max_shm_pools_per_client"]

    /// The timeouts `ping_timeout` takes besides 0.
    public static let pingTimeoutRange = 0.5...600.0

    /// Whether `name` may name a socket file: letters, digits, `-`, `_`, `.`, not starting
    /// with a dot, at most 64 bytes.
    static func isSocketName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0))
            }
    }

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        enabled = try r.boolean("enabled", enabled)
        socket = try r.string("socket", socket, expected: "a file name of letters, digits, '-', '_' and '.' such as \"wayland-0\"", where: Self.isSocketName)
        pingTimeout = try r.number("ping_timeout", pingTimeout, expected: "seconds, 0.5…600, or 0 to send no pings") {
            $0 == 0 || Self.pingTimeoutRange.contains($0)
        }
        maxObjectsPerClient = try r.integer(
            "max_objects_per_client", maxObjectsPerClient, in: 100...1_000_000, expected: "a number of objects, 100…1000000, such as 10000")
        maxShmPoolsPerClient = try r.integer(
            "max_shm_pools_per_client", maxShmPoolsPerClient, in: 4...10_000, expected: "a number of pools, 4…10000, such as 256")
        guard let node = r.entries["rules"] else { return }
        guard let items = node.array, items.allSatisfy({ $0.table != nil }) else {
            throw r.error("rules", "must be [[compositor.rules]] tables, each with a layer and an app_id or a title, got \(node.written)")
        }
        for (i, item) in items.enumerated() {
            let rule = TableReader(path: r.key("rules[\(i)]"), entries: item.table ?? [:], context: r.context)
            try rule.refuseUnknownKeys(["app_id", "title", "layer"])
            let layer = try rule.string("layer", "", expected: "a layer id") { !$0.isEmpty && $0.utf8.count <= 256 }
            guard !layer.isEmpty else {
                throw r.context.error(rule.path, "a [[compositor.rules]] table needs the layer that shows the surface, such as layer = \"browser\"")
            }
            let appID = try rule.string("app_id", "")
            let title = try rule.string("title", "")
            guard !appID.isEmpty || !title.isEmpty else {
                throw r.context.error(rule.path, "a [[compositor.rules]] table needs an app_id or a title to match, such as app_id = \"org.example.App\"")
            }
            rules.append(Rule(appID: appID, title: title, layer: layer))
        }
    }
}
