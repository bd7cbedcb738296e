import Glibc

/// Writes to standard output and error, straight to the descriptors: lines go out at once,
/// so that `watch` and `send` can be read by another program while they run.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write("vitrinectl: " + text + "\n", to: STDERR_FILENO)
    }

    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
