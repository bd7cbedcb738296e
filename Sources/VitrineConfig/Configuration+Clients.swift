import VitrineProtocol

extension Configuration {
    /// One `[[clients]]` table: a program the daemon starts when it starts (a browser on a
    /// URL, a player on a file), with `WAYLAND_DISPLAY` set when the compositor is
    /// enabled, and restarts when it exits, as `restart` says (docs/COMPOSITOR.md).
    ///
    /// ```toml
    /// [[clients]]
    /// name = "browser"
    /// command = ["chromium", "--ozone-platform=wayland", "--kiosk", "http://localhost:8080"]
    /// env = { LANG = "de_DE.UTF-8" }
    /// restart = "always"
    /// ```
    public struct ClientEntry: Sendable, Hashable {
        /// `name`: how commands and events name it; letters, digits, `-`, `_`, `.`, at
        /// most 64. Required, unique.
        public var name: String
        /// `command` (the program and its arguments, `["program", "arg", …]`, a program
        /// without a "/" looked up in PATH; required), `env` (variables added to the
        /// daemon's environment), `directory` (the absolute working directory; "" for the
        /// daemon's), `restart` ("never", "on-failure" or "always"; default "on-failure"),
        /// `restart_max_seconds` (the longest wait before a restart, which starts at 1 s
        /// and doubles, 1…3600; default 30), `restarts_per_minute` (restarts allowed within
        /// a minute before the daemon gives up, 1…1000; default 5), `stop_seconds` (the
        /// wait after SIGTERM before SIGKILL, 0.1…300; default 5) and
        /// `restart_unresponsive_after` (seconds its window may stay unresponsive to pings
        /// before its process group is killed and started again, 1…3600; 0, the default,
        /// never).
        public var program: ClientProgram
        /// `start`: started when the daemon starts; false waits for `client.start`.
        /// Default true.
        public var start = true

        public init(name: String, command: [String]) {
            self.name = name
            program = ClientProgram(command: command)
        }
    }

    /// `[launcher]`: what scripts may start besides the `[[clients]]` tables.
    public struct Launcher: Sendable, Hashable {
        /// `allow_commands`: `client.start` may run a command given in the request, not only
        /// a `[[clients]]` entry. Whoever may write to the socket (and the fleet broker) can
        /// then run programs as the daemon's user. Default false.
        public var allowCommands = false

        /// Every key at its default.
        public init() {}
    }
}

extension Configuration.Launcher {
    static let keys = ["allow_commands"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        allowCommands = try r.boolean("allow_commands", allowCommands)
    }
}

extension Configuration.ClientEntry {
    static let keys = [
        "name", "command", "env", "directory", "restart", "restart_max_seconds", "restarts_per_minute", "stop_seconds", "start", "restart_unresponsive_after",
    ]

    /// Reads every `[[clients]]` table; names must be unique.
    static func readAll(_ top: TableReader) throws(ConfigError) -> [Configuration.ClientEntry] {
        guard let node = top.entries["clients"] else { return [] }
        guard let items = node.array, items.allSatisfy({ $0.table != nil }) else {
            throw top.error("clients", "must be [[clients]] tables, each with a name and a command, got \(node.written)")
        }
        var entries: [Configuration.ClientEntry] = []
        for (i, item) in items.enumerated() {
            let reader = TableReader(path: "clients[\(i)]", entries: item.table ?? [:], context: top.context)
            let entry = try Configuration.ClientEntry(reading: reader)
            if entries.contains(where: { $0.name == entry.name }) {
                throw reader.error("name", "\"\(entry.name)\" is the name of an earlier [[clients]] table; give each client its own name")
            }
            entries.append(entry)
        }
        return entries
    }

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        guard r.entries["name"] != nil, r.entries["command"] != nil else {
            throw r.context.error(
                r.path, "a [[clients]] table needs a name and a command, such as name = \"browser\" and command = [\"chromium\", \"--kiosk\"]")
        }
        let name = try r.string("name", "", expected: "letters, digits, '-', '_' and '.' (at most 64), such as \"browser\"", where: ClientProgram.isName)
        let command = try r.value(
            "command", [String](),
            expected: "the program and its arguments as an array of strings, such as [\"mpv\", \"/srv/video.mp4\"], the program not empty"
        ) { node -> [String]? in
            let strings = node.array?.compactMap(\.string) ?? []
            return strings.count == node.array?.count && ClientProgram.isCommand(strings) ? strings : nil
        }
        self.init(name: name, command: command)
        program.environment = try r.value("env", [:], expected: "a table of variable names and string values, such as { LANG = \"C.UTF-8\" }") { node in
            guard let table = node.table else { return nil }
            var variables: [String: String] = [:]
            for (key, value) in table {
                guard ClientProgram.isVariableName(key), let text = value.string, ClientProgram.isArgument(text) else { return nil }
                variables[key] = text
            }
            return variables
        }
        program.directory = try r.absolutePath("directory", "", allowEmpty: true)
        program.restart = try r.choice("restart", program.restart)
        program.restartMaxSeconds = try r.integer("restart_max_seconds", program.restartMaxSeconds, in: ClientProgram.restartMaxRange)
        program.restartsPerMinute = try r.integer("restarts_per_minute", program.restartsPerMinute, in: ClientProgram.restartsPerMinuteRange)
        program.stopSeconds = try r.number("stop_seconds", program.stopSeconds, expected: "seconds, 0.1…300") { ClientProgram.stopRange.contains($0) }
        program.restartUnresponsiveAfter = try r.integer(
            "restart_unresponsive_after", program.restartUnresponsiveAfter, in: 0...ClientProgram.restartUnresponsiveRange.upperBound,
            expected: "seconds, 1…3600, or 0 to leave an unresponsive client running")
        start = try r.boolean("start", start)
    }
}
