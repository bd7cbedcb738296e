import VitrineJSON
import ArgumentParser
import Glibc

struct ScreenshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "screenshot",
        abstract: "Save the output as a PNG (screenshot).",
        discussion: """
            FILE is written by vitrinectl, with the picture the daemon sends, so it may be \
            anywhere you may write. With --on-daemon the daemon writes the file itself, inside \
            its screenshot directory (socket.screenshot_dir), and its full path is printed.
            Examples: vitrinectl screenshot frame.png
                      vitrinectl screenshot --on-daemon frame.png
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The PNG file to write.", completion: .file(extensions: ["png"]))
    var file: String?

    @Option(help: ArgumentHelp("Let the daemon write PATH (relative to its screenshot directory) instead.", valueName: "path"))
    var onDaemon: String?

    @Option(help: ArgumentHelp("The output to capture (default: the first).", valueName: "name"))
    var output: String?

    @Flag(help: "Draw the pointer's cursor over it where the screen shows one.")
    var cursor = false

    func validate() throws {
        switch (file, onDaemon) {
        case (nil, nil): throw ValidationError("give a FILE to write, or --on-daemon PATH")
        case (.some, .some): throw ValidationError("give a FILE or --on-daemon PATH, not both")
        default: break
        }
    }

    func run() throws {
        var fields: [String: JSON] = [:]
        if let output { fields["output"] = .string(output) }
        if cursor { fields["cursor"] = .bool(true) }
        if let onDaemon {
            fields["path"] = .string(onDaemon)
            try connection.send("screenshot", fields) { $0["path"]?.string }
            return
        }
        guard let file else { return }
        let result = try connection.send("screenshot", fields)
        guard let encoded = result["png"]?.string, let png = Base64.decode(encoded) else {
            throw Failure.local("the daemon's screenshot reply holds no PNG")
        }
        try Self.write(png, to: file)
    }

    /// Writes `bytes` to `path` atomically: to a new file beside it, renamed over it.
    static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = directory + ".\(name).vitrinectl-\(getpid())"
        func failure() -> Failure { .local("cannot write \(path): \(LineSocket.errorText())") }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure() }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                let error = failure()
                close(fd)
                unlink(temporary)
                throw error
            }
            offset += written
        }
        guard close(fd) == 0, rename(temporary, path) == 0 else {
            let error = failure()
            unlink(temporary)
            throw error
        }
    }
}

/// Base64 (RFC 4648, the standard alphabet, padded), as the daemon sends pictures.
enum Base64 {
    /// The bytes of `text`, or nil when it is not Base64.
    static func decode(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 4 * 3)
        var accumulator: UInt32 = 0, bits = 0, padding = 0
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): padding += 1; continue
            default: return nil
            }
            guard padding == 0 else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard (text.utf8.count % 4 == 0 || padding == 0), padding <= 2, bits < 6 else { return nil }
        return bytes
    }
}
