extension Configuration {
    /// `[playlog]`: proof of play, the record of every playlist item shown, in
    /// `playlog/` under the `[state]` directory (docs/PLAYLOG.md). Every key takes effect
    /// when the daemon starts.
    public struct PlayLog: Sendable, Hashable {
        /// `enabled`: record the items shown. Default true.
        public var enabled = true
        /// `max_mb`: the most the log's files hold together, 1…65536 MiB; the oldest file
        /// goes first. Default 64.
        public var maxMB = 64
        /// `keep_days`: a file whose last entry is older than this many days is removed,
        /// 1…3650. Default 90.
        public var keepDays = 90

        /// Every key at its default.
        public init() {}
    }
}

extension Configuration.PlayLog {
    static let keys = ["enabled", "max_mb", "keep_days"]

    init(reading r: TableReader) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        enabled = try r.boolean("enabled", enabled)
        maxMB = try r.integer("max_mb", maxMB, in: 1...65536, expected: "a size in MiB within 1…65536")
        keepDays = try r.integer("keep_days", keepDays, in: 1...3650, expected: "a number of days within 1…3650")
    }
}
