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
