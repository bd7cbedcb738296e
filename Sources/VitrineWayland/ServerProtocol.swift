import CWaylandServer
import Glibc

/// A Wayland protocol beyond the core one, as `wayland-glue` describes it at build time
/// from wayland-protocols' XML (`WaylandProtocol.xdgShell`): its interfaces' requests and
/// events with wayland-scanner's signatures. `ServerInterfaceTable` makes them
/// libwayland-server's `wl_interface` structures.
struct WaylandProtocol: Sendable {
    struct Message: Sendable {
        let name: String
        let signature: String
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

/// The `wl_interface` structures of a protocol's interfaces for the server, made once and
/// kept for the process's life (libwayland holds pointers to them in every resource).
final class ServerInterfaceTable: @unchecked Sendable {  // written in init only, read afterwards
    private let pointers: [String: UnsafePointer<wl_interface>]

    static let xdgShell = ServerInterfaceTable(WaylandProtocol.xdgShell)

    /// The core interfaces (libwayland-server's) a protocol's messages may name.
    static var core: [String: UnsafePointer<wl_interface>] {
        [
            "wl_surface": vitrine_wl_surface_interface(), "wl_seat": vitrine_wl_seat_interface(), "wl_output": vitrine_wl_output_interface(),
            "wl_compositor": vitrine_wl_compositor_interface(), "wl_buffer": vitrine_wl_buffer_interface(),
            "wl_callback": vitrine_wl_callback_interface(), "wl_region": vitrine_wl_region_interface(),
            "wl_subsurface": vitrine_wl_subsurface_interface(), "wl_subcompositor": vitrine_wl_subcompositor_interface(),
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

    subscript(name: String) -> UnsafePointer<wl_interface> { pointers[name]! }
}
