import VitrineCore

/// One column of a rolling number: a strip of characters seen through a window one line
/// high.
///
/// The window is at `position` (fractional while rolling: character ⌊position⌋ is
/// `position − ⌊position⌋` lines above the window, the next one below it). `presence` is
/// 1 for a column of the text, 0 for one that left it; it scales the column's width and
/// opacity, so columns appear and disappear smoothly.
public struct RollColumn: Hashable, Sendable {
    public var strip: [Character] { didSet { readRest = nil } }
    public var position: Double { didSet { readRest = nil } }
    public var presence: Double { didSet { readRest = nil } }
    /// The rest read from a state value (−1: leaving), nil when the column is built or
    /// changed here and rests where its own position and presence say.
    private var readRest: Int?

    public init(strip: [Character], position: Double, presence: Double) {
        self.strip = strip
        self.position = position
        self.presence = presence
    }

    /// A column as a state holds it: `rest` is the index it comes to rest at in the
    /// model, or −1 for a column leaving the text.
    init(strip: [Character], position: Double, presence: Double, rest: Int) {
        self.init(strip: strip, position: position, presence: presence)
        readRest = min(max(rest, -1), strip.count - 1)
    }

    /// A column showing `c`, at rest.
    public init(showing c: Character) {
        self.init(strip: [c], position: 0, presence: 1)
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.position == b.position && a.presence == b.presence && a.rest == b.rest && a.strip == b.strip
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(strip)
        hasher.combine(position)
        hasher.combine(presence)
        hasher.combine(rest)
    }

    /// The index in `strip` of the character the column comes to rest on when its roll
    /// ends, nil for a column leaving the text (or one without characters). The columns'
    /// places on the line are those of the text they rest on, so they stay put while the
    /// digits roll.
    public var rest: Int? {
        if let readRest { return readRest >= 0 ? readRest : nil }
        return presence > 0 && !strip.isEmpty ? nearestIndex : nil
    }

    /// The character the column comes to rest on, nil for a column leaving the text.
    public var restingCharacter: Character? { rest.map { strip[$0] } }

    /// The characters in the window: the one at ⌊pos⌋ with its offset above the window
    /// (0…1 lines), and the next one when the window is between two.
    public var visible: (first: Character, offset: Double, next: Character?) {
        guard !strip.isEmpty else { return (" ", 0, nil) }
        let clamped = min(max(position, 0), Double(strip.count - 1))
        let index = Int(clamped.rounded(.down))
        let fraction = clamped - Double(index)
        return (strip[index], fraction, fraction > 1e-9 && index + 1 < strip.count ? strip[index + 1] : nil)
    }

    /// The index in `strip` of the character nearest the window.
    var nearestIndex: Int {
        min(max(Int(position.rounded()), 0), max(strip.count - 1, 0))
    }
}

/// All columns of a rolling number, from the right, and their state in the layer's
/// custom property `roll`:
///
/// ```
/// roll = {"strips": ["3456", "7", …], "pos": [2.4, 0, …], "presence": [1, 1, …], "rest": [3, 0, …]}
/// ```
/// Index k of each array is column k, counted from the right (0 holds the last
/// character), so the units stay in their column when the number grows. `rest` is where
/// each column comes to rest in the model, −1 for a column leaving the text: the
/// presentation of a rolling column changes its `pos`, and the line is laid out from
/// `rest`. Animations move `roll.pos.K` and `roll.presence.K`, elements of arrays of
/// numbers, so a frame of a roll changes numbers in place instead of nested objects.
public struct RollColumns: Hashable, Sendable {
    /// `columns[0]` is the rightmost.
    public var columns: [RollColumn] { didSet { stripValues = nil } }
    /// The strips as they were read from a state value: the next frame's state shares the
    /// array, so its strips need not be split into characters again.
    private var stripValues: [Value]?

    public init(columns: [RollColumn]) { self.columns = columns }

    /// Columns at rest showing `text`.
    public init(showing text: String) {
        columns = text.reversed().map(RollColumn.init(showing:))
    }

    public static func == (a: Self, b: Self) -> Bool { a.columns == b.columns }
    public func hash(into hasher: inout Hasher) { hasher.combine(columns) }

    /// The state in a layer's custom properties (model or presentation), if any: one
    /// column per strip, up to the first strip that is not a non-empty string. Missing
    /// numbers take their defaults: position 0, presence 1, resting where the position
    /// says. `previous`, the state read from an earlier frame of the same layer, saves
    /// splitting strips into characters again when the state holds the same strips.
    public init?(_ custom: [String: Value], reusing previous: RollColumns? = nil) {
        guard let state = custom[RollingNumber.stateKey]?.dictionary, let strips = state["strips"]?.array else { return nil }
        let positions = state["pos"]?.array ?? [], presences = state["presence"]?.array ?? [], rests = state["rest"]?.array ?? []
        let reused = previous.flatMap { Self.sameStorage($0.stripValues, strips) ? $0.columns : nil } ?? []
        var columns: [RollColumn] = []
        columns.reserveCapacity(strips.count)
        for k in strips.indices {
            let strip: [Character]
            if k < reused.count {
                strip = reused[k].strip
            } else {
                guard let text = strips[k].string, !text.isEmpty else { break }
                strip = Array(text)
            }
            func number(_ values: [Value], _ fallback: Double) -> Double { k < values.count ? values[k].number ?? fallback : fallback }
            let position = number(positions, 0), presence = number(presences, 1)
            var column = RollColumn(strip: strip, position: position, presence: presence)
            if k < rests.count, let rest = rests[k].number, rest.isFinite, abs(rest) < 1e6 {
                column = RollColumn(strip: strip, position: position, presence: presence, rest: Int(rest.rounded()))
            }
            columns.append(column)
        }
        guard !columns.isEmpty else { return nil }
        self.columns = columns
        stripValues = strips
    }

    /// Whether `b` is the non-empty strips array `a` was read from.
    private static func sameStorage(_ a: [Value]?, _ b: [Value]) -> Bool {
        guard let a, !a.isEmpty else { return false }
        return a.sharesStorage(with: b)
    }

    /// The state as the custom property's value.
    public var value: Value {
        .dictionary([
            "strips": .array(columns.map { .string(String($0.strip)) }),
            "pos": .array(columns.map { .number($0.position) }),
            "presence": .array(columns.map { .number($0.presence) }),
            "rest": .array(columns.map { .number(Double($0.rest ?? -1)) }),
        ])
    }

    /// The text the columns come to rest on (columns that are leaving excluded).
    public var restingText: String {
        var text = ""
        for column in columns.reversed() {
            if let c = column.restingCharacter { text.append(c) }
        }
        return text
    }
}
