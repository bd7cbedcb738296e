import CWaylandServer
import Glibc
import VitrineSystem

/// `wl_seat` (version 7): one pointer, keyboard and touch for every client, fed by the
/// daemon's input pipeline (`WaylandServer.pointer(…)`, `touchDown(…)`, `key(…)`). Events
/// go to the objects the client of the surface concerned holds, in surface coordinates;
/// each enter, leave, button, key, touch down and up carries a fresh display serial.
final class SeatObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: vitrine_wl_seat_interface(), version: version, id: id)
        let all = WL_SEAT_CAPABILITY_POINTER.rawValue | WL_SEAT_CAPABILITY_KEYBOARD.rawValue | WL_SEAT_CAPABILITY_TOUCH.rawValue
        post(WlSeatEvent.capabilities.rawValue, [wl_argument(u: all)])
        if version >= 2 { "seat0".withCString { post(WlSeatEvent.name.rawValue, [wl_argument(s: $0)]) } }
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        let seat = server.seat
        switch WlSeatRequest(rawValue: opcode) {
        case .get_pointer:
            if let made = InputDeviceObject(server: server, client: client, interface: vitrine_wl_pointer_interface(), version: version, id: a[0].n) {
                seat.pointers.append(made)
            }
        case .get_keyboard:
            if let made = InputDeviceObject(server: server, client: client, interface: vitrine_wl_keyboard_interface(), version: version, id: a[0].n) {
                seat.keyboards.append(made)
                seat.introduce(made)
            }
        case .get_touch:
            if let made = InputDeviceObject(server: server, client: client, interface: vitrine_wl_touch_interface(), version: version, id: a[0].n) {
                seat.touches.append(made)
            }
        case .release:
            destroy()
        case nil:
            break
        }
    }
}

/// A client's `wl_pointer`, `wl_keyboard` or `wl_touch`: the seat sends through it; its
/// requests are release and the pointer's `set_cursor`.
final class InputDeviceObject: ServerObject {
    private let isPointer: Bool
    /// The keymap last sent to a keyboard: 0 the seat's, else a virtual keyboard's.
    var keymapID = 0

    override init?(server: WaylandServer, client: OpaquePointer, interface: UnsafePointer<wl_interface>, version: UInt32, id: UInt32) {
        isPointer = interface == vitrine_wl_pointer_interface()
        super.init(server: server, client: client, interface: interface, version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if isPointer, opcode == WlPointerRequest.set_cursor.rawValue {
            return setCursor(a[1].resource, hotspot: (Int(a[2].i), Int(a[3].i)))
        }
        // (wl_touch's release is wl_keyboard's opcode too)
        if opcode == (isPointer ? WlPointerRequest.release.rawValue : WlKeyboardRequest.release.rawValue) { destroy() }
    }

    override func destroyed() { server.seat.forget(self) }

    /// wl_keyboard.keymap: xkb's text format in `fd`, `size` bytes.
    func sendKeymap(fd: CInt, size: UInt32) {
        post(WlKeyboardEvent.keymap.rawValue, [wl_argument(u: WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue), wl_argument(h: fd), wl_argument(u: size)])
    }

    /// wl_keyboard.modifiers: xkb's masks and layout.
    func sendModifiers(_ modifiers: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32), serial: UInt32) {
        post(
            WlKeyboardEvent.modifiers.rawValue,
            [
                wl_argument(u: serial), wl_argument(u: modifiers.depressed), wl_argument(u: modifiers.latched), wl_argument(u: modifiers.locked),
                wl_argument(u: modifiers.group),
            ])
    }
}

/// The seat's state: every client's devices, the focused surfaces, the keymap.
final class SeatState {
    var pointers: [InputDeviceObject] = []
    var keyboards: [InputDeviceObject] = []
    var touches: [InputDeviceObject] = []
    weak var pointerFocus: SurfaceObject?
    /// Where the pointer was last said to be on `pointerFocus`, and that surface's origin
    /// in its window's root surface.
    var pointerPlace: (x: wl_fixed_t, y: wl_fixed_t) = (0, 0)
    var pointerOrigin = (x: 0.0, y: 0.0)
    weak var keyboardFocus: SurfaceObject?
    /// The cursor surface the client under the pointer set, and its hotspot.
    weak var cursorSurface: SurfaceObject?
    var cursorHotspot = (x: 0, y: 0)
    var touchFocus: [Int32: WeakSurface] = [:]
    /// The serials of the latest presses (button, touch down, key) and their clients:
    /// what a popup grab may name.
    private var presses: [(client: OpaquePointer, serial: UInt32)] = []
    /// The sealed memfd of the keymap and its size (with the final NUL).
    var keymap: (fd: OwnedDescriptor, size: UInt32)?
    var modifiers: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32) = (0, 0, 0, 0)
    /// The last id given to a virtual keyboard's keymap.
    var lastKeymapID = 0
    unowned let server: WaylandServer

    /// A touch's surface, and that surface's origin in the root surface's coordinates.
    struct WeakSurface {
        weak var surface: SurfaceObject?
        var x = 0.0, y = 0.0
    }

    init(server: WaylandServer) { self.server = server }

    /// The pointer's focus changed: the compositor's cursor until its client sets one.
    func pointerFocusChanged() {
        cursorSurface = nil
        server.cursorChanged?(.standard)
    }

    /// A cursor surface was destroyed: no cursor while the pointer stays on its client.
    func cursorGone(_ surface: SurfaceObject) {
        guard cursorSurface === surface else { return }
        cursorSurface = nil
        server.cursorChanged?(pointerFocus.map { $0.isGone } ?? true ? .standard : .hidden)
    }

    func forget(_ device: InputDeviceObject) {
        pointers.removeAll { $0 === device }
        keyboards.removeAll { $0 === device }
        touches.removeAll { $0 === device }
    }

    var serial: UInt32 { wl_display_next_serial(server.display) }

    /// A fresh serial for a press or release (button, touch, key) sent to `surface`'s
    /// client: what a popup grab may name (a client may open its menu on the release).
    func pressSerial(to surface: SurfaceObject) -> UInt32 {
        let serial = serial
        presses.append((surface.client, serial))
        if presses.count > 16 { presses.removeFirst() }
        return serial
    }

    /// Whether `serial` is one of the latest presses or releases sent to `client`.
    func isPress(_ serial: UInt32, of client: OpaquePointer) -> Bool {
        presses.contains { $0.client == client && $0.serial == serial }
    }

    func devices(_ list: [InputDeviceObject], of surface: SurfaceObject) -> [InputDeviceObject] {
        let client = surface.client
        return list.filter { $0.client == client }
    }

    /// A new keyboard: the keymap, the repeat rate, and the focus if its client has it.
    func introduce(_ keyboard: InputDeviceObject) {
        if let keymap { keyboard.sendKeymap(fd: keymap.fd.rawValue, size: keymap.size) }
        if keyboard.version >= 4 { keyboard.post(WlKeyboardEvent.repeat_info.rawValue, [wl_argument(i: 25), wl_argument(i: 600)]) }
        if let focus = keyboardFocus, focus.client == keyboard.client { enter(keyboard, focus) }
    }

    func enter(_ keyboard: InputDeviceObject, _ surface: SurfaceObject) {
        var keys = wl_array()
        wl_array_init(&keys)
        withUnsafeMutablePointer(to: &keys) { keys in
            keyboard.post(WlKeyboardEvent.enter.rawValue, [wl_argument(u: serial), wl_argument(o: surface.resource), wl_argument(a: keys)])
        }
        wl_array_release(&keys)
        keyboard.sendModifiers(modifiers, serial: serial)
    }

    func pointerFrame(_ surface: SurfaceObject) {
        for pointer in devices(pointers, of: surface) where pointer.version >= 5 { pointer.post(WlPointerEvent.frame.rawValue) }
    }
}

extension WaylandServer {
    /// The keymap clients' keyboards get (xkb's text format), sent to those bound already.
    public func setKeymap(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.append(0)
        let fd = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { vitrine_sealed_memfd($0.baseAddress, UInt($0.count)) }
        }
        guard fd >= 0 else {
            logger.warning("Wayland: cannot make the keymap's memfd (\(SystemError.reason())); clients' keyboards get none")
            return
        }
        seat.keymap = (OwnedDescriptor(fd), UInt32(bytes.count))
        for keyboard in seat.keyboards {
            keyboard.keymapID = 0
            keyboard.sendKeymap(fd: fd, size: UInt32(bytes.count))
        }
    }

    /// The pointer is at (`x`, `y`) of the root surface of the window `picture` shows, or
    /// over no client's surface (nil): enter, leave and motion on the window's topmost
    /// surface there that takes input (popups or override-redirect windows over
    /// subsurfaces over the root), as it moved, then a frame. `unlessUnchanged`: nothing is
    /// sent when that is the surface and place last sent (the scene changed under a pointer
    /// that did not move).
    public func pointer(on picture: WindowPicture?, x: Double, y: Double, time: UInt32, unlessUnchanged: Bool = false) {
        let hit = picture?.surface(at: x, y)
        let target = hit?.surface
        let (fx, fy) = (wl_fixed_from_double(hit?.x ?? 0), wl_fixed_from_double(hit?.y ?? 0))
        if unlessUnchanged, seat.pointerFocus === target, target == nil || seat.pointerPlace == (fx, fy) { return }
        seat.pointerPlace = (fx, fy)
        seat.pointerOrigin = (x - (hit?.x ?? 0), y - (hit?.y ?? 0))
        if seat.pointerFocus !== target {
            if let old = seat.pointerFocus, !old.isGone {
                for pointer in seat.devices(seat.pointers, of: old) {
                    pointer.post(WlPointerEvent.leave.rawValue, [wl_argument(u: seat.serial), wl_argument(o: old.resource)])
                }
                seat.pointerFrame(old)
            }
            seat.pointerFocus = target
            seat.pointerFocusChanged()
            if let target {
                for pointer in seat.devices(seat.pointers, of: target) {
                    pointer.post(
                        WlPointerEvent.enter.rawValue, [wl_argument(u: seat.serial), wl_argument(o: target.resource), wl_argument(f: fx), wl_argument(f: fy)])
                }
            }
        } else if let target {
            for pointer in seat.devices(seat.pointers, of: target) {
                pointer.post(WlPointerEvent.motion.rawValue, [wl_argument(u: time), wl_argument(f: fx), wl_argument(f: fy)])
            }
        }
        if let target { seat.pointerFrame(target) }
    }

    /// The pointer moved to (`x`, `y`) of the root surface of the window it is on while a
    /// button pressed there is held: motion on the surface it was pressed on, wherever the
    /// pointer is (wl_pointer's implicit grab), then a frame. `unlessUnchanged`: nothing
    /// when that is the place last sent (a button or scroll where the pointer is).
    public func pointerGrabbed(x: Double, y: Double, time: UInt32, unlessUnchanged: Bool = false) {
        guard let focus = seat.pointerFocus else { return }
        let (fx, fy) = (wl_fixed_from_double(x - seat.pointerOrigin.x), wl_fixed_from_double(y - seat.pointerOrigin.y))
        if unlessUnchanged, seat.pointerPlace == (fx, fy) { return }
        seat.pointerPlace = (fx, fy)
        for pointer in seat.devices(seat.pointers, of: focus) {
            pointer.post(WlPointerEvent.motion.rawValue, [wl_argument(u: time), wl_argument(f: fx), wl_argument(f: fy)])
        }
        seat.pointerFrame(focus)
    }

    /// A button (evdev's code, `BTN_LEFT` is 272) pressed or released over the surface the
    /// pointer is on.
    public func pointerButton(_ button: UInt32, pressed: Bool, time: UInt32) {
        guard let focus = seat.pointerFocus else { return }
        let state = pressed ? WL_POINTER_BUTTON_STATE_PRESSED.rawValue : WL_POINTER_BUTTON_STATE_RELEASED.rawValue
        let serial = seat.pressSerial(to: focus)
        for pointer in seat.devices(seat.pointers, of: focus) {
            pointer.post(WlPointerEvent.button.rawValue, [wl_argument(u: serial), wl_argument(u: time), wl_argument(u: button), wl_argument(u: state)])
        }
        seat.pointerFrame(focus)
    }

    /// Scrolling by (`dx`, `dy`) surface pixels over the surface the pointer is on.
    public func pointerAxis(dx: Double, dy: Double, time: UInt32) {
        guard let focus = seat.pointerFocus else { return }
        for pointer in seat.devices(seat.pointers, of: focus) {
            for (axis, value) in [(WL_POINTER_AXIS_VERTICAL_SCROLL, dy), (WL_POINTER_AXIS_HORIZONTAL_SCROLL, dx)] where value != 0 {
                pointer.post(WlPointerEvent.axis.rawValue, [wl_argument(u: time), wl_argument(u: axis.rawValue), wl_argument(f: wl_fixed_from_double(value))])
            }
        }
        seat.pointerFrame(focus)
    }

    /// Touch `id` went down at (`x`, `y`) of the root surface of the window `picture`
    /// shows, onto the window's topmost surface there that takes input; it stays with that
    /// surface until it is lifted.
    public func touchDown(_ id: Int, on picture: WindowPicture, x: Double, y: Double, time: UInt32) {
        guard let (surface, lx, ly) = picture.surface(at: x, y) else { return }
        let id = Int32(truncatingIfNeeded: id)
        seat.touchFocus[id] = .init(surface: surface, x: x - lx, y: y - ly)
        let serial = seat.pressSerial(to: surface)
        let (fx, fy) = (wl_fixed_from_double(lx), wl_fixed_from_double(ly))
        for touch in seat.devices(seat.touches, of: surface) {
            touch.post(
                WlTouchEvent.down.rawValue,
                [wl_argument(u: serial), wl_argument(u: time), wl_argument(o: surface.resource), wl_argument(i: id), wl_argument(f: fx), wl_argument(f: fy)])
            touch.post(WlTouchEvent.frame.rawValue)
        }
    }

    /// Touch `id`, down on a client's surface, moved to (`x`, `y`) of its window's root
    /// surface.
    public func touchMotion(_ id: Int, x: Double, y: Double, time: UInt32) {
        let id = Int32(truncatingIfNeeded: id)
        guard let focus = seat.touchFocus[id], let surface = focus.surface else { return }
        let (fx, fy) = (wl_fixed_from_double(x - focus.x), wl_fixed_from_double(y - focus.y))
        for touch in seat.devices(seat.touches, of: surface) {
            touch.post(WlTouchEvent.motion.rawValue, [wl_argument(u: time), wl_argument(i: id), wl_argument(f: fx), wl_argument(f: fy)])
            touch.post(WlTouchEvent.frame.rawValue)
        }
    }

    /// Touch `id` lifted (or cancelled: the client hears it lifted).
    public func touchUp(_ id: Int, time: UInt32) {
        let id = Int32(truncatingIfNeeded: id)
        guard let surface = seat.touchFocus.removeValue(forKey: id)?.surface else { return }
        for touch in seat.devices(seat.touches, of: surface) {
            touch.post(WlTouchEvent.up.rawValue, [wl_argument(u: seat.serial), wl_argument(u: time), wl_argument(i: id)])
            touch.post(WlTouchEvent.frame.rawValue)
        }
    }

    /// `surface` is going: the touches down on it are lifted (`up`, then a frame), so
    /// that its client does not keep them down for ever.
    func liftTouches(on surface: SurfaceObject) {
        let ids = seat.touchFocus.filter { $0.value.surface === surface }.keys.sorted()
        guard !ids.isEmpty else { return }
        let time = UInt32(truncatingIfNeeded: EventLoop.monotonicNanoseconds() / 1_000_000)
        for id in ids {
            seat.touchFocus[id] = nil
            for touch in seat.devices(seat.touches, of: surface) {
                touch.post(WlTouchEvent.up.rawValue, [wl_argument(u: seat.serial), wl_argument(u: time), wl_argument(i: id)])
                touch.post(WlTouchEvent.frame.rawValue)
            }
        }
    }

    /// `surface` stopped showing (a popup dismissed): the pointer on it leaves it.
    func hidden(_ surface: SurfaceObject) {
        guard seat.pointerFocus === surface else { return }
        for pointer in seat.devices(seat.pointers, of: surface) {
            pointer.post(WlPointerEvent.leave.rawValue, [wl_argument(u: seat.serial), wl_argument(o: surface.resource)])
        }
        seat.pointerFrame(surface)
        seat.pointerFocus = nil
        seat.pointerFocusChanged()
    }

    /// Where keys go: the window `picture` shows (its surface, or its topmost grabbing
    /// popup: enter with the modifiers), or no client (nil); the surface that had them
    /// hears leave.
    public func focusKeyboard(on picture: WindowPicture?) {
        let target = picture?.keyboardSurface
        guard seat.keyboardFocus !== target else { return }
        if let old = seat.keyboardFocus {
            for keyboard in seat.devices(seat.keyboards, of: old) {
                keyboard.post(WlKeyboardEvent.leave.rawValue, [wl_argument(u: seat.serial), wl_argument(o: old.resource)])
            }
        }
        seat.keyboardFocus = target
        if let target { for keyboard in seat.devices(seat.keyboards, of: target) { seat.enter(keyboard, target) } }
        textInputs.focusChanged(to: target)
    }

    /// A key (evdev's code) pressed or released, to the focused surface, then the
    /// modifiers (xkb's masks and layout) when they changed.
    public func key(_ code: UInt32, pressed: Bool, time: UInt32, modifiers: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32)) {
        let changed = modifiers != seat.modifiers
        seat.modifiers = modifiers
        let state = pressed ? WL_KEYBOARD_KEY_STATE_PRESSED.rawValue : WL_KEYBOARD_KEY_STATE_RELEASED.rawValue
        if let grab = textInputs.inputMethod?.grab {
            grab.key(code, state: state, time: time, serial: seat.serial)
            if changed { grab.modifiers(modifiers, serial: seat.serial) }
            return
        }
        guard let focus = seat.keyboardFocus else { return }
        let serial = seat.pressSerial(to: focus)
        for keyboard in seat.devices(seat.keyboards, of: focus) {
            let switched = seat.use(nil, on: keyboard)
            if switched { keyboard.sendModifiers(modifiers, serial: seat.serial) }
            keyboard.post(WlKeyboardEvent.key.rawValue, [wl_argument(u: serial), wl_argument(u: time), wl_argument(u: code), wl_argument(u: state)])
            if changed && !switched { keyboard.sendModifiers(modifiers, serial: seat.serial) }
        }
    }
}
