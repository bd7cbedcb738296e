import VitrineProtocol
import VitrineSystem

/// The playlists and schedule entries a device knows, checked as a whole: every entry
/// names a playlist there is, and no two normal entries of one priority on one output can
/// apply at the same time.
///
/// ```swift
/// var library = SignageLibrary()
/// try library.set(Playlist(name: "menu", items: [...]))
/// try library.set(ScheduleEntry(name: "day", playlist: "menu", priority: 1))
/// ```
public struct SignageLibrary: Sendable, Hashable {
    public private(set) var playlists: [String: Playlist] = [:]
    /// In the order they were set.
    public private(set) var schedules: [ScheduleEntry] = []

    public init() {}

    /// A library of `playlists` and `schedules`, refused as `set` refuses them.
    public init(playlists: [Playlist], schedules: [ScheduleEntry]) throws(ProtocolError) {
        for playlist in playlists {
            guard self.playlists[playlist.name] == nil else { throw ProtocolError(.invalidValue, "two playlists are named '\(playlist.name)'") }
            self.playlists[playlist.name] = playlist
        }
        for entry in schedules {
            guard !self.schedules.contains(where: { $0.name == entry.name }) else {
                throw ProtocolError(.invalidValue, "two schedules are named '\(entry.name)'; give each a name of its own")
            }
            try set(entry)
        }
    }

    /// Adds or replaces a playlist.
    public mutating func set(_ playlist: Playlist) {
        playlists[playlist.name] = playlist
    }

    /// Removes a playlist no schedule entry plays.
    public mutating func removePlaylist(_ name: String) throws(ProtocolError) {
        guard playlists[name] != nil else { throw ProtocolError(.invalidValue, "there is no playlist '\(name)'; playlist.list lists them") }
        if let user = schedules.first(where: { $0.playlist == name }) {
            throw ProtocolError(.invalidValue, "the schedule '\(user.name)' plays '\(name)'; remove or change it first")
        }
        playlists[name] = nil
    }

    /// Adds or replaces (by name) a schedule entry; refused when its playlist is unknown or
    /// it conflicts with another.
    public mutating func set(_ entry: ScheduleEntry) throws(ProtocolError) {
        guard playlists[entry.playlist] != nil else {
            throw ProtocolError(
                .invalidValue, "schedule '\(entry.name)': there is no playlist '\(entry.playlist)'; the playlists are \(playlists.keys.sorted())")
        }
        let others = schedules.filter { $0.name != entry.name }
        if let other = others.first(where: { Self.conflict(entry, $0) }) {
            throw ProtocolError(
                .invalidValue,
                "schedule '\(entry.name)' overlaps '\(other.name)' on the same output at the same priority (\(entry.priority)); give one a higher priority or times that do not overlap"
            )
        }
        if let index = schedules.firstIndex(where: { $0.name == entry.name }) {
            schedules[index] = entry
        } else {
            schedules.append(entry)
        }
    }

    public mutating func removeSchedule(_ name: String) throws(ProtocolError) {
        guard let index = schedules.firstIndex(where: { $0.name == name }) else {
            throw ProtocolError(.invalidValue, "there is no schedule '\(name)'; schedule.list lists them")
        }
        schedules.remove(at: index)
    }

    /// Whether two entries could both decide what one output plays at one instant.
    static func conflict(_ a: ScheduleEntry, _ b: ScheduleEntry) -> Bool {
        guard a.output == b.output else { return false }
        switch (a.role, b.role) {
        case (.normal, .normal): return a.priority == b.priority && a.window.overlaps(b.window)
        case (.fallback, .fallback): return true
        case (.everyNth, .everyNth), (.share, .share), (.everyNth, .share), (.share, .everyNth): return a.window.overlaps(b.window)
        default: return false
        }
    }

    /// Whether the library plays anything.
    public var isEmpty: Bool { schedules.isEmpty }
}

/// What the schedule puts on one output at one instant.
public struct ScheduleDecision: Sendable, Equatable {
    /// The normal entry's playlist (or the fallback's), nil when none applies.
    public var playlist: String?
    /// The interrupt's entry, when one applies.
    public var interrupt: ScheduleEntry?
}

extension SignageLibrary {
    /// The entries for an output: those naming `output` or `root`, and with `primary`
    /// those naming none.
    public func entries(output: String, root: String, primary: Bool) -> [ScheduleEntry] {
        schedules.filter { entry in entry.output.map { $0 == output || $0 == root } ?? primary }
    }

    /// What plays on the output at wall-clock `instant` (Unix seconds, read on the local
    /// clock): the highest-priority normal entry that applies, else the fallback; and the
    /// interrupt that applies.
    public func decision(for entries: [ScheduleEntry], at instant: Double) -> ScheduleDecision {
        let reading = LocalCalendar.reading(at: Int(instant.rounded(.down)))
        var dayBefore: LocalCalendar.Reading?
        let applying = entries.filter { entry in
            entry.window.contains(reading) {
                if dayBefore == nil { dayBefore = LocalCalendar.dayBefore(reading) }
                return dayBefore!
            }
        }
        var decision = ScheduleDecision()
        let normal = applying.filter { $0.role == .normal }.max { $0.priority < $1.priority }
        decision.playlist = normal?.playlist ?? applying.first { $0.role == .fallback }?.playlist
        decision.interrupt = applying.filter { if case .everyNth = $0.role { true } else if case .share = $0.role { true } else { false } }
            .max { $0.priority < $1.priority }
        return decision
    }

    /// The first instant after `instant` at which what `entries` decide may change: a
    /// time of day one of them begins or ends at, or midnight.
    public func nextBoundary(for entries: [ScheduleEntry], after instant: Double) -> Double {
        let minutes = Set(entries.flatMap(\.window.boundaries))
        return Double(LocalCalendar.next(after: Int(instant.rounded(.down)), readingAnyOf: minutes.isEmpty ? [0] : Array(minutes)))
    }
}
