import CWaylandClient
import Foundation
import VitrineDaemonTestSupport
import VitrineOutput
import VitrineWayland
import WaylandDescription

/// The tests' input method (`zwp_input_method_v2`): records what the compositor tells it of
/// the active text field (activate, deactivate, content type, surrounding text, done) and
/// commits text into it.
final class InputMethodClient: TestWaylandClient {
    static let table = WaylandInterfaceTable(WaylandProtocol.inputMethodV2)
    private(set) var method: OpaquePointer!
    /// Whether the last `done` left it active.
    private(set) var active = false
    private var pendingActive = false
    /// `done` events received: the serial of `commit`.
    private(set) var dones: UInt32 = 0
    /// The content purpose told before the last `done`.
    private(set) var purpose: UInt32 = 0
    /// The events received, by name, in order.
    private(set) var events: [String] = []
    private(set) var unavailable = false

    init(_ path: String) throws {
        try super.init(path, binding: ["wl_seat": 1])
        let manager = try bind("zwp_input_method_manager_v2", version: 1, interface: Self.table["zwp_input_method_manager_v2"])
        guard
            let made = waylandRequest(
                manager, 0, [wl_argument(o: global("wl_seat")), wl_argument(n: 0)], creating: Self.table["zwp_input_method_v2"])
        else { throw DaemonError("no zwp_input_method_v2") }
        method = made
        let names = ["activate", "deactivate", "surrounding_text", "text_change_cause", "content_type", "done", "unavailable"]
        listen(made) { [unowned self] opcode, args in
            events.append(names[Int(opcode)])
            switch opcode {
            case 0: pendingActive = true
            case 1: pendingActive = false
            case 4: purpose = args[1].u
            case 5:
                dones += 1
                active = pendingActive
            case 6: unavailable = true
            default: break
            }
        }
        roundtrip()
    }

    /// Commits `text` (after deleting `before` bytes) with the serial of the last `done`.
    func commit(_ text: String, deletingBefore before: UInt32 = 0) {
        if before > 0 { waylandRequest(method, 2, [wl_argument(u: before), wl_argument(u: 0)]) }
        _ = text.withCString { waylandRequest(method, 0, [wl_argument(s: $0)]) }
        waylandRequest(method, 3, [wl_argument(u: dones)])
        wl_display_flush(display)
    }
}
