import Foundation

/// Writes to standard output and error. Lines are flushed at once, so that `watch` and
/// `send` can be read by another program while they run.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("vitrinectl: " + text + "\n").utf8))
    }
}
