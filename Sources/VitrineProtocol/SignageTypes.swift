import VitrineCore
import VitrineSystem

/// A scene `scene.load` or a playlist item shows: a scene file (JSON, docs/SCENE.md) or a
/// scene the configuration names (`[scenes.NAME]`).
public enum SceneSource: Sendable, Hashable, CustomStringConvertible {
    case file(String)
    case named(String)

    public var description: String {
        switch self {
        case .file(let path): path
        case .named(let name): name
        }
    }
}

/// How new content replaces what is shown: a CATransition on the layer that changes (the
/// output's root for a scene), or none (a cut).
public struct SceneTransition: Sendable, Hashable {
    /// The transition as an animation object gives it (`type` transition).
    public let template: AnimationTemplate

    public var transition: Transition {
        guard case .transition(let t) = template.kind else { return Transition(.fade) }
        return t
    }
    /// Seconds, 0…60.
    public var duration: Double { template.timing.duration }
    public var timing: TimingFunction? { template.timingFunction }

    /// The animation to add under `Animation.transitionKey`.
    public var animation: Animation { .transition(transition, duration: duration, timingFunction: timing) }

    /// Reads a transition object in the animation vocabulary (`{"transition": "push",
    /// "subtype": "fromRight", "duration": 0.6, "timing": "easeInEaseOut"}`); `null` or
    /// `"none"` is a cut (nil).
    public init?(json: JSON, context: String) throws(ProtocolError) {
        if json == .null || json.string == "none" { return nil }
        guard var object = json.object else {
            throw ProtocolError(.wrongType, "\(context): \"transition\" is an object such as {\"transition\": \"fade\", \"duration\": 0.5}, or \"none\"")
        }
        if object["type"] == nil { object["type"] = .string("transition") }
        if object["transition"] == nil { object["transition"] = .string("fade") }
        let template: AnimationTemplate
        do { template = try AnimationTemplate(json: .object(object)) } catch {
            throw error.prefixed("\(context): transition: ")
        }
        guard case .transition(let transition) = template.kind else {
            throw ProtocolError(.invalidValue, "\(context): a transition is fade, moveIn, push or reveal")
        }
        _ = transition
        let duration = template.timing.duration
        guard duration >= 0, duration <= 60 else { throw ProtocolError(.invalidValue, "\(context): a transition lasts 0…60 seconds, not \(duration)") }
        self.template = template
    }

    public var json: JSON {
        var o: [String: JSON] = [
            "transition": .string(transition.style.rawValue), "subtype": .string(transition.direction.rawValue), "duration": .number(duration),
        ]
        if let timing, let name = TimingFunction.named.first(where: { $0.value == timing })?.key { o["timing"] = .string(name) }
        return .object(o)
    }
}

/// `scene.load`: shows a scene in place of an output's, once its content is ready.
public struct SceneLoad: Sendable {
    public var source: SceneSource
    /// nil: the primary output.
    public var output: String?
    public var transition: SceneTransition?
    /// Seconds the content may take to get ready before the load fails, 0.1…300.
    public var timeout: Double

    public init(source: SceneSource, output: String? = nil, transition: SceneTransition? = nil, timeout: Double = 10) {
        self.source = source
        self.output = output
        self.transition = transition
        self.timeout = timeout
    }
}

/// When something applies on the local wall clock: on some weekdays, between two times of
/// day (the end may be past midnight: 22:00–02:00 belongs to the day it begins), within
/// a range of dates. Every part is optional; an empty window always applies.
public struct TimeWindow: Sendable, Hashable {
    /// 0 Sunday … 6 Saturday; empty: every day.
    public var days: Set<Int> = []
    /// Minutes after midnight; nil: all day. `from == to` is the whole day.
    public var from: Int?
    public var to: Int?
    /// yyyymmdd, inclusive; nil: no bound.
    public var firstDate: Int?
    public var lastDate: Int?

    public init() {}

    public static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// Whether the window holds the local clock's `reading`; `dayBefore` gives the day
    /// before it (for windows running past midnight).
    public func contains(_ reading: LocalCalendar.Reading, dayBefore: () -> LocalCalendar.Reading) -> Bool {
        guard let from, let to, from != to else { return holdsDay(reading) }
        if from < to { return (from..<to).contains(reading.minute) && holdsDay(reading) }
        if reading.minute >= from { return holdsDay(reading) }
        return reading.minute < to && holdsDay(dayBefore())
    }

    private func holdsDay(_ day: LocalCalendar.Reading) -> Bool {
        (days.isEmpty || days.contains(day.weekday)) && (firstDate.map { day.date >= $0 } ?? true) && (lastDate.map { day.date <= $0 } ?? true)
    }

    /// The minutes of the day at which it may begin or end to apply (midnight for days and dates).
    public var boundaries: [Int] { [0] + [from, to].compactMap { $0 } }

    /// Whether some instant could lie in both windows (weekdays, times and dates overlap).
    public func overlaps(_ other: TimeWindow) -> Bool {
        let start = max(firstDate ?? 0, other.firstDate ?? 0), end = min(lastDate ?? 99_999_999, other.lastDate ?? 99_999_999)
        guard start <= end else { return false }
        let a = weekIntervals, b = other.weekIntervals
        return a.contains { x in b.contains { y in x.overlaps(y) } }
    }

    /// The minutes of a week it covers (Sunday 00:00 is 0), over two weeks so that a
    /// Saturday night's window reaches into Sunday.
    private var weekIntervals: [Range<Int>] {
        let day = 1440
        let (start, end) = from.flatMap { f in to.map { t in f == t ? (0, day) : (f, t > f ? t : t + day) } } ?? (0, day)
        return (0..<14).filter { days.isEmpty || days.contains($0 % 7) }.map { ($0 * day + start)..<($0 * day + end) }
    }

    /// Reads `{"days": ["mon", …], "from": "HH:MM", "to": "HH:MM", "dates": ["YYYY-MM-DD", "YYYY-MM-DD"]}`
    /// (each optional).
    public init(object o: [String: JSON], context: String) throws(ProtocolError) {
        if let days = o["days"] {
            guard let names = days.array?.compactMap(\.string), names.count == days.array?.count else {
                throw ProtocolError(.wrongType, "\(context): \"days\" is a list such as [\"mon\", \"tue\"]")
            }
            for name in names {
                guard let index = Self.dayNames.firstIndex(of: name.lowercased().prefix(3).description), name.count >= 3 else {
                    throw ProtocolError(.invalidValue, "\(context): '\(name)' is no weekday; days are \(Self.dayNames.joined(separator: ", "))")
                }
                self.days.insert(index)
            }
        }
        for key in ["from", "to"] {
            guard let value = o[key] else { continue }
            guard let text = value.string, let minute = Self.minute(parsing: text) else {
                throw ProtocolError(.invalidValue, "\(context): \"\(key)\" is a time of day \"HH:MM\" (00:00…23:59), got \(value)")
            }
            if key == "from" { from = minute } else { to = minute }
        }
        if (from == nil) != (to == nil) { throw ProtocolError(.missingField, "\(context): give both \"from\" and \"to\", or neither") }
        if let dates = o["dates"] {
            guard let list = dates.array, list.count == 2, let first = list[0].string.flatMap(Self.date(parsing:)),
                let last = list[1].string.flatMap(Self.date(parsing:)), first <= last
            else {
                throw ProtocolError(.invalidValue, "\(context): \"dates\" is [\"YYYY-MM-DD\", \"YYYY-MM-DD\"], the first not after the last, got \(dates)")
            }
            (firstDate, lastDate) = (first, last)
        }
    }

    public static let keys: Set<String> = ["days", "from", "to", "dates"]

    static func minute(parsing text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h),
            (0...59).contains(m)
        else { return nil }
        return h * 60 + m
    }

    static func date(parsing text: String) -> Int? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2, let y = Int(parts[0]), let m = Int(parts[1]),
            let d = Int(parts[2]), (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        return y * 10000 + m * 100 + d
    }

    public var json: JSON {
        var o: [String: JSON] = [:]
        if !days.isEmpty { o["days"] = .array(days.sorted().map { .string(Self.dayNames[$0]) }) }
        func hhmm(_ m: Int) -> JSON { .string((m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)") }
        if let from, let to { (o["from"], o["to"]) = (hhmm(from), hhmm(to)) }
        func ymd(_ d: Int) -> JSON {
            let m = d / 100 % 100, day = d % 100
            return .string("\(d / 10000)-" + (m < 10 ? "0" : "") + "\(m)-" + (day < 10 ? "0" : "") + "\(day)")
        }
        if let firstDate, let lastDate { o["dates"] = .array([ymd(firstDate), ymd(lastDate)]) }
        return .object(o)
    }
}

extension ProtocolError {
    /// The same error, its message led by `context` ("scene lunch: …").
    public func prefixed(_ context: String) -> ProtocolError { ProtocolError(code: code, message: context + message) }

    private init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

extension TransactionSpec {
    /// Sets `properties` of `layer` without implicit actions, with `transition` (if any)
    /// on the layer: what a playlist's image or video item does.
    public static func content(of layer: String, _ properties: [(String, JSON)], transition: SceneTransition?) -> TransactionSpec {
        var commands: [Command] = [.layerSet(id: layer, properties: properties, animation: nil, actions: false)]
        if let transition { commands.append(.animationAdd(layer: layer, key: Animation.transitionKey, animation: transition.template)) }
        return TransactionSpec(disableActions: true, commands: commands)
    }
}
