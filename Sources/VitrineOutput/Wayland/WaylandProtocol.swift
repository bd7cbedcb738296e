import CWaylandClient
import Glibc
import WaylandDescription

/// The `wl_interface` structures of a protocol's interfaces (`WaylandProtocol`, described
/// by wayland-glue), made once and kept for the process's life.
public final class WaylandInterfaceTable: @unchecked Sendable {  // written in init only, read afterwards
    private let pointers: [String: UnsafePointer<wl_interface>]

    /// The xdg-shell protocol's.
    static let xdgShell = WaylandInterfaceTable(WaylandProtocol.xdgShell)

    public init(_ description: WaylandProtocol) {
        pointers = description.tables(
            core: [
                "wl_surface": vitrine_wl_surface_interface(), "wl_seat": vitrine_wl_seat_interface(), "wl_output": vitrine_wl_output_interface(),
                "wl_compositor": vitrine_wl_compositor_interface(), "wl_shm": vitrine_wl_shm_interface(), "wl_buffer": vitrine_wl_buffer_interface(),
            ],
            message: { wl_message(name: $0, signature: $1, types: $2) },
            interface: { wl_interface(name: $0, version: $1, method_count: $2, methods: $3, event_count: $4, events: $5) })
    }

    /// The interface named `name` ("xdg_surface").
    public subscript(name: String) -> UnsafePointer<wl_interface> { pointers[name]! }
}

/// Sends request `opcode` on `proxy` with `arguments` (a new object's id as `wl_argument(n: 0)`);
/// returns the new object when the request makes one of `interface`, at `version` (the
/// proxy's by default). `destroying` ends the proxy with the request (a destructor).
@discardableResult
public func waylandRequest(
    _ proxy: OpaquePointer, _ opcode: UInt32, _ arguments: [wl_argument] = [], creating interface: UnsafePointer<wl_interface>? = nil,
    version: UInt32? = nil, destroying: Bool = false
) -> OpaquePointer? {
    var arguments = arguments
    return arguments.withUnsafeMutableBufferPointer { buffer in
        wl_proxy_marshal_array_flags(
            proxy, opcode, interface, version ?? wl_proxy_get_version(proxy), destroying ? UInt32(WL_MARSHAL_FLAG_DESTROY) : 0, buffer.baseAddress)
    }
}

/// Calls `handle` with each event's opcode and arguments, on the thread that dispatches
/// the display (the daemon's loop). Kept alive by its owner as long as the proxy.
public final class WaylandListener {
    let handle: (UInt32, UnsafeMutablePointer<wl_argument>) -> Void

    public init(_ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) { self.handle = handle }

    /// Routes `proxy`'s events to this listener.
    public func listen(to proxy: OpaquePointer) {
        wl_proxy_add_dispatcher(proxy, waylandDispatch, Unmanaged.passUnretained(self).toOpaque(), nil)
    }
}

extension WaylandListener {
    /// Listens to `display`'s registry, calling `bind` with the registry and each global's
    /// name and interface, after a round trip in which every global has been told. The
    /// caller keeps the listener as long as the registry.
    public static func globals(
        of display: OpaquePointer, bind: @escaping (_ registry: OpaquePointer, _ name: UInt32, _ interface: String) -> Void
    ) -> (registry: OpaquePointer, listener: WaylandListener)? {
        guard let registry = wlDisplayGetRegistry(display) else { return nil }
        let listener = WaylandListener { opcode, a in
            guard opcode == 0, let name = a[1].s else { return }
            bind(registry, a[0].u, String(cString: name))
        }
        listener.listen(to: registry)
        wl_display_roundtrip(display)
        return (registry, listener)
    }
}

/// libwayland's dispatcher for every proxy: the listener is its implementation pointer.
private let waylandDispatch: wl_dispatcher_func_t = { implementation, _, opcode, _, arguments in
    guard let implementation, let arguments else { return 0 }
    Unmanaged<WaylandListener>.fromOpaque(implementation).takeUnretainedValue().handle(opcode, arguments)
    return 0
}
