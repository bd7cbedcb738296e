import VitrineSystem

/// The users a VNC listener lets in: a file of lines `user:password`, or
/// `user:password:view-only` for a user who may only watch (blank lines and lines starting
/// with `#` are skipped), read when the listener starts. It should be readable by the
/// daemon's user only (mode 0600).
public struct PasswordFile: Sendable {
    private let entries: [String: (password: [UInt8], viewOnly: Bool)]

    /// The suffix that makes a line's user view-only.
    static let viewOnlyFlag = ":view-only"

    /// Reads `path`.
    ///
    /// - Throws: `SystemError` when it cannot be read, names no user, or a line is not
    ///   `user:password[:view-only]`.
    public init(path: String) throws(SystemError) {
        let text = String(decoding: try SafeFile.read(path, limit: 1 << 20).bytes, as: UTF8.self)
        try self.init(text: text, origin: path)
    }

    /// Parses `text` (`origin` names it in errors).
    public init(text: String, origin: String) throws(SystemError) {
        var entries: [String: (password: [UInt8], viewOnly: Bool)] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty || line.hasPrefix("#") { continue }
            let viewOnly = line.hasSuffix(Self.viewOnlyFlag)
            if viewOnly { line = line.dropLast(Self.viewOnlyFlag.count) }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex, line.index(after: colon) != line.endIndex else {
                throw SystemError("\(origin):\(number + 1): a line is user:password or user:password:view-only (neither empty); got something else")
            }
            entries[String(line[..<colon])] = (Array(line[line.index(after: colon)...].utf8), viewOnly)
        }
        guard !entries.isEmpty else { throw SystemError("\(origin) names no user: write lines user:password") }
        self.entries = entries
    }

    /// Whether `user` may connect with `password` (compared in constant time): nil when
    /// not, else whether the user may only watch.
    public func check(user: String, password: String) -> Bool? {
        let given = Array(password.utf8)
        guard let expected = entries[user] else { return nil }
        var difference = UInt8(expected.password.count == given.count ? 0 : 1)
        for i in 0..<expected.password.count { difference |= expected.password[i] ^ (i < given.count ? given[i] : 0) }
        return difference == 0 ? expected.viewOnly : nil
    }
}
