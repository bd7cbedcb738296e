import CWaylandServer

/// `wl_output`: one output's mode, at scale 1, told once when bound.
final class OutputObject: ServerObject {
    /// The output's name (its connector's).
    let name: String

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, output: WaylandServer.Output) {
        name = output.name
        super.init(server: server, client: client, interface: vitrine_wl_output_interface(), version: version, id: id)
        server.outputObjects.append(self)
        output.name.withCString { name in
            "Vitrine".withCString { make in
                wl_output_send_geometry(
                    resource, 0, 0, 0, 0, Int32(WL_OUTPUT_SUBPIXEL_UNKNOWN.rawValue), make, name, Int32(WL_OUTPUT_TRANSFORM_NORMAL.rawValue))
                wl_output_send_mode(
                    resource, WL_OUTPUT_MODE_CURRENT.rawValue | WL_OUTPUT_MODE_PREFERRED.rawValue, Int32(output.width), Int32(output.height),
                    Int32((output.rate * 1000).rounded()))
                if version >= 2 { wl_output_send_scale(resource, 1) }
                if version >= 4 {
                    wl_output_send_name(resource, name)
                    wl_output_send_description(resource, name)
                }
                if version >= 2 { wl_output_send_done(resource) }
            }
        }
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == WlOutputRequest.release.rawValue { destroy() }
    }

    override func destroyed() { server.outputObjects.removeAll { $0 === self } }
}
