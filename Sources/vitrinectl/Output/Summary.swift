import VitrineJSON

/// The human-readable forms of results (without `--json`). Values are printed as JSON
/// text, so that they can be pasted back as VALUE arguments.
enum Summary {
    /// `key = value` lines, sorted by key; nil for an empty object.
    static func keyValues(_ object: JSON?) -> String? {
        guard let object = object?.object, !object.isEmpty else { return nil }
        return object.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value.text)" }.joined(separator: "\n")
    }

    /// `layer.tree`: one layer per line, `id (kind)`, indented two spaces per level.
    static func tree(_ node: JSON) -> String {
        var lines: [String] = []
        func visit(_ node: JSON, depth: Int) {
            let id = node["layer"]?.string ?? "?"
            let kind = node["kind"]?.string ?? "?"
            lines.append(String(repeating: "  ", count: depth) + "\(id) (\(kind))")
            for child in node["sublayers"]?.array ?? [] { visit(child, depth: depth + 1) }
        }
        visit(node, depth: 0)
        return lines.joined(separator: "\n")
    }

    /// `hello`: the daemon, its outputs, and what it understands.
    static func hello(_ result: JSON) -> String {
        func text(_ key: String) -> String { result[key].map { $0.string ?? $0.text } ?? "?" }
        func list(_ key: String) -> String { (result[key]?.array ?? []).compactMap(\.string).joined(separator: ", ") }
        var lines = ["vitrined \(text("version")), protocol \(text("protocol")), \(text("clock")) clock, time \(text("time"))"]
        for output in result["outputs"]?.array ?? [] {
            let size = (output["size"]?.array ?? []).map(\.text).joined(separator: "x")
            let rate = output["rate"].map(\.text) ?? "?"
            lines.append("output \(output["name"]?.string ?? "?"): \(size) at \(rate) Hz, root layer '\(output["root"]?.string ?? "?")'")
        }
        lines.append("kinds: " + list("kinds"))
        lines.append("events: " + list("events"))
        lines.append("commands: " + list("commands"))
        return lines.joined(separator: "\n")
    }

    /// `animation.list`: a table, one animation per row; nil when there are none.
    static func animations(_ result: JSON) -> String? {
        guard let items = result.array, !items.isEmpty else { return nil }
        let columns = ["key", "keyPath", "type", "duration", "beginTime", "repeatCount", "speed"]
        let rows = [columns.map { $0.uppercased() }] + items.map { item in columns.map { item[$0].map { $0.string ?? $0.text } ?? "-" } }
        let widths = columns.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        func padded(_ cell: String, _ column: Int) -> String {
            column == columns.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
        }
        return rows.map { row in row.enumerated().map { padded($1, $0) }.joined(separator: "  ") }.joined(separator: "\n")
    }
}
