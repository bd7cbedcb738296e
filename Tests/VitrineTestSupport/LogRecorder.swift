import Logging
import Synchronization

/// A logger whose lines are kept, so that a test can read what a component said (a
/// warning's words) instead of it going to the console.
public final class LogRecorder: Sendable {
    private let kept = Mutex<[(level: Logger.Level, message: String)]>([])

    public init() {}

    /// A logger that records into this recorder, at every level.
    public var logger: Logger { Logger(label: "test") { _ in Handler(recorder: self) } }

    /// The lines so far, oldest first.
    public var lines: [(level: Logger.Level, message: String)] { kept.withLock { $0 } }

    /// The messages logged at `level` or above.
    public func messages(atLeast level: Logger.Level) -> [String] { lines.filter { $0.level >= level }.map { $0.message } }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            recorder.kept.withLock { $0.append((level, message.description)) }
        }
    }
}
