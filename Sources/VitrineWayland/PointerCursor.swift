import CWaylandServer
import VitrineRaster
import VitrineSystem

/// What the pointer's cursor is while it is over a client's surface: what the client asked
/// with `wl_pointer.set_cursor` (Xwayland asks it for X11 windows' cursors too).
public enum PointerCursor {
    /// The compositor's own: over no client's surface, or the client set none since the
    /// pointer entered it.
    case standard
    /// None: the client set a null surface, or its cursor surface has no picture.
    case hidden
    /// The client's picture (a copy), and the pixel of it at the pointer.
    case picture(Surface, hotspot: (x: Int, y: Int))
}

/// The largest cursor picture taken; a larger one is shown as no cursor.
private let largestCursor = 256

extension InputDeviceObject {
    /// `wl_pointer.set_cursor`: `resource` (a surface, or null) is the cursor while the
    /// pointer is on the surface of this client it entered; asked at another time, nothing.
    func setCursor(_ resource: OpaquePointer?, hotspot: (x: Int, y: Int)) {
        let seat = server.seat
        guard let focus = seat.pointerFocus, focus.client == client else { return }
        guard let resource, let surface = ServerObject.of(resource, as: SurfaceObject.self) else {
            seat.cursorSurface = nil
            server.cursorChanged?(.hidden)
            return
        }
        switch surface.role {
        case nil: surface.role = .cursor
        case .cursor: break
        default:
            postError(WlPointerError.role, "wl_surface@\(wl_resource_get_id(resource)) has another role; a cursor needs its own surface")
            return
        }
        seat.cursorSurface = surface
        seat.cursorHotspot = hotspot
        server.cursorChanged?(surface.cursorPicture(hotspot: hotspot))
    }
}

extension SurfaceObject {
    /// The cursor this surface shows with `hotspot`: a copy of its committed picture.
    func cursorPicture(hotspot: (x: Int, y: Int)) -> PointerCursor {
        guard let buffer, buffer.width <= largestCursor, buffer.height <= largestCursor, let copy = buffer.read({ $0.copy() }) else { return .hidden }
        return .picture(copy, hotspot: hotspot)
    }

    /// A cursor surface's commit: the cursor shown changes if it is this one; its frame
    /// callbacks are done at once (an animated cursor goes on).
    func cursorCommitted() {
        let seat = server.seat
        if seat.cursorSurface === self, seat.pointerFocus?.client == client { server.cursorChanged?(cursorPicture(hotspot: seat.cursorHotspot)) }
        sendFrameDone(UInt32(truncatingIfNeeded: EventLoop.monotonicNanoseconds() / 1_000_000))
    }
}
