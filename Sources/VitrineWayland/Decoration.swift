import CWaylandServer
import WaylandDescription

extension ServerInterfaceTable {
    static let decoration = ServerInterfaceTable(WaylandProtocol.xdgDecorationUnstableV1)
}

/// `zxdg_decoration_manager_v1`: tells clients that the compositor decorates their
/// toplevels, so that they draw no title bar or frame of their own. It draws none either: a
/// kiosk's window is its layer's content, edge to edge.
final class DecorationManagerObject: ServerObject {
    static var interface: UnsafePointer<wl_interface> { ServerInterfaceTable.decoration["zxdg_decoration_manager_v1"] }

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: Self.interface, version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZxdgDecorationManagerV1Request(rawValue: opcode) {
        case .destroy:
            destroy()
        case .get_toplevel_decoration:
            guard let toplevel = ServerObject.of(a[1].resource, as: Toplevel.self),
                let decoration = ToplevelDecorationObject(server: server, client: client, version: version, id: a[0].n, toplevel: toplevel)
            else { return }
            guard toplevel.decoration == nil else {
                decoration.postError(ZxdgToplevelDecorationV1Error.already_constructed, "this xdg_toplevel already has a zxdg_toplevel_decoration_v1")
                return
            }
            guard toplevel.root?.hasBuffer != true else {
                decoration.postError(
                    ZxdgToplevelDecorationV1Error.unconfigured_buffer,
                    "the xdg_toplevel's surface has a buffer attached or committed; get its decoration before the first buffer")
                return
            }
            toplevel.decoration = decoration
            decoration.configure()
        case nil:
            break
        }
    }
}

/// `zxdg_toplevel_decoration_v1`: one toplevel's decoration mode, always `server_side`
/// whatever the client asks; each request is answered with that mode and, once the window
/// had its first configure, a new configure of the toplevel.
final class ToplevelDecorationObject: ServerObject {
    private weak var toplevel: Toplevel?

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, toplevel: Toplevel) {
        self.toplevel = toplevel
        super.init(server: server, client: client, interface: ServerInterfaceTable.decoration["zxdg_toplevel_decoration_v1"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZxdgToplevelDecorationV1Request(rawValue: opcode) {
        case .destroy:
            destroy()
        case .set_mode, .unset_mode:
            configure()
            toplevel?.configureAgain()
        case nil:
            break
        }
    }

    /// `zxdg_toplevel_decoration_v1.mode.server_side`.
    private static let serverSide: UInt32 = 2

    /// Sends the mode: server-side.
    func configure() {
        post(ZxdgToplevelDecorationV1Event.configure.rawValue, [wl_argument(u: Self.serverSide)])
    }
}
