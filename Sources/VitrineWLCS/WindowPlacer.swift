import Logging
import VitrineDaemon
import VitrineJSON
import VitrineRaster
import VitrineWayland

/// The integration's window manager, on the daemon's loop: a client of the coordinator
/// (its requests go through the same decoding and execution as the socket's) that gives
/// each mapped window a `surface` layer of the window's size, at the top left of the
/// output until WLCS places it, and removes the layer when the window goes.
final class WindowPlacer: ClientConnection, @unchecked Sendable {  // touched on the daemon's loop only
    let clientID = Int.max - 7
    private var coordinator: Coordinator?
    private weak var server: WaylandServer?
    private(set) var logger: Logger?
    /// The client's descriptor number (WLCS's end) → the server's end, for each connection.
    var clients: [CInt: CInt] = [:]
    /// Where the pointer is, in the output's pixels.
    var pointer = (x: Double(IntegrationServer.outputSize.width) / 2, y: Double(IntegrationServer.outputSize.height) / 2)
    /// The layer of each mapped window, by surface id, and the window rectangle (root
    /// surface coordinates) its bounds were given.
    private var layers: [Int: (layer: String, window: PixelRect)] = [:]
    /// Where each window's root surface's top left is (the output's pixels), by surface
    /// id: where WLCS put it, kept while the window is unmapped.
    private var roots: [Int: (x: Int, y: Int)] = [:]
    private var nextRequest = 0
    /// Runs a body on the loop's next turn.
    private var later: (@escaping () -> Void) -> Void = { $0() }

    /// Starts placing the windows of `server`, whose daemon `coordinator` runs; `later`
    /// runs a body on the loop's next turn.
    func attach(to coordinator: Coordinator, server: WaylandServer, logger: Logger, later: @escaping (@escaping () -> Void) -> Void) {
        self.later = later
        self.coordinator = coordinator
        self.server = server
        self.logger = logger
        coordinator.connect(self)
        // A window that drew itself at another size gets its layer resized after the frame.
        let presented = coordinator.hooks.framePresented
        coordinator.hooks.framePresented = { [weak self] time in
            presented?(time)
            self?.later { [weak self] in self?.followWindowSizes() }
        }
        run(#"{"cmd":"subscribe","events":["surface.mapped","surface.unmapped"]}"#)
    }

    /// Lets go of the stopped daemon: its coordinator (which holds this placer as a
    /// client) and the loop `later` runs on, so that neither is kept alive by the other.
    func detach() {
        coordinator = nil
        later = { $0() }
        clients = [:]
        layers = [:]
        roots = [:]
    }

    /// An event line from the coordinator: windows mapped and unmapped are placed on the
    /// loop's next turn (the line comes within a client's request).
    func send(_ line: String) {
        guard let event = try? JSON(parsing: line), let name = event["event"]?.string, let id = event["surface"]?.number.map(Int.init) else { return }
        switch name {
        case "surface.mapped":
            let size = (width: Int(event["width"]?.number ?? 1), height: Int(event["height"]?.number ?? 1))
            later { [weak self] in self?.mapped(id, size: size) }
        case "surface.unmapped":
            later { [weak self] in self?.unmapped(id) }
        default:
            break
        }
    }

    private func mapped(_ id: Int, size: (width: Int, height: Int)) {
        guard layers[id] == nil, let toplevel = server?.toplevels[id], toplevel.isMapped, let window = toplevel.windowRect else { return }
        let layer = "wlcs-\(id)"
        let root = roots[id] ?? (-window.x, -window.y)
        roots[id] = root
        run(
            #"{"cmd":"layer.add","layer":"\#(layer)","kind":"surface","properties":{"anchorPoint":[0,0],"#
                + #""bounds":[0,0,\#(window.width),\#(window.height)],"position":[\#(root.x + window.x),\#(root.y + window.y)]}}"#)
        run(#"{"cmd":"surface.assign","surface":\#(id),"layer":"\#(layer)"}"#)
        layers[id] = (layer, window)
    }

    private func unmapped(_ id: Int) {
        guard let placed = layers.removeValue(forKey: id) else { return }
        run(#"{"cmd":"layer.remove","layer":"\#(placed.layer)"}"#)
        if server?.toplevels[id] == nil { roots[id] = nil }
    }

    /// Moves `toplevel`'s layer so that the window's top left (its window geometry's) is
    /// at (`x`, `y`); a window not mapped yet goes there when it maps.
    func place(_ toplevel: Toplevel, x: Int, y: Int) {
        let window = toplevel.windowRect ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
        roots[toplevel.id] = (x - window.x, y - window.y)
        guard let placed = layers[toplevel.id] else { return }
        followWindowSizes()
        run(#"{"cmd":"layer.set","layer":"\#(placed.layer)","properties":{"position":[\#(x),\#(y)]},"actions":false}"#)
    }

    /// Gives each window's layer the window's rectangle where it changed: input is mapped
    /// from the layer's bounds onto the window, and the root surface stays where it is
    /// when the window grows to the left or up (a subsurface placed there, a geometry set).
    func followWindowSizes() {
        guard let server else { return }
        for (id, placed) in layers {
            guard let window = server.toplevels[id]?.windowRect, window != placed.window, let root = roots[id] else { continue }
            run(
                #"{"cmd":"layer.set","layer":"\#(placed.layer)","properties":{"bounds":[0,0,\#(window.width),\#(window.height)],"#
                    + #""position":[\#(root.x + window.x),\#(root.y + window.y)]},"actions":false}"#)
            layers[id] = (placed.layer, window)
        }
    }

    /// Runs one request as this client, then what it left for after its reply (events,
    /// a frame); a failure is logged.
    func run(_ request: String) {
        guard let coordinator else { return }
        nextRequest += 1
        let line = #"{"id":\#(nextRequest),"# + request.dropFirst()
        let reply = coordinator.handle(line: Array(line.utf8), from: self)
        coordinator.flush()
        if let reply, !reply.contains(#""ok":true"#) { logger?.error("\(line) failed: \(reply)") }
        logger?.debug("\(line) → \(reply ?? "(later)")")
    }
}
