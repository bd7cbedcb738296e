import VitrineProtocol
import VitrineWayland
import VitrineWindowHost
import VitrineXWayland

/// Wayland clients' windows: the content host draws them in surface layers, the window
/// host places them.
extension Coordinator {
    /// Serves Wayland clients with `server`: its pictures count in `limits.memory_mb` with
    /// the images and videos, and the window host places its windows, at their outputs'
    /// scales where an `[[outputs]]` table gives one; the cursor a client sets is drawn
    /// while the pointer is over it.
    public func serve(_ server: WaylandServer) {
        content.serve(server)
        windows?.serve(server)
        server.cursorChanged = { [unowned self] cursor in input.presence.use(cursor) }
        capture = ScreenCapture(server: server, outputSet: outputSet)
        server.virtualPointerDelegate = input
        if settings.outputs.contains(where: { $0.scale != 1 }) {
            content.surfaces.scaleOfLayer = { [unowned self] layer in outputScale(of: layer) }
        }
    }

    /// The scale of the output whose root holds `layer` (`[[outputs]] scale`); 1 for a
    /// layer under no output's root.
    func outputScale(of layer: String) -> Double {
        var id = layer
        while let parent = (try? scene.parent(of: id)) ?? nil { id = parent }
        return outputSet.heads.first { $0.root == id }?.entry?.scale ?? 1
    }

    /// Serves X11 programs' windows through `x11`: the window host places them as it places
    /// Wayland windows.
    public func serve(x11: XWayland) {
        windows?.serve(x11: x11)
    }

    /// Takes what the window host says: its events go to subscribers (after the current
    /// reply when a command caused them), its changes on screen ask for a frame.
    func take(_ notice: WindowNotice) {
        switch notice {
        case .event(let event, afterReply: true): afterReply.events.append(event)
        case .event(let event, afterReply: false): broadcast(event)
        case .redraw(afterReply: true): afterReply.frame = true
        case .redraw(afterReply: false): requestFrame()
        case .textInput(let focus):
            guard let screenKeyboard else { return }
            do { try screenKeyboard.textInput(focus, pressed: input.lastPress) } catch { logger.warning("osk: \(error.message)") }
            if afterReply.frame { requestFrame() }
        }
    }
}
