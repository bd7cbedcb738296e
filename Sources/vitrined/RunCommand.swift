import ArgumentParser
import Foundation
import Logging
import VitrineConfig
import VitrineDaemon
import VitrineOutput
import VitrineProtocol

/// `vitrined` (or `vitrined run`): the daemon.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the display daemon (the default).")

    @Option(help: "The configuration file (default: /etc/vitrine/vitrine.toml when it exists).")
    var config: String?

    @Option(help: "Output backend: auto, headless. (auto is headless until the DRM backend lands.)")
    var backend: Backend?

    @Option(help: "The socket path (overrides socket.path).")
    var socket: String?

    @Option(help: "Headless output size WIDTHxHEIGHT.")
    var size: PixelSize?

    @Option(help: "manual: time moves only with clock.set / clock.advance; realtime: the wall clock.")
    var clock: DaemonSettings.ClockMode = .realtime

    @Option(help: "Directory the screenshot command may write into (overrides socket.screenshot_dir).")
    var screenshotDir: String?

    @Option(help: "Headless: write the latest frame to DIR/latest.png (at most once a second).")
    var snapshotDir: String?

    @Option(help: "Scene to show at start (JSON), instead of the configuration's scene.")
    var scene: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (overrides logging.level).")
    var logLevel: Logger.Level?

    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case auto, headless
    }

    static let defaultConfigPath = "/etc/vitrine/vitrine.toml"

    func run() throws {
        let path = config ?? (FileManager.default.fileExists(atPath: Self.defaultConfigPath) ? Self.defaultConfigPath : nil)
        let configuration: Configuration
        do {
            configuration = try path.map { p throws(ConfigError) in try Configuration.loadForDaemon(p) } ?? .default
        } catch {
            FileHandle.standardError.write(Data("vitrined: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        let level = logLevel ?? configuration.logLevel
        LoggingSystem.bootstrap { _ in StderrLogHandler(logLevel: level) }
        let logger = Logger(label: "vitrined")
        let settings = try settings(from: configuration)
        // Nothing scans a headless frame out, so one buffer (always one frame old) suffices.
        let output = try HeadlessOutput(width: settings.headlessWidth, height: settings.headlessHeight, refreshRate: settings.headlessRate, bufferCount: 1)
        do {
            let daemon = try Daemon(settings: settings, output: output, logger: logger)
            var isDirectory: ObjCBool = false
            let configured = configuration.output.snapshotDirectory
            daemon.snapshotDirectory = snapshotDir
                ?? (FileManager.default.fileExists(atPath: configured, isDirectory: &isDirectory) && isDirectory.boolValue ? configured : nil)
            if let path {
                daemon.reload = { () -> Result<DaemonSettings, ProtocolError> in
                    do {
                        return .success(try self.settings(from: Configuration.loadForDaemon(path)))
                    } catch let error as ConfigError {
                        return .failure(ProtocolError(.invalidConfig, error.description))
                    } catch {
                        return .failure(ProtocolError(.invalidConfig, "\(error)"))
                    }
                }
            }
            logger.info("vitrined \(vitrineVersion): \(output.name) \(output.mode), \(settings.clock.rawValue) clock, configuration \(path ?? "(defaults)")")
            try daemon.run(inheritedSocket: systemdSocket())
        } catch let error as SystemError {
            logger.critical("\(error.message)")
            throw ExitCode(1)
        }
    }

    /// The configuration's settings with this command line's overrides.
    private func settings(from configuration: Configuration) throws -> DaemonSettings {
        var settings = DaemonSettings(configuration)
        settings.clock = clock
        if let socket { settings.socketPath = socket }
        if let screenshotDir { settings.screenshotDirectory = screenshotDir }
        if let size { (settings.headlessWidth, settings.headlessHeight) = (size.width, size.height) }
        if let scene {
            do { settings.initialScene = try SceneDescription(contentsOf: URL(fileURLWithPath: scene)) } catch {
                throw ValidationError("\(scene): \(error.message)")
            }
            settings.imageDirectory = URL(fileURLWithPath: scene).deletingLastPathComponent().path
        }
        return settings
    }

    /// The listening socket systemd passed (socket activation), if any.
    private func systemdSocket() -> CInt? {
        let env = ProcessInfo.processInfo.environment
        guard let pid = env["LISTEN_PID"].flatMap(Int32.init), pid == getpid(), env["LISTEN_FDS"] == "1" else { return nil }
        return 3
    }
}

extension DaemonSettings.ClockMode: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
