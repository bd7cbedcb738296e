import VitrineCore

/// One item shown, as proof of play records it (docs/PLAYLOG.md): a line of the play log,
/// an entry of `playlog.query`'s reply, and the fields of the `playlog.entry` event.
///
/// ```json
/// {"id": "m4k2x-17", "output": "HDMI-A-1", "playlist": "lunch", "item": "menu", "start": 1796299200.5,
///  "end": 1796299220.5, "completed": true, "hash": "9f86d081884c7d65"}
/// ```
public struct PlayEntry: Sendable, Equatable {
    /// Unique across the daemon's runs: the run's id, a dash, the item's number in the run.
    public var id: String
    public var output: String
    public var playlist: String
    public var item: String
    /// Wall clock (Unix seconds) when the item began.
    public var start: Double
    /// Wall clock when it ended; nil while it plays, or when the daemon stopped without
    /// recording its end (killed, power lost).
    public var end: Double?
    /// Whether it ran its whole time; nil until it ends.
    public var completed: Bool?
    /// The hex digest of the pixels of the first frame showing the item fully; nil until
    /// that frame is presented.
    public var hash: String?

    public init(
        id: String, output: String, playlist: String, item: String, start: Double, end: Double? = nil, completed: Bool? = nil, hash: String? = nil
    ) {
        (self.id, self.output, self.playlist, self.item, self.start) = (id, output, playlist, item, start)
        (self.end, self.completed, self.hash) = (end, completed, hash)
    }

    /// The entry's fields; `end`, `completed` and `hash` are `null` while not known.
    public var fields: [String: JSON] {
        [
            "id": .string(id), "output": .string(output), "playlist": .string(playlist), "item": .string(item), "start": .number(start),
            "end": end.map(JSON.number) ?? .null, "completed": completed.map(JSON.bool) ?? .null, "hash": hash.map(JSON.string) ?? .null,
        ]
    }

    /// Reads `fields`' form; nil when a field is missing or of another type.
    public init?(json: JSON) {
        guard let o = json.object, let id = o["id"]?.string, let output = o["output"]?.string, let playlist = o["playlist"]?.string,
            let item = o["item"]?.string, let start = o["start"]?.number
        else { return nil }
        func optional<T>(_ key: String, _ read: (JSON) -> T?) -> T?? {
            guard let value = o[key], value != .null else { return .some(nil) }
            return read(value).map { .some($0) }
        }
        guard let end = optional("end", \.number), let completed = optional("completed", \.bool), let hash = optional("hash", \.string) else {
            return nil
        }
        self.init(id: id, output: output, playlist: playlist, item: item, start: start, end: end, completed: completed, hash: hash)
    }
}

/// `playlog.query`: the entries whose start lies in `from ..< to` (wall clock), oldest
/// first, of one output, playlist or item when given, at most `limit`.
public struct PlayLogQuery: Sendable, Equatable {
    public var from: Double
    public var to: Double
    public var output: String?
    public var playlist: String?
    public var item: String?
    public var limit: Int

    /// The entries a reply holds when the query gives no `limit`, and the most it may ask.
    public static let defaultLimit = 1000
    public static let maximumLimit = 10_000

    public init(from: Double = 0, to: Double = .infinity, output: String? = nil, playlist: String? = nil, item: String? = nil, limit: Int = defaultLimit) {
        (self.from, self.to, self.output, self.playlist, self.item, self.limit) = (from, to, output, playlist, item, limit)
    }

    /// Whether `entry` is one the query asks for (the limit aside).
    public func matches(_ entry: PlayEntry) -> Bool {
        entry.start >= from && entry.start < to && output.map { $0 == entry.output } ?? true && playlist.map { $0 == entry.playlist } ?? true
            && item.map { $0 == entry.item } ?? true
    }
}

extension Command {
    /// Decodes the proof-of-play commands (`playlog.*`); nil when `name` is none of them.
    static func decodePlayLog(_ name: String, _ r: Fields) throws(ProtocolError) -> Command? {
        guard name == "playlog.query" else { return nil }
        try r.only(["from", "to", "output", "playlist", "item", "limit"])
        var query = PlayLogQuery(output: try r.string("output"), playlist: try r.string("playlist"), item: try r.string("item"))
        if let from = r.object["from"] { query.from = try time(from, "from") }
        if let to = r.object["to"] { query.to = try time(to, "to") }
        guard query.from < query.to else {
            throw ProtocolError(.invalidValue, "playlog.query: \"from\" (\(query.from)) must come before \"to\" (\(query.to))")
        }
        if let limit = try r.number("limit") {
            guard limit == limit.rounded(), limit >= 1, limit <= Double(PlayLogQuery.maximumLimit) else {
                throw ProtocolError(.invalidValue, "playlog.query: \"limit\" is a whole number within 1…\(PlayLogQuery.maximumLimit), got \(limit)")
            }
            query.limit = Int(limit)
        }
        return .playlogQuery(query)
    }

    /// A wall-clock bound: Unix seconds or an RFC 3339 date-time, as `at` takes them.
    private static func time(_ json: JSON, _ key: String) throws(ProtocolError) -> Double {
        do { return try WallTime.seconds(json) } catch {
            throw ProtocolError(.invalidValue, "playlog.query: \"\(key)\" is Unix seconds or an RFC 3339 date-time such as \"2026-12-03T09:00:00Z\"")
        }
    }
}
