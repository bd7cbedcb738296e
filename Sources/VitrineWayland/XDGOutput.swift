import CWaylandServer

/// `zxdg_output_manager_v1` (version 3): where each output is on the wall and its size,
/// in logical pixels, with its name (grim places outputs and crops `-g` regions by it;
/// wayvnc needs it).
final class XDGOutputManagerObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.xdgOutput["zxdg_output_manager_v1"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch ZxdgOutputManagerV1Request(rawValue: opcode) {
        case .get_xdg_output:
            guard let output = ServerObject.of(a[1].resource, as: OutputObject.self) else { return }
            XDGOutputObject(manager: self, id: a[0].n)?.describe(output)
        case .destroy: destroy()
        case nil: break
        }
    }
}

/// `zxdg_output_v1`: one output's logical position, size, name and description, told
/// once; from version 3 followed by `wl_output.done`, as the protocol asks.
final class XDGOutputObject: ServerObject {
    init?(manager: XDGOutputManagerObject, id: UInt32) {
        super.init(
            server: manager.server, client: manager.client, interface: ServerInterfaceTable.xdgOutput["zxdg_output_v1"], version: manager.version, id: id)
    }

    func describe(_ output: OutputObject) {
        let o = output.output
        let logical = { (pixels: Int) in Int32((Double(pixels) / o.scale).rounded()) }
        post(ZxdgOutputV1Event.logical_position.rawValue, [wl_argument(i: logical(o.x)), wl_argument(i: logical(o.y))])
        post(ZxdgOutputV1Event.logical_size.rawValue, [wl_argument(i: logical(o.width)), wl_argument(i: logical(o.height))])
        if version >= 2 {
            o.name.withCString { name in
                post(ZxdgOutputV1Event.name.rawValue, [wl_argument(s: name)])
                post(ZxdgOutputV1Event.description.rawValue, [wl_argument(s: name)])
            }
        }
        if version >= 3 {
            if output.version >= 2 { output.post(WlOutputEvent.done.rawValue) }
        } else {
            post(ZxdgOutputV1Event.done.rawValue)
        }
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == ZxdgOutputV1Request.destroy.rawValue { destroy() }
    }
}
