import CWaylandServer

/// `wl_output`: one output's mode and scale (`[[outputs]] scale` rounded up), told once
/// when bound.
final class OutputObject: ServerObject {
    /// The output's name (its connector's).
    var name: String { output.name }
    let output: WaylandServer.Output

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, output: WaylandServer.Output) {
        self.output = output
        super.init(server: server, client: client, interface: vitrine_wl_output_interface(), version: version, id: id)
        server.outputObjects.append(self)
        output.name.withCString { name in
            "Vitrine".withCString { make in
                post(
                    WlOutputEvent.geometry.rawValue,
                    [
                        wl_argument(i: 0), wl_argument(i: 0), wl_argument(i: 0), wl_argument(i: 0), wl_argument(i: Int32(WL_OUTPUT_SUBPIXEL_UNKNOWN.rawValue)),
                        wl_argument(s: make), wl_argument(s: name), wl_argument(i: Int32(WL_OUTPUT_TRANSFORM_NORMAL.rawValue)),
                    ])
                post(
                    WlOutputEvent.mode.rawValue,
                    [
                        wl_argument(u: WL_OUTPUT_MODE_CURRENT.rawValue | WL_OUTPUT_MODE_PREFERRED.rawValue), wl_argument(i: Int32(output.width)),
                        wl_argument(i: Int32(output.height)), wl_argument(i: Int32((output.rate * 1000).rounded())),
                    ])
                if version >= 2 { post(WlOutputEvent.scale.rawValue, [wl_argument(i: Int32(output.scale.rounded(.up)))]) }
                if version >= 4 {
                    post(WlOutputEvent.name.rawValue, [wl_argument(s: name)])
                    post(WlOutputEvent.description.rawValue, [wl_argument(s: name)])
                }
                if version >= 2 { post(WlOutputEvent.done.rawValue) }
            }
        }
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == WlOutputRequest.release.rawValue { destroy() }
    }

    override func destroyed() { server.outputObjects.removeAll { $0 === self } }
}
