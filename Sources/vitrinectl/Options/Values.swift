import VitrineJSON
import ArgumentParser

/// A property value on the command line: JSON when the text parses as JSON (`500`,
/// `'[100,200]'`, `true`, `'"quoted"'`), otherwise the text as a string (`red`,
/// `'#0000ff'`, `'Hello world'`, `90deg`).
struct ValueArgument: ExpressibleByArgument {
    let json: JSON

    init(argument: String) {
        json = (try? JSON(parsing: argument)) ?? .string(argument)
    }

    var defaultValueDescription: String { json.text }
}

/// `KEY VALUE [KEY VALUE]…` arguments, as a `properties` object.
enum PropertyPairs {
    /// Throws `ValidationError` when a key has no value or appears twice, and for
    /// arguments that start with `-` without being numbers: unknown options.
    static func validate(_ arguments: [String]) throws {
        if let option = arguments.first(where: { $0.hasPrefix("-") && Double($0) == nil }) {
            throw ValidationError("unknown option '\(option)'")
        }
        // `alignment=right` is the likeliest slip: said plainly, before the pairs it
        // misaligns make a key of a value. The first such slip always stands where a key
        // should; values may hold '='.
        if let written = stride(from: 0, to: arguments.count, by: 2).map({ arguments[$0] }).first(where: isAssignment) {
            let key = written.prefix { $0 != "=" }, value = written.drop { $0 != "=" }.dropFirst()
            throw ValidationError("properties are KEY VALUE pairs, not KEY=VALUE: write \(key) '\(value)' instead of '\(written)'")
        }
        guard arguments.count.isMultiple(of: 2) else {
            throw ValidationError("properties come in KEY VALUE pairs; '\(arguments.last!)' has no value")
        }
        var seen: Set<String> = []
        for key in stride(from: 0, to: arguments.count, by: 2).map({ arguments[$0] }) {
            guard !key.isEmpty else { throw ValidationError("a property KEY cannot be empty") }
            guard seen.insert(key).inserted else { throw ValidationError("the property '\(key)' is given twice") }
        }
    }

    /// `name=…` with a name that could be a key path: letters, digits, `_`, `-`, `.`.
    private static func isAssignment(_ argument: String) -> Bool {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else { return false }
        return argument[..<equals].allSatisfy { $0.isLetter || $0.isNumber || "_-.".contains($0) }
    }

    static func object(_ arguments: [String]) -> JSON {
        var properties: [String: JSON] = [:]
        for index in stride(from: 0, to: arguments.count - 1, by: 2) {
            properties[arguments[index]] = ValueArgument(argument: arguments[index + 1]).json
        }
        return .object(properties)
    }
}

/// A named timing curve (CAMediaTimingFunction's names).
enum TimingName: String, CaseIterable, ExpressibleByArgument {
    case linear, easeIn, easeOut, easeInEaseOut, `default`
}

/// `--timing`: a name, or the control points of a cubic Bézier `x1,y1,x2,y2`.
enum TimingCurve: ExpressibleByArgument {
    case named(TimingName)
    case bezier([Double])

    init?(argument: String) {
        if let name = TimingName(rawValue: argument) {
            self = .named(name)
            return
        }
        let trimmed = argument.trimmed { $0 == "[" || $0 == "]" || $0 == " " }
        let numbers = trimmed.split(separator: ",").compactMap { Double($0.trimmed { $0 == " " || $0 == "\t" }) }
        guard numbers.count == 4, numbers.allSatisfy(\.isFinite) else { return nil }
        self = .bezier(numbers)
    }

    static var allValueStrings: [String] { TimingName.allValueStrings + ["x1,y1,x2,y2"] }

    var json: JSON {
        switch self {
        case .named(let name): .string(name.rawValue)
        case .bezier(let points): .array(points.map(JSON.number))
        }
    }
}

/// `--repeat`: a number of passes (fractions allowed) or `infinity`.
enum RepeatCount: ExpressibleByArgument {
    case passes(Double)
    case forever

    init?(argument: String) {
        if ["infinity", "inf", "forever"].contains(argument.lowercased()) {
            self = .forever
        } else if let n = Double(argument), n.isFinite, n >= 0 {
            self = .passes(n)
        } else {
            return nil
        }
    }

    var json: JSON {
        switch self {
        case .passes(let n): .number(n)
        case .forever: .string("infinity")
        }
    }
}

/// CAMediaTiming's fill modes.
enum FillMode: String, CaseIterable, ExpressibleByArgument {
    case removed, forwards, backwards, both
}

extension StringProtocol {
    /// The text without the characters at either end that `isTrimmed` says go.
    func trimmed(_ isTrimmed: (Character) -> Bool) -> Substring {
        let text = Substring(self)
        guard let first = text.firstIndex(where: { !isTrimmed($0) }), let last = text.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return text[first...last]
    }
}
