import CWaylandClient
import Glibc

/// A Wayland protocol beyond the core one, as `wayland-glue` describes it at build time
/// from wayland-protocols' XML (`WaylandProtocol.xdgShell`): its interfaces' requests and
/// events with wayland-scanner's signatures. `tables` makes them libwayland's
/// `wl_interface` structures, which marshal requests and read events.
struct WaylandProtocol: Sendable {
    struct Message: Sendable {
        let name: String
        /// The argument letters (`u`, `i`, `f`, `s`, `o`, `n`, `a`, `h`, `?` for nullable),
        /// after the version the message appeared in.
        let signature: String
        /// Each argument's interface, for objects and new ids.
        let types: [String?]
    }

    struct Interface: Sendable {
        let name: String
        let version: Int
        let requests: [Message]
        let events: [Message]
    }

    let interfaces: [Interface]
}

/// The `wl_interface` structures of a protocol's interfaces, made once and kept for the
/// process's life (libwayland holds pointers to them in every proxy).
final class WaylandInterfaceTable: @unchecked Sendable {  // written in init only, read afterwards
    private let pointers: [String: UnsafePointer<wl_interface>]

    /// The xdg-shell protocol's.
    static let xdgShell = WaylandInterfaceTable(WaylandProtocol.xdgShell)

    /// The core interfaces a protocol's messages may name.
    private static var core: [String: UnsafePointer<wl_interface>] {
        [
            "wl_surface": vitrine_wl_surface_interface(), "wl_seat": vitrine_wl_seat_interface(), "wl_output": vitrine_wl_output_interface(),
            "wl_compositor": vitrine_wl_compositor_interface(), "wl_shm": vitrine_wl_shm_interface(),
        ]
    }

    init(_ description: WaylandProtocol) {
        var made: [String: UnsafeMutablePointer<wl_interface>] = [:]
        for interface in description.interfaces { made[interface.name] = .allocate(capacity: 1) }
        let core = Self.core
        func resolve(_ name: String?) -> UnsafePointer<wl_interface>? {
            guard let name else { return nil }
            return made[name].map { UnsafePointer($0) } ?? core[name]
        }
        func messages(_ list: [WaylandProtocol.Message]) -> UnsafeMutablePointer<wl_message> {
            let table = UnsafeMutablePointer<wl_message>.allocate(capacity: max(1, list.count))
            for (index, message) in list.enumerated() {
                let types = UnsafeMutablePointer<UnsafePointer<wl_interface>?>.allocate(capacity: max(1, message.types.count))
                for (slot, type) in message.types.enumerated() { types[slot] = resolve(type) }
                table[index] = wl_message(name: strdup(message.name), signature: strdup(message.signature), types: types)
            }
            return table
        }
        for interface in description.interfaces {
            made[interface.name]!.initialize(
                to: wl_interface(
                    name: strdup(interface.name), version: Int32(interface.version), method_count: Int32(interface.requests.count),
                    methods: messages(interface.requests), event_count: Int32(interface.events.count), events: messages(interface.events)))
        }
        pointers = made.mapValues { UnsafePointer($0) }
    }

    /// The interface named `name` ("xdg_surface").
    subscript(name: String) -> UnsafePointer<wl_interface> { pointers[name]! }
}

/// Sends request `opcode` on `proxy` with `arguments` (a new object's id as `wl_argument(n: 0)`);
/// returns the new object when the request makes one of `interface`. `destroying` ends
/// the proxy with the request (a destructor).
@discardableResult
func waylandRequest(
    _ proxy: OpaquePointer, _ opcode: UInt32, _ arguments: [wl_argument] = [], creating interface: UnsafePointer<wl_interface>? = nil,
    destroying: Bool = false
) -> OpaquePointer? {
    var arguments = arguments
    return arguments.withUnsafeMutableBufferPointer { buffer in
        wl_proxy_marshal_array_flags(
            proxy, opcode, interface, wl_proxy_get_version(proxy), destroying ? UInt32(WL_MARSHAL_FLAG_DESTROY) : 0, buffer.baseAddress)
    }
}

/// Calls `handle` with each event's opcode and arguments, on the thread that dispatches
/// the display (the daemon's loop). Kept alive by its owner as long as the proxy.
final class WaylandListener {
    let handle: (UInt32, UnsafeMutablePointer<wl_argument>) -> Void

    init(_ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) { self.handle = handle }

    /// Routes `proxy`'s events to this listener.
    func listen(to proxy: OpaquePointer) {
        wl_proxy_add_dispatcher(proxy, waylandDispatch, Unmanaged.passUnretained(self).toOpaque(), nil)
    }
}

/// libwayland's dispatcher for every proxy: the listener is its implementation pointer.
private let waylandDispatch: wl_dispatcher_func_t = { implementation, _, opcode, _, arguments in
    guard let implementation, let arguments else { return 0 }
    Unmanaged<WaylandListener>.fromOpaque(implementation).takeUnretainedValue().handle(opcode, arguments)
    return 0
}
