import CLinuxConsole
import FoundationEssentials
import Glibc
import VitrineSystem

/// The Linux virtual terminal the daemon shows on: switched to graphics mode (so the
/// kernel console neither draws over the picture nor blinks its cursor), and asked to
/// let us know before a VT switch (VT_PROCESS) so that DRM master can be dropped and
/// taken back. While the daemon reads the keyboards, `silenceKeyboard()` turns the VT's
/// own keyboard off. `restore()` puts text mode, the keyboard and automatic switching back.
public final class VirtualTerminal {
    public let path: String
    /// The VT opened here (closed with this object), or nil for standard input, which is
    /// not ours to close.
    private let device: OwnedDescriptor?
    private let fd: Int32
    private var savedKDMode: Int32 = -1
    private var savedVTMode: vt_mode?
    /// The keyboard mode found, while `silenceKeyboard()` holds the keyboard off (-1: not).
    private var savedKeyboardMode: Int32 = -1
    /// The loop whose signalfd reads the switch signals, once switches are handled.
    private var loop: EventLoop?
    private var restored = false

    /// Called with false just before the VT is left and with true once it is back (with
    /// `handleSwitches`): the input devices, opened directly, are closed meanwhile so that
    /// what is typed on the other VT does not reach the scene.
    public var switched: ((_ active: Bool) -> Void)?

    private init(path: String, device: OwnedDescriptor?) {
        self.path = path
        self.device = device
        fd = device?.rawValue ?? STDIN_FILENO
    }

    /// Standard input when it is a VT (systemd's `TTYPath=` / `StandardInput=tty`), else
    /// the foreground VT found through /dev/tty0; nil when neither is (ssh, a container,
    /// no permission) — then nothing VT-related is done.
    public static func current() -> VirtualTerminal? {
        var mode: Int32 = 0
        if vitrine_kd_get_mode(0, &mode) == 0 {
            return VirtualTerminal(path: ttyname(0).map { String(cString: $0) } ?? "stdin", device: nil)
        }
        guard let console = try? OwnedDescriptor(valueOrErrno { open("/dev/tty0", O_RDWR | O_CLOEXEC | O_NOCTTY) }) else { return nil }
        var state = vt_stat()
        guard vitrine_vt_get_state(console.rawValue, &state) == 0 else { return nil }
        let path = "/dev/tty\(state.v_active)"
        guard let device = try? OwnedDescriptor(valueOrErrno { open(path, O_RDWR | O_CLOEXEC | O_NOCTTY) }) else { return nil }
        return VirtualTerminal(path: path, device: device)
    }

    /// KD_GRAPHICS; the mode found is restored by `restore()`.
    public func enterGraphicsMode() throws(DisplayError) {
        var mode: Int32 = 0
        let fd = self.fd
        try systemCall("KDGETMODE", path) { vitrine_kd_get_mode(fd, &mode) }
        savedKDMode = mode
        try systemCall("KDSETMODE KD_GRAPHICS", path) { vitrine_kd_set_mode(fd, vitrine_kd_graphics()) }
    }

    /// K_OFF: keystrokes no longer reach the VT (its shell, its Ctrl+C, its own
    /// Ctrl+Alt+Fn switching) while the daemon reads the keyboards itself, as Weston and
    /// wlroots do. The mode found comes back on `restore()` and while the VT is switched away.
    public func silenceKeyboard() throws(DisplayError) {
        var mode: Int32 = 0
        let fd = self.fd
        try systemCall("KDGKBMODE", path) { vitrine_kd_get_keyboard_mode(fd, &mode) }
        try systemCall("KDSKBMODE K_OFF", path) { vitrine_kd_set_keyboard_mode(fd, vitrine_kd_keyboard_off()) }
        if savedKeyboardMode < 0 { savedKeyboardMode = mode }
    }

    /// Switches to VT `number` (Ctrl+Alt+Fn read by the daemon while the keyboard is off);
    /// with `handleSwitches`, the release runs before the switch completes.
    public func activate(_ number: Int) throws(DisplayError) {
        let fd = self.fd
        try systemCall("VT_ACTIVATE \(number)", path) { vitrine_vt_activate(fd, Int32(number)) }
    }

    /// Takes over VT switching: before the VT is left, `release` runs on the loop and the
    /// switch is then allowed; when it is back, it is acknowledged and `acquire` runs.
    /// Uses SIGUSR1 (release) and SIGUSR2 (acquire), read from the loop's signalfd.
    public func handleSwitches(on loop: EventLoop, release: @escaping () -> Void, acquire: @escaping () -> Void) throws(DisplayError) {
        var old = vt_mode()
        let fd = self.fd
        try systemCall("VT_GETMODE", path) { vitrine_vt_get_mode(fd, &old) }
        var mode = vt_mode()
        mode.mode = CChar(vitrine_vt_process())
        mode.relsig = Int16(SIGUSR1)
        mode.acqsig = Int16(SIGUSR2)
        try systemCall("VT_SETMODE VT_PROCESS", path) { vitrine_vt_set_mode(fd, &mode) }
        savedVTMode = old
        do {
            try loop.watchSignals([SIGUSR1, SIGUSR2]) { [weak self] number in
                let keyboardMode = self?.savedKeyboardMode ?? -1
                if number == SIGUSR1 {
                    self?.switched?(false)
                    release()
                    if keyboardMode >= 0 { _ = vitrine_kd_set_keyboard_mode(fd, keyboardMode) }
                    _ = vitrine_vt_release_display(fd, 1)
                } else {
                    _ = vitrine_vt_release_display(fd, vitrine_vt_ackacq())
                    if keyboardMode >= 0 { _ = vitrine_kd_set_keyboard_mode(fd, vitrine_kd_keyboard_off()) }
                    acquire()
                    self?.switched?(true)
                }
            }
        } catch {
            _ = vitrine_vt_set_mode(fd, &old)
            savedVTMode = nil
            throw .system(what: "reading VT switch signals (signalfd)", path: path, errno: error.code ?? .invalidArgument)
        }
        self.loop = loop
    }

    /// Text mode and automatic switching, as found.
    public func restore() {
        guard !restored else { return }
        restored = true
        loop?.unwatchSignals([SIGUSR1, SIGUSR2])
        loop = nil
        if var old = savedVTMode {
            old.mode = CChar(vitrine_vt_auto())
            _ = vitrine_vt_set_mode(fd, &old)
        }
        if savedKeyboardMode >= 0 { _ = vitrine_kd_set_keyboard_mode(fd, savedKeyboardMode) }
        if savedKDMode >= 0 { _ = vitrine_kd_set_mode(fd, savedKDMode) }
    }

    deinit { restore() }
}
