import VitrineSystem

/// Told by a backend whose outputs come and go while it runs (DRM connectors plugged and
/// unplugged, emulated outputs following the configuration), on the event loop.
public protocol HotplugDelegate: AnyObject {
    /// `output` appeared, with its connector's name and mode: attach it to the loop and
    /// draw it.
    func outputAdded(_ output: OutputBackend)
    /// `output` is gone: nothing may be presented to it any more. Its backend gives it
    /// back (buffers, CRTC) once the delegate has returned.
    func outputRemoved(_ output: OutputBackend)
}

/// A backend that reports outputs appearing and disappearing.
public protocol HotplugSource: AnyObject {
    /// Who hears of the changes.
    var hotplug: HotplugDelegate? { get set }
    /// The outputs there are now, in the order found.
    var outputs: [OutputBackend] { get }
    /// Starts watching for changes on `loop` (a udev monitor); called once, before the
    /// first frame.
    func watchHotplug(on loop: EventLoop) throws
}

/// A DRM card's hotplug uevent: the kernel's `change` of the card's `drm_minor` with
/// HOTPLUG=1, naming the connector (CONNECTOR=) and the property (PROPERTY=) that changed
/// where the driver says which.
public struct DRMHotplugEvent: Sendable, Hashable {
    /// The connector's object id; nil: any connector may have changed (re-probe all).
    public var connector: UInt32?
    /// The connector property that changed (link status, content protection), if given.
    public var property: UInt32?

    public init(connector: UInt32? = nil, property: UInt32? = nil) {
        self.connector = connector
        self.property = property
    }

    /// The hotplug `event` says of the card with device number `card`; nil when it is
    /// another device's, another action, or no hotplug.
    public init?(_ event: UdevMonitor.Event, card: UdevMonitor.DeviceNumber) {
        guard event.action == "change", event.subsystem == "drm", event.devnum == card, event.properties["HOTPLUG"] == "1" else { return nil }
        connector = event.properties["CONNECTOR"].flatMap { UInt32($0) }
        property = event.properties["PROPERTY"].flatMap { UInt32($0) }
    }
}

/// The hotplug uevents of one DRM card, read on the event loop.
///
/// ```swift
/// let watcher = try DRMHotplugMonitor(card: "/dev/dri/card0")
/// try watcher.attach(to: loop) { event in reprobe(event.connector) }
/// ```
public final class DRMHotplugMonitor {
    /// The card's device number.
    public let card: UdevMonitor.DeviceNumber
    /// Who sends the events: udevd, or the kernel where no udevd runs.
    public var source: UdevMonitor.Source { monitor.source }
    private let monitor: UdevMonitor

    /// Watches the card whose device node is `path` (subsystem "drm", type "drm_minor").
    public init(card path: String, source: UdevMonitor.Source = .automatic) throws(SystemError) {
        guard let number = UdevMonitor.DeviceNumber(ofDeviceAt: path) else {
            throw SystemError("\(path) is not a device node, so its hotplug events cannot be told apart; give the card's /dev/dri path")
        }
        card = number
        monitor = try UdevMonitor(subsystem: "drm", devtype: "drm_minor", source: source)
    }

    /// Calls `handler` on `loop` with each hotplug event of the card.
    public func attach(to loop: EventLoop, handler: @escaping (DRMHotplugEvent) -> Void) throws(SystemError) {
        let card = card
        try monitor.attach(to: loop) { event in
            if let hotplug = DRMHotplugEvent(event, card: card) { handler(hotplug) }
        }
    }
}
