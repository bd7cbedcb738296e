import CLibSeat
import Glibc
import Logging
import VitrineSystem

/// How input device files are opened: through a seat manager with libseat (when seatd
/// runs, or the daemon runs in a logind session), which hands the devices over and takes
/// them back on a session switch; else directly, which needs the service user in the
/// `input` group.
///
/// libseat is tried only when a seat manager is seen (seatd's socket, a logind session
/// with a seat, or `LIBSEAT_BACKEND`), so that its built-in seatd, which would take the
/// VT from the output, does not start in its place. Where libseat is not installed,
/// devices are opened directly, with a warning.
final class DeviceAccess {
    /// The libseat session, when devices are opened through one.
    private var seat: OpaquePointer?
    private var listener: UnsafeMutablePointer<libseat_seat_listener>?
    /// libseat's device ids by the descriptors it opened.
    private var deviceIDs: [CInt: CInt] = [:]
    /// Where libinput's log goes too (its callbacks reach this object).
    let logger: Logger
    /// Whether the seat may be used now (always, when devices are opened directly).
    private(set) var enabled = true
    /// Called when a seat manager takes the seat away (another session is active) and
    /// gives it back; devices are to be closed before `disable` returns.
    var onEnable: (() -> Void)?
    var onDisable: (() -> Void)?
    /// The devices refused since the last one that opened: path and errno.
    private(set) var refused: [(path: String, code: CInt)] = []

    init(logger: Logger) {
        self.logger = logger
        guard Self.seatManagerRuns() else { return }
        do { try FeatureLibraries("opening input devices through the seat manager", vitrine_libseat_load).load() } catch {
            logger.warning("input: \(error.message); opening input devices directly")
            return
        }
        let listener = UnsafeMutablePointer<libseat_seat_listener>.allocate(capacity: 1)
        listener.initialize(
            to: libseat_seat_listener(
                enable_seat: { _, data in
                    guard let data else { return }
                    let access = Unmanaged<DeviceAccess>.fromOpaque(data).takeUnretainedValue()
                    access.enabled = true
                    access.onEnable?()
                },
                disable_seat: { seat, data in
                    guard let data else { return }
                    let access = Unmanaged<DeviceAccess>.fromOpaque(data).takeUnretainedValue()
                    access.enabled = false
                    access.onDisable?()
                    _ = libseat_disable_seat(seat)
                }))
        self.listener = listener
        // The seat is enabled by a callback, which may come while it is being opened.
        enabled = false
        guard let seat = libseat_open_seat(listener, Unmanaged.passUnretained(self).toOpaque()) else {
            enabled = true
            logger.info("input: no seat manager session (\(SystemError.reason())); opening input devices directly")
            return
        }
        self.seat = seat
        _ = libseat_dispatch(seat, 0)
        logger.info(
            "input: devices opened through the seat manager (libseat, seat \(String(cString: libseat_seat_name(seat))))\(enabled ? "" : "; the session is not active yet")"
        )
    }

    deinit {
        if let seat { _ = libseat_close_seat(seat) }
        listener?.deallocate()
    }

    /// What opens the devices, for logs.
    var kind: String { seat == nil ? "directly" : "through libseat" }

    /// The descriptor to watch for the seat manager's messages, when there is one.
    var fd: CInt? { seat.map { libseat_get_fd($0) }.flatMap { $0 >= 0 ? $0 : nil } }

    /// Reads the seat manager's messages (enable and disable) without blocking.
    func dispatch() {
        guard let seat else { return }
        if libseat_dispatch(seat, 0) < 0 {
            logger.warning("input: reading the seat manager failed: \(SystemError.reason())")
        }
    }

    /// Opens `path` for libinput (`open_restricted`): a descriptor that libinput holds until
    /// it hands it back to `close`, or a negative errno. Directly, read-write
    /// and falling back to read-only where writes are refused (keyboard LEDs then stay dark).
    func open(_ path: String, flags: CInt) -> CInt {
        if let seat {
            var fd: CInt = -1
            let id = libseat_open_device(seat, path, &fd)
            guard id >= 0, fd >= 0 else { return refuse(path, errno) }
            deviceIDs[fd] = id
            refused.removeAll()
            return fd
        }
        var fd = Glibc.open(path, flags | O_NONBLOCK | O_CLOEXEC)
        if fd < 0, errno == EACCES || errno == EPERM, flags & O_ACCMODE == O_RDWR {
            fd = Glibc.open(path, (flags & ~O_ACCMODE) | O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        }
        guard fd >= 0 else { return refuse(path, errno) }
        refused.removeAll()
        return fd
    }

    /// Closes a descriptor `open` returned: libinput's `close_restricted`, whose contract
    /// is a raw descriptor that libinput owns between the two calls.
    func close(_ fd: CInt) {
        if let seat, let id = deviceIDs.removeValue(forKey: fd) { _ = libseat_close_device(seat, id) }
        Glibc.close(fd)
    }

    /// Asks the seat manager to switch to session (VT) `number`; false when devices are
    /// opened directly (the VT is then switched by the output's terminal).
    func switchSession(_ number: Int) -> Bool {
        guard let seat else { return false }
        if libseat_switch_session(seat, CInt(number)) < 0 {
            logger.warning("input: the seat manager refused to switch to session \(number): \(SystemError.reason())")
        }
        return true
    }

    /// Advice for devices that could not be opened.
    var advice: String {
        guard refused.contains(where: { $0.code == EACCES || $0.code == EPERM }) else { return "" }
        return seat == nil
            ? "add the service user to the input group (usermod -aG input vitrine, as packaging/vitrine.sysusers does) or run seatd or a logind session"
            : "the seat manager refused them: is the session active, and may this user use the seat (seatd's group)?"
    }

    private func refuse(_ path: String, _ code: CInt) -> CInt {
        if refused.count < 16 { refused.append((path, code)) }
        return -code
    }

    /// Whether a seat manager seems to be there for this process: seatd's socket, or a
    /// logind session with a seat (a login on a VT, or a unit with `PAMName=`), or a
    /// backend the operator names in `LIBSEAT_BACKEND`.
    private static func seatManagerRuns() -> Bool {
        func variable(_ name: String) -> Bool { getenv(name).map { $0.pointee != 0 } ?? false }
        return variable("LIBSEAT_BACKEND") || variable("SEATD_SOCK") || access("/run/seatd.sock", F_OK) == 0
            || (variable("XDG_SESSION_ID") && variable("XDG_SEAT"))
    }
}
