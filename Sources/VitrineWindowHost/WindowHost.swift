import Logging
import VitrineConfig
import VitrineCore
import VitrineInput
import VitrineProtocol
import VitrineSystem
import VitrineWayland
import VitrineXWayland

/// The window policy: which surface layer shows which Wayland client's window
/// (`[[compositor.rules]]`, `surface.assign`), the windows' lives (`surface.close`,
/// unanswered pings), the seat's input for them, and the programs the daemon runs
/// (`[[clients]]`, `client.*`).
///
/// ```swift
/// let windows = WindowHost(scene: scene, surfaces: surfaces, settings: settings, loop: loop, logger: logger) { notice in … }
/// windows.serve(server)                      // once the Wayland server listens
/// let reply = try windows.assign(3, to: "browser")
/// ```
///
/// It alone decides which window each layer shows; the surface renderer draws what it is
/// told. What happens is said with `WindowNotice`s through `notify`, on the loop.
public final class WindowHost {
    /// What the host is configured with.
    public struct Settings {
        /// `[compositor]`: rules (reloadable), ping timeout (reloadable) and client caps.
        public var compositor: Configuration.Compositor
        /// `[input]`'s keymap, which the seat gives Wayland clients.
        public var keymap: InputSettings.Keymap
        /// `[[clients]]`.
        public var clients: [Configuration.ClientEntry]
        /// `[launcher] allow_commands` (reloadable).
        public var allowCommands: Bool
        /// The Wayland server's socket, nil while `[compositor]` is off.
        public var waylandSocket: String?

        /// Settings with every part given.
        public init(
            compositor: Configuration.Compositor, keymap: InputSettings.Keymap, clients: [Configuration.ClientEntry], allowCommands: Bool,
            waylandSocket: String?
        ) {
            self.compositor = compositor
            self.keymap = keymap
            self.clients = clients
            self.allowCommands = allowCommands
            self.waylandSocket = waylandSocket
        }
    }

    let scene: Scene
    /// Draws the windows in their layers, as `assignments` says.
    let surfaces: SurfaceRenderer
    /// `[compositor]` as last applied: the rules, the ping timeout, the caps.
    var compositor: Configuration.Compositor
    /// The keymap the seat gives clients.
    let keymap: InputSettings.Keymap
    let logger: Logger
    let loop: EventLoop?
    let notify: (WindowNotice) -> Void
    /// The Wayland server, once serving.
    public private(set) weak var server: WaylandServer?
    /// X11 programs' windows through Xwayland, once serving them.
    public private(set) weak var x11: XWayland?
    var seat: SeatRouter?
    /// The programs the daemon runs; nil without a loop.
    let launcher: ClientLauncher?
    /// The windows placed by `surface.assign`, which rules no longer move.
    var handPlaced: Set<Int> = []
    /// The layer of each window as `surface.mapped` and `surface.assigned` last told it.
    var reportedLayers: [Int: String] = [:]
    /// The windows `surface.mapped` told of and no `surface.unmapped` since.
    private var shownWindows: Set<Int> = []
    /// A frame callback's `done` is scheduled for a commit that changed nothing on screen.
    private var frameCallbackDue = false
    /// Whether any output is powered: with none, windows' commits are discarded at once.
    public var outputsPowered = true
    /// The scene's media time now, at which a window's change under the pointer is hit-tested.
    public var now: () -> Double = { 0 }
    /// Layer surfaces on the scene, once serving (LayerShellHost.swift).
    var layerShell: LayerShellHost?
    /// The focused window's enabled text field, as last told (WindowHost+TextInput.swift).
    var currentTextInput: TextInputFocus?

    /// A host placing windows in `scene`'s surface layers, drawn by `surfaces`; with a
    /// `loop` it runs programs and answers frame callbacks of commits that show nothing.
    public init(
        scene: Scene, surfaces: SurfaceRenderer, settings: Settings, loop: EventLoop?, logger: Logger, notify: @escaping (WindowNotice) -> Void
    ) {
        self.scene = scene
        self.surfaces = surfaces
        compositor = settings.compositor
        keymap = settings.keymap
        self.loop = loop
        self.logger = logger
        self.notify = notify
        launcher = loop.map {
            ClientLauncher(
                settings: .init(waylandSocket: settings.waylandSocket, clients: settings.clients, allowCommands: settings.allowCommands), loop: $0,
                logger: logger, notify: notify)
        }
    }

    /// Serves Wayland clients with `server`: its windows are placed from now on.
    public func serve(_ server: WaylandServer) {
        self.server = server
        server.delegate = self
        seat = SeatRouter(scene: scene, surfaces: surfaces, server: server, keymap: keymap, logger: logger)
        layerShell = LayerShellHost(scene: scene, surfaces: surfaces, logger: logger)
        server.layerShellDelegate = self
        server.textInputDelegate = self
        server.mayUseInputMethods = { [weak self] pid in self?.mayUseInputMethods(pid: pid) ?? false }
        server.mayCaptureScreen = { [weak self] pid in self?.mayCaptureScreen(pid: pid) ?? false }
        server.pingTimeout = compositor.pingTimeout
        server.maximumObjectsPerClient = compositor.maxObjectsPerClient
        server.maximumPoolsPerClient = compositor.maxShmPoolsPerClient
    }

    /// Serves X11 programs' windows through `xwayland` (after `serve(_:)`): placed as
    /// Wayland windows are, and the programs the daemon starts get its `DISPLAY`.
    public func serve(x11 xwayland: XWayland) {
        x11 = xwayland
        xwayland.delegate = self
        xwayland.pingTimeout = compositor.pingTimeout
        launcher?.serveX11(display: xwayland.display)
    }

    /// Passes input (its time the kernel's) to the window under it, the scene read at
    /// media time `time`.
    public func handle(_ event: InputEvent, at time: Double, on placement: InputPlacement) {
        seat?.handle(event, at: time, on: placement)
    }

    /// After a frame is presented: the frame callbacks of the windows it showed are done.
    public func framePresented() {
        server?.framePresented(showing: surfaces.takeShown(), milliseconds: Self.milliseconds())
    }

    /// After the primary output presented a frame of the scene at media time `time`: a
    /// window that moved, resized, appeared or went under the pointer hears it as if the
    /// pointer had moved (enter, leave, motion).
    public func pointerMayHaveMoved(at time: Double) {
        seat?.refreshPointer(at: time, flush: true)
    }

    static func milliseconds() -> UInt32 { UInt32(truncatingIfNeeded: EventLoop.monotonicNanoseconds() / 1_000_000) }

    /// Takes the reloadable settings: the rules (applied to the windows at once), the ping
    /// timeout and whether `client.start` may run commands.
    public func apply(reloaded fresh: Configuration.Compositor, allowCommands: Bool) {
        launcher?.settings.allowCommands = allowCommands
        compositor.pingTimeout = fresh.pingTimeout
        compositor.inputMethodClients = fresh.inputMethodClients
        compositor.screencopyClients = fresh.screencopyClients
        server?.pingTimeout = fresh.pingTimeout
        x11?.pingTimeout = fresh.pingTimeout
        guard fresh.rules != compositor.rules else { return }
        compositor.rules = fresh.rules
        placeByRules()
    }

    // MARK: Launched clients

    /// Starts the `[[clients]]` marked to start with the daemon.
    public func startConfiguredClients() { launcher?.startConfigured() }

    /// Stops every launched client (the daemon's stop).
    public func stopClients() { launcher?.stopAll() }

    /// Why `client.*` fails in a host that runs no programs (one without a loop).
    public static let noLauncher = ProtocolError(.notAllowed, "this compositor runs no programs: it was made without the daemon's event loop")

    /// `client.start`: the configured client `name`, or `program` under `name`.
    public func startClient(_ name: String, program: ClientProgram?) throws(ProtocolError) -> JSON {
        guard let launcher else { throw Self.noLauncher }
        return try launcher.start(name, program: program)
    }

    /// `client.stop`: `done` gets the client's description once its process ended.
    public func stopClient(_ name: String, done: @escaping (Result<JSON, ProtocolError>) -> Void) {
        guard let launcher else { return done(.failure(Self.noLauncher)) }
        launcher.stop(name, done: done)
    }

    /// `client.list`.
    public func clientList() -> JSON {
        launcher?.list() ?? .object(["clients": .array([])])
    }

    /// A launched client's figures, for the metrics.
    public struct ClientFigures: Sendable {
        public let name: String
        public let running: Bool
        public let restarts: Int
        public let failures: Int
    }

    /// Every launched client's figures, by name.
    public var clientFigures: [ClientFigures] {
        (launcher?.clients.values.sorted { $0.name < $1.name } ?? []).map {
            ClientFigures(name: $0.name, running: $0.process != nil, restarts: $0.restartsTotal, failures: $0.failures)
        }
    }
}

extension WindowHost: WindowDelegate {
    public func windowMapped(_ window: any HostedWindow) {
        if assignedLayer(of: window) == nil, let rule = rule(for: window) {
            do { try assign(window, to: rule.layer) } catch  where error.code == "unknown_layer" {
                logger.info(
                    "surface \(window.id) (\(window.appID)) waits for layer \(rule.layer), which its rule names: it goes there once added (kind surface)")
            } catch {
                logger.warning("surface \(window.id) (\(window.appID)): rule for layer \(rule.layer) not applied: \(error.message)")
            }
        }
        if assignedLayer(of: window) == nil { window.picture?.discardFeedback() }
        reportedLayers[window.id] = assignedLayer(of: window)
        reportAssignments()
        let instance = window.instance.map { ", instance '\($0)'" } ?? ""
        logger.info("surface \(window.id) mapped (\(window.kind.rawValue)): app id '\(window.appID)'\(instance), title '\(window.title)', pid \(window.pid)")
        shownWindows.insert(window.id)
        notify(.event(.surfaceMapped(description(of: window)), afterReply: false))
        notify(.redraw(afterReply: false))
        seat?.refreshPointer(at: now(), flush: false)
    }

    /// A window stopped showing, or one that had stopped is gone (`isAlive` false: it is
    /// forgotten, its layer let go; `surface.unmapped` is told once).
    public func windowUnmapped(_ window: any HostedWindow) {
        let layer = assignedLayer(of: window)
        if let layer, !window.isAlive { surfaces.assignments[layer] = nil }
        if !window.isAlive {
            handPlaced.remove(window.id)
            reportedLayers[window.id] = nil
            seat?.forget(window)
        }
        guard shownWindows.remove(window.id) != nil else { return }
        notify(.event(.surfaceUnmapped(surface: window.id, layer: layer), afterReply: false))
        notify(.redraw(afterReply: false))
        if window.isAlive { seat?.refreshPointer(at: now(), flush: false) }
    }

    public func windowChanged(_ window: any HostedWindow) {
        guard let picture = window.picture else { return }
        guard assignedLayer(of: window) != nil else {
            picture.discardFeedback()
            return
        }
        if !outputsPowered { picture.discardFeedback() }
        if picture.awaitsFrame, !frameCallbackDue, let loop {
            // A commit that changes nothing on screen still gets its callback, a frame later.
            frameCallbackDue = true
            loop.schedule(after: 1.0 / 60) { [weak self] in
                guard let self else { return }
                frameCallbackDue = false
                server?.framePresented(showing: surfaces.shownAwaitingFrames, milliseconds: Self.milliseconds())
            }
        }
        notify(.redraw(afterReply: false))
        // A surface of the window moved, resized or restacked under the pointer: told now,
        // within the commit, not a frame later.
        seat?.refreshPointer(at: now(), flush: false)
    }

    public func initialSize(of window: any HostedWindow) -> (width: Int, height: Int, scale: Double)? {
        guard let rule = rule(for: window), let bounds = try? scene.modelValues(of: rule.layer).rect(.bounds) else { return nil }
        return (Int(bounds.size.width.rounded()), Int(bounds.size.height.rounded()), surfaces.scale(of: rule.layer))
    }

    public func windows(_ windows: [any HostedWindow], responsive: Bool, seconds: Double) {
        guard let first = windows.first else { return }
        let ids = windows.map { String($0.id) }.joined(separator: ", ")
        let client = first.kind == .x11 ? "X11 client" : "Wayland client"
        let what = "\(client) pid \(first.pid) (surface\(windows.count == 1 ? "" : "s") \(ids), app id '\(first.appID)')"
        let after = "\((seconds * 10).rounded() / 10) s"
        if responsive {
            logger.info("\(what) answers again, \(after) after the ping")
        } else {
            logger.warning("\(what) has not answered a ping for \(after): unresponsive")
        }
        for window in windows {
            let description = description(of: window)
            notify(.event(responsive ? .surfaceResponsive(description) : .surfaceUnresponsive(description), afterReply: false))
        }
        if responsive { launcher?.clientResponsive(pid: first.pid) } else { launcher?.clientUnresponsive(pid: first.pid) }
    }
}
