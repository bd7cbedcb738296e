import CWaylandServer

/// `wl_surface.enter` and `leave`: which outputs show each surface of a window, told to
/// its client through the `wl_output`s it bound, as the outputs' frames show the window
/// or stop showing it.
extension WaylandServer {
    /// The output named `output` rendered a frame showing the windows whose pictures are
    /// `shown` and no other: the surfaces of those windows that were not on it hear
    /// `enter`, the surfaces of the others that were hear `leave`.
    public func windows(_ shown: Set<ObjectIdentifier>, onOutput output: String) {
        for (id, picture) in pictures {
            let showing = shown.contains(id)
            for (surface, _, _) in picture.stack() where !surface.isGone && surface.outputs.contains(output) != showing {
                let event = showing ? WlSurfaceEvent.enter : WlSurfaceEvent.leave
                if showing { surface.outputs.insert(output) } else { surface.outputs.remove(output) }
                let client = surface.client
                for object in outputObjects where object.name == output && object.client == client {
                    surface.post(event.rawValue, [wl_argument(o: object.resource)])
                }
            }
        }
    }
}
