import Glibc

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs (not newlines).
    public func trimmingWhitespace() -> String {
        trimming { $0.isWhitespace && !$0.isNewline }
    }

    /// The string without leading and trailing characters for which `isTrimmed` is true.
    public func trimming(where isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// `printf`-style formatting through the C library, for the conversions callers have
/// already validated (one argument per conversion).
public func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    var capacity = 128
    var buffer = [CChar](repeating: 0, count: capacity)
    let needed = Int(withVaList(arguments) { vsnprintf(&buffer, capacity, format, $0) })
    if needed >= capacity {
        capacity = needed + 1
        buffer = [CChar](repeating: 0, count: capacity)
        _ = withVaList(arguments) { vsnprintf(&buffer, capacity, format, $0) }
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
