import FoundationEssentials
import Glibc
import VitrineJSON
import VitrineProtocol
import VitrineSignage

extension Configuration {
    /// `[scenes.NAME]`, `[[playlists]]` and `[[schedules]]`: scenes that `scene.load` and
    /// playlists show by name, and what plays when (docs/SIGNAGE.md).
    ///
    /// ```toml
    /// [scenes.breakfast]
    /// file = "breakfast.json"
    ///
    /// [[playlists]]
    /// name = "morning"
    /// items = [{ scene = "breakfast", duration = 20, transition = { transition = "push", subtype = "fromRight", duration = 0.6 } }]
    ///
    /// [[schedules]]
    /// playlist = "morning"
    /// days = ["mon", "tue", "wed", "thu", "fri"]
    /// from = "07:00"
    /// to = "11:00"
    /// ```
    public struct Signage: Sendable, Equatable {
        /// The named scenes, each read and checked as `[scene]` is.
        public var scenes: [String: InitialScene] = [:]
        /// The playlists and schedule entries, checked as a whole.
        public var library = SignageLibrary()

        public init() {}

        /// Whether anything is configured.
        public var isEmpty: Bool { scenes.isEmpty && library.playlists.isEmpty && library.schedules.isEmpty }
    }
}

extension Configuration.Signage {
    /// Reads the three sections; `roots` are the content roots that relative image and
    /// video paths are looked for in.
    init(reading top: TableReader, source: String, roots: [String]) throws(ConfigError) {
        if let node = top.entries["scenes"] {
            guard let table = node.table else { throw top.error("scenes", "must be [scenes.NAME] tables, each a scene as [scene] is, got \(node.written)") }
            for name in table.keys.sorted() {
                guard let entries = table[name]?.table else { throw top.context.error("scenes.\(name)", "must be a table: [scenes.\(name)] with file = …") }
                let scene = try Configuration.InitialScene(reading: TableReader(path: "scenes.\(name)", entries: entries, context: top.context), source: source)
                guard scene.content != nil else { throw top.context.error("scenes.\(name)", "a scene needs file = \"…json\" or [[scenes.\(name).layers]]") }
                scenes[name] = scene
            }
        }
        var playlists: [Playlist] = []
        for (i, item) in try Self.tables(top, "playlists", holding: "a name and items").enumerated() {
            let key = "playlists[\(i)]"
            let playlist: Playlist
            do { playlist = try Playlist(json: item, context: key) } catch { throw top.context.error(key, error.message) }
            if playlists.contains(where: { $0.name == playlist.name }) {
                throw top.context.error(key + ".name", "\"\(playlist.name)\" names an earlier [[playlists]] table; give each playlist its own name")
            }
            for (j, entry) in playlist.items.enumerated() {
                if let missing = missing(entry.content, source: source, roots: roots) { throw top.context.error("\(key).items[\(j)]", missing) }
            }
            playlists.append(playlist)
        }
        var schedules: [ScheduleEntry] = []
        for (i, item) in try Self.tables(top, "schedules", holding: "a playlist").enumerated() {
            do { schedules.append(try ScheduleEntry(json: item, context: "schedules[\(i)]")) } catch {
                throw top.context.error("schedules[\(i)]", error.message)
            }
        }
        do { library = try SignageLibrary(playlists: playlists, schedules: schedules) } catch {
            let culprit = schedules.indices.last { i in (try? SignageLibrary(playlists: playlists, schedules: Array(schedules[...i]))) == nil } ?? 0
            throw top.context.error(schedules.isEmpty ? "playlists" : "schedules[\(culprit)]", error.message)
        }
    }

    /// Why an item's file cannot be shown, or nil.
    private func missing(_ content: PlaylistItem.Content, source: String, roots: [String]) -> String? {
        switch content {
        case .scene(.named(let name)):
            return scenes[name] == nil ? "there is no scene '\(name)'; the [scenes.NAME] tables are \(scenes.keys.sorted())" : nil
        case .scene(.file(let path)):
            let full = path.hasPrefix("/") ? path : URL(fileURLWithPath: source).deletingLastPathComponent().appendingPathComponent(path).path
            return Self.isFile(full) ? nil : "the scene file \(full) does not exist"
        case .image(_, let path), .video(_, let path):
            if path.hasPrefix("/") { return Self.isFile(path) ? nil : "\(path) does not exist" }
            let directory = URL(fileURLWithPath: source).deletingLastPathComponent().path
            return ([directory] + roots).contains { Self.isFile($0 + "/" + path) }
                ? nil : "\(path) is in none of the content roots (\(roots.joined(separator: ", ")))"
        case .window:
            return nil
        }
    }

    private static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The `[[NAME]]` tables as JSON objects.
    private static func tables(_ top: TableReader, _ name: String, holding fields: String) throws(ConfigError) -> [JSON] {
        guard let node = top.entries[name] else { return [] }
        guard let items = node.array, items.allSatisfy({ $0.table != nil }) else {
            throw top.error(name, "must be [[\(name)]] tables, each with \(fields), got \(node.written)")
        }
        return try items.enumerated().map { (i, item) throws(ConfigError) in
            guard let json = item.json else { throw top.context.error("\(name)[\(i)]", "dates and times are written as strings here, such as \"07:30\"") }
            return json
        }
    }
}
