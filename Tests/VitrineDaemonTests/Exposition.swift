import Foundation

/// A strict reader of the Prometheus text exposition format (0.0.4): every line is a
/// `# HELP`, a `# TYPE` or a sample; names and label names follow the format's grammar,
/// label values its escapes; a family's TYPE comes once, before its samples, which are
/// together; no series twice; the text ends with a newline. Anything else is an error
/// naming the line.
struct Exposition {
    struct Series: Hashable, CustomStringConvertible {
        let name: String
        let labels: [String: String]
        var description: String {
            labels.isEmpty ? name : name + "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",") + "}"
        }
    }

    private(set) var types: [String: String] = [:]
    private(set) var help: [String: String] = [:]
    private(set) var samples: [Series: Double] = [:]

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Failure(description: "the text does not end with a newline") }
        var finished: Set<String> = []
        var current: String?
        for (number, line) in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func fail(_ why: String) -> Failure { Failure(description: "line \(number + 1) '\(line)': \(why)") }
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 3, parts[0] == "#", parts[1] == "HELP" || parts[1] == "TYPE" else { throw fail("a comment that is not HELP or TYPE") }
                let name = parts[2]
                guard Self.isMetricName(name) else { throw fail("not a metric name") }
                if parts[1] == "TYPE" {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else { throw fail("not a type") }
                    guard types[name] == nil else { throw fail("a second TYPE for \(name)") }
                    guard !samples.keys.contains(where: { Self.family(of: $0.name, types: [name: parts[3]]) == name }) else {
                        throw fail("TYPE after samples of \(name)")
                    }
                    types[name] = parts[3]
                } else {
                    guard help[name] == nil else { throw fail("a second HELP for \(name)") }
                    help[name] = parts.count == 4 ? parts[3] : ""
                }
                continue
            }
            var scanner = Substring(line)
            let name = String(scanner.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") })
            guard Self.isMetricName(name) else { throw fail("a sample without a metric name") }
            scanner = scanner.dropFirst(name.utf8.count)
            var labels: [String: String] = [:]
            if scanner.first == "{" {
                scanner = scanner.dropFirst()
                while scanner.first != "}" {
                    let label = String(scanner.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
                    guard !label.isEmpty, !label.first!.isNumber, !label.hasPrefix("__") else { throw fail("a bad label name") }
                    scanner = scanner.dropFirst(label.utf8.count)
                    guard scanner.hasPrefix("=\"") else { throw fail("a label without =\"") }
                    scanner = scanner.dropFirst(2)
                    var value = ""
                    while true {
                        guard let c = scanner.first else { throw fail("an unterminated label value") }
                        scanner = scanner.dropFirst()
                        if c == "\"" { break }
                        if c == "\\" {
                            guard let e = scanner.first, "\\\"n".contains(e) else { throw fail("a bad escape") }
                            scanner = scanner.dropFirst()
                            value.append(e == "n" ? "\n" : e)
                        } else {
                            value.append(c)
                        }
                    }
                    guard labels.updateValue(value, forKey: label) == nil else { throw fail("label \(label) twice") }
                    if scanner.first == "," { scanner = scanner.dropFirst() } else if scanner.first != "}" { throw fail("labels not separated by ,") }
                }
                scanner = scanner.dropFirst()
            }
            guard scanner.first == " " else { throw fail("no space before the value") }
            let fields = scanner.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 1 || fields.count == 2, let value = Self.number(fields[0]) else { throw fail("not a value") }
            if fields.count == 2, Int64(fields[1]) == nil { throw fail("not a timestamp") }
            guard let family = Self.family(of: name, types: types) else { throw fail("a sample of \(name) without a TYPE") }
            if family != current {
                guard !finished.contains(family) else { throw fail("samples of \(family) are not together") }
                if let current { finished.insert(current) }
                current = family
            }
            if types[family] == "counter" || name.hasSuffix("_bucket") || name.hasSuffix("_count") {
                guard value >= 0 else { throw fail("a negative count") }
            }
            let series = Series(name: name, labels: labels)
            guard samples.updateValue(value, forKey: series) == nil else { throw fail("\(series) twice") }
        }
    }

    /// The family `name` belongs to: itself, or a histogram's or summary's that it is a
    /// part (`_bucket`, `_sum`, `_count`) of.
    static func family(of name: String, types: [String: String]) -> String? {
        if types[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if let type = types[base], type == "histogram" || type == "summary", suffix != "_bucket" || type == "histogram" { return base }
        }
        return nil
    }

    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic || first == "_" || first == ":" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == ":") }
    }

    static func number(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default:
            guard !text.isEmpty, text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }) else { return nil }
            return Double(text)
        }
    }

    /// The value of `name` with `labels`.
    subscript(_ name: String, _ labels: [String: String] = [:]) -> Double? { samples[Series(name: name, labels: labels)] }
}
