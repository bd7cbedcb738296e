import VitrineProtocol

/// The connected clients and the events each asked for (`subscribe`, `unsubscribe`):
/// where every event goes. Shared by the coordinator and the input router, on the loop.
final class Subscribers {
    /// What is kept per client.
    struct Client {
        let connection: ClientConnection
        var subscriptions: [String] = []
        /// The layers (and their sublayers) whose `layer.*` events a pattern brings; a
        /// pattern without a filter brings them all.
        var layerFilters: [String: Set<String>] = [:]
    }

    private var clients: [Int: Client] = [:]

    /// Clients connected.
    var count: Int { clients.count }

    func connect(_ connection: ClientConnection) {
        clients[connection.clientID] = Client(connection: connection)
    }

    func disconnect(_ connection: ClientConnection) {
        clients[connection.clientID] = nil
    }

    /// Adds `patterns` to `client`'s subscriptions, each with the `layers` filter given
    /// (nil: every layer), within `limit` patterns; returns `subscribe`'s reply.
    func subscribe(_ client: Int, _ patterns: [String], layers: [String]?, limit: Int) throws(ProtocolError) -> JSON {
        for p in patterns where !Wire.eventNames.contains(where: { Wire.matches(p, $0) }) {
            throw ProtocolError(
                .invalidValue,
                "'\(p)' matches no event; the events are \(Wire.eventNames.joined(separator: ", ")), and patterns such as \"animation.*\" or \"*\"")
        }
        var state = clients[client]
        let merged = (state?.subscriptions ?? []) + patterns.filter { !(state?.subscriptions ?? []).contains($0) }
        guard merged.count <= limit else {
            throw ProtocolError(.limitExceeded, "a client may hold \(limit) subscriptions; unsubscribe some first")
        }
        state?.subscriptions = merged
        for pattern in patterns { state?.layerFilters[pattern] = layers.map(Set.init) }
        clients[client] = state
        return subscriptions(of: client)
    }

    /// Takes `patterns` from `client`'s subscriptions; returns `unsubscribe`'s reply.
    func unsubscribe(_ client: Int, _ patterns: [String]) -> JSON {
        clients[client]?.subscriptions.removeAll { patterns.contains($0) }
        for pattern in patterns { clients[client]?.layerFilters[pattern] = nil }
        return subscriptions(of: client)
    }

    /// `subscribe`'s reply: the patterns, and the `layers` filters there are.
    private func subscriptions(of client: Int) -> JSON {
        let state = clients[client]
        var result: [String: JSON] = ["subscriptions": .array((state?.subscriptions ?? []).map(JSON.string))]
        if let filters = state?.layerFilters, !filters.isEmpty {
            result["layers"] = .object(filters.mapValues { .array($0.sorted().map(JSON.string)) })
        }
        return .object(result)
    }

    /// Whether `client` subscribed to any event (a listener may stay silent).
    func listens(_ client: Int) -> Bool {
        clients[client].map { !$0.subscriptions.isEmpty } ?? false
    }

    /// Whether any client subscribed to the event `name`.
    func wants(_ name: Event.Name) -> Bool {
        clients.values.contains { state in state.subscriptions.contains { Wire.matches($0, name.rawValue) } }
    }

    /// Sends `event` to `owner` and to the clients subscribed to it.
    func send(_ event: Event, owner: Int? = nil) {
        // Encoded for its first recipient: most events of a roll (a column's animation
        // starting or finishing) have none.
        let name = event.name.rawValue
        var line: String?
        for (id, state) in clients where id == owner || state.subscriptions.contains(where: { Wire.matches($0, name) }) {
            if line == nil { line = Wire.event(event) }
            state.connection.send(line!)
        }
    }

    /// Sends an event of `layer` to its subscribers: those whose pattern that matches it
    /// has no `layers` filter, or one that holds `layer` or one of its ancestors
    /// (`ancestry`, nearest first, asked for once at most).
    func send(_ event: Event, layer: String?, ancestry: (String) -> [String]) {
        let name = event.name.rawValue
        var line: String?
        var lineage: [String]?
        for state in clients.values {
            let wanted = state.subscriptions.contains { pattern in
                guard Wire.matches(pattern, name) else { return false }
                guard let layer, let filter = state.layerFilters[pattern] else { return true }
                if lineage == nil { lineage = ancestry(layer) }
                return lineage!.contains(where: filter.contains)
            }
            guard wanted else { continue }
            if line == nil { line = Wire.event(event) }
            state.connection.send(line!)
        }
    }
}
