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
        /// `xwayland`: whether X11 programs are served, through an Xwayland the daemon starts.
        /// Default `.off`. Read at start.
        public var xwayland = XWaylandMode.off
        /// `input_method_clients`: which clients may be an input method, a virtual keyboard
        /// or a layer surface (`zwp_input_method_manager_v2`, `zwp_virtual_keyboard_manager_v1`,
        /// `zwlr_layer_shell_v1`): those the daemon started (`[[clients]]`, `client.start`),
        /// all, or none. Default `.launched`. Changed on reload (for clients that connect
        /// afterwards).
        public var inputMethodClients = InputMethodClients.launched
        /// `screencopy_clients`: which clients may capture the screen
        /// (`zwlr_screencopy_manager_v1`: grim, wayvnc): those the daemon started, all, or
        /// none. Default `.none`. Changed on reload (for clients that connect afterwards).
        public var screencopyClients = InputMethodClients.none

        /// Who may bind the input method, virtual keyboard, virtual pointer and layer shell
        /// globals (`input_method_clients`), or the screen capture one (`screencopy_clients`).
        public enum InputMethodClients: String, Sendable, Hashable, CaseIterable {
            /// The programs the daemon started, and what they started (by process group).
            case launched
            /// Every client that can connect to the socket.
            case all
            /// No client.
            case none
        }

        /// When Xwayland runs.
        public enum XWaylandMode: String, Sendable, Hashable, CaseIterable {
            /// The X11 display's sockets are opened at start; Xwayland starts when the first
            /// X11 program connects (and again after it exits, on the next connection).
            case onDemand = "on-demand"
            /// Xwayland starts with the compositor (and again after it exits, on the next
            /// connection).
            case always
            /// No X11 display.
            case off
        }

        /// Every key at its default.
        public init() {}

        /// One `[[compositor.rules]]` table: a window whose app id, title and (X11) instance
        /// match (an empty field matches any) is shown by the `surface` layer `layer`. The
        /// first rule that matches wins.
        public struct Rule: Sendable, Hashable {
            /// `app_id`: the window's app id exactly (an X11 window's is its `WM_CLASS`
            /// class); "" for any.
            public var appID: String
            /// `title`: the window's title exactly; "" for any.
            public var title: String
            /// `instance`: an X11 window's `WM_CLASS` instance exactly (a Wayland window has
            /// none, and never matches a rule that gives one); "" for any.
            public var instance: String
            /// `layer`: the id of the `surface` layer that shows it.
            public var layer: String

            public init(appID: String = "", title: String = "", instance: String = "", layer: String) {
                self.appID = appID
                self.title = title
                self.instance = instance
                self.layer = layer
            }

            /// Whether a window with `appID`, `title` and `instance` (nil: a Wayland window's)
            /// matches.
            public func matches(appID: String, title: String, instance: String? = nil) -> Bool {
                (self.appID.isEmpty || self.appID == appID) && (self.title.isEmpty || self.title == title)
                    && (self.instance.isEmpty || self.instance == instance)
            }
        }
    }
}

extension Configuration.Compositor {
    static let keys = [
        "enabled", "socket", "rules", "ping_timeout", "max_objects_per_client", "max_shm_pools_per_client", "xwayland", "input_method_clients",
        "screencopy_clients",
    ]

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
        xwayland = try r.choice("xwayland", xwayland)
        inputMethodClients = try r.choice("input_method_clients", inputMethodClients)
        screencopyClients = try r.choice("screencopy_clients", screencopyClients)
        guard let node = r.entries["rules"] else { return }
        guard let items = node.array, items.allSatisfy({ $0.table != nil }) else {
            throw r.error("rules", "must be [[compositor.rules]] tables, each with a layer and an app_id, a title or an instance, got \(node.written)")
        }
        for (i, item) in items.enumerated() {
            let rule = TableReader(path: r.key("rules[\(i)]"), entries: item.table ?? [:], context: r.context)
            try rule.refuseUnknownKeys(["app_id", "title", "instance", "layer"])
            let layer = try rule.string("layer", "", expected: "a layer id") { !$0.isEmpty && $0.utf8.count <= 256 }
            guard !layer.isEmpty else {
                throw r.context.error(rule.path, "a [[compositor.rules]] table needs the layer that shows the surface, such as layer = \"browser\"")
            }
            let appID = try rule.string("app_id", "")
            let title = try rule.string("title", "")
            let instance = try rule.string("instance", "")
            guard !appID.isEmpty || !title.isEmpty || !instance.isEmpty else {
                throw r.context.error(
                    rule.path, "a [[compositor.rules]] table needs an app_id, a title or an instance to match, such as app_id = \"org.example.App\"")
            }
            rules.append(Rule(appID: appID, title: title, instance: instance, layer: layer))
        }
    }
}
