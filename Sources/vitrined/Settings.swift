import Logging
import VitrineConfig
import VitrineCore
import VitrineDaemon
import VitrineProtocol
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
        rolling = c.rollingNumberDefaults
    }
}

extension Configuration {
    /// Reads the configuration at `path`, with the layer kinds the daemon draws so that
    /// the initial scene is checked whole.
    static func loadForDaemon(_ path: String) throws(ConfigError) -> Configuration {
        try Configuration.load(contentsOf: path, kinds: [TextLayer.textLayerKind])
    }

    var logLevel: Logger.Level {
        Logger.Level(rawValue: logging.level.rawValue) ?? .info
    }
}
