import CWaylandServer

/// `zwp_input_method_manager_v2`: makes the seat's input method (one at a time; a second is
/// told `unavailable`). Offered only to the clients `WaylandServer.mayUseInputMethods` allows.
final class InputMethodManagerObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.inputMethodV2["zwp_input_method_manager_v2"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwpInputMethodManagerV2Request(rawValue: opcode) {
        case .get_input_method:
            guard let method = InputMethodObject(server: server, client: client, id: a[1].n) else { return }
            if server.textInputs.inputMethod == nil {
                server.textInputs.inputMethodArrived(method)
            } else {
                method.post(ZwpInputMethodV2Event.unavailable.rawValue)
            }
        case .destroy: destroy()
        case nil: break
        }
    }
}

/// `zwp_input_method_v2`: an input method client (squeekboard). Activated with the active
/// text input's state; what it commits (`commit_string`, `set_preedit_string`,
/// `delete_surrounding_text`, then `commit` with the number of `done`s it saw) goes to
/// that text input.
final class InputMethodObject: ServerObject {
    private var isActive = false
    /// `done` events sent: what `commit` must name for its state to apply.
    private var dones: UInt32 = 0
    private var preedit: (text: String, begin: Int32, end: Int32)?
    private var text: String?
    private var delete: (before: UInt32, after: UInt32)?
    /// Its keyboard grab, while it holds one.
    weak var grab: KeyboardGrabObject?

    init?(server: WaylandServer, client: OpaquePointer, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.inputMethodV2["zwp_input_method_v2"], version: 1, id: id)
    }

    /// Whether this is the seat's input method (not one told `unavailable`).
    private var isSeats: Bool { server.textInputs.inputMethod === self }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwpInputMethodV2Request(rawValue: opcode) {
        case .commit_string: text = String(a[0].text.utf8.prefix(4000)) ?? ""
        case .set_preedit_string: preedit = (String(a[0].text.utf8.prefix(4000)) ?? "", a[1].i, a[2].i)
        case .delete_surrounding_text: delete = (a[0].u, a[1].u)
        case .commit:
            defer { (preedit, text, delete) = (nil, nil, nil) }
            guard isSeats, isActive, a[0].u == dones, let input = server.textInputs.active else { return }
            input.send(preedit: preedit, delete: delete, commit: text)
        case .get_input_popup_surface:
            guard let surface = ServerObject.of(a[1].resource, as: SurfaceObject.self) else { return }
            guard surface.role == nil else {
                postError(0, "wl_surface@\(wl_resource_get_id(surface.resource)) already has a role; an input popup surface needs one without")
                return
            }
            _ = InputPopupObject(server: server, client: client, id: a[0].n)
        case .grab_keyboard:
            guard let made = KeyboardGrabObject(server: server, client: client, id: a[0].n) else { return }
            if isSeats, grab == nil { grab = made }
            made.introduce(to: server.seat)
        case .destroy: destroy()
        case nil: break
        }
    }

    override func destroyed() {
        if isSeats { server.textInputs.inputMethod = nil }
    }

    /// The active text input's state and why its text changed (`cause`), then `done`;
    /// `fresh`: an `activate` first (a newly enabled text input).
    func activate(with state: TextInputState, cause: UInt32, fresh: Bool) {
        guard isSeats else { return }
        if fresh || !isActive { post(ZwpInputMethodV2Event.activate.rawValue) }
        isActive = true
        if let surrounding = state.surrounding {
            surrounding.text.withCString {
                post(
                    ZwpInputMethodV2Event.surrounding_text.rawValue,
                    [wl_argument(s: $0), wl_argument(u: UInt32(clamping: surrounding.cursor)), wl_argument(u: UInt32(clamping: surrounding.anchor))])
            }
        }
        post(ZwpInputMethodV2Event.text_change_cause.rawValue, [wl_argument(u: cause)])
        post(ZwpInputMethodV2Event.content_type.rawValue, [wl_argument(u: state.hints.rawValue), wl_argument(u: state.purpose.rawValue)])
        sendDone()
    }

    /// No text input needs it any more.
    func deactivate() {
        guard isSeats, isActive else { return }
        isActive = false
        post(ZwpInputMethodV2Event.deactivate.rawValue)
        sendDone()
    }

    private func sendDone() {
        dones &+= 1
        post(ZwpInputMethodV2Event.done.rawValue)
    }
}

/// `zwp_input_popup_surface_v2`: accepted, not shown (a kiosk's keyboard shows its own
/// candidates, if any, in its own surface).
final class InputPopupObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.inputMethodV2["zwp_input_popup_surface_v2"], version: 1, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == 0 { destroy() }
    }
}

/// `zwp_input_method_keyboard_grab_v2`: the seat's keys go to the input method, not to the
/// focused client, while it holds the grab; with the seat's keymap and modifiers.
final class KeyboardGrabObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, id: UInt32) {
        super.init(
            server: server, client: client, interface: ServerInterfaceTable.inputMethodV2["zwp_input_method_keyboard_grab_v2"], version: 1, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == 0 { destroy() }
    }

    func introduce(to seat: SeatState) {
        if let keymap = seat.keymap {
            post(
                ZwpInputMethodKeyboardGrabV2Event.keymap.rawValue,
                [wl_argument(u: WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1.rawValue), wl_argument(h: keymap.fd.rawValue), wl_argument(u: keymap.size)])
        }
        post(ZwpInputMethodKeyboardGrabV2Event.repeat_info.rawValue, [wl_argument(i: 25), wl_argument(i: 600)])
    }

    func key(_ code: UInt32, state: UInt32, time: UInt32, serial: UInt32) {
        post(ZwpInputMethodKeyboardGrabV2Event.key.rawValue, [wl_argument(u: serial), wl_argument(u: time), wl_argument(u: code), wl_argument(u: state)])
    }

    func modifiers(_ m: (depressed: UInt32, latched: UInt32, locked: UInt32, group: UInt32), serial: UInt32) {
        post(
            ZwpInputMethodKeyboardGrabV2Event.modifiers.rawValue,
            [wl_argument(u: serial), wl_argument(u: m.depressed), wl_argument(u: m.latched), wl_argument(u: m.locked), wl_argument(u: m.group)])
    }
}
