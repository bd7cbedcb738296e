import VitrineJSON
import VitrineProtocol

extension Configuration {
    /// One `[[watch]]` table: a picture that must keep changing — a layer (a hosted
    /// client's window, a video while it plays, any layer) or a whole output — and what
    /// the daemon does when it stops (docs/REMOTE.md, "Watchdog").
    ///
    /// ```toml
    /// [[watch]]
    /// layer = "app"                 # the layer the client's window is shown in
    /// must_change_every = 5         # seconds
    /// restart = "browser"           # a [[clients]] name
    /// commands = [{ cmd = "layer.set", layer = "sorry", properties = { hidden = false } }]
    /// ```
    public struct Watch: Sendable, Hashable {
        /// What is watched: `layer` (its rectangle on screen) or `output` (all of it),
        /// exactly one of the two.
        public enum Target: Sendable, Hashable {
            case layer(String)
            case output(String)
        }

        public var target: Target
        /// `must_change_every`: seconds the picture may stay the same, 0.5…86400. Required.
        /// A video layer must change only while it plays.
        public var mustChangeEvery: Double
        /// `restart`: the `[[clients]]` entry stopped and started again when the picture
        /// stalls; "" for none.
        public var restart = ""
        /// `reload`: a video layer's player is made anew (its source opened again). Default false.
        public var reload = false
        /// `commands`: scene commands applied as one transaction when it stalls (showing a
        /// fallback layer); `resume_commands` when it changes again.
        public var commands: [JSON] = []
        public var resumeCommands: [JSON] = []

        public init(target: Target, mustChangeEvery: Double) {
            self.target = target
            self.mustChangeEvery = mustChangeEvery
        }

        /// What events and logs call the target: the layer's id or the output's name.
        public var name: String {
            switch target {
            case .layer(let id): id
            case .output(let name): name
            }
        }
    }
}

extension Configuration.Watch {
    static let keys = ["layer", "output", "must_change_every", "restart", "reload", "commands", "resume_commands"]

    static func readAll(_ top: TableReader, clients: [Configuration.ClientEntry]) throws(ConfigError) -> [Configuration.Watch] {
        guard let node = top.entries["watch"] else { return [] }
        guard let items = node.array, items.allSatisfy({ $0.table != nil }) else {
            throw top.error("watch", "must be [[watch]] tables, each with a layer or an output and must_change_every, got \(node.written)")
        }
        return try items.enumerated().map { (i, item) throws(ConfigError) in
            try Configuration.Watch(reading: TableReader(path: "watch[\(i)]", entries: item.table ?? [:], context: top.context), clients: clients)
        }
    }

    init(reading r: TableReader, clients: [Configuration.ClientEntry]) throws(ConfigError) {
        try r.refuseUnknownKeys(Self.keys)
        let layer = try r.string("layer", "", expected: "a layer's id")
        let output = try r.string("output", "", expected: "an output's name (its connector, such as \"HDMI-A-1\") or its root's id")
        guard layer.isEmpty != output.isEmpty else {
            throw r.context.error(r.path, "a [[watch]] table watches one layer or one output: give layer = \"id\" or output = \"name\", not both or neither")
        }
        guard r.entries["must_change_every"] != nil else {
            throw r.context.error(r.path, "a [[watch]] table needs must_change_every, the seconds its picture may stay the same, such as 5")
        }
        let seconds = try r.number("must_change_every", 0, expected: "seconds within 0.5…86400") { (0.5...86400).contains($0) }
        self.init(target: layer.isEmpty ? .output(output) : .layer(layer), mustChangeEvery: seconds)
        restart = try r.string("restart", "", expected: "the name of a [[clients]] table")
        if !restart.isEmpty, !clients.contains(where: { $0.name == restart }) {
            throw r.error("restart", "no [[clients]] table is named \"\(restart)\"; the clients are \(TableReader.list(clients.map(\.name)))")
        }
        reload = try r.boolean("reload", reload)
        if reload, layer.isEmpty { throw r.error("reload", "reload makes a video layer's player anew: it needs layer = \"id\"") }
        commands = try Self.commands(r, "commands")
        resumeCommands = try Self.commands(r, "resume_commands")
    }

    /// An array of scene commands, each checked as one of a transaction's.
    private static func commands(_ r: TableReader, _ name: String) throws(ConfigError) -> [JSON] {
        guard let node = r.entries[name] else { return [] }
        guard let items = node.array, let json = node.json?.array, items.allSatisfy({ $0.table != nil }) else {
            throw r.error(name, "must be an array of commands, such as [{ cmd = \"layer.set\", layer = \"sorry\", properties = { hidden = false } }]")
        }
        let line = JSON.object(["id": .string("watch"), "cmd": .string("transaction"), "commands": .array(json)]).text
        if case .failure(let failure) = Request.decode(Array(line.utf8)) { throw r.error(name, failure.error.message) }
        return json
    }
}
