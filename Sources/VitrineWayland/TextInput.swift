import CWaylandServer
import VitrineRaster

/// What a text field asks of an input method (`zwp_text_input_v3`'s state as its client last
/// committed it): the seam between the Wayland server and a keyboard, ours or a client's.
public struct TextInputState: Sendable, Equatable {
    /// `zwp_text_input_v3.content_purpose`: what the field takes.
    public enum Purpose: UInt32, Sendable {
        case normal, alpha, digits, number, phone, url, email, name, password, pin, date, time, datetime, terminal
    }

    /// `zwp_text_input_v3.content_hint`.
    public struct Hints: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let completion = Hints(rawValue: 0x1)
        public static let spellcheck = Hints(rawValue: 0x2)
        public static let autoCapitalization = Hints(rawValue: 0x4)
        public static let lowercase = Hints(rawValue: 0x8)
        public static let uppercase = Hints(rawValue: 0x10)
        public static let titlecase = Hints(rawValue: 0x20)
        public static let hiddenText = Hints(rawValue: 0x40)
        public static let sensitiveData = Hints(rawValue: 0x80)
        public static let latin = Hints(rawValue: 0x100)
        public static let multiline = Hints(rawValue: 0x200)
    }

    public var purpose = Purpose.normal
    public var hints: Hints = []
    /// The text around the cursor (at most 4000 bytes), with the cursor and the selection's
    /// anchor as byte offsets in it; nil when the client does not say.
    public var surrounding: (text: String, cursor: Int, anchor: Int)?
    /// The cursor, in window coordinates (the root surface's); nil when the client does not say.
    public var cursor: PixelRect?

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.purpose == b.purpose && a.hints == b.hints && a.cursor == b.cursor && a.surrounding?.text == b.surrounding?.text
            && a.surrounding?.cursor == b.surrounding?.cursor && a.surrounding?.anchor == b.surrounding?.anchor
    }
}

/// `zwp_text_input_manager_v3`: makes text inputs (every client may).
final class TextInputManagerObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.textInputV3["zwp_text_input_manager_v3"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwpTextInputManagerV3Request(rawValue: opcode) {
        case .destroy: destroy()
        case .get_text_input:
            if let made = TextInputObject(server: server, client: client, id: a[0].n) { server.textInputs.add(made) }
        case nil: break
        }
    }
}

/// `zwp_text_input_v3`: a client's text field. Its state is double-buffered: `enable`,
/// `disable` and the `set_*` requests apply on `commit`, which the relay hears.
final class TextInputObject: ServerObject {
    /// The state being built, and whether it enables (true), disables (false) or leaves it.
    private(set) var pending = TextInputState()
    private var pendingEnabled: Bool?
    /// `set_text_change_cause` (0: the input method, 1: something else), as built and as committed.
    private var pendingCause: UInt32 = 0
    private(set) var cause: UInt32 = 0
    /// The state committed, and whether the field is enabled.
    private(set) var current = TextInputState()
    private(set) var enabled = false
    /// `commit` requests received: the serial of `done`.
    private(set) var commits: UInt32 = 0
    /// The surface it was sent `enter` for.
    weak var entered: SurfaceObject?

    init?(server: WaylandServer, client: OpaquePointer, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.textInputV3["zwp_text_input_v3"], version: 1, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwpTextInputV3Request(rawValue: opcode) {
        case .destroy: destroy()
        case .enable:
            pending = TextInputState()
            pendingCause = 0
            pendingEnabled = true
        case .disable: pendingEnabled = false
        case .set_surrounding_text:
            guard a[1].i >= 0, a[2].i >= 0 else { return }
            pending.surrounding = (String(a[0].text.utf8.prefix(4000)) ?? "", Int(a[1].i), Int(a[2].i))
        case .set_text_change_cause: pendingCause = a[0].u
        case .set_content_type:
            pending.hints = TextInputState.Hints(rawValue: a[0].u)
            pending.purpose = TextInputState.Purpose(rawValue: a[1].u) ?? .normal
        case .set_cursor_rectangle:
            pending.cursor = PixelRect(x: Int(a[0].i), y: Int(a[1].i), width: max(0, Int(a[2].i)), height: max(0, Int(a[3].i)))
        case .commit:
            commits &+= 1
            let wasEnabled = enabled
            if let pendingEnabled { enabled = pendingEnabled }
            pendingEnabled = nil
            current = pending
            cause = pendingCause
            pendingCause = 0
            server.textInputs.committed(self, wasEnabled: wasEnabled)
        case nil: break
        }
    }

    override func destroyed() { server.textInputs.remove(self) }

    func enter(_ surface: SurfaceObject) {
        entered = surface
        post(ZwpTextInputV3Event.enter.rawValue, [wl_argument(o: surface.resource)])
    }

    func leave() {
        guard let surface = entered else { return }
        entered = nil
        enabled = false
        if !surface.isGone { post(ZwpTextInputV3Event.leave.rawValue, [wl_argument(o: surface.resource)]) }
    }

    /// What an input method composed, then `done`: the preedit (nil: none), the text to
    /// delete around the cursor (bytes), the text to insert.
    func send(preedit: (text: String, begin: Int32, end: Int32)?, delete: (before: UInt32, after: UInt32)?, commit: String?) {
        if let preedit {
            preedit.text.withCString {
                post(ZwpTextInputV3Event.preedit_string.rawValue, [wl_argument(s: $0), wl_argument(i: preedit.begin), wl_argument(i: preedit.end)])
            }
        }
        if let delete, delete.before > 0 || delete.after > 0 {
            post(ZwpTextInputV3Event.delete_surrounding_text.rawValue, [wl_argument(u: delete.before), wl_argument(u: delete.after)])
        }
        if let commit { commit.withCString { post(ZwpTextInputV3Event.commit_string.rawValue, [wl_argument(s: $0)]) } }
        post(ZwpTextInputV3Event.done.rawValue, [wl_argument(u: commits)])
    }
}
