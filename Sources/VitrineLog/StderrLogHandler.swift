import FoundationEssentials
import Glibc
import Logging

/// Log lines on standard error in the form journald keeps well: under systemd
/// (`JOURNAL_STREAM` set) each line starts with its syslog priority (`<3>` for errors, as
/// sd-daemon(3) describes) and carries no timestamp of its own; elsewhere, a timestamp, the
/// level in words and the program's name.
///
/// ```swift
/// LoggingSystem.bootstrap { _ in StderrLogHandler(program: "vitrined", logLevel: .info) }
/// ```
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    /// The name each line carries off the journal.
    public let program: String
    let journal = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil

    /// A handler for `program`'s lines at `logLevel` and above.
    public init(program: String, logLevel: Logger.Level) {
        self.program = program
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata.merging(event.metadata ?? [:]) { $1 }
        if let error = event.error { all["error"] = "\(error)" }
        let context = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text: String
        if journal {
            text = "<\(Self.priority(event.level))>\(event.message)\(context)\n"
        } else {
            let stamp = Date.now.formatted(.iso8601)
            text = "\(stamp) \(event.level) \(program): \(event.message)\(context)\n"
        }
        writeStandardError(text)
    }

    /// syslog priorities: 7 debug … 2 critical.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// Writes `text` to standard error whole, unbuffered (log lines from several threads stay whole).
public func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        bytes = bytes.dropFirst(n)
    }
}
