import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import VitrineConfig
import VitrineDaemon
import VitrineLog
import VitrineOutput
import VitrineOutputSet
import VitrineProtocol
import VitrineSystem

/// `vitrined` (or `vitrined run`): the daemon.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the display daemon (the default).")

    @Option(help: "The configuration file (default: /etc/vitrine/vitrine.toml when it exists).")
    var config: String?

    @Option(
        help:
            "Output backend: auto (drm, else fbdev where there is no DRM card, else headless), drm, fbdev, headless, or x11 / wayland (a window on the desktop) (overrides output.backend)."
    )
    var backend: Backend?

    @Option(help: "DRM card or framebuffer device, e.g. /dev/dri/card0 (overrides output.device).")
    var device: String?

    @Option(help: "DRM connector, e.g. HDMI-A-1 or Virtual-1 (overrides output.connector).")
    var connector: String?

    @Option(help: "Screen mode: preferred, WxH or WxH@Hz (overrides output.mode).")
    var mode: String?

    @Option(help: "Screen rotation in degrees clockwise: 0, 90, 180 or 270 (overrides output.rotation).")
    var rotation: Int?

    @Option(help: "The socket path (overrides socket.path).")
    var socket: String?

    @Option(help: "Headless output size WIDTHxHEIGHT; also a window's first size when --mode / output.mode gives none.")
    var size: PixelSize?

    @Option(help: "manual: time moves only with clock.set / clock.advance; realtime: the wall clock.")
    var clock: DaemonSettings.ClockMode = .realtime

    @Option(help: "Directory the screenshot command may write into (overrides socket.screenshot_dir).")
    var screenshotDir: String?

    @Option(help: "Headless: write the latest frame to DIR/latest.png (at most once a second).")
    var snapshotDir: String?

    @Option(help: "Scene to show at start (JSON), instead of the configuration's scene; a journaled scene is restored instead unless --fresh.")
    var scene: String?

    @Option(help: "Directory of the scene journal, scene.json, and of the play log, playlog/ (overrides state.directory; made when missing).")
    var stateDir: String?

    @Flag(help: "Start with the initial scene: the scene journal is moved aside, not restored.")
    var fresh = false

    @Option(name: .customLong("content-root"), help: "A directory layers' contents may be read from (repeatable; adds to [content] roots).")
    var contentRoots: [String] = []

    @Option(help: "trace, debug, info, notice, warning, error or critical (overrides logging.level).")
    var logLevel: Logger.Level?

    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case auto, drm, fbdev, headless, x11, wayland
    }

    func validate() throws {
        if let mode, Configuration.Output.Mode(parsing: mode) == nil { throw ValidationError("--mode must be preferred, WxH or WxH@Hz, such as 1920x1080@60") }
        if let rotation, Configuration.Output.Rotation(rawValue: rotation) == nil { throw ValidationError("--rotation must be 0, 90, 180 or 270") }
    }

    static let defaultConfigPath = "/etc/vitrine/vitrine.toml"

    func run() throws {
        // Before any thread starts: these reach the daemon only through its event loop's
        // signalfd, whichever thread the kernel picks.
        EventLoop.blockSignals([SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2])
        ProcessMemory.returnLargeBlocks()
        let path = config ?? (FileManager.default.fileExists(atPath: Self.defaultConfigPath) ? Self.defaultConfigPath : nil)
        let configuration: Configuration
        do {
            configuration = try path.map { p throws(ConfigError) in try Configuration.loadForDaemon(p) } ?? .default
        } catch {
            writeStandardError("vitrined: \(error.description)\n")
            throw ExitCode(1)
        }
        let level = logLevel ?? configuration.logLevel
        LoggingSystem.bootstrap { _ in StderrLogHandler(program: "vitrined", logLevel: level) }
        let logger = Logger(label: "vitrined")
        var settings = try settings(from: configuration)
        var screen = configuration.output
        if let device { screen.device = device }
        if let connector { screen.connector = connector }
        if let mode, let parsed = Configuration.Output.Mode(parsing: mode) { screen.mode = parsed }
        if let rotation, let parsed = Configuration.Output.Rotation(rawValue: rotation) { screen.rotation = parsed }
        let chosen = backend.flatMap { Configuration.Output.Backend(rawValue: $0.rawValue) } ?? screen.backend
        let outputs: [OutputBackend]
        var hotplug: HotplugSource?
        var plymouth: PlymouthHandover?
        do {
            if chosen == .headless {
                let emulated = try EmulatedOutputs(configuration.outputs, settings: settings.emulatedOutputs)
                (outputs, hotplug) = (emulated.outputs, emulated)
            } else {
                if [.auto, .drm, .fbdev].contains(chosen) { plymouth = PlymouthHandover.deactivate(logger: logger) }
                outputs = try OutputChoice.open(chosen, output: screen, entries: configuration.outputs, settings: settings, logger: logger)
                hotplug = OutputChoice.drmHotplug(outputs, output: screen, entries: configuration.outputs)
            }
        } catch {
            logger.critical("\(chosen.rawValue) output: \(error)")
            throw ExitCode(1)
        }
        // Input devices go with a screen (the primary output); the headless output has none,
        // and a window has its own.
        let output = outputs[0]
        settings.opensInputDevices = configuration.input.enabled && !(output is HeadlessOutput) && !(output is WindowOutput)
        // A screen's table gives its rotation; fbdev and windows take the first table's.
        let primaryEntry =
            configuration.outputs.first { $0.connector == output.connector }
            ?? (screen.connector.isEmpty && !(output is DRMHead) ? configuration.outputs.first : nil)
        settings.outputRotation = (primaryEntry?.rotation ?? screen.rotation).rawValue
        do {
            let daemon = try Daemon(settings: settings, outputs: outputs, logger: logger)
            daemon.releasesStartupMemory = true
            daemon.hotplug = hotplug
            daemon.plymouth = plymouth
            var isDirectory = false
            let configured = configuration.output.snapshotDirectory
            daemon.snapshotDirectory =
                snapshotDir
                ?? (FileManager.default.fileExists(atPath: configured, isDirectory: &isDirectory) && isDirectory ? configured : nil)
            if let path {
                daemon.reload = { () -> Result<DaemonSettings, ProtocolError> in
                    do {
                        let fresh = try Configuration.loadForDaemon(path, reloading: true)
                        var settings = try self.settings(from: fresh)
                        // Keys read only at start are compared with what the daemon started with.
                        settings.restartNeeded = fresh.keysNeedingRestart(comparedWith: configuration)
                        return .success(settings)
                    } catch let error as ConfigError {
                        return .failure(ProtocolError(.invalidConfig, error.description))
                    } catch {
                        return .failure(ProtocolError(.invalidConfig, "\(error)"))
                    }
                }
            }
            let screens = outputs.map { "\($0.name) \($0.mode)" }.joined(separator: ", ")
            logger.info("vitrined \(vitrineVersion): \(screens), \(settings.clock.rawValue) clock, configuration \(path ?? "(defaults)")")
            try daemon.run(inheritedSocket: systemdSocket())
        } catch let error as SystemError {
            for output in outputs { output.close() }
            logger.critical("\(error.message)")
            throw ExitCode(1)
        }
    }

    /// The configuration's settings with this command line's overrides.
    private func settings(from configuration: Configuration) throws -> DaemonSettings {
        var settings = DaemonSettings(configuration)
        settings.clock = clock
        if let stateDir { (settings.stateDirectory, settings.stateDirectoryIsDefault) = (stateDir, false) }
        if let stateDir, settings.playLog.enabled { settings.playLogState = (stateDir, false) }
        settings.freshStart = fresh
        if let socket { settings.socketPath = socket }
        if let screenshotDir { settings.screenshotDirectory = screenshotDir }
        settings.contentRoots += contentRoots
        if let size { (settings.headlessWidth, settings.headlessHeight) = (size.width, size.height) }
        if let scene {
            do { settings.initialScene = try SceneDescription(contentsOf: URL(fileURLWithPath: scene)) } catch {
                throw ValidationError("\(scene): \(error.message)")
            }
            settings.imageDirectory = URL(fileURLWithPath: scene).deletingLastPathComponent().path
            settings.initialSceneOrigin = "the scene \(scene)"
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
