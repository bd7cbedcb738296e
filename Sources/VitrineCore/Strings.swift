import Glibc

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs (not newlines). Inlinable,
    /// as `trimming(where:)`: a text layer's font name is read on every frame it animates,
    /// and unspecialized across modules these cost more than the trimming.
    @inlinable
    public func trimmingWhitespace() -> String {
        trimming { $0.isWhitespace && !$0.isNewline }
    }

    /// The string without leading and trailing characters for which `isTrimmed` is true.
    @inlinable
    public func trimming(where isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// `printf`-style formatting through the C library, for the conversions callers have
/// already validated (one argument per conversion).
public func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    // Most results are short: written into the stack first, to the heap only when longer
    // (bound text formats its numbers on every frame it animates).
    let short = 128
    let fitted: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: short) { buffer in
        let needed = Int(withVaList(arguments) { vsnprintf(buffer.baseAddress!, short, format, $0) })
        return needed < short ? String(cString: buffer.baseAddress!) : nil
    }
    if let fitted { return fitted }
    let capacity = Int(withVaList(arguments) { vsnprintf(nil, 0, format, $0) }) + 1
    var buffer = [CChar](repeating: 0, count: capacity)
    _ = withVaList(arguments) { vsnprintf(&buffer, capacity, format, $0) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
