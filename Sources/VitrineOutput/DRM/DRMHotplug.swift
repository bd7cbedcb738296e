import VitrineSystem

/// A DRM card's screens plugged in and unplugged while the daemon runs.
///
/// On each hotplug uevent of the card (`DRMHotplugMonitor`), the connectors are read again
/// (drmModeGetConnector probes them): a head whose connector is no longer connected, or no
/// longer offers the head's mode (another monitor on the cable), is reported removed and
/// released (its CRTC put back and freed; the VT stays in graphics mode); a connected
/// connector with modes and no head gets one, at its `[[outputs]]` settings, on a free
/// CRTC, and is reported added. Heads that did not change are not touched: only a new
/// head sets a mode, with its first frame.
public final class DRMHotplug: HotplugSource {
    public weak var hotplug: HotplugDelegate?
    public let card: DRMCard
    /// The heads driven now, in the order they came.
    public private(set) var heads: [DRMHead]
    public var outputs: [OutputBackend] { heads }
    private let settings: [String: DRMHeadSettings]
    private let defaults: DRMHeadSettings
    private var monitor: DRMHotplugMonitor?

    /// Follows `card`, whose screens `heads` drive now; a connector plugged in later gets
    /// `settings[name]` (any case), else `defaults`.
    public init(card: DRMCard, heads: [DRMHead], settings: [String: DRMHeadSettings], defaults: DRMHeadSettings) {
        self.card = card
        self.heads = heads
        self.settings = Dictionary(settings.map { ($0.key.lowercased(), $0.value) }) { a, _ in a }
        self.defaults = defaults
    }

    public func watchHotplug(on loop: EventLoop) throws {
        let monitor = try DRMHotplugMonitor(card: card.device.path)
        try monitor.attach(to: loop) { [weak self] event in self?.reprobe(event) }
        self.monitor = monitor
        card.log("drm: following \(card.device.path)'s connectors (udev \(monitor.source.rawValue) events)")
    }

    /// Reads the connectors again and brings the heads in line with them.
    public func reprobe(_ event: DRMHotplugEvent = DRMHotplugEvent()) {
        let kms: KMSCard
        do { kms = try card.rescan() } catch {
            card.log("drm: hotplug event, but the connectors cannot be read: \(error)")
            return
        }
        card.log(
            "drm: hotplug\(event.connector.map { " (connector \($0))" } ?? ""): "
                + kms.connectors.map { "\($0.name) \($0.status.rawValue)" }.joined(separator: ", "))
        for head in heads {
            let now = kms.connectors.first { $0.id == head.selection.connector.id }
            let stays = now.map { $0.status == .connected && $0.modes.contains { $0.outputMode == head.selection.mode.outputMode } } ?? false
            guard !stays else { continue }
            heads.removeAll { $0 === head }
            hotplug?.outputRemoved(head)
            head.release()
        }
        for connector in kms.connectors where connector.status == .connected && !connector.modes.isEmpty {
            guard !heads.contains(where: { $0.selection.connector.id == connector.id }) else { continue }
            do {
                let head = try DRMHead(card: card, connector: connector.name, settings: settings[connector.name.lowercased()] ?? defaults)
                heads.append(head)
                hotplug?.outputAdded(head)
            } catch {
                card.log("drm: \(connector.name) plugged in but left dark: \(error)")
            }
        }
    }
}
