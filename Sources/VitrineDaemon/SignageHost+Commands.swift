import VitrineProtocol
import VitrineSignage

/// `playlist.*` and `schedule.*`: changes are applied to the library, decided again at
/// once, and noted for the journal.
extension SignageHost {
    /// Applies `command` at media time `time`; a change is noted once it applied.
    func execute(_ command: SignageCommand, at time: Double) throws(ProtocolError) -> JSON {
        let result = try apply(command, at: time)
        note(command)
        return result
    }

    private func apply(_ command: SignageCommand, at time: Double) throws(ProtocolError) -> JSON {
        var library = library
        switch command {
        case .playlistSet(let playlist):
            library.set(playlist)
            take(library, at: time)
            return .object(["playlist": .string(playlist.name), "items": .number(Double(playlist.items.count))])
        case .playlistRemove(let name):
            try library.removePlaylist(name)
            take(library, at: time)
            return .object(["removed": .string(name)])
        case .playlistList:
            return .object([
                "playlists": .array(library.playlists.keys.sorted().map { library.playlists[$0]!.json }),
                "outputs": status,
            ])
        case .playlistPlay(let name, let item, let output):
            try play(name, item: item, output: output, at: time)
            notify(.frameAfterReply)
            return .object(["playlist": .string(name), "outputs": status])
        case .playlistStop(let output):
            return .object(["stopped": .bool(try stop(output: output, at: time))])
        case .scheduleSet(let entry):
            try library.set(entry)
            take(library, at: time)
            return .object(["schedule": .string(entry.name)])
        case .scheduleRemove(let name):
            try library.removeSchedule(name)
            take(library, at: time)
            return .object(["removed": .string(name)])
        case .scheduleList:
            return .object(["schedules": .array(library.schedules.map(\.json))])
        }
    }
}
