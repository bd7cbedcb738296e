import VitrineCore

/// One item of a playlist: what it shows, for how long, with which transition, and when.
public struct PlaylistItem: Sendable, Hashable {
    /// What the item shows.
    public enum Content: Sendable, Hashable {
        /// A whole scene, in place of the output's.
        case scene(SceneSource)
        /// An image file as a layer's `contents`.
        case image(layer: String, path: String)
        /// A video file as a video layer's `src`, from its start.
        case video(layer: String, path: String)
        /// A `[[clients]]` program's window in a surface layer.
        case window(layer: String, client: String)
    }

    /// How it is named in events and the play log.
    public var name: String
    public var content: Content
    /// Seconds; nil: until the video ends (a video item only).
    public var duration: Double?
    public var transition: SceneTransition?
    /// When the item may be shown; outside it, the playlist passes over it.
    public var when: TimeWindow?

    public init(name: String, content: Content, duration: Double?, transition: SceneTransition? = nil, when: TimeWindow? = nil) {
        self.name = name
        self.content = content
        self.duration = duration
        self.transition = transition
        self.when = when
    }

    static let keys: Set<String> = ["name", "scene", "file", "image", "video", "client", "layer", "duration", "transition", "when"]

    /// Reads `{"scene": "breakfast", "duration": 20, "transition": {...}}` (or `file`,
    /// `image` + `layer`, `video` + `layer`, `client` + `layer`; `"duration": "video"`
    /// until a video ends).
    public init(json: JSON, context: String) throws(ProtocolError) {
        guard let o = json.object else { throw ProtocolError(.notAnObject, "\(context) is an object such as {\"scene\": \"menu\", \"duration\": 20}") }
        if let extra = o.keys.sorted().first(where: { !Self.keys.contains($0) }) {
            throw ProtocolError(.unknownField, "\(context) has no field '\(extra)'; it takes \(Self.keys.sorted().joined(separator: ", "))")
        }
        let r = Fields(object: o, command: context)
        let given = ["scene", "file", "image", "video", "client"].filter { o[$0] != nil }
        guard given.count == 1 else {
            throw ProtocolError(.missingField, "\(context) shows one thing: give exactly one of scene, file, image, video, client")
        }
        let layer = try r.string("layer")
        if given[0] != "scene" && given[0] != "file" && layer == nil {
            throw ProtocolError(.missingField, "\(context): an item with \(given[0]) needs \"layer\", the layer that shows it")
        }
        let value = try r.requiredString(given[0])
        switch given[0] {
        case "scene": content = .scene(.named(value))
        case "file": content = .scene(.file(value))
        case "image": content = .image(layer: layer!, path: value)
        case "video": content = .video(layer: layer!, path: value)
        default: content = .window(layer: layer!, client: value)
        }
        if (given[0] == "scene" || given[0] == "file"), layer != nil {
            throw ProtocolError(.unknownField, "\(context): a scene item replaces the whole scene; it takes no \"layer\"")
        }
        if o["duration"]?.string == "video" {
            guard case .video = content else { throw ProtocolError(.invalidValue, "\(context): only a video item lasts until its video ends") }
            duration = nil
        } else {
            guard let seconds = try r.number("duration"), seconds >= 0.1, seconds <= 86_400 else {
                throw ProtocolError(.missingField, "\(context) needs \"duration\": seconds within 0.1…86400, or \"video\" for a video item")
            }
            duration = seconds
        }
        transition = try o["transition"].flatMap { j throws(ProtocolError) in try SceneTransition(json: j, context: context) }
        when = try o["when"].map { j throws(ProtocolError) in
            guard let w = j.object else { throw ProtocolError(.wrongType, "\(context): \"when\" is an object with days, from, to, dates") }
            if let extra = w.keys.sorted().first(where: { !TimeWindow.keys.contains($0) }) {
                throw ProtocolError(.unknownField, "\(context): \"when\" has no field '\(extra)'; it takes days, from, to, dates")
            }
            return try TimeWindow(object: w, context: context + ".when")
        }
        name = try r.string("name") ?? value
    }

    public var json: JSON {
        var o: [String: JSON] = ["name": .string(name), "duration": duration.map(JSON.number) ?? .string("video")]
        switch content {
        case .scene(.named(let name)): o["scene"] = .string(name)
        case .scene(.file(let path)): o["file"] = .string(path)
        case .image(let layer, let path): (o["image"], o["layer"]) = (.string(path), .string(layer))
        case .video(let layer, let path): (o["video"], o["layer"]) = (.string(path), .string(layer))
        case .window(let layer, let client): (o["client"], o["layer"]) = (.string(client), .string(layer))
        }
        o["transition"] = transition?.json
        o["when"] = when?.json
        return .object(o)
    }
}

/// A named sequence of items, shown in turn and again from the first.
public struct Playlist: Sendable, Hashable {
    public var name: String
    public var items: [PlaylistItem]

    public init(name: String, items: [PlaylistItem]) {
        self.name = name
        self.items = items
    }

    /// The most items one playlist holds.
    public static let maximumItems = 1000

    /// Reads `{"name": "lunch", "items": [item, …]}`.
    public init(json: JSON, context: String) throws(ProtocolError) {
        guard let o = json.object else { throw ProtocolError(.notAnObject, "\(context) is an object with a name and items") }
        let r = Fields(object: o, command: context)
        try r.only(["name", "items"], envelope: false)
        name = try r.requiredString("name")
        guard !name.isEmpty, name.count <= 128 else { throw ProtocolError(.invalidValue, "\(context): a playlist's name is 1…128 characters") }
        guard let list = o["items"]?.array, !list.isEmpty, list.count <= Self.maximumItems else {
            throw ProtocolError(.missingField, "\(context) needs \"items\": a list of 1…\(Self.maximumItems) items")
        }
        var items: [PlaylistItem] = []
        for (i, item) in list.enumerated() { items.append(try PlaylistItem(json: item, context: "\(context).items[\(i)]")) }
        self.items = items
    }

    public var json: JSON { .object(["name": .string(name), "items": .array(items.map(\.json))]) }
}

/// A schedule entry: a playlist on an output within a time window, at a priority; or an
/// interrupt played by share of voice; or the fallback when nothing else applies.
public struct ScheduleEntry: Sendable, Hashable {
    /// What part the entry plays.
    public enum Role: Sendable, Hashable {
        /// The highest-priority normal entry that applies is played.
        case normal
        /// One of its items after every `every - 1` items of the normal playlist.
        case everyNth(Int)
        /// Its items take `share` (0…1) of the time.
        case share(Double)
        /// Played when no normal entry applies.
        case fallback
    }

    public var name: String
    public var playlist: String
    /// An output's name or root; nil: the primary output.
    public var output: String?
    public var window: TimeWindow
    public var priority: Int
    public var role: Role

    public init(name: String, playlist: String, output: String? = nil, window: TimeWindow = TimeWindow(), priority: Int = 0, role: Role = .normal) {
        self.name = name
        self.playlist = playlist
        self.output = output
        self.window = window
        self.priority = priority
        self.role = role
    }

    static let keys: Set<String> = TimeWindow.keys.union(["name", "playlist", "output", "priority", "every", "share", "fallback"])

    /// Reads `{"name": "lunch", "playlist": "lunch", "days": […], "from": "11:30", "to":
    /// "14:00", "priority": 10}`, with `every` (N) or `share` (percent) for an interrupt and
    /// `fallback: true` for the fallback.
    public init(json: JSON, context: String) throws(ProtocolError) {
        guard let o = json.object else { throw ProtocolError(.notAnObject, "\(context) is an object with a name and a playlist") }
        let r = Fields(object: o, command: context)
        try r.only(Self.keys, envelope: false)
        playlist = try r.requiredString("playlist")
        name = try r.string("name") ?? playlist
        output = try r.string("output")
        window = try TimeWindow(object: o, context: context)
        let p = try r.number("priority") ?? 0
        guard p == p.rounded(), abs(p) <= 1_000_000 else { throw ProtocolError(.invalidValue, "\(context): \"priority\" is a whole number") }
        priority = Int(p)
        let fallback = try r.bool("fallback") ?? false
        let every = try r.number("every"), share = try r.number("share")
        guard [fallback ? 1 : 0, every == nil ? 0 : 1, share == nil ? 0 : 1].reduce(0, +) <= 1 else {
            throw ProtocolError(.invalidValue, "\(context): give at most one of every, share and fallback")
        }
        if let every {
            guard every == every.rounded(), every >= 2, every <= 1000 else {
                throw ProtocolError(.invalidValue, "\(context): \"every\" is a whole number of slots, 2…1000 (every 5th slot: 5)")
            }
            role = .everyNth(Int(every))
        } else if let share {
            guard share > 0, share < 100 else { throw ProtocolError(.invalidValue, "\(context): \"share\" is a percentage of time, above 0 and below 100") }
            role = .share(share / 100)
        } else {
            role = fallback ? .fallback : .normal
        }
    }

    public var json: JSON {
        var o = window.json.object ?? [:]
        o["name"] = .string(name)
        o["playlist"] = .string(playlist)
        o["output"] = output.map(JSON.string)
        o["priority"] = .number(Double(priority))
        switch role {
        case .normal: break
        case .everyNth(let n): o["every"] = .number(Double(n))
        case .share(let s): o["share"] = .number(s * 100)
        case .fallback: o["fallback"] = .bool(true)
        }
        return .object(o)
    }
}

/// The commands of playlists and schedules (`playlist.*`, `schedule.*`).
public enum SignageCommand: Sendable {
    /// Adds or replaces a playlist.
    case playlistSet(Playlist)
    case playlistRemove(name: String)
    /// The playlists, and what each output plays.
    case playlistList
    /// Plays a playlist once (or one of its items) on an output now, then returns to the schedule.
    case playlistPlay(name: String, item: Int?, output: String?)
    /// Ends what `playlistPlay` plays on an output: the schedule takes over.
    case playlistStop(output: String?)
    /// Adds or replaces a schedule entry.
    case scheduleSet(ScheduleEntry)
    case scheduleRemove(name: String)
    case scheduleList

    public var name: String {
        switch self {
        case .playlistSet: "playlist.set"
        case .playlistRemove: "playlist.remove"
        case .playlistList: "playlist.list"
        case .playlistPlay: "playlist.play"
        case .playlistStop: "playlist.stop"
        case .scheduleSet: "schedule.set"
        case .scheduleRemove: "schedule.remove"
        case .scheduleList: "schedule.list"
        }
    }
}

extension Command {
    /// Decodes `scene.load`, `playlist.*` and `schedule.*`; nil when `name` is none of them.
    static func decodeSignage(_ name: String, _ r: Fields) throws(ProtocolError) -> Command? {
        switch name {
        case "scene.load":
            try r.only(["scene", "file", "output", "transition", "timeout"])
            let scene = try r.string("scene"), file = try r.string("file")
            guard (scene == nil) != (file == nil) else {
                throw ProtocolError(.missingField, "scene.load needs \"scene\" (a name of [scenes.NAME]) or \"file\" (a scene file), one of them")
            }
            let timeout = try r.number("timeout") ?? 10
            guard timeout >= 0.1, timeout <= 300 else { throw ProtocolError(.invalidValue, "scene.load: \"timeout\" is seconds within 0.1…300") }
            let transition = try r.object["transition"].flatMap { j throws(ProtocolError) in try SceneTransition(json: j, context: "scene.load") }
            return .sceneLoad(
                SceneLoad(source: scene.map(SceneSource.named) ?? .file(file!), output: try r.string("output"), transition: transition, timeout: timeout))
        case "playlist.set":
            try r.only(["playlist"])
            guard let json = r.object["playlist"] else { throw ProtocolError(.missingField, "playlist.set needs \"playlist\": {\"name\": …, \"items\": […]}") }
            return .signage(.playlistSet(try Playlist(json: json, context: "playlist")))
        case "playlist.remove":
            try r.only(["playlist"])
            return .signage(.playlistRemove(name: try r.requiredString("playlist")))
        case "playlist.list":
            try r.only([])
            return .signage(.playlistList)
        case "playlist.play":
            try r.only(["playlist", "item", "output"])
            var item: Int?
            if let i = try r.number("item") {
                guard i == i.rounded(), i >= 0, i < Double(Playlist.maximumItems) else {
                    throw ProtocolError(.invalidValue, "playlist.play: \"item\" is an item's index, from 0")
                }
                item = Int(i)
            }
            return .signage(.playlistPlay(name: try r.requiredString("playlist"), item: item, output: try r.string("output")))
        case "playlist.stop":
            try r.only(["output"])
            return .signage(.playlistStop(output: try r.string("output")))
        case "schedule.set":
            try r.only(["schedule"])
            guard let json = r.object["schedule"] else {
                throw ProtocolError(.missingField, "schedule.set needs \"schedule\": {\"playlist\": …, \"from\": \"HH:MM\", \"to\": \"HH:MM\", …}")
            }
            return .signage(.scheduleSet(try ScheduleEntry(json: json, context: "schedule")))
        case "schedule.remove":
            try r.only(["schedule"])
            return .signage(.scheduleRemove(name: try r.requiredString("schedule")))
        case "schedule.list":
            try r.only([])
            return .signage(.scheduleList)
        default:
            return nil
        }
    }
}
