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
        return DRMOptions(
            device: output.device.isEmpty ? nil : output.device, connector: output.connector.isEmpty ? nil : output.connector,
            mode: modeRequest(output.mode), rotation: ScreenRotation(rawValue: output.rotation.rawValue) ?? .none, buffers: output.buffers, atomic: atomic)
    }

    /// The outputs of the backend named by `backend` (the command line's, else the
    /// configuration's): a head per connected connector on DRM, one screen or window
    /// otherwise.
    static func open(
        _ backend: Configuration.Output.Backend, output: Configuration.Output, entries: [Configuration.OutputEntry], settings: DaemonSettings,
        logger: Logger
    ) throws -> [OutputBackend] {
        let log: @Sendable (String) -> Void = { logger.info("\($0)") }
        // fbdev and windows show one screen: [output]'s, or the first [[outputs]] table's.
        var single = output
        if single.connector.isEmpty, let first = entries.first { (single.mode, single.rotation) = (first.mode, first.rotation) }
        let rotation = ScreenRotation(rawValue: single.rotation.rawValue) ?? .none
        // Nothing scans a headless frame out, so one buffer (always one frame old) suffices.
        let headless = {
            try HeadlessOutput(width: settings.headlessWidth, height: settings.headlessHeight, refreshRate: settings.headlessRate, bufferCount: 1)
        }
        let drm = { () throws -> [OutputBackend] in
            try drmHeads(output, entries: entries, environment: ProcessInfo.processInfo.environment, log: log)
        }
        let fbdev = { () throws -> OutputBackend in
            let path = single.device.hasPrefix("/dev/fb") ? single.device : "/dev/fb0"
            return try FBDevOutput(path: path, rotation: rotation, log: log)
        }
        switch backend {
        case .auto:
            var heads: [OutputBackend] = []
            let first = try AutoBackend.choose(
                cardsPresent: !DRMDevice.candidates().isEmpty,
                drm: {
                    heads = try drm()
                    return heads[0]
                }, fbdev: fbdev, headless: headless, log: log)
            return heads.first === first ? heads : [first]
        case .drm: return try drm()
        case .fbdev: return [try fbdev()]
        case .headless: return [try headless()]
        case .x11:
            let size = windowMode(single, settings: settings)
            return [try X11Output(width: size.width, height: size.height, refreshRate: size.refreshRate, log: log)]
        case .wayland:
            let size = windowMode(single, settings: settings)
            return [try WaylandOutput(width: size.width, height: size.height, refreshRate: size.refreshRate, log: log)]
        }
    }

    /// A head for every connected connector of the card: each at its `[[outputs]]`
    /// table's mode and rotation, else `[output]`'s; `[output]`'s connector (or the
    /// command line's) first, then the tables' connectors in their order, then the rest.
    static func drmHeads(
        _ output: Configuration.Output, entries: [Configuration.OutputEntry], environment: [String: String], log: @escaping @Sendable (String) -> Void
    ) throws -> [OutputBackend] {
        let options = try drmOptions(output, environment: environment)
        return try DRMCard.openAll(options: options, heads: drmHeadSettings(output, entries: entries), order: entries.map(\.connector), log: log)
    }

    /// Each `[[outputs]]` table's mode and rotation for its connector's head.
    static func drmHeadSettings(_ output: Configuration.Output, entries: [Configuration.OutputEntry]) -> [String: DRMHeadSettings] {
        var heads: [String: DRMHeadSettings] = [:]
        for entry in entries {
            heads[entry.connector] = DRMHeadSettings(
                mode: modeRequest(entry.mode), rotation: ScreenRotation(rawValue: entry.rotation.rawValue) ?? .none, buffers: output.buffers)
        }
        return heads
    }

    /// What follows the card's screens plugged in and unplugged, when `outputs` are its
    /// heads.
    static func drmHotplug(_ outputs: [OutputBackend], output: Configuration.Output, entries: [Configuration.OutputEntry]) -> DRMHotplug? {
        let heads = outputs.compactMap { $0 as? DRMHead }
        guard let card = heads.first?.card, heads.count == outputs.count else { return nil }
        let defaults = DRMHeadSettings(
            mode: modeRequest(output.mode), rotation: ScreenRotation(rawValue: output.rotation.rawValue) ?? .none, buffers: output.buffers)
        return DRMHotplug(card: card, heads: heads, settings: drmHeadSettings(output, entries: entries), defaults: defaults)
    }

    static func modeRequest(_ mode: Configuration.Output.Mode) -> ModeRequest {
        switch mode {
        case .preferred: .preferred
        case .fixed(let size, let rate): .size(width: size.width, height: size.height, refreshRate: rate)
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
