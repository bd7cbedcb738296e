import VitrineProtocol

/// The playlists and schedule entries set or removed over the socket, kept so that they
/// survive a restart (the scene journal holds them): the last change of each name, in the
/// order made, replayed over the configuration's library.
public struct SignageChanges: Sendable, Equatable {
    /// The changes as `playlist.set`, `playlist.remove`, `schedule.set`, `schedule.remove`
    /// command objects (without `id`).
    public private(set) var commands: [JSON] = []
    /// Bumped by every change, so that a journal knows to write.
    public private(set) var revision = 0

    public init() {}

    /// Changes read back from a journal: `commands` as `commands` gives them.
    public init(commands: [JSON]) {
        self.commands = commands
    }

    /// Notes a change that was applied; reads and lists are not changes.
    public mutating func note(_ command: SignageCommand) {
        let key: String
        let json: JSON
        switch command {
        case .playlistSet(let playlist): (key, json) = ("playlist:" + playlist.name, .object(["cmd": .string(command.name), "playlist": playlist.json]))
        case .playlistRemove(let name): (key, json) = ("playlist:" + name, .object(["cmd": .string(command.name), "playlist": .string(name)]))
        case .scheduleSet(let entry): (key, json) = ("schedule:" + entry.name, .object(["cmd": .string(command.name), "schedule": entry.json]))
        case .scheduleRemove(let name): (key, json) = ("schedule:" + name, .object(["cmd": .string(command.name), "schedule": .string(name)]))
        case .playlistList, .playlistPlay, .playlistStop, .scheduleList: return
        }
        commands.removeAll { Self.key(of: $0) == key }
        commands.append(json)
        revision += 1
    }

    /// `library` with the changes made over it, in order; a change that no longer applies
    /// (a playlist the configuration removed, a conflict with its new schedule) is left out
    /// and described in `dropped`.
    public func applied(to library: SignageLibrary) -> (library: SignageLibrary, dropped: [String]) {
        var library = library
        var dropped: [String] = []
        for json in commands {
            var object = json.object ?? [:]
            object["id"] = .number(0)
            do throws(ProtocolError) {
                guard case .success(let request) = Request.decode(Array(JSON.object(object).text.utf8)), case .signage(let command) = request.command else {
                    throw ProtocolError(.invalidValue, "not a playlist or schedule change")
                }
                switch command {
                case .playlistSet(let playlist): library.set(playlist)
                case .playlistRemove(let name): try library.removePlaylist(name)
                case .scheduleSet(let entry): try library.set(entry)
                case .scheduleRemove(let name): try library.removeSchedule(name)
                default: break
                }
            } catch {
                dropped.append("\(json.text): \(error.message)")
            }
        }
        return (library, dropped)
    }

    private static func key(of json: JSON) -> String? {
        guard let cmd = json["cmd"]?.string else { return nil }
        let kind = cmd.hasPrefix("playlist") ? "playlist:" : "schedule:"
        let value = json[cmd.hasPrefix("playlist") ? "playlist" : "schedule"]
        return kind + (value?.string ?? value?["name"]?.string ?? "")
    }
}
