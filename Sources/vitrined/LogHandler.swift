import Foundation
import Logging

/// Log lines on standard error in the form journald keeps well: under systemd
/// (`JOURNAL_STREAM` set) each line starts with its syslog priority (`<3>` for errors, as
/// sd-daemon(3) describes) and carries no timestamp of its own; elsewhere, a timestamp and
/// the level in words.
struct StderrLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let journal = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        let all = metadata.merging(extra ?? [:]) { $1 }
        let context = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text: String
        if journal {
            text = "<\(Self.priority(level))>\(message)\(context)\n"
        } else {
            let stamp = ISO8601DateFormatter().string(from: Date())
            text = "\(stamp) \(level) vitrined: \(message)\(context)\n"
        }
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// syslog priorities: 7 debug … 2 critical.
    static func priority(_ level: Logger.Level) -> Int {
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
