import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import VitrineConfig
import VitrineCore
import VitrineDecoderHelper
import VitrineLog
import VitrineProtocol
import VitrineRaster
import VitrineRender

/// `vitrined render`: draws a scene file at a given time into a PNG, without a screen.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a scene (JSON) at a given time to a PNG file.",
        discussion: """
            The scene uses the socket protocol's vocabulary; see docs/SCENE.md.
            Example: vitrined render --scene demo.json --time 0.5 --size 1280x800 --out frame.png
            """)

    @Option(help: "The scene file (JSON).")
    var scene: String

    @Option(help: "Media time in seconds at which to draw; animations begin at 0.")
    var time: Double = 0

    @Option(help: "Output size WIDTHxHEIGHT; defaults to the scene's size, else 1280x800.")
    var size: PixelSize?

    @Option(help: "Where to write the PNG.")
    var out: String

    func validate() throws {
        guard time.isFinite, time >= 0, time <= 1e6 else { throw ValidationError("--time must be a number of seconds from 0 to 1000000") }
    }

    /// A scene that cannot be drawn or a PNG that cannot be written: said on standard
    /// error, exit status 1 (a usage error is 64, with the usage).
    private static func failure(_ message: String) -> ExitCode {
        writeStandardError("vitrined render: \(message)\n")
        return ExitCode(1)
    }

    func run() throws {
        let description: SceneDescription
        do {
            description = try SceneDescription(contentsOf: URL(fileURLWithPath: scene))
        } catch {
            throw Self.failure("\(scene): \(error.message)")
        }
        let dimensions = size.map { Size(width: Double($0.width), height: Double($0.height)) } ?? description.size ?? Size(width: 1280, height: 800)
        let model = Scene()
        StandardKinds.register(in: model)
        try model.addRoot(id: "root", output: "render", size: dimensions)
        do {
            try description.apply(to: model, root: "root", at: 0)
        } catch {
            throw Self.failure("\(scene): \(error.message)")
        }
        _ = model.advance(to: time)
        let decoder = DecoderClient(settings: DecoderClient.Settings(executable: DecoderClient.defaultExecutable()), loop: nil, logger: Logger(label: "render"))
        let renderer = StandardKinds.renderer(imageDirectory: URL(fileURLWithPath: scene).deletingLastPathComponent().path, loader: decoder.loader())
        let surface = try renderer.snapshot(model, root: "root", at: time)
        do {
            try surface.writePNG(to: out)
        } catch {
            throw Self.failure("cannot write \(out): \(error)")
        }
        for (path, reason) in renderer.images.failures.sorted(by: { $0.key < $1.key }) {
            writeStandardError("vitrined: warning: image \(path) not drawn: \(reason)\n")
        }
    }
}

/// `WIDTHxHEIGHT` on the command line, as the configuration writes sizes.
extension PixelSize: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}
