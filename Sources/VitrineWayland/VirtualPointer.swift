import CWaylandServer

/// What a virtual pointer (`zwlr_virtual_pointer_v1`, from wayvnc) did: the daemon feeds it
/// to its input as a device's pointer (bindings, hosted windows).
public enum VirtualPointerEvent: Sendable, Equatable {
    /// Moved by `dx`, `dy` pixels.
    case motion(dx: Double, dy: Double)
    /// Moved to `x`, `y` as fractions (0…1) of the width and height of the output named
    /// `output` (nil: the primary output).
    case absolute(x: Double, y: Double, output: String?)
    /// `button` (evdev's code, `BTN_LEFT` 0x110) pressed or released.
    case button(UInt32, pressed: Bool)
    /// Scrolled, right and down positive, in `wl_pointer.axis` units.
    case axis(dx: Double, dy: Double)
}

/// Hears of virtual pointers' events: the daemon.
public protocol VirtualPointerDelegate: AnyObject {
    func virtualPointer(_ event: VirtualPointerEvent)
}

/// `zwlr_virtual_pointer_manager_v1` (version 2): makes virtual pointers (wayvnc's).
/// Offered only to the clients `WaylandServer.mayUseInputMethods` allows, as virtual keyboards.
final class VirtualPointerManagerObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(
            server: server, client: client, interface: ServerInterfaceTable.virtualPointerV1["zwlr_virtual_pointer_manager_v1"], version: version,
            id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwlrVirtualPointerManagerV1Request(rawValue: opcode) {
        case .create_virtual_pointer:
            _ = VirtualPointerObject(manager: self, id: a[1].n, output: nil)
        case .create_virtual_pointer_with_output:
            _ = VirtualPointerObject(manager: self, id: a[2].n, output: ServerObject.of(a[1].resource, as: OutputObject.self)?.name)
        case .destroy: destroy()
        case nil: break
        }
    }
}

/// `zwlr_virtual_pointer_v1`: motion, absolute motion (onto its output), buttons and
/// scrolling, passed to `WaylandServer.virtualPointerDelegate` on `frame` (at most
/// `maximumPending` wait for one; more are passed at once). Buttons it holds are released
/// when it goes.
final class VirtualPointerObject: ServerObject {
    static let maximumPending = 64
    private let output: String?
    private var down: Set<UInt32> = []
    private var pending: [VirtualPointerEvent] = []

    init?(manager: VirtualPointerManagerObject, id: UInt32, output: String?) {
        self.output = output
        super.init(
            server: manager.server, client: manager.client, interface: ServerInterfaceTable.virtualPointerV1["zwlr_virtual_pointer_v1"],
            version: manager.version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZwlrVirtualPointerV1Request(rawValue: opcode) {
        case .motion:
            send(.motion(dx: wl_fixed_to_double(a[1].f), dy: wl_fixed_to_double(a[2].f)))
        case .motion_absolute:
            let (x, y, width, height) = (a[1].u, a[2].u, a[3].u, a[4].u)
            guard width > 0, height > 0 else { return }
            send(.absolute(x: min(1, Double(x) / Double(width)), y: min(1, Double(y) / Double(height)), output: output))
        case .button:
            let pressed = a[2].u == WL_POINTER_BUTTON_STATE_PRESSED.rawValue
            if pressed { down.insert(a[1].u) } else { down.remove(a[1].u) }
            send(.button(a[1].u, pressed: pressed))
        case .axis, .axis_discrete:
            guard let delta = axis(a[1].u, wl_fixed_to_double(a[2].f)) else { return }
            send(.axis(dx: delta.dx, dy: delta.dy))
        case .axis_stop:
            _ = axis(a[1].u, 0)
        case .axis_source:
            guard a[0].u <= WL_POINTER_AXIS_SOURCE_WHEEL_TILT.rawValue else {
                return postError(ZwlrVirtualPointerV1Error.invalid_axis_source, "axis source \(a[0].u) is not one of wl_pointer.axis_source's")
            }
        case .frame: deliver()
        case .destroy: destroy()
        case nil: break
        }
    }

    /// The scroll of `value` along `axis`; nil (and the protocol error) for an unknown axis.
    private func axis(_ axis: UInt32, _ value: Double) -> (dx: Double, dy: Double)? {
        switch axis {
        case WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue: return (0, value)
        case WL_POINTER_AXIS_HORIZONTAL_SCROLL.rawValue: return (value, 0)
        default:
            postError(ZwlrVirtualPointerV1Error.invalid_axis, "axis \(axis) is neither wl_pointer.axis vertical_scroll (0) nor horizontal_scroll (1)")
            return nil
        }
    }

    private func send(_ event: VirtualPointerEvent) {
        pending.append(event)
        if pending.count > Self.maximumPending { deliver() }
    }

    private func deliver() {
        let events = pending
        pending.removeAll()
        for event in events { server.virtualPointerDelegate?.virtualPointer(event) }
    }

    override func destroyed() {
        for button in down.sorted() { send(.button(button, pressed: false)) }
        deliver()
    }
}
