import CWaylandServer
import Glibc
import WaylandDescription

/// HiDPI: a window is told the scale of its layer's output, and configured at its layer's
/// size divided by it, so that a buffer drawn at that scale is the layer's pixels one to one.
///
/// The scale reaches the client three ways: `wl_output.scale` (rounded up), a version-6
/// `wl_surface`'s `preferred_buffer_scale` (rounded up) and `wp_fractional_scale_v1`'s
/// `preferred_scale` (in 120ths). The scene stays in output pixels: a window's picture is
/// its window geometry stretched over its layer's bounds, so a 2× buffer of a window
/// configured at half its layer's size is drawn unscaled, and input reaches it in its
/// surface (logical) coordinates.
extension ServerInterfaceTable {
    /// `wl_compositor` and `wl_surface` at version 6: libwayland 1.21's own tables stop at 5.
    /// Other interfaces naming `wl_surface` (subsurfaces, xdg surfaces, the pointer's
    /// cursor, data devices, presentation) keep libwayland's: it compares an object
    /// argument's interface with the expected one by name.
    static let surfaceVersion6 = ServerInterfaceTable(WaylandProtocol.surfaceVersion6)
    static let fractionalScale = ServerInterfaceTable(WaylandProtocol.fractionalScaleV1)
}

extension WaylandProtocol {
    /// The core protocol's `wl_compositor` and `wl_surface` as version 6 has them: the
    /// surface's two events `preferred_buffer_scale` and `preferred_buffer_transform` added.
    static let surfaceVersion6: WaylandProtocol = {
        let core = WaylandProtocol.wayland.interfaces
        let compositor = core.first { $0.name == "wl_compositor" }!
        let surface = core.first { $0.name == "wl_surface" }!
        let added = [
            Message(name: "preferred_buffer_scale", signature: "6i", types: [nil]),
            Message(name: "preferred_buffer_transform", signature: "6u", types: [nil]),
        ]
        return WaylandProtocol(interfaces: [
            Interface(name: compositor.name, version: 6, requests: compositor.requests, events: compositor.events),
            Interface(name: surface.name, version: 6, requests: surface.requests, events: surface.events + added),
        ])
    }()
}

extension Compositor {
    static var interface: UnsafePointer<wl_interface> { ServerInterfaceTable.surfaceVersion6["wl_compositor"] }
}

extension SurfaceObject {
    static var interface: UnsafePointer<wl_interface> { ServerInterfaceTable.surfaceVersion6["wl_surface"] }

    /// `wl_surface.preferred_buffer_scale`'s and `preferred_buffer_transform`'s opcodes
    /// (version 6).
    private static let preferredBufferScale: UInt32 = 2, preferredBufferTransform: UInt32 = 3

    /// Tells the client the scale its buffers are best drawn at, when it changed, with the
    /// transform: always the normal one (an output's rotation turns the whole frame after
    /// it is composed upright, so an upright buffer is the cheapest).
    func prefer(scale: Double) {
        guard scale != preferredScale, !isGone else { return }
        preferredScale = scale
        if version >= 6 {
            post(Self.preferredBufferScale, [wl_argument(i: Int32(scale.rounded(.up)))])
            post(Self.preferredBufferTransform, [wl_argument(u: WL_OUTPUT_TRANSFORM_NORMAL.rawValue)])
        }
        fractionalScale?.send(scale)
    }

    /// The scale of the window this surface is part of (1 outside an xdg window).
    var windowScale: Double { toplevel?.scale ?? 1 }
}

/// `wp_fractional_scale_manager_v1`: gives surfaces a fractional scale object.
final class FractionalScaleManagerObject: ServerObject {
    static var interface: UnsafePointer<wl_interface> { ServerInterfaceTable.fractionalScale["wp_fractional_scale_manager_v1"] }

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: Self.interface, version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch WpFractionalScaleManagerV1Request(rawValue: opcode) {
        case .destroy:
            destroy()
        case .get_fractional_scale:
            guard let surface = ServerObject.of(a[1].resource, as: SurfaceObject.self) else { return }
            guard surface.fractionalScale == nil else {
                postError(
                    WpFractionalScaleManagerV1Error.fractional_scale_exists,
                    "wl_surface@\(wl_resource_get_id(surface.resource)) already has a wp_fractional_scale_v1")
                return
            }
            guard let object = FractionalScaleObject(server: server, client: client, version: version, id: a[0].n) else { return }
            surface.fractionalScale = object
            object.send(surface.preferredScale)
        case nil:
            break
        }
    }
}

/// `wp_fractional_scale_v1`: a surface's preferred scale in 120ths, told when it is made
/// and whenever it changes.
final class FractionalScaleObject: ServerObject {
    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.fractionalScale["wp_fractional_scale_v1"], version: version, id: id)
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        if opcode == WpFractionalScaleV1Request.destroy.rawValue { destroy() }
    }

    func send(_ scale: Double) {
        post(WpFractionalScaleV1Event.preferred_scale.rawValue, [wl_argument(u: UInt32((scale * 120).rounded()))])
    }
}
