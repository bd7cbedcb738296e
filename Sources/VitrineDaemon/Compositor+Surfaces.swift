import VitrineOutputSet
import VitrineCore
import VitrineProtocol
import VitrineWayland
import VitrineWindowHost

/// Surface layers: the renderer that draws Wayland clients' windows in them, and the
/// memory those windows hold. Which window each layer shows is the window host's.
extension Compositor {
    /// Registers the renderer of the `surface` kind, and gives the outputs the damage of
    /// their content that changes by itself: video frames, and windows (kept apart per
    /// output, since outputs may show one layer).
    func attachSurfaces() -> SurfaceRenderer {
        let surfaces = SurfaceRenderer()
        renderer.register(surfaces, forKind: SurfaceLayer.kindName)
        outputSet.changingContent = { [unowned videos = videos!, unowned surfaces] output, tree in
            videos.damage(in: tree) + surfaces.damage(in: tree, output: output)
        }
        return surfaces
    }

    /// Serves Wayland clients with `server`, whose windows `windows` places: its pictures
    /// count in `limits.memory_mb` with the images and videos.
    public func serve(_ server: WaylandServer) {
        outputSet.windows = PresentedWindows(server: server, surfaces: surfaces)
        server.memoryAvailable = { [unowned self, unowned server] in
            (settings.limits.memoryMB << 20) - videos.bytes - pipeline.renderer.images.usedBytes - server.bytes
        }
        server.onMemory = { [unowned self] _ in rebudgetImages() }
        windows?.serve(server)
    }

    /// The image store's budget: `limits.memory_mb` less what videos and surfaces hold.
    func rebudgetImages() {
        pipeline.renderer.images.budget = max(0, (settings.limits.memoryMB << 20) - videos.bytes - (outputSet.windows?.server?.bytes ?? 0))
    }

    /// Takes what the window host says: its events go to subscribers (after the current
    /// reply when a command caused them), its changes on screen ask for a frame.
    func take(_ notice: WindowNotice) {
        switch notice {
        case .event(let event, afterReply: true): queuedEvents.append(event)
        case .event(let event, afterReply: false): broadcast(event)
        case .redraw(afterReply: true): frameNeeded = true
        case .redraw(afterReply: false): requestFrame()
        }
    }
}
