/// Replies and events as lines on the wire.
public enum Wire {
    /// `{"id": …, "ok": true, "result": …}`, with `"applied"` (wall-clock seconds) for a
    /// request that carried `at`.
    public static func reply(id: JSON, result: JSON, applied: Double? = nil) -> String {
        var object: [String: JSON] = ["id": id, "ok": .bool(true), "result": result]
        object["applied"] = applied.map(JSON.number)
        return JSON.object(object).text
    }

    /// `{"id": …, "ok": false, "error": {"code": …, "message": …}}`; the id is null when
    /// the request's id could not be read. `applied` as for `reply`.
    public static func failure(id: JSON?, _ error: ProtocolError, applied: Double? = nil) -> String {
        var object: [String: JSON] = [
            "id": id ?? .null, "ok": .bool(false),
            "error": .object(["code": .string(error.code), "message": .string(error.message)]),
        ]
        object["applied"] = applied.map(JSON.number)
        return JSON.object(object).text
    }

    /// `{"event": name, …fields}`: the event's line.
    public static func event(_ event: Event) -> String {
        var object = event.fields
        object["event"] = .string(event.name.rawValue)
        return JSON.object(object).text
    }

    /// The events the daemon sends, by name.
    public static let eventNames = Event.Name.allCases.map(\.rawValue)

    /// True when `name` matches `pattern`: equal, `*` for everything, or `prefix.*` for
    /// every event under a prefix.
    public static func matches(_ pattern: String, _ name: String) -> Bool {
        if pattern == "*" || pattern == name { return true }
        if pattern.hasSuffix(".*") { return name.hasPrefix(String(pattern.dropLast(1))) }
        return false
    }
}
