import CWaylandServer
import Glibc
import VitrineSystem

/// For programs that run the server in their own process and hand it connections of their
/// own (the WLCS integration module): clients that did not come through the listening
/// socket, and their objects found by the ids their side of the connection knows.
extension WaylandServer {
    /// Serves a client already connected through `socket` (one end of a `socketpair`, the
    /// other end the client's) as if it had connected to the listening socket. Returns the
    /// descriptor number the server reads the client on, which `toplevel(surface:client:)`
    /// takes; the descriptor is the server's from now on, closed when the client goes.
    public func serve(connected socket: OwnedDescriptor) throws(SystemError) -> CInt {
        guard wl_client_create(display, socket.rawValue) != nil else {
            throw SystemError("libwayland cannot serve a client on descriptor \(socket.rawValue) (out of memory)")
        }
        return socket.release()
    }

    /// The toplevel whose root surface is the `wl_surface` with object id `id` of the client
    /// read on descriptor `fd` (`serve(connected:)`'s), or nil when there is none.
    public func toplevel(surface id: UInt32, client fd: CInt) -> Toplevel? {
        guard let head = wl_display_get_client_list(display) else { return nil }
        var link = head.pointee.next
        while let current = link, current != head {
            let client = wl_client_from_link(current)
            if wl_client_get_fd(client) == fd {
                guard let resource = wl_client_get_object(client, id), String(cString: wl_resource_get_class(resource)) == "wl_surface",
                    let surface = ServerObject.of(resource, as: SurfaceObject.self), case .xdg(let xdg) = surface.role
                else { return nil }
                return xdg.toplevel
            }
            link = current.pointee.next
        }
        return nil
    }
}
