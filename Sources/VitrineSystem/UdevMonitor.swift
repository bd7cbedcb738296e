internal import CUDev
import Glibc
import SystemPackage

/// Device events of one subsystem, read on the event loop as they come: a udev monitor.
///
/// ```swift
/// let monitor = try UdevMonitor(subsystem: "drm", devtype: "drm_minor")
/// try monitor.attach(to: loop) { event in
///     if event.action == "change", event.properties["HOTPLUG"] == "1" { … }
/// }
/// ```
///
/// Events come from udevd once its rules ran (`.udev`), or straight from the kernel
/// (`.kernel`) where no udevd runs (an initramfs, a container): by default the first when
/// udevd is running (/run/udev/control exists), else the second. Either way, events of
/// other subsystems and device types are left out. The monitor and its udev context are
/// freed with it.
public final class UdevMonitor {
    /// Who sends the events.
    public enum Source: String, Sendable {
        /// udevd, after its rules ran (properties of its rules included).
        case udev
        /// The kernel's uevents as they are raised.
        case kernel

        /// `.udev` while udevd runs, else `.kernel`.
        public static var automatic: Source { access("/run/udev/control", F_OK) == 0 ? .udev : .kernel }
    }

    /// One device event.
    public struct Event: Sendable, Hashable {
        /// "add", "remove", "change", "bind", …
        public var action: String
        public var subsystem: String
        /// The device type ("drm_minor"), "" when it has none.
        public var devtype: String
        /// The device's name in sysfs ("card0").
        public var sysname: String
        /// Its device number (major, minor), nil when it has none.
        public var devnum: DeviceNumber?
        /// Every property of the event (ACTION, DEVPATH, HOTPLUG, CONNECTOR, …).
        public var properties: [String: String]

        public init(action: String, subsystem: String, devtype: String = "", sysname: String, devnum: DeviceNumber? = nil, properties: [String: String] = [:]) {
            self.action = action
            self.subsystem = subsystem
            self.devtype = devtype
            self.sysname = sysname
            self.devnum = devnum
            self.properties = properties
        }
    }

    /// A device's major and minor number.
    public struct DeviceNumber: Sendable, Hashable, CustomStringConvertible {
        public var major: UInt32
        public var minor: UInt32

        public init(major: UInt32, minor: UInt32) {
            self.major = major
            self.minor = minor
        }

        /// The number of the device node or special file at `path`; nil when it is none.
        public init?(ofDeviceAt path: String) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR || (info.st_mode & S_IFMT) == S_IFBLK else { return nil }
            self.init(info.st_rdev)
        }

        init(_ number: dev_t) {
            major = gnu_dev_major(number)
            minor = gnu_dev_minor(number)
        }

        public var description: String { "\(major):\(minor)" }
    }

    public let source: Source
    public let subsystem: String
    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    private weak var loop: EventLoop?

    /// A monitor of `subsystem`'s events (of `devtype`'s devices only, when given),
    /// receiving from now on.
    ///
    /// - Throws: `SystemError` when libudev is not installed or the monitor cannot be made.
    public init(subsystem: String, devtype: String? = nil, source: Source = .automatic) throws(SystemError) {
        try FeatureLibraries("listening for \(subsystem) device events", vitrine_udev_load).load()
        guard let udev = udev_new() else { throw SystemError("cannot create a udev context (udev_new) for \(subsystem) device events", code: .last) }
        guard let monitor = udev_monitor_new_from_netlink(udev, source.rawValue) else {
            let code = Errno.last
            udev_unref(udev)
            throw SystemError.errno("listen for \(subsystem) device events on", "the \(source.rawValue) netlink socket", code)
        }
        self.udev = udev
        self.monitor = monitor
        self.source = source
        self.subsystem = subsystem
        guard udev_monitor_filter_add_match_subsystem_devtype(monitor, subsystem, devtype) >= 0, udev_monitor_enable_receiving(monitor) >= 0 else {
            throw SystemError.errno("receive \(subsystem) device events from", "the \(source.rawValue) netlink socket")
        }
    }

    deinit {
        loop?.unwatch(udev_monitor_get_fd(monitor))
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Calls `handler` on `loop` with each event as it arrives.
    public func attach(to loop: EventLoop, handler: @escaping (Event) -> Void) throws(SystemError) {
        let fd = udev_monitor_get_fd(monitor)
        try loop.watch(fd, for: .readable) { [weak self] _ in
            guard let self else { return }
            for event in receive() { handler(event) }
        }
        self.loop = loop
    }

    /// The events waiting on the socket (none when nothing came).
    public func receive() -> [Event] {
        var events: [Event] = []
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            events.append(Self.event(of: device))
        }
        return events
    }

    private static func event(of device: OpaquePointer) -> Event {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        var properties: [String: String] = [:]
        var entry = udev_device_get_properties_list_entry(device)
        while let current = entry {
            properties[text(udev_list_entry_get_name(current))] = text(udev_list_entry_get_value(current))
            entry = udev_list_entry_get_next(current)
        }
        let number = udev_device_get_devnum(device)
        return Event(
            action: text(udev_device_get_action(device)), subsystem: text(udev_device_get_subsystem(device)),
            devtype: text(udev_device_get_devtype(device)), sysname: text(udev_device_get_sysname(device)),
            devnum: number == 0 ? nil : DeviceNumber(number), properties: properties)
    }
}
