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
    /// The daemon's settings from a configuration, with the journal's directory from
    /// the environment systemd gives.
    init(_ c: Configuration) {
        self.init(configuration: c)
        let systemd = ProcessInfo.processInfo.environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
        let state = (
            directory: c.state.directory.isEmpty ? systemd ?? "/var/lib/vitrine" : c.state.directory, isDefault: c.state.directory.isEmpty && systemd == nil
        )
        if c.state.journal { (stateDirectory, stateDirectoryIsDefault) = state }
        if c.playLog.enabled { playLogState = state }
    }
}

extension Configuration {
    /// Reads the configuration at `path`, with the layer kinds the daemon draws so that
    /// the initial scene is checked whole.
    /// The file is read as a regular file only (a FIFO or a device is refused, never
    /// waited on), at most `Configuration.fileLimit`. On a reload an empty file — what a crash or
    /// a full disk leaves mid-write — is an error: running on defaults instead would change
    /// every setting at once.
    static func loadForDaemon(_ path: String, reloading: Bool = false) throws(ConfigError) -> Configuration {
        let bytes: [UInt8]
        do { bytes = try SafeFile.read(path, limit: fileLimit).bytes } catch {
            throw ConfigError(file: path, message: "cannot read the configuration: \(error.reason)")
        }
        if reloading, bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
            throw ConfigError(file: path, message: "the file is empty; the running configuration stays (write the file whole, then reload)")
        }
        return try Configuration(contents: Data(bytes), source: path, kinds: [TextLayer.textLayerKind, VitrineRolling.RollingNumber.kind()])
    }

    var logLevel: Logger.Level {
        Logger.Level(rawValue: logging.level.rawValue) ?? .info
    }
}
