import CWaylandServer
import VitrineCore
import WaylandDescription

extension ServerInterfaceTable {
    static let viewporter = ServerInterfaceTable(WaylandProtocol.viewporter)
}

/// `wp_viewporter`: gives surfaces a viewport.
final class ViewporterObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.viewporter["wp_viewporter"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch WpViewporterRequest(rawValue: opcode) {
        case .destroy:
            destroy()
        case .get_viewport:
            guard let surface = ServerObject.of(a[1].resource, as: SurfaceObject.self) else { return }
            guard surface.viewport == nil else {
                postError(WpViewporterError.viewport_exists, "wl_surface@\(wl_resource_get_id(surface.resource)) already has a wp_viewport")
                return
            }
            surface.viewport = ViewportObject(server: server, client: client, version: version, id: a[0].n, surface: surface)
        case nil:
            break
        }
    }
}

/// `wp_viewport`: a surface's crop (source rectangle, after buffer transform and scale)
/// and scale (destination size), double-buffered on the surface and checked against the
/// buffer when a commit applies them.
final class ViewportObject: ServerObject {
    private weak var surface: SurfaceObject?

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32, surface: SurfaceObject) {
        self.surface = surface
        super.init(server: server, client: client, interface: ServerInterfaceTable.viewporter["wp_viewport"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        let request = WpViewportRequest(rawValue: opcode)
        if request == .destroy {
            surface?.pendingViewport(source: nil, destination: nil)
            destroy()
            return
        }
        guard let surface else {
            postError(WpViewportError.no_surface, "the wl_surface of this wp_viewport was destroyed")
            return
        }
        switch request {
        case .set_source:
            let (x, y, width, height) = (wl_fixed_to_double(a[0].f), wl_fixed_to_double(a[1].f), wl_fixed_to_double(a[2].f), wl_fixed_to_double(a[3].f))
            if (x, y, width, height) == (-1, -1, -1, -1) {
                surface.pendingViewport(source: nil)
            } else if x < 0 || y < 0 || width <= 0 || height <= 0 {
                postError(WpViewportError.bad_value, "source \(x), \(y), \(width) × \(height) is not a rectangle in the buffer (all -1 unsets it)")
            } else {
                surface.pendingViewport(source: Rect(x: x, y: y, width: width, height: height))
            }
        case .set_destination:
            if (a[0].i, a[1].i) == (-1, -1) {
                surface.pendingViewport(destination: nil)
            } else if a[0].i <= 0 || a[1].i <= 0 {
                postError(WpViewportError.bad_value, "destination \(a[0].i) × \(a[1].i) is not a positive size (-1 × -1 unsets it)")
            } else {
                surface.pendingViewport(destination: (Int(a[0].i), Int(a[1].i)))
            }
        case .destroy, nil:
            break
        }
    }

    override func destroyed() {
        if surface?.viewport === self { surface?.viewport = nil }
    }

    func surfaceGone() { surface = nil }
}
