import CWaylandClient
import Foundation
import VitrineOutput
import WaylandDescription

/// How the bench's client takes text, as a toolkit's text field does: a
/// `zwp_text_input_v3` enabled whenever its surface gets the keyboard focus (so that an
/// on-screen keyboard comes up), whose `commit_string`s it applies at `done`; and, for
/// text typed as key strokes, `wl_keyboard` key presses. `received` gets each text (a key
/// press as "key:CODE") as it is applied.
final class BenchTextInput {
    private let client: BenchWaylandClient
    private var seat: OpaquePointer?, keyboard: OpaquePointer?, textInput: OpaquePointer?
    private var pending: String?
    /// Whether the text input is enabled: its surface has the keyboard focus.
    private(set) var enabled = false
    /// Key presses received (text typed as key strokes rather than committed).
    private(set) var keyPresses = 0
    /// Called with each text the client applies.
    var received: (String) -> Void = { _ in }
    private static let table = WaylandInterfaceTable(WaylandProtocol.textInputUnstableV3)

    /// Binds the seat, its keyboard and (when the compositor offers it) a text input.
    init(client: BenchWaylandClient) throws {
        self.client = client
        guard let registry = client.registry, let seatName = client.globalNames["wl_seat"] else {
            throw BenchError("the compositor offers no wl_seat")
        }
        let seat = wlRegistryBind(registry, seatName, vitrine_wl_seat_interface(), 1)!
        self.seat = seat
        client.listen(seat) { [unowned self] opcode, a in
            guard opcode == 0, a[0].u & WL_SEAT_CAPABILITY_KEYBOARD.rawValue != 0, keyboard == nil, let made = wlSeatGetKeyboard(seat) else { return }
            keyboard = made
            client.listen(made) { [unowned self] opcode, a in keyboardEvent(opcode, a) }
        }
        if let name = client.globalNames["zwp_text_input_manager_v3"],
            let manager = wlRegistryBind(registry, name, Self.table["zwp_text_input_manager_v3"], 1),
            let made = waylandRequest(
                manager, ZwpTextInputManagerV3Request.get_text_input.rawValue, [wl_argument(n: 0), wl_argument(o: seat)],
                creating: Self.table["zwp_text_input_v3"])
        {
            textInput = made
            client.listen(made) { [unowned self] opcode, a in textInputEvent(made, opcode, a) }
        }
        wl_display_roundtrip(client.display)
    }

    /// Whether the compositor offered text-input-v3.
    var hasTextInput: Bool { textInput != nil }

    private func keyboardEvent(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case 0: close(a[1].h)  // keymap: not read, the key code is enough
        case 3 where a[3].u == 1:
            keyPresses += 1
            received("key:\(a[2].u)")
        default: break
        }
    }

    private func textInputEvent(_ input: OpaquePointer, _ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwpTextInputV3Event(rawValue: opcode) {
        case .enter:
            waylandRequest(input, ZwpTextInputV3Request.enable.rawValue)
            waylandRequest(input, ZwpTextInputV3Request.set_content_type.rawValue, [wl_argument(u: 0), wl_argument(u: 0)])
            waylandRequest(input, ZwpTextInputV3Request.commit.rawValue)
            enabled = true
        case .leave:
            waylandRequest(input, ZwpTextInputV3Request.disable.rawValue)
            waylandRequest(input, ZwpTextInputV3Request.commit.rawValue)
            enabled = false
        case .commit_string:
            pending = a[0].s.map { String(cString: $0) }
        case .done:
            if let text = pending, !text.isEmpty { received(text) }
            pending = nil
        default: break
        }
    }
}
