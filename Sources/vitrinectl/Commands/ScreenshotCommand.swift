import ArgumentParser
import Foundation
import VitrineProtocol

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
        if let onDaemon {
            fields["path"] = .string(onDaemon)
            try connection.send("screenshot", fields) { $0["path"]?.string }
            return
        }
        guard let file else { return }
        let result = try connection.send("screenshot", fields)
        guard let encoded = result["png"]?.string, let png = Data(base64Encoded: encoded) else {
            throw Failure.local("the daemon's screenshot reply holds no PNG")
        }
        do {
            try png.write(to: URL(fileURLWithPath: file), options: .atomic)
        } catch {
            throw Failure.local("cannot write \(file): \((error as NSError).localizedDescription)")
        }
    }
}
