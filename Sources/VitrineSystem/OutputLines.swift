/// Cuts a byte stream (a child's output) into lines without letting it grow memory: a
/// line longer than `maximumLine` bytes is given in pieces of that size, and a line that
/// reaches `maximumLine` without a newline is given at once.
///
/// ```swift
/// var lines = OutputLines(maximumLine: 4096)
/// lines.take(bytes) { line in log(line) }   // each complete line, without its newline
/// lines.finish { line in log(line) }        // at the end: what is left
/// ```
public struct OutputLines: Sendable {
    public let maximumLine: Int
    private var partial: [UInt8] = []
    /// The last line was given for its length: a newline right after it ends no other.
    private var cut = false

    public init(maximumLine: Int = 4096) {
        self.maximumLine = max(1, maximumLine)
        partial.reserveCapacity(self.maximumLine)
    }

    /// The bytes of a line begun and not ended yet.
    public var pendingBytes: Int { partial.count }

    /// Adds `bytes`, calling `line` with each line they complete (without "\n" or "\r\n").
    public mutating func take(_ bytes: some Collection<UInt8>, _ line: (String) -> Void) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !(cut && partial.isEmpty) { emit(line) }
                cut = false
            } else {
                partial.append(byte)
                cut = false
                if partial.count == maximumLine {
                    emit(line)
                    cut = true
                }
            }
        }
    }

    /// Gives what is left of an unfinished line, if anything.
    public mutating func finish(_ line: (String) -> Void) {
        if !partial.isEmpty { emit(line) }
    }

    private mutating func emit(_ line: (String) -> Void) {
        if partial.last == UInt8(ascii: "\r") { partial.removeLast() }
        line(String(decoding: partial, as: UTF8.self))
        partial.removeAll(keepingCapacity: true)
    }
}
