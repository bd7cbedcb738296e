import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import VitrineConfig
import VitrineLog
import VitrineMetrics
import VitrineSystem

/// `vitrine-fleet`: the network side of a Vitrine screen, in a process of its own so that
/// the display process (`vitrined`) opens no IP socket and links no MQTT or TLS library.
///
/// It reads the daemon's configuration file: with `[fleet] enabled` it is the MQTT bridge
/// (a client of the daemon's control socket, docs/FLEET.md), with `[metrics] enabled` and a
/// `port` it serves the metrics on that TCP port (read from the daemon's metrics socket,
/// the bridge's own figures added). With neither it says so and exits.
@main
struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vitrine-fleet",
        abstract: "Vitrine's fleet bridge: MQTT to the display daemon's socket, and the metrics' TCP port.",
        discussion: """
            Reads [fleet], [metrics], [socket] and [limits] of the daemon's configuration file \
            (docs/FLEET.md, docs/CONFIG.md) and connects to the daemon's control socket as one \
            more client of it. Runs until SIGTERM or SIGINT.
            """)

    @Option(help: "The configuration file (default: /etc/vitrine/vitrine.toml when it exists).")
    var config: String?

    @Option(help: "The daemon's control socket (overrides socket.path).")
    var socket: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (overrides logging.level).")
    var logLevel: Logger.Level?

    static let defaultConfigPath = "/etc/vitrine/vitrine.toml"

    func run() throws {
        EventLoop.blockSignals([SIGTERM, SIGINT, SIGHUP, SIGPIPE])
        let path = config ?? (FileManager.default.fileExists(atPath: Self.defaultConfigPath) ? Self.defaultConfigPath : nil)
        let configuration: Configuration
        do {
            configuration = try path.map { p throws(ConfigError) in try Configuration.load(contentsOf: p) } ?? .default
        } catch {
            writeStandardError("vitrine-fleet: \(error.description)\n")
            throw ExitCode(1)
        }
        let level = logLevel ?? Logger.Level(rawValue: configuration.logging.level.rawValue) ?? .info
        LoggingSystem.bootstrap { _ in StderrLogHandler(program: "vitrine-fleet", logLevel: level) }
        let logger = Logger(label: "vitrine-fleet")
        let controlSocket = socket ?? configuration.socket.path
        let metrics = configuration.metrics
        let servesMetrics = metrics.enabled && metrics.port > 0
        guard configuration.fleet.enabled || servesMetrics else {
            logger.notice(
                "nothing to do: [fleet] is not enabled and [metrics] has no TCP port in \(path ?? "(no configuration file)"); enable one and start vitrine-fleet again"
            )
            return
        }
        do {
            let loop = try EventLoop()
            let workers = WorkerPool(threads: 1, loop: loop)
            var bridge: FleetBridge?
            if configuration.fleet.enabled {
                bridge = try FleetBridge(
                    fleet: configuration.fleet, limits: configuration.limits, controlSocket: controlSocket, loop: loop, workers: workers, logger: logger)
            }
            var relay: MetricsRelay?
            if servesMetrics {
                let daemonSocket = MetricsServer.daemonSocketPath(configured: metrics.socket, controlSocket: controlSocket)
                relay = MetricsRelay(metrics: metrics, daemonSocket: daemonSocket, bridge: bridge, loop: loop, logger: logger)
                try relay?.start()
            }
            try loop.watchSignals([SIGTERM, SIGINT, SIGHUP]) { number in
                if number == SIGHUP {
                    logger.notice("SIGHUP: vitrine-fleet reads its configuration at start only; restart it (systemctl restart vitrine-fleet)")
                } else {
                    logger.info("signal \(number): stopping")
                    loop.stop()
                }
            }
            let serving =
                (bridge.map { ", device \($0.device) on \(configuration.fleet.host):\(configuration.fleet.port)" } ?? "")
                + (servesMetrics ? ", metrics on \(metrics.address):\(metrics.port)" : "")
            logger.info("vitrine-fleet: configuration \(path ?? "(defaults)"), daemon socket \(controlSocket)\(serving)")
            bridge?.start()
            loop.run()
            bridge?.stop()
            relay?.stop()
            workers.stop()
            logger.info("stopped")
        } catch {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
