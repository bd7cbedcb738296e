import VitrineProtocol
import VitrineSystem

/// Decides what one output shows next: the item of a playlist played now on request
/// (`play`), else the schedule's interrupt when its share of voice is due, else the next
/// item of the playlist the schedule gives (or its fallback). Pure: no clock, no I/O — the
/// wall-clock instant is an argument, and the caller says how long each item was shown.
///
/// ```swift
/// let player = PlaylistPlayer(output: "HDMI-A-1", root: "root", primary: true)
/// if let cue = player.next(in: library, at: wallClock) { show(cue.item) }
/// player.played(cue, seconds: 20)
/// ```
public final class PlaylistPlayer {
    /// One item chosen to be shown.
    public struct Cue: Sendable, Equatable {
        public var playlist: String
        public var index: Int
        public var item: PlaylistItem
        /// It is the schedule's interrupt.
        public var interrupt = false
        /// It was asked for with `play`.
        public var triggered = false
    }

    public let output: String
    public let root: String
    public let primary: Bool
    /// The next index of each playlist.
    private var positions: [String: Int] = [:]
    /// The normal playlist last played.
    public private(set) var playlist: String?
    /// Normal items shown since the last interrupt.
    private var slots = 0
    private var interruptSeconds = 0.0
    private var normalSeconds = 0.0
    /// What `play` asked for and is still to come.
    private var requested: (playlist: String, indices: [Int])?

    public init(output: String, root: String, primary: Bool) {
        self.output = output
        self.root = root
        self.primary = primary
    }

    /// Plays `playlist` once from its first item (or its item `item` alone) before the
    /// schedule takes over again.
    public func play(_ playlist: Playlist, item: Int?) throws(ProtocolError) {
        if let item {
            guard playlist.items.indices.contains(item) else {
                throw ProtocolError(.invalidValue, "playlist '\(playlist.name)' has items 0…\(playlist.items.count - 1), not \(item)")
            }
            requested = (playlist.name, [item])
        } else {
            requested = (playlist.name, Array(playlist.items.indices))
        }
    }

    /// Ends what `play` asked for; returns whether it was playing.
    @discardableResult
    public func stop() -> Bool {
        defer { requested = nil }
        return requested != nil
    }

    /// Whether items asked for with `play` are still to come.
    public var isPlayingRequest: Bool { requested != nil }

    /// The next item to show at wall-clock `instant`, nil when nothing applies (the output
    /// keeps what it shows).
    public func next(in library: SignageLibrary, at instant: Double) -> Cue? {
        if let cue = nextRequested(in: library, at: instant) { return cue }
        let entries = library.entries(output: output, root: root, primary: primary)
        let decision = library.decision(for: entries, at: instant)
        if let interrupt = decision.interrupt, decision.playlist != nil, isDue(interrupt.role),
            var cue = nextItem(of: interrupt.playlist, in: library, at: instant)
        {
            cue.interrupt = true
            slots = 0
            return cue
        }
        guard let name = decision.playlist else { return nil }
        if name != playlist {
            playlist = name
            positions[name] = 0
        }
        guard let cue = nextItem(of: name, in: library, at: instant) else { return nil }
        slots += 1
        return cue
    }

    /// Takes back `cue`, which `next` gave but was not shown (plans changed): the playlist
    /// comes to it again next.
    public func putBack(_ cue: Cue) {
        guard !cue.triggered else { return }
        positions[cue.playlist] = cue.index
        if !cue.interrupt { slots = max(0, slots - 1) }
    }

    /// Counts `seconds` that `cue` was shown, for interrupts by share of time.
    public func played(_ cue: Cue, seconds: Double) {
        guard !cue.triggered, seconds > 0 else { return }
        if cue.interrupt { interruptSeconds += seconds } else { normalSeconds += seconds }
    }

    private func isDue(_ role: ScheduleEntry.Role) -> Bool {
        switch role {
        case .everyNth(let n): slots >= n - 1
        case .share(let share): normalSeconds > 0 && interruptSeconds < share * (interruptSeconds + normalSeconds)
        case .normal, .fallback: false
        }
    }

    private func nextRequested(in library: SignageLibrary, at instant: Double) -> Cue? {
        while var request = requested, !request.indices.isEmpty {
            let index = request.indices.removeFirst()
            requested = request.indices.isEmpty ? nil : request
            guard let list = library.playlists[request.playlist], list.items.indices.contains(index) else { continue }
            return Cue(playlist: list.name, index: index, item: list.items[index], triggered: true)
        }
        requested = nil
        return nil
    }

    /// The next item of `name` whose `when` holds at `instant`, moving the playlist on.
    private func nextItem(of name: String, in library: SignageLibrary, at instant: Double) -> Cue? {
        guard let list = library.playlists[name], !list.items.isEmpty else { return nil }
        let reading = LocalCalendar.reading(at: Int(instant.rounded(.down)))
        var index = (positions[name] ?? 0) % list.items.count
        for _ in list.items.indices {
            let item = list.items[index]
            let next = (index + 1) % list.items.count
            if item.when?.contains(reading, dayBefore: { LocalCalendar.dayBefore(reading) }) ?? true {
                positions[name] = next
                return Cue(playlist: name, index: index, item: item)
            }
            index = next
        }
        return nil
    }
}
