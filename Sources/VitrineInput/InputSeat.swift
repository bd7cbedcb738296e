import VitrineCore

/// What the seat's devices mean, apart from how they are read: keys through the keymap
/// with key repeat and VT switching, touches and the pointer in the scene's pixels, and
/// devices that go away in the middle of it. `InputDevices` feeds it libinput's events;
/// tests feed it their own.
final class InputSeat {
    /// A device in use, by an id of the reader's choosing.
    struct Member {
        var device: InputDevices.Device
        /// Keys and buttons it holds down.
        var keys: Set<UInt32> = []
        var buttons: Set<UInt32> = []
    }

    var settings: InputSettings
    private(set) var output: OutputGeometry
    private(set) var keyboard: Keyboard
    private(set) var repetition: KeyRepeat
    /// Where events go.
    let emit: (InputEvent) -> Void
    /// Arms the repeat timer with a timing, or disarms it (nil).
    var armRepeat: (KeyRepeat.Timing?) -> Void = { _ in }
    /// Switches to a VT (Ctrl+Alt+Fn with `vtSwitching`).
    var switchVirtualTerminal: (Int) -> Void = { _ in }

    private(set) var members: [Int: Member] = [:]
    private(set) var order: [Int] = []
    /// The devices holding each key down: the key is pressed for the keymap while any does.
    private var heldKeys: [UInt32: Set<Int>] = [:]
    /// Keys whose press switched the VT: their release is not passed on either.
    private var consumedKeys: Set<UInt32> = []
    private var touches = TouchTracker()
    private(set) var pointer: Point

    init(settings: InputSettings, output: OutputGeometry, emit: @escaping (InputEvent) -> Void) throws(InputError) {
        self.settings = settings
        self.output = output
        self.emit = emit
        keyboard = try Keyboard(keymap: settings.keymap)
        repetition = KeyRepeat(settings)
        pointer = output.center
    }

    /// The devices in use, in the order they came.
    var devices: [InputDevices.Device] { order.compactMap { members[$0]?.device } }

    private func name(_ id: Int) -> String { members[id]?.device.name ?? "" }

    // MARK: Settings

    func update(output: OutputGeometry) {
        self.output = output
        pointer = output.clamped(pointer)
    }

    /// The keymap, repeat, VT switching and gesture settings of `new` (seat and enabled
    /// are the reader's).
    func apply(_ new: InputSettings) throws(InputError) {
        if new.keymap != settings.keymap {
            keyboard = try Keyboard(keymap: new.keymap)
            consumedKeys.removeAll()
        }
        let seat = (settings.seat, settings.enabled)
        settings = new
        (settings.seat, settings.enabled) = seat
        let timing = KeyRepeat(new)
        if (timing.delay, timing.rate) != (repetition.delay, repetition.rate) {
            repetition = timing
            armRepeat(nil)
        }
    }

    // MARK: Devices

    func added(_ id: Int, _ device: InputDevices.Device) {
        if members[id] == nil { order.append(id) }
        members[id] = Member(device: device)
    }

    /// A device went away: its touches are cancelled and its keys and buttons released
    /// (libinput has usually done so; what is left is done here).
    func removed(_ id: Int, at time: Double) {
        guard let member = members[id] else { return }
        for event in touches.cancelAll(device: id, time: time) { emit(.touch(event)) }
        for code in member.keys.sorted() { key(code, pressed: false, time: time, device: id) }
        for button in member.buttons.sorted() {
            emit(.pointer(PointerEvent(time: time, kind: .button(button, pressed: false), point: pointer, device: member.device.name)))
        }
        if repetition.remove(device: id) { armRepeat(nil) }
        members[id] = nil
        order.removeAll { $0 == id }
    }

    // MARK: Keys

    /// A key pressed or released on device `id` (evdev code).
    func key(_ code: UInt32, pressed: Bool, time: Double, device id: Int) {
        if pressed {
            let first = heldKeys[code, default: []].isEmpty
            heldKeys[code, default: []].insert(id)
            members[id]?.keys.insert(code)
            guard first else { return }
            let event = keyboard.key(code, pressed: true, time: time, device: name(id))
            if settings.vtSwitching, let vt = Keyboard.virtualTerminal(switchedToBy: event.keysym) {
                consumedKeys.insert(code)
                repetition.stop()
                armRepeat(nil)
                switchVirtualTerminal(vt)
                return
            }
            armRepeat(repetition.press(code, device: id, at: time, repeats: keyboard.repeats(code)))
            emit(.key(event))
        } else {
            guard heldKeys[code]?.remove(id) != nil else { return }
            members[id]?.keys.remove(code)
            guard heldKeys[code]?.isEmpty ?? true else { return }
            heldKeys[code] = nil
            let event = keyboard.key(code, pressed: false, time: time, device: name(id))
            if repetition.release(code) { armRepeat(nil) }
            guard consumedKeys.remove(code) == nil else { return }
            emit(.key(event))
        }
    }

    /// The repeat timer expired `expirations` times: the held key's repeats.
    func repeatFired(_ expirations: UInt64) {
        guard let held = repetition.held else { return }
        for time in repetition.expired(expirations) {
            emit(.key(keyboard.repeated(held.code, time: time, device: name(held.device))))
        }
    }

    // MARK: Touches

    /// A touch going down or moving at the panel position (`x`, `y`): one that is not a
    /// position (not finite) cancels the touch. Within `tapSlop` of the screen it is kept
    /// on it; farther out (a controller's garbage) it is passed on as it is, and the
    /// gesture recognizer cancels the touch.
    func touch(_ slot: Int32, down: Bool, panelX x: Double, panelY y: Double, time: Double, device id: Int) {
        let point = output.scenePoint(panelX: x, panelY: y, clampingWithin: settings.tapSlop)
        let events =
            down
            ? touches.down(slot, device: id, name: name(id), at: point, time: time)
            : touches.motion(slot, at: point, time: time)
        for event in events { emit(.touch(event)) }
    }

    /// A touch lifted; `cancelled` (libinput's cancel, or its device going away) cancels
    /// it instead. A slot below 0 cancels every touch of the device.
    func touchEnded(_ slot: Int32, cancelled: Bool, time: Double, device id: Int) {
        let events =
            slot < 0
            ? touches.cancelAll(device: id, time: time)
            : cancelled ? touches.cancel(slot, time: time) : touches.up(slot, time: time)
        for event in events { emit(.touch(event)) }
    }

    // MARK: Pointer

    /// Relative motion (a mouse, a touchpad), in the scene's pixels.
    func pointerMoved(dx: Double, dy: Double, time: Double, device id: Int) {
        guard dx.isFinite, dy.isFinite else { return }
        pointer = output.clamped(Point(x: pointer.x + dx, y: pointer.y + dy))
        emit(.pointer(PointerEvent(time: time, kind: .motion, point: pointer, device: name(id))))
    }

    /// Absolute motion (a tablet, a virtual machine's pointer) at a panel position.
    func pointerMoved(panelX x: Double, panelY y: Double, time: Double, device id: Int) {
        guard let point = output.scenePoint(panelX: x, panelY: y) else { return }
        pointer = point
        emit(.pointer(PointerEvent(time: time, kind: .motion, point: pointer, device: name(id))))
    }

    /// A button (evdev code) pressed or released; a release of a button not held, or a
    /// second press, is dropped.
    func button(_ button: UInt32, pressed: Bool, time: Double, device id: Int) {
        if pressed {
            guard members[id]?.buttons.insert(button).inserted ?? true else { return }
        } else {
            guard members[id]?.buttons.remove(button) != nil else { return }
        }
        emit(.pointer(PointerEvent(time: time, kind: .button(button, pressed: pressed), point: pointer, device: name(id))))
    }

    /// Scrolling, right and down positive.
    func scroll(dx: Double, dy: Double, time: Double, device id: Int) {
        let (dx, dy) = (dx.isFinite ? dx : 0, dy.isFinite ? dy : 0)
        guard dx != 0 || dy != 0 else { return }
        emit(.pointer(PointerEvent(time: time, kind: .axis(dx: dx, dy: dy), point: pointer, device: name(id))))
    }
}

/// The touches down on the seat, by libinput's seat slot (unique on the seat): each with
/// its device and where it was last, so that a lift or a cancel says where.
struct TouchTracker {
    private var touches: [Int32: (device: Int, name: String, point: Point)] = [:]

    var count: Int { touches.count }

    /// A touch going down at `point` (nil: not a position, nothing goes down). A touch
    /// still down in the slot is cancelled first.
    mutating func down(_ slot: Int32, device: Int, name: String, at point: Point?, time: Double) -> [TouchEvent] {
        let stale = cancel(slot, time: time)
        guard let point else { return stale }
        touches[slot] = (device, name, point)
        return stale + [TouchEvent(time: time, phase: .down, id: Int(slot), point: point, device: name)]
    }

    /// A touch moving to `point`; nil (not a position) cancels it.
    mutating func motion(_ slot: Int32, at point: Point?, time: Double) -> [TouchEvent] {
        guard let touch = touches[slot] else { return [] }
        guard let point else { return cancel(slot, time: time) }
        touches[slot]?.point = point
        return [TouchEvent(time: time, phase: .motion, id: Int(slot), point: point, device: touch.name)]
    }

    mutating func up(_ slot: Int32, time: Double) -> [TouchEvent] {
        guard let touch = touches.removeValue(forKey: slot) else { return [] }
        return [TouchEvent(time: time, phase: .up, id: Int(slot), point: touch.point, device: touch.name)]
    }

    mutating func cancel(_ slot: Int32, time: Double) -> [TouchEvent] {
        guard let touch = touches.removeValue(forKey: slot) else { return [] }
        return [TouchEvent(time: time, phase: .cancel, id: Int(slot), point: touch.point, device: touch.name)]
    }

    mutating func cancelAll(device: Int, time: Double) -> [TouchEvent] {
        touches.filter { $0.value.device == device }.keys.sorted().flatMap { cancel($0, time: time) }
    }
}
