import FoundationEssentials
import Glibc
import Logging
import VitrineConfig
import VitrineDaemon
import VitrineOutput

/// Opens the output the configuration and command line ask for.
enum OutputChoice {
    /// The DRM options from `[output]`, `VITRINE_DRM_ATOMIC` and the command line's
    /// overrides (already folded into `output`).
    static func drmOptions(_ output: Configuration.Output, environment: [String: String]) throws -> DRMOptions {
        guard let atomic = AtomicPolicy.fromEnvironment(environment) else {
            throw OutputError("VITRINE_DRM_ATOMIC must be auto, on or off, not \"\(environment["VITRINE_DRM_ATOMIC"] ?? "")\"")
        }
        let mode: ModeRequest =
            switch output.mode {
            case .preferred: .preferred
            case .fixed(let size, let rate): .size(width: size.width, height: size.height, refreshRate: rate)
            }
        return DRMOptions(
            device: output.device.isEmpty ? nil : output.device, connector: output.connector.isEmpty ? nil : output.connector,
            mode: mode, rotation: ScreenRotation(rawValue: output.rotation.rawValue) ?? .none, buffers: output.buffers, atomic: atomic)
    }

    /// The backend named by `backend` (the command line's, else the configuration's).
    static func open(_ backend: Configuration.Output.Backend, output: Configuration.Output, settings: DaemonSettings, logger: Logger) throws -> OutputBackend {
        let log: @Sendable (String) -> Void = { logger.info("\($0)") }
        let rotation = ScreenRotation(rawValue: output.rotation.rawValue) ?? .none
        // Nothing scans a headless frame out, so one buffer (always one frame old) suffices.
        let headless = {
            try HeadlessOutput(width: settings.headlessWidth, height: settings.headlessHeight, refreshRate: settings.headlessRate, bufferCount: 1)
        }
        let drm = { () throws -> OutputBackend in try DRMOutput(options: drmOptions(output, environment: ProcessInfo.processInfo.environment), log: log) }
        let fbdev = { () throws -> OutputBackend in
            let path = output.device.hasPrefix("/dev/fb") ? output.device : "/dev/fb0"
            return try FBDevOutput(path: path, rotation: rotation, log: log)
        }
        switch backend {
        case .auto:
            return try AutoBackend.choose(cardsPresent: !DRMDevice.candidates().isEmpty, drm: drm, fbdev: fbdev, headless: headless, log: log)
        case .drm: return try drm()
        case .fbdev: return try fbdev()
        case .headless: return try headless()
        case .x11:
            let size = windowMode(output, settings: settings)
            return try X11Output(width: size.width, height: size.height, refreshRate: size.refreshRate, log: log)
        case .wayland:
            let size = windowMode(output, settings: settings)
            return try WaylandOutput(width: size.width, height: size.height, refreshRate: size.refreshRate, log: log)
        }
    }

    /// The headless outputs: one per `[[outputs]]` table (named by its connector, at its
    /// mode's size, else `headless_size`; sides swapped for 90° and 270°), or the single
    /// "headless" output when there are none.
    static func headlessOutputs(_ entries: [Configuration.OutputEntry], settings: DaemonSettings) throws -> [OutputBackend] {
        guard !entries.isEmpty else {
            return [try HeadlessOutput(width: settings.headlessWidth, height: settings.headlessHeight, refreshRate: settings.headlessRate, bufferCount: 1)]
        }
        return try entries.map { entry in
            var size = PixelSize(width: settings.headlessWidth, height: settings.headlessHeight)
            var rate = settings.headlessRate
            if case .fixed(let fixed, let refresh) = entry.mode { (size, rate) = (fixed, refresh ?? rate) }
            if entry.rotation == .quarter || entry.rotation == .threeQuarters { size = PixelSize(width: size.height, height: size.width) }
            return try HeadlessOutput(name: entry.connector, width: size.width, height: size.height, refreshRate: rate, bufferCount: 1)
        }
    }

    /// A window's first size and its frame rate: `output.mode` when it gives a size (at
    /// `headless_rate` unless it says a rate), else the headless size (`--size`,
    /// `headless_size`) at `headless_rate`.
    static func windowMode(_ output: Configuration.Output, settings: DaemonSettings) -> OutputMode {
        switch output.mode {
        case .fixed(let size, let rate): OutputMode(width: size.width, height: size.height, refreshRate: rate ?? settings.headlessRate)
        case .preferred: OutputMode(width: settings.headlessWidth, height: settings.headlessHeight, refreshRate: settings.headlessRate)
        }
    }
}
