import CLibInput
import Glibc
import Logging
import VitrineCore
import VitrineSystem

/// The seat's input devices, read through libinput (udev backend) on the event loop and
/// turned into `InputEvent`s: keys through the keymap (`Keyboard`) with key repeat,
/// touches and pointers in the scene's pixels (`OutputGeometry`). Devices plugged in or
/// removed while running come and go; a device removed while in use cancels its touches
/// and releases its keys and buttons. Nothing blocks: libinput's descriptor is read when
/// the loop sees it readable, and while no key is held no timer is armed.
///
/// ```swift
/// let input = try InputDevices(settings: config.input,
///                              output: OutputGeometry(width: 1280, height: 800, rotation: 90),
///                              loop: loop, logger: logger) { event in compositor.handle(event) }
/// input.switchVirtualTerminal = { vt in try? output.virtualTerminal?.activate(vt) }  // Ctrl+Alt+Fn
/// try? output.virtualTerminal?.silenceKeyboard()  // the VT gets no keystrokes meanwhile
/// output.virtualTerminal?.switched = { active in active ? input.resume() : input.suspend() }
/// input.update(output: OutputGeometry(width: 800, height: 1280, rotation: 0))  // a new mode
/// try input.apply(newSettings)  // keymap, key repeat, calibration, VT switching
/// input.stop()
/// ```
///
/// Devices are opened through libseat when a seat manager (seatd, logind) runs, else
/// directly (`DeviceAccess`). Each device added or removed is logged at info level, and
/// at start which devices were opened or why none could be. All calls are made on the
/// loop's thread.
public final class InputDevices {
    /// What a device can do, as libinput classes it.
    public enum Capability: String, Sendable, CaseIterable {
        case keyboard, pointer, touch, tablet, gesture, `switch`
    }

    /// A device in use.
    public struct Device: Sendable, Equatable {
        /// The name the kernel gives it ("AT Translated Set 2 keyboard").
        public var name: String
        /// Its event node ("/dev/input/event3").
        public var node: String
        public var capabilities: [Capability]

        public init(name: String, node: String, capabilities: [Capability]) {
            (self.name, self.node, self.capabilities) = (name, node, capabilities)
        }
    }

    /// Called with the VT (1…12) that Ctrl+Alt+F1…F12 ask for, when `[input] vt_switching`
    /// is on and no seat manager switches sessions; the daemon activates it on the
    /// output's terminal (`VirtualTerminal.activate`).
    public var switchVirtualTerminal: ((Int) -> Void)?

    /// The settings in use.
    public var settings: InputSettings { seat.settings }
    /// The output positions map onto.
    public var output: OutputGeometry { seat.output }
    /// The devices in use, in the order they were added.
    public var devices: [Device] { seat.devices }

    private let loop: EventLoop
    private let logger: Logger
    private let seat: InputSeat
    private let timer: RepeatTimer
    private let access: DeviceAccess
    private var udev: OpaquePointer?
    private var libinput: OpaquePointer?
    private var interface: UnsafeMutablePointer<libinput_interface>?
    private var assigned = false
    /// libinput's device handles by the ids the seat knows them by (their addresses), and
    /// those given `[input] calibration`.
    private var handles: [Int: OpaquePointer] = [:]
    private var calibrated: Set<Int> = []
    /// Why devices are closed: the seat manager took the seat, or `suspend()` was called.
    private var suspendedBy: Set<SuspendReason> = []
    /// While devices come and go for a suspend or resume, each is logged at debug level only.
    private var quiet = false

    private enum SuspendReason { case seat, caller }

    /// Compiles the keymap, opens the seat's devices and starts reading them on `loop`;
    /// `onEvent` is called on the loop with each event. Devices that cannot be opened are
    /// logged (with what to do), not thrown: they may come later.
    ///
    /// - Throws: `InputError` when libinput or libudev is not installed, the keymap does not
    ///   compile, or udev or libinput cannot be set up for the seat.
    public init(settings: InputSettings, output: OutputGeometry, loop: EventLoop, logger: Logger, onEvent: @escaping (InputEvent) -> Void) throws(InputError) {
        do { try FeatureLibraries("input", vitrine_libinput_load).load() } catch { throw InputError(error.message) }
        self.loop = loop
        self.logger = logger
        seat = try InputSeat(settings: settings, output: output, emit: onEvent)
        timer = try RepeatTimer()
        access = DeviceAccess(logger: logger)
        let weak = WeakDevices(self)
        seat.armRepeat = { timing in
            guard let timer = weak.devices?.timer else { return }
            if let timing { timer.arm(timing) } else { timer.disarm() }
        }
        seat.switchVirtualTerminal = { vt in weak.devices?.switchTo(vt) }
        try start()
    }

    deinit { stop() }

    private func start() throws(InputError) {
        guard let udev = udev_new() else { throw .failed("creating a udev context (udev_new)", errno) }
        self.udev = udev
        let interface = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        interface.initialize(
            to: libinput_interface(
                open_restricted: { path, flags, data in
                    guard let path, let data else { return -EINVAL }
                    return Unmanaged<DeviceAccess>.fromOpaque(data).takeUnretainedValue().open(String(cString: path), flags: flags)
                },
                close_restricted: { fd, data in
                    guard let data else { return }
                    Unmanaged<DeviceAccess>.fromOpaque(data).takeUnretainedValue().close(fd)
                }))
        self.interface = interface
        // libinput's callbacks (opening, closing, logging) reach the device access, which
        // outlives the context.
        guard let libinput = libinput_udev_create_context(interface, Unmanaged.passUnretained(access).toOpaque(), udev) else {
            throw InputError("cannot create a libinput context on udev (out of memory?)")
        }
        self.libinput = libinput
        vitrine_libinput_route_log(libinput)
        libinput_log_set_priority(libinput, LIBINPUT_LOG_PRIORITY_INFO)
        let weak = WeakDevices(self)
        do {
            try loop.watch(libinput_get_fd(libinput), for: .readable) { _ in weak.devices?.read() }
            try loop.watch(timer.fd, for: .readable) { _ in
                guard let devices = weak.devices else { return }
                devices.seat.repeatFired(devices.timer.read())
            }
            if let fd = access.fd { try loop.watch(fd, for: .readable) { _ in weak.devices?.access.dispatch() } }
        } catch {
            throw InputError("cannot watch the input devices on the event loop: \(error)")
        }
        access.onDisable = { weak.devices?.suspend(.seat) }
        access.onEnable = { weak.devices?.enableSeat() }
        if access.enabled {
            try assignSeat()
        } else {
            logger.info("input: waiting for the seat manager to hand over the seat")
        }
    }

    /// Gives libinput the seat: its devices are opened now, and those plugged in later as
    /// they come.
    private func assignSeat() throws(InputError) {
        guard let libinput, !assigned else { return }
        let name = seat.settings.seat
        guard libinput_udev_assign_seat(libinput, name) == 0 else {
            throw InputError(
                "cannot read the input devices of seat \(name) through udev — is systemd-udevd running, and is [input] seat the seat's name (loginctl seat-status)?"
            )
        }
        assigned = true
        quiet = true
        read()
        quiet = false
        let opened = devices.map { "\($0.node) \"\($0.name)\" (\($0.capabilities.map(\.rawValue).joined(separator: ", ")))" }
        if !opened.isEmpty {
            logger.info("input: seat \(name), \(opened.count) device\(opened.count == 1 ? "" : "s") opened \(access.kind): \(opened.joined(separator: "; "))")
        } else if !access.refused.isEmpty {
            let paths = access.refused.map { "\($0.path) (\(SystemError.reason(errno: $0.code)))" }.joined(separator: ", ")
            logger.error("input: no input device of seat \(name) could be opened: \(paths)\(access.advice.isEmpty ? "" : " — " + access.advice)")
        } else {
            logger.notice("input: seat \(name) has no input devices yet; devices plugged in are used as they come")
        }
    }

    /// Closes every device and stops reading them (also done when the object goes away).
    public func stop() {
        timer.disarm()
        access.onEnable = nil
        access.onDisable = nil
        if let libinput {
            loop.unwatch(libinput_get_fd(libinput))
            loop.unwatch(timer.fd)
            if let fd = access.fd { loop.unwatch(fd) }
            libinput_unref(libinput)
            self.libinput = nil
        }
        if let udev { udev_unref(udev) }
        udev = nil
        interface?.deallocate()
        interface = nil
        handles.removeAll()
    }

    // MARK: Settings

    /// A new size or rotation of the output: positions from now on map onto it, and the
    /// pointer is kept within it.
    public func update(output: OutputGeometry) {
        seat.update(output: output)
    }

    /// Applies what can change while running: the keymap (keys held stay held), key
    /// repeat, the touchscreens' calibration, VT switching, and the gesture settings kept
    /// in `settings`. `seat` and `enabled` take effect when the devices are opened again
    /// (a restart).
    ///
    /// - Throws: `InputError` when the new keymap does not compile; nothing is changed then.
    public func apply(_ new: InputSettings) throws(InputError) {
        let old = seat.settings
        try seat.apply(new)
        if new.keymap != old.keymap { logger.info("input: keymap \(Self.describe(new.keymap))") }
        if new.calibration != old.calibration {
            for id in handles.keys.sorted() { calibrate(id) }
        }
    }

    // MARK: Suspend

    /// Closes the devices until `resume()`: for the daemon to call when its VT is switched
    /// away (devices opened directly still deliver what is typed on the other VT).
    /// Touches down are cancelled and keys held released, as for removed devices.
    public func suspend() { suspend(.caller) }

    /// Opens the devices again after `suspend()`.
    public func resume() { resume(.caller) }

    private func suspend(_ reason: SuspendReason) {
        guard let libinput, suspendedBy.insert(reason).inserted, suspendedBy.count == 1 else { return }
        quiet = true
        libinput_suspend(libinput)
        read()
        quiet = false
        logger.info("input: devices closed until the session is back")
    }

    private func resume(_ reason: SuspendReason) {
        guard let libinput, suspendedBy.remove(reason) != nil, suspendedBy.isEmpty else { return }
        quiet = true
        if libinput_resume(libinput) != 0 { logger.warning("input: the devices could not be opened again (libinput_resume)") }
        read()
        quiet = false
        logger.info("input: \(handles.count) device\(handles.count == 1 ? "" : "s") open again")
    }

    /// The seat manager gave the seat (back).
    private func enableSeat() {
        guard assigned else {
            do { try assignSeat() } catch { logger.error("input: \(error)") }
            return
        }
        resume(.seat)
    }

    private func switchTo(_ vt: Int) {
        logger.info("input: Ctrl+Alt+F\(vt): switching to VT \(vt)")
        guard !access.switchSession(vt) else { return }
        if let switchVirtualTerminal {
            switchVirtualTerminal(vt)
        } else {
            logger.notice("input: no VT to switch from (the output is not on a VT)")
        }
    }

    // MARK: Events

    /// libinput's descriptor is readable: its events, in one batch, so that the touches of
    /// a device removed in it are cancelled rather than lifted.
    private func read() {
        guard let libinput else { return }
        let result = libinput_dispatch(libinput)
        if result < 0 { logger.warning("input: reading the devices failed: \(SystemError.reason(errno: -result))") }
        var batch: [OpaquePointer] = []
        while let event = libinput_get_event(libinput) { batch.append(event) }
        guard !batch.isEmpty else { return }
        let gone = Set(batch.filter { libinput_event_get_type($0) == LIBINPUT_EVENT_DEVICE_REMOVED }.map { Int(bitPattern: libinput_event_get_device($0)) })
        for event in batch {
            handle(event, removing: gone)
            libinput_event_destroy(event)
        }
    }

    private func handle(_ event: OpaquePointer, removing gone: Set<Int>) {
        let id = Int(bitPattern: libinput_event_get_device(event))
        let type = libinput_event_get_type(event)
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            added(libinput_event_get_device(event))
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            removed(id)
        case LIBINPUT_EVENT_KEYBOARD_KEY:
            guard let key = libinput_event_get_keyboard_event(event) else { return }
            seat.key(
                libinput_event_keyboard_get_key(key), pressed: libinput_event_keyboard_get_key_state(key) == LIBINPUT_KEY_STATE_PRESSED,
                time: Self.seconds(libinput_event_keyboard_get_time_usec(key)), device: id)
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            guard let touch = libinput_event_get_touch_event(event) else { return }
            let output = seat.output
            seat.touch(
                libinput_event_touch_get_seat_slot(touch), down: type == LIBINPUT_EVENT_TOUCH_DOWN,
                panelX: libinput_event_touch_get_x_transformed(touch, UInt32(output.panelWidth)),
                panelY: libinput_event_touch_get_y_transformed(touch, UInt32(output.panelHeight)),
                time: Self.seconds(libinput_event_touch_get_time_usec(touch)), device: id)
        case LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL:
            // Lifted because the device is going away: cancelled, not a tap.
            guard let touch = libinput_event_get_touch_event(event) else { return }
            seat.touchEnded(
                libinput_event_touch_get_seat_slot(touch), cancelled: type == LIBINPUT_EVENT_TOUCH_CANCEL || gone.contains(id),
                time: Self.seconds(libinput_event_touch_get_time_usec(touch)), device: id)
        case LIBINPUT_EVENT_POINTER_MOTION, LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE, LIBINPUT_EVENT_POINTER_BUTTON,
            LIBINPUT_EVENT_POINTER_SCROLL_WHEEL, LIBINPUT_EVENT_POINTER_SCROLL_FINGER, LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS:
            guard let pointer = libinput_event_get_pointer_event(event) else { return }
            self.pointer(pointer, type, device: id)
        default:
            // TOUCH_FRAME (each touch is passed on as it comes), the legacy POINTER_AXIS
            // (the SCROLL_* events say the same), gestures, tablets and switches.
            break
        }
    }

    private func pointer(_ event: OpaquePointer, _ type: libinput_event_type, device id: Int) {
        let time = Self.seconds(libinput_event_pointer_get_time_usec(event))
        switch type {
        case LIBINPUT_EVENT_POINTER_MOTION:
            seat.pointerMoved(dx: libinput_event_pointer_get_dx(event), dy: libinput_event_pointer_get_dy(event), time: time, device: id)
        case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
            let output = seat.output
            seat.pointerMoved(
                panelX: libinput_event_pointer_get_absolute_x_transformed(event, UInt32(output.panelWidth)),
                panelY: libinput_event_pointer_get_absolute_y_transformed(event, UInt32(output.panelHeight)), time: time, device: id)
        case LIBINPUT_EVENT_POINTER_BUTTON:
            seat.button(
                libinput_event_pointer_get_button(event), pressed: libinput_event_pointer_get_button_state(event) == LIBINPUT_BUTTON_STATE_PRESSED,
                time: time, device: id)
        default:
            let amount = { (axis: libinput_pointer_axis) -> Double in
                libinput_event_pointer_has_axis(event, axis) != 0 ? libinput_event_pointer_get_scroll_value(event, axis) : 0
            }
            seat.scroll(dx: amount(LIBINPUT_POINTER_AXIS_SCROLL_HORIZONTAL), dy: amount(LIBINPUT_POINTER_AXIS_SCROLL_VERTICAL), time: time, device: id)
        }
    }

    private func added(_ handle: OpaquePointer?) {
        guard let handle else { return }
        let classes: [(Capability, libinput_device_capability)] = [
            (.keyboard, LIBINPUT_DEVICE_CAP_KEYBOARD), (.pointer, LIBINPUT_DEVICE_CAP_POINTER), (.touch, LIBINPUT_DEVICE_CAP_TOUCH),
            (.tablet, LIBINPUT_DEVICE_CAP_TABLET_TOOL), (.gesture, LIBINPUT_DEVICE_CAP_GESTURE), (.switch, LIBINPUT_DEVICE_CAP_SWITCH),
        ]
        let capabilities = classes.filter { libinput_device_has_capability(handle, $0.1) != 0 }.map(\.0)
        let name = libinput_device_get_name(handle).map { String(cString: $0) } ?? "?"
        let node = libinput_device_get_sysname(handle).map { "/dev/input/" + String(cString: $0) } ?? "?"
        let id = Int(bitPattern: handle)
        handles[id] = handle
        seat.added(id, Device(name: name, node: node, capabilities: capabilities))
        calibrate(id)
        let uses = capabilities.isEmpty ? "nothing used" : capabilities.map(\.rawValue).joined(separator: ", ")
        log("input: added \(node) \"\(name)\" (\(uses))")
    }

    private func removed(_ id: Int) {
        guard let device = seat.members[id]?.device else { return }
        seat.removed(id, at: Double(EventLoop.monotonicNanoseconds()) / 1e9)
        handles[id] = nil
        calibrated.remove(id)
        log("input: removed \(device.node) \"\(device.name)\"")
    }

    /// Sets `[input] calibration` on a touchscreen that takes one, or puts its own back.
    private func calibrate(_ id: Int) {
        guard let handle = handles[id], seat.members[id]?.device.capabilities.contains(.touch) == true,
            libinput_device_config_calibration_has_matrix(handle) != 0
        else { return }
        var matrix = [Float](repeating: 0, count: 6)
        if let calibration = seat.settings.calibration, calibration.count == 6 {
            matrix = calibration.map { Float($0) }
        } else if calibrated.contains(id) {
            _ = libinput_device_config_calibration_get_default_matrix(handle, &matrix)
        } else {
            return
        }
        if libinput_device_config_calibration_set_matrix(handle, matrix) == LIBINPUT_CONFIG_STATUS_SUCCESS {
            if seat.settings.calibration != nil { calibrated.insert(id) } else { calibrated.remove(id) }
        } else {
            logger.warning("input: \(seat.members[id]?.device.node ?? "a device") refused the calibration matrix \(matrix)")
        }
    }

    // MARK: Helpers

    private func log(_ line: String) {
        if quiet { logger.debug("\(line)") } else { logger.info("\(line)") }
    }

    /// libinput's event time (CLOCK_MONOTONIC µs) in seconds.
    private static func seconds(_ microseconds: UInt64) -> Double { Double(microseconds) / 1e6 }

    private static func describe(_ keymap: InputSettings.Keymap) -> String {
        let parts = [("layout", keymap.layout), ("variant", keymap.variant), ("options", keymap.options), ("model", keymap.model), ("rules", keymap.rules)]
            .filter { !$0.1.isEmpty }.map { "\($0.0) \($0.1)" }
        return parts.isEmpty ? "the system's default" : parts.joined(separator: ", ")
    }
}

/// The devices, weakly, for the loop's handlers and callbacks that may outlive them.
private struct WeakDevices {
    weak var devices: InputDevices?
    init(_ devices: InputDevices) { self.devices = devices }
}

/// libinput's log messages, formatted by the C shim: to the devices' logger, errors as
/// warnings (a device's kernel or firmware bugs), the rest at debug level.
@_cdecl("vitrine_libinput_log_message")
func libinputLogMessage(_ libinput: OpaquePointer?, _ priority: CInt, _ message: UnsafePointer<CChar>?) {
    guard let libinput, let message, let data = libinput_get_user_data(libinput) else { return }
    let logger = Unmanaged<DeviceAccess>.fromOpaque(data).takeUnretainedValue().logger
    var text = Substring(String(cString: message))
    while let last = text.last, last.isNewline { text = text.dropLast() }
    if priority >= CInt(LIBINPUT_LOG_PRIORITY_ERROR.rawValue) { logger.warning("libinput: \(text)") } else { logger.debug("libinput: \(text)") }
}
