import VitrineCore

/// The state of a rolling number's columns, kept in its custom property `roll`:
///
/// ```
/// roll = {"c0": {"strip": "3456", "pos": 3, "presence": 1}, "c1": {...}, ...}
/// ```
/// Columns are counted from the right (`c0` holds the last character), so the units stay
/// in their column when the number grows. Each column shows its `strip` of characters
/// through a window one line high at position `pos` (fractional while rolling: character
/// ⌊pos⌋ is `pos − ⌊pos⌋` lines above the window, the next one below it). `presence` is 1
/// for a column of the text, 0 for one that left it; it scales the column's width and
/// opacity, so columns appear and disappear smoothly.
public struct RollColumn: Hashable, Sendable {
    public var strip: [Character] { didSet { stripText = nil } }
    public var position: Double
    public var presence: Double
    /// The strip as it was read from a state value, so that the next frame's state, which
    /// holds the same string, can reuse `strip` instead of splitting it into characters.
    private var stripText: String?

    public init(strip: [Character], position: Double, presence: Double) {
        self.strip = strip
        self.position = position
        self.presence = presence
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.position == b.position && a.presence == b.presence && a.strip == b.strip
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(strip)
        hasher.combine(position)
        hasher.combine(presence)
    }

    /// A column showing `c`, at rest.
    public init(showing c: Character) {
        self.init(strip: [c], position: 0, presence: 1)
    }

    /// The characters in the window: the one at ⌊pos⌋ with its offset above the window
    /// (0…1 lines), and the next one when the window is between two.
    public var visible: (first: Character, offset: Double, next: Character?) {
        guard !strip.isEmpty else { return (" ", 0, nil) }
        let clamped = min(max(position, 0), Double(strip.count - 1))
        let index = Int(clamped.rounded(.down))
        let fraction = clamped - Double(index)
        return (strip[index], fraction, fraction > 1e-9 && index + 1 < strip.count ? strip[index + 1] : nil)
    }

    /// The character the column comes to rest on.
    public var target: Character {
        strip.isEmpty ? " " : strip[targetIndex]
    }

    /// The index in `strip` of the character the column comes to rest on.
    public var targetIndex: Int {
        min(max(Int(position.rounded()), 0), max(strip.count - 1, 0))
    }

    var value: Value {
        .dictionary(["strip": .string(String(strip)), "pos": .number(position), "presence": .number(presence)])
    }

    /// The column in a state value; `previous` is the same column read from an earlier
    /// state, whose characters are reused when the strip is the same string.
    init?(_ value: Value, reusing previous: RollColumn?) {
        // Read in one pass over the entries rather than by key: this runs for every
        // column of every frame of a roll.
        guard let d = value.dictionary else { return nil }
        var strip: String?, position: Double?, presence: Double?
        for (key, v) in d {
            switch key {
            case "strip": strip = v.string
            case "pos": position = v.number
            case "presence": presence = v.number
            default: break
            }
        }
        guard let strip, !strip.isEmpty else { return nil }
        // A string compares equal to the one it was copied from without reading it.
        let characters = previous.flatMap { $0.stripText == strip ? $0.strip : nil } ?? Array(strip)
        self.init(strip: characters, position: position ?? 0, presence: presence ?? 1)
        stripText = strip
    }
}

/// All columns of a rolling number, from the right.
public struct RollColumns: Hashable, Sendable {
    /// `columns[0]` is the rightmost.
    public var columns: [RollColumn]

    public init(columns: [RollColumn]) { self.columns = columns }

    /// Columns at rest showing `text`.
    public init(showing text: String) {
        columns = text.reversed().map(RollColumn.init(showing:))
    }

    /// The state in a layer's custom properties (model or presentation), if any.
    /// `previous`, the state read from an earlier frame of the same layer, saves splitting
    /// the strips that did not change into characters again.
    public init?(_ custom: [String: Value], reusing previous: RollColumns? = nil) {
        guard let d = custom[RollingNumber.stateKey]?.dictionary else { return nil }
        // Columns c0, c1, … up to the first missing or unreadable one, found in one pass
        // over the entries.
        var found = [RollColumn?](repeating: nil, count: d.count)
        for (key, value) in d {
            if let k = Self.index(key), k < found.count {
                found[k] = RollColumn(value, reusing: previous.flatMap { k < $0.columns.count ? $0.columns[k] : nil })
            }
        }
        let columns = Array(found.prefix { $0 != nil }.map { $0! })
        guard !columns.isEmpty else { return nil }
        self.columns = columns
    }

    /// k for a key "c‹k›" written as `key(k)` writes it (no sign, no leading zeros).
    static func index(_ key: String) -> Int? {
        var utf8 = key.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "c"), let first = utf8.next(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        var k = Int(first - UInt8(ascii: "0"))
        while let byte = utf8.next() {
            guard k > 0, k < 100_000, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            k = k * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return k
    }

    /// The state as the custom property's value.
    public var value: Value {
        var d: [String: Value] = [:]
        for (k, c) in columns.enumerated() { d[Self.key(k)] = c.value }
        return .dictionary(d)
    }

    /// The state's key of column `k` ("c0", "c1", …), without building the common ones.
    private static func key(_ k: Int) -> String { k < keys.count ? keys[k] : "c\(k)" }
    private static let keys = (0..<64).map { "c\($0)" }

    /// The text the columns come to rest on (columns that are leaving excluded).
    public var target: String {
        var text = ""
        for column in columns.reversed() where column.presence > 0 { text.append(column.target) }
        return text
    }
}
