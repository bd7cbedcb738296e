import FoundationEssentials
import Glibc
import TOMLKit
import VitrineProtocol

/// A parsed TOML value, copied out of TOMLKit's tree so that the rest of the module works
/// with plain Swift values.
indirect enum TOMLNode {
    case table([String: TOMLNode])
    case array([TOMLNode])
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    /// A date, time or date-time, kept as written; no setting takes one.
    case date(String)

    init(_ value: TOMLValueConvertible) {
        switch value.type {
        case .table: self = .table(value.table.map(Self.entries) ?? [:])
        case .array: self = .array(value.array.map { $0.map(TOMLNode.init) } ?? [])
        case .string: self = .string(value.string ?? "")
        case .int: self = .integer(value.int ?? 0)
        case .double: self = .float(value.double ?? 0)
        case .bool: self = .bool(value.bool ?? false)
        case .date, .time, .dateTime: self = .date(value.debugDescription)
        }
    }

    static func entries(_ table: TOMLTable) -> [String: TOMLNode] {
        var entries: [String: TOMLNode] = [:]
        for (key, value) in table { entries[key] = TOMLNode(value) }
        return entries
    }

    var number: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .float(let d): d
        default: nil
        }
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var table: [String: TOMLNode]? { if case .table(let t) = self { t } else { nil } }
    var array: [TOMLNode]? { if case .array(let a) = self { a } else { nil } }

    /// The value as it would be written, for "got …" in messages.
    var written: String {
        let text: String
        switch self {
        case .table: return "a table"
        case .array(let items): text = "[" + items.map(\.written).joined(separator: ", ") + "]"
        case .string(let s): text = JSON.string(s).text
        case .integer(let i): text = String(i)
        case .float(let d): text = d.isFinite ? String(d) : (d > 0 ? "inf" : d < 0 ? "-inf" : "nan")
        case .bool(let b): text = String(b)
        case .date(let d): text = d
        }
        return text.count > 60 ? text.prefix(57) + "…" : text
    }

    /// The value in the JSON vocabulary of scenes; nil for dates, which JSON lacks.
    var json: JSON? {
        switch self {
        case .table(let t):
            var object: [String: JSON] = [:]
            for (key, value) in t {
                guard let json = value.json else { return nil }
                object[key] = json
            }
            return .object(object)
        case .array(let items):
            let converted = items.compactMap(\.json)
            return converted.count == items.count ? .array(converted) : nil
        case .string(let s): return .string(s)
        case .integer(let i): return .number(Double(i))
        case .float(let d): return .number(d)
        case .bool(let b): return .bool(b)
        case .date: return nil
        }
    }
}

/// What every reader of one parse shares: the file name and where its keys are written.
struct ParseContext {
    let file: String
    let locator: SourceLocator

    func error(_ key: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: locator.line(of: key), key: key, message: message)
    }
}

/// Reads the keys of one table with errors that name the file, line and dotted key, and
/// refuses keys it does not know.
struct TableReader {
    /// The dotted path of the table; "" for the top level.
    let path: String
    let entries: [String: TOMLNode]
    let context: ParseContext

    func key(_ name: String) -> String { path.isEmpty ? name : path + "." + name }

    func error(_ name: String, _ message: String) -> ConfigError { context.error(key(name), message) }

    /// The table's keys in the order they are written (keys the locator cannot place last).
    var keysInFileOrder: [String] {
        entries.keys.sorted { a, b in
            let (la, lb) = (context.locator.line(of: key(a)) ?? .max, context.locator.line(of: key(b)) ?? .max)
            return la != lb ? la < lb : a < b
        }
    }

    /// Throws for the first key written that is not in `known`, suggesting the closest
    /// known one.
    func refuseUnknownKeys(_ known: [String]) throws(ConfigError) {
        guard let unknown = keysInFileOrder.first(where: { !known.contains($0) }) else { return }
        let keys = "the keys of [\(path)] are \(Self.list(known))"
        if let near = Self.closest(to: unknown, in: known) {
            throw error(unknown, "unknown key; did you mean '\(near)'? (\(keys))")
        }
        throw error(unknown, "unknown key; \(keys)")
    }

    /// The sub-table `name`, or an empty one when it is absent.
    func table(_ name: String) throws(ConfigError) -> TableReader {
        guard let node = entries[name] else { return TableReader(path: key(name), entries: [:], context: context) }
        guard let t = node.table else { throw error(name, "must be a table ([\(key(name))]), got \(node.written)") }
        return TableReader(path: key(name), entries: t, context: context)
    }

    /// The value of `name` converted by `convert`, `fallback` when absent; throws
    /// "must be \(expected), got …" when `convert` returns nil.
    func value<T>(_ name: String, _ fallback: T, expected: String, _ convert: (TOMLNode) -> T?) throws(ConfigError) -> T {
        guard let node = entries[name] else { return fallback }
        guard let value = convert(node) else { throw error(name, "must be \(expected), got \(node.written)") }
        return value
    }

    /// A finite number (integer or float) that satisfies `valid`.
    func number(_ name: String, _ fallback: Double, expected: String, where valid: (Double) -> Bool = { _ in true }) throws(ConfigError) -> Double {
        try value(name, fallback, expected: expected) { node in
            node.number.flatMap { $0.isFinite && valid($0) ? $0 : nil }
        }
    }

    /// A whole number within `range` (a float with no fraction counts).
    func integer(_ name: String, _ fallback: Int, in range: ClosedRange<Int>, expected: String? = nil) throws(ConfigError) -> Int {
        let phrase = expected ?? "a whole number in \(range.lowerBound)…\(range.upperBound)"
        return try value(name, fallback, expected: phrase) { node in
            switch node {
            case .integer(let i): return range.contains(i) ? i : nil
            case .float(let d):
                guard d.isFinite, d.rounded() == d, d >= Double(range.lowerBound), d <= Double(range.upperBound) else { return nil }
                return Int(d)
            default: return nil
            }
        }
    }

    func string(_ name: String, _ fallback: String, expected: String = "a string", where valid: (String) -> Bool = { _ in true }) throws(ConfigError) -> String
    {
        try value(name, fallback, expected: expected) { node in node.string.flatMap { valid($0) ? $0 : nil } }
    }

    /// `true` or `false`.
    func boolean(_ name: String, _ fallback: Bool) throws(ConfigError) -> Bool {
        try value(name, fallback, expected: "true or false") { node in
            if case .bool(let b) = node { b } else { nil }
        }
    }

    /// A string that names a case of `E`.
    func choice<E: RawRepresentable & CaseIterable>(_ name: String, _ fallback: E) throws(ConfigError) -> E where E.RawValue == String {
        let names = E.allCases.map { "\"\($0.rawValue)\"" }
        return try value(name, fallback, expected: "one of \(Self.list(names, or: true))") { node in
            node.string.flatMap(E.init(rawValue:))
        }
    }

    /// An absolute path (starting with "/").
    func absolutePath(_ name: String, _ fallback: String, allowEmpty: Bool = false) throws(ConfigError) -> String {
        try string(name, fallback, expected: "an absolute path such as \"/var/lib/vitrine\"" + (allowEmpty ? " or \"\"" : "")) {
            $0.hasPrefix("/") || (allowEmpty && $0.isEmpty)
        }
    }

    /// "a, b and c" or "a, b or c".
    static func list(_ items: [String], or: Bool = false) -> String {
        guard items.count > 1 else { return items.first ?? "nothing" }
        return items.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + items.last!
    }

    /// The known name nearest to `name` when it is close enough to be a likely typo
    /// (spelling, `-` for `_`, camelCase for snake_case, letter case).
    static func closest(to name: String, in known: [String]) -> String? {
        let wanted = normalized(name)
        var best: (name: String, distance: Int)?
        for candidate in known {
            let d = editDistance(wanted, normalized(candidate))
            if d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        guard let best, best.distance <= max(2, best.name.count / 4) else { return nil }
        return best.name
    }

    private static func normalized(_ name: String) -> [Character] {
        var out: [Character] = []
        for c in name {
            if c.isUppercase { out.append("_") }
            out.append(c == "-" ? "_" : Character(c.lowercased()))
        }
        return out
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
