import FoundationEssentials
import Glibc

/// A mistake in a configuration file: where it is and what to write instead.
///
/// ```text
/// /etc/vitrine/vitrine.toml:12: animation.spring.damping: must be a number ≥ 0, got "soft"
/// /etc/vitrine/vitrine.toml:3:9: Error while parsing key-value pair: expected value, saw '\n'
/// ```
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The configuration file (or the scene file it names) that holds the mistake.
    public var file: String
    /// The 1-based line of the mistake, when known: the parser's position for syntax errors;
    /// for other errors the line where the key is written (see `SourceLocator`).
    public var line: Int?
    /// The 1-based column, for syntax errors.
    public var column: Int?
    /// The dotted key, e.g. `animation.spring.damping` or `scene.layers[1]`; nil for syntax
    /// errors and unreadable files.
    public var key: String?
    /// What was wrong and the expected form.
    public var message: String

    /// An error at `file:line:column` about `key`.
    public init(file: String, line: Int? = nil, column: Int? = nil, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.key = key
        self.message = message
    }

    /// `file:line[:column]: key: message`, leaving out the parts that are unknown.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let line = column, self.line != nil { text += ":\(line)" }
        if let key { text += ": \(key)" }
        return text + ": " + message
    }
}

/// Finds the line on which a key is written, for errors found after parsing (TOMLKit gives
/// positions only for syntax errors).
///
/// The heuristic: scan the text line by line, keeping the `[table]` or `[[array]]` header
/// in effect (the n-th `[[a.b]]` header opens `a.b[n]`, counting from 0), and record each
/// `key = …` line under the header's path joined with its (possibly dotted) key. A key that
/// is not written on its own line (inside an inline table, say) falls back to the nearest
/// enclosing key or header that is, so the error still points near the mistake.
struct SourceLocator {
    private var lines: [String: Int] = [:]
    private var values: [String: String] = [:]

    init(_ text: String) {
        var table = ""
        var arrayCounts: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace()
            if line.hasPrefix("[") {
                let isArray = line.hasPrefix("[[")
                guard let end = line.firstIndex(of: "]") else { continue }
                let inner = line[line.index(line.startIndex, offsetBy: isArray ? 2 : 1)..<end]
                let parts = Self.keyParts(inner)
                var path = ""
                for (i, part) in parts.enumerated() {
                    path = path.isEmpty ? part : path + "." + part
                    if isArray && i == parts.count - 1 {
                        arrayCounts[path, default: 0] += 1
                        path += "[\(arrayCounts[path]! - 1)]"
                    } else if let count = arrayCounts[path] {
                        path += "[\(count - 1)]"
                    }
                }
                table = path
                if lines[path] == nil { lines[path] = index + 1 }
                continue
            }
            guard !line.hasPrefix("#"), let equals = Self.assignment(in: line) else { continue }
            let parts = Self.keyParts(line[..<equals])
            guard !parts.isEmpty else { continue }
            let path = ([table].filter { !$0.isEmpty } + parts).joined(separator: ".")
            if lines[path] == nil {
                lines[path] = index + 1
                values[path] = String(line[line.index(after: equals)...]).trimmingWhitespace()
            }
        }
    }

    /// The line of `key` (dotted, with `[n]` for array-of-tables elements), or of the nearest
    /// enclosing key or header that appears in the text.
    func line(of key: String) -> Int? {
        var path = key
        while !path.isEmpty {
            if let line = lines[path] { return line }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { return nil }
            path = String(path[..<cut])
        }
        return nil
    }

    /// The text after `key =` as written (including any trailing comment), when the key
    /// is on a line of its own.
    func writtenValue(of key: String) -> String? { values[key] }

    /// The position of the `=` of a `key = value` line, outside quoted key parts.
    private static func assignment(in line: String) -> String.Index? {
        var quote: Character?
        for i in line.indices {
            let c = line[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "=" {
                return i
            } else if !(c.isLetter || c.isNumber || c == "_" || c == "-" || c == "." || c == " " || c == "\t") {
                return nil
            }
        }
        return nil
    }

    private static func keyParts(_ text: Substring) -> [String] {
        text.split(separator: ".").map {
            $0.trimmingWhitespace().trimming { $0 == "\"" || $0 == "'" }
        }.filter { !$0.isEmpty }
    }
}
