import CWaylandServer
import Glibc
import VitrineSystem

/// `zwp_virtual_keyboard_manager_v1`: makes virtual keyboards (wvkbd, squeekboard, wtype).
/// Offered only to the clients `WaylandServer.mayUseInputMethods` allows.
final class VirtualKeyboardManagerObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(
            server: server, client: client, interface: ServerInterfaceTable.virtualKeyboardV1["zwp_virtual_keyboard_manager_v1"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        _ = VirtualKeyboardObject(server: server, client: client, id: a[1].n)
    }
}

/// A keymap a client gave (xkb's text format), as clients' keyboards are sent it: a sealed
/// memfd of the daemon's own copy. `id` 0 is the seat's keymap.
final class ClientKeymap {
    /// Virtual keyboards' keymaps are at most this size.
    static let maximumBytes = 1 << 20
    let id: Int
    let fd: OwnedDescriptor
    let size: UInt32

    init(id: Int, fd: OwnedDescriptor, size: UInt32) { (self.id, self.fd, self.size) = (id, fd, size) }

    /// A copy of the `size` bytes the client's `fd` holds; nil when it cannot be read.
    static func copy(of fd: CInt, size: Int, id: Int) -> ClientKeymap? {
        guard size > 0, size <= maximumBytes else { return nil }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else { return nil }
        defer { munmap(mapped, size) }
        let copy = vitrine_sealed_memfd(mapped.assumingMemoryBound(to: CChar.self), UInt(size))
        guard copy >= 0 else { return nil }
        return ClientKeymap(id: id, fd: OwnedDescriptor(copy), size: UInt32(size))
    }
}

/// `zwp_virtual_keyboard_v1`: keys from a client, with its own keymap, delivered to the
/// focused client as if from the seat's keyboard. Before its first key reaches a client's
/// `wl_keyboard`, that keyboard is sent the virtual keyboard's keymap (and the seat's again
/// before the next key of the seat's).
final class VirtualKeyboardObject: ServerObject {
    private var keymap: ClientKeymap?
    private var modifiers: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) = (0, 0, 0, 0)
    /// Keys it holds down, which are released when it goes.
    private var down: Set<UInt32> = []

    init?(server: WaylandServer, client: OpaquePointer, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.virtualKeyboardV1["zwp_virtual_keyboard_v1"], version: 1, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwpVirtualKeyboardV1Request(rawValue: opcode) {
        case .keymap:
            let fd = a[1].h
            defer { close(fd) }
            guard a[0].u == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue else { return }
            guard let made = ClientKeymap.copy(of: fd, size: Int(a[2].u), id: server.seat.nextKeymapID()) else {
                server.logger.warning(
                    "Wayland client \(WaylandServer.describe(client)): a virtual keyboard's keymap of \(a[2].u) bytes cannot be read or is over \(ClientKeymap.maximumBytes): disconnected"
                )
                wl_client_post_no_memory(client)
                return
            }
            keymap = made
        case .key:
            guard let keymap else {
                postError(ZwpVirtualKeyboardV1Error.no_keymap, "a key before a keymap; send zwp_virtual_keyboard_v1.keymap first")
                return
            }
            let pressed = a[2].u == WL_KEYBOARD_KEY_STATE_PRESSED.rawValue
            if pressed { down.insert(a[1].u) } else { down.remove(a[1].u) }
            server.seat.deliverKey(a[1].u, pressed: pressed, time: a[0].u, keymap: keymap, modifiers: modifiers)
        case .modifiers:
            guard let keymap else {
                postError(ZwpVirtualKeyboardV1Error.no_keymap, "modifiers before a keymap; send zwp_virtual_keyboard_v1.keymap first")
                return
            }
            modifiers = (a[0].u, a[1].u, a[2].u, a[3].u)
            server.seat.deliverModifiers(modifiers, keymap: keymap)
        case .destroy: destroy()
        case nil: break
        }
    }

    override func destroyed() {
        guard let keymap else { return }
        let time = UInt32(truncatingIfNeeded: EventLoop.monotonicNanoseconds() / 1_000_000)
        for code in down.sorted() { server.seat.deliverKey(code, pressed: false, time: time, keymap: keymap, modifiers: modifiers) }
    }
}

extension SeatState {
    /// A fresh keymap id (0 is the seat's).
    func nextKeymapID() -> Int {
        lastKeymapID += 1
        return lastKeymapID
    }

    /// Sends `keymap` (nil: the seat's) to `keyboard` unless it has it; whether it was sent.
    @discardableResult
    func use(_ keymap: ClientKeymap?, on keyboard: InputDeviceObject) -> Bool {
        let id = keymap?.id ?? 0
        guard keyboard.keymapID != id else { return false }
        keyboard.keymapID = id
        if let keymap {
            keyboard.sendKeymap(fd: keymap.fd.rawValue, size: keymap.size)
        } else if let own = self.keymap {
            keyboard.sendKeymap(fd: own.fd.rawValue, size: own.size)
        }
        return true
    }

    /// A virtual keyboard's key, with its keymap and modifiers, to the focused surface.
    func deliverKey(
        _ code: UInt32, pressed: Bool, time: UInt32, keymap: ClientKeymap, modifiers: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32)
    ) {
        guard let focus = keyboardFocus, !focus.isGone else { return }
        let state = pressed ? WL_KEYBOARD_KEY_STATE_PRESSED.rawValue : WL_KEYBOARD_KEY_STATE_RELEASED.rawValue
        let serial = pressSerial(to: focus)
        for keyboard in devices(keyboards, of: focus) {
            if use(keymap, on: keyboard) { keyboard.sendModifiers(modifiers, serial: self.serial) }
            keyboard.post(WlKeyboardEvent.key.rawValue, [wl_argument(u: serial), wl_argument(u: time), wl_argument(u: code), wl_argument(u: state)])
        }
    }

    /// A virtual keyboard's modifiers to the focused surface.
    func deliverModifiers(_ modifiers: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32), keymap: ClientKeymap) {
        guard let focus = keyboardFocus, !focus.isGone else { return }
        for keyboard in devices(keyboards, of: focus) {
            use(keymap, on: keyboard)
            keyboard.sendModifiers(modifiers, serial: serial)
        }
    }
}
