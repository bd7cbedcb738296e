import CWaylandClient
import Glibc
import VitrineSystem

/// A Wayland seat's pointer, keyboard and touch, as the window's `WindowEvent`s: positions
/// in the window's pixels, buttons and keys as evdev codes (what Wayland sends), the
/// compositor's keymap (`wl_keyboard.keymap`) kept for reading them. Times are when the
/// events were read (CLOCK_MONOTONIC).
final class WaylandSeat {
    private let seat: OpaquePointer
    private var pointer: OpaquePointer?, keyboard: OpaquePointer?, touch: OpaquePointer?
    private var listeners: [OpaquePointer: WaylandListener] = [:]
    private let send: (WindowEvent) -> Void
    /// The compositor's keymap, xkb's text format; nil before it sends one.
    private(set) var keymap: String?
    private var pointerAt = (x: 0.0, y: 0.0)
    /// Touches down and where they are.
    private var touches: [Int32: (x: Double, y: Double)] = [:]

    init(seat: OpaquePointer, send: @escaping (WindowEvent) -> Void) {
        self.seat = seat
        self.send = send
        listen(seat) { [unowned self] opcode, args in
            if opcode == 0 { capabilities(args[0].u) }
        }
    }

    deinit {
        if let pointer { wlPointerRelease(pointer) }
        if let keyboard { wlKeyboardRelease(keyboard) }
        if let touch { wlTouchRelease(touch) }
        wlSeatRelease(seat)
    }

    private func listen(_ proxy: OpaquePointer, _ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) {
        let listener = WaylandListener(handle)
        listeners[proxy] = listener
        listener.listen(to: proxy)
    }

    private var now: Double { Double(EventLoop.monotonicNanoseconds()) / 1e9 }

    /// What the seat has: devices are taken when they appear and let go when they go.
    private func capabilities(_ bits: UInt32) {
        let has = (
            pointer: bits & WL_SEAT_CAPABILITY_POINTER.rawValue != 0, keyboard: bits & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0,
            touch: bits & WL_SEAT_CAPABILITY_TOUCH.rawValue != 0
        )
        if has.pointer, pointer == nil, let made = wlSeatGetPointer(seat) {
            pointer = made
            listen(made) { [unowned self] opcode, args in pointerEvent(opcode, args) }
        } else if !has.pointer, let gone = pointer {
            listeners[gone] = nil
            wlPointerRelease(gone)
            pointer = nil
        }
        if has.keyboard, keyboard == nil, let made = wlSeatGetKeyboard(seat) {
            keyboard = made
            listen(made) { [unowned self] opcode, args in keyboardEvent(opcode, args) }
        } else if !has.keyboard, let gone = keyboard {
            listeners[gone] = nil
            wlKeyboardRelease(gone)
            keyboard = nil
        }
        if has.touch, touch == nil, let made = wlSeatGetTouch(seat) {
            touch = made
            listen(made) { [unowned self] opcode, args in touchEvent(opcode, args) }
        } else if !has.touch, let gone = touch {
            listeners[gone] = nil
            wlTouchRelease(gone)
            touch = nil
        }
    }

    private func pointerEvent(_ opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case 0:  // enter(serial, surface, x, y)
            pointerAt = (wl_fixed_to_double(args[2].f), wl_fixed_to_double(args[3].f))
            send(.pointerMotion(time: now, x: pointerAt.x, y: pointerAt.y))
        case 2:  // motion(time, x, y)
            pointerAt = (wl_fixed_to_double(args[1].f), wl_fixed_to_double(args[2].f))
            send(.pointerMotion(time: now, x: pointerAt.x, y: pointerAt.y))
        case 3:  // button(serial, time, button, state)
            send(.pointerButton(time: now, button: args[2].u, pressed: args[3].u == 1, x: pointerAt.x, y: pointerAt.y))
        case 4:  // axis(time, axis, value)
            let value = wl_fixed_to_double(args[2].f)
            let vertical = args[1].u == WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue
            send(.pointerAxis(time: now, dx: vertical ? 0 : value, dy: vertical ? value : 0, x: pointerAt.x, y: pointerAt.y))
        default:
            break
        }
    }

    private func keyboardEvent(_ opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case 0:  // keymap(format, fd, size)
            // The event hands the keymap's descriptor over: it is ours to close.
            let file = OwnedDescriptor(args[1].h)
            guard args[0].u == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue, args[2].u > 0,
                let mapped = mmap(nil, Int(args[2].u), PROT_READ, MAP_PRIVATE, file.rawValue, 0), mapped != MAP_FAILED
            else { return }
            defer { munmap(mapped, Int(args[2].u)) }
            let text = String(decoding: UnsafeRawBufferPointer(start: mapped, count: Int(args[2].u)).prefix { $0 != 0 }, as: UTF8.self)
            keymap = text
            send(.keymap(text))
        case 2:  // leave(serial, surface)
            send(.focusLost)
        case 3:  // key(serial, time, key, state)
            guard args[3].u <= 1 else { return }
            send(.key(time: now, code: args[2].u, pressed: args[3].u == 1))
        default:
            break
        }
    }

    private func touchEvent(_ opcode: UInt32, _ args: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case 0:  // down(serial, time, surface, id, x, y)
            let point = (x: wl_fixed_to_double(args[4].f), y: wl_fixed_to_double(args[5].f))
            touches[args[3].i] = point
            send(.touch(time: now, phase: .down, id: Int(args[3].i), x: point.x, y: point.y))
        case 1:  // up(serial, time, id)
            guard let point = touches.removeValue(forKey: args[2].i) else { return }
            send(.touch(time: now, phase: .up, id: Int(args[2].i), x: point.x, y: point.y))
        case 2:  // motion(time, id, x, y)
            guard touches[args[1].i] != nil else { return }
            let point = (x: wl_fixed_to_double(args[2].f), y: wl_fixed_to_double(args[3].f))
            touches[args[1].i] = point
            send(.touch(time: now, phase: .motion, id: Int(args[1].i), x: point.x, y: point.y))
        case 4:  // cancel
            for (id, point) in touches { send(.touch(time: now, phase: .cancel, id: Int(id), x: point.x, y: point.y)) }
            touches.removeAll()
        default:
            break
        }
    }
}
