import CWaylandServer
import WaylandDescription

/// The `wl_interface` structures of a protocol's interfaces (`WaylandProtocol`, described
/// by wayland-glue) for the server, made once and kept for the process's life.
final class ServerInterfaceTable: @unchecked Sendable {  // written in init only, read afterwards
    private let pointers: [String: UnsafePointer<wl_interface>]

    static let xdgShell = ServerInterfaceTable(WaylandProtocol.xdgShell)
    static let presentationTime = ServerInterfaceTable(WaylandProtocol.presentationTime)
    static let textInputV3 = ServerInterfaceTable(WaylandProtocol.textInputUnstableV3)
    static let inputMethodV2 = ServerInterfaceTable(WaylandProtocol.inputMethodV2)
    static let virtualKeyboardV1 = ServerInterfaceTable(WaylandProtocol.virtualKeyboardV1)
    static let screencopyV1 = ServerInterfaceTable(WaylandProtocol.screencopyV1)
    static let virtualPointerV1 = ServerInterfaceTable(WaylandProtocol.virtualPointerV1)
    static let xdgOutput = ServerInterfaceTable(WaylandProtocol.xdgOutputUnstableV1)
    static let layerShellV1 = ServerInterfaceTable(WaylandProtocol.layerShellV1, also: ["xdg_popup": xdgShell["xdg_popup"]])

    /// The tables of `description`'s interfaces; its messages may name the core interfaces
    /// and those in `also` (another protocol's).
    init(_ description: WaylandProtocol, also: [String: UnsafePointer<wl_interface>] = [:]) {
        pointers = description.tables(
            core: [
                "wl_surface": vitrine_wl_surface_interface(), "wl_seat": vitrine_wl_seat_interface(), "wl_output": vitrine_wl_output_interface(),
                "wl_compositor": vitrine_wl_compositor_interface(), "wl_buffer": vitrine_wl_buffer_interface(),
                "wl_callback": vitrine_wl_callback_interface(), "wl_region": vitrine_wl_region_interface(),
            ].merging(also) { core, _ in core },
            message: { wl_message(name: $0, signature: $1, types: $2) },
            interface: { wl_interface(name: $0, version: $1, method_count: $2, methods: $3, event_count: $4, events: $5) })
    }

    subscript(name: String) -> UnsafePointer<wl_interface> { pointers[name]! }
}
