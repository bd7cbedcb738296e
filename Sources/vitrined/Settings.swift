import FoundationEssentials
import Logging
import VitrineConfig
import VitrineCore
import VitrineDaemon
import VitrineProtocol
import VitrineRolling
import VitrineSystem
import VitrineText

extension DaemonSettings {
    /// The daemon's settings from a configuration.
    init(_ c: Configuration) {
        self.init()
        socketPath = c.socket.path
        socketMode = c.socket.mode
        socketGroup = c.socket.group.isEmpty ? nil : c.socket.group
        screenshotDirectory = c.socket.screenshotDirectory
        headlessWidth = c.output.headlessSize.width
        headlessHeight = c.output.headlessSize.height
        headlessRate = c.output.headlessRate
        background = c.scene.background ?? c.output.background
        sceneConfiguration = c.sceneConfiguration
        initialScene = c.scene.content
        if !c.scene.file.isEmpty {
            initialSceneOrigin = "the scene \(c.scene.file) ([scene] file)"
            imageDirectory = String(c.scene.file.prefix(upTo: c.scene.file.lastIndex(of: "/") ?? c.scene.file.endIndex))
        }
        fontDirectories = c.fonts.directories
        limits.lineBytes = c.limits.lineBytes
        limits.clients = c.limits.clients
        limits.subscriptionsPerClient = c.limits.subscriptionsPerClient
        limits.outboundBytes = c.limits.outboundBytes
        limits.idleSeconds = Double(c.limits.idleSeconds)
        limits.memoryMB = c.limits.memoryMB
        contentRoots = c.content.roots
        rolling = c.rollingNumberDefaults
        spring = c.animation.spring.model
        if c.state.journal {
            let systemd = ProcessInfo.processInfo.environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
            stateDirectory = c.state.directory.isEmpty ? systemd ?? "/var/lib/vitrine" : c.state.directory
            stateDirectoryIsDefault = c.state.directory.isEmpty && systemd == nil
        }
    }
}

extension Configuration {
    /// Reads the configuration at `path`, with the layer kinds the daemon draws so that
    /// the initial scene is checked whole.
    /// The file is read as a regular file only (a FIFO or a device is refused, never
    /// waited on), at most `maximumFileBytes`. On a reload an empty file — what a crash or
    /// a full disk leaves mid-write — is an error: running on defaults instead would change
    /// every setting at once.
    static func loadForDaemon(_ path: String, reloading: Bool = false) throws(ConfigError) -> Configuration {
        let bytes: [UInt8]
        do { bytes = try SafeFile.read(path, limit: maximumFileBytes).bytes } catch {
            throw ConfigError(file: path, message: "cannot read the configuration: \(error.message)")
        }
        if reloading, bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
            throw ConfigError(file: path, message: "the file is empty; the running configuration stays (write the file whole, then reload)")
        }
        return try Configuration(contents: Data(bytes), source: path, kinds: [TextLayer.textLayerKind, VitrineRolling.RollingNumber.kind()])
    }

    /// The largest configuration file read.
    static let maximumFileBytes = 4 << 20

    var logLevel: Logger.Level {
        Logger.Level(rawValue: logging.level.rawValue) ?? .info
    }
}
