import FoundationEssentials
import Glibc
import Logging
import VitrineCore
import VitrineMetrics
import VitrineOutput
import VitrineOutputSet
import VitrineProtocol
import VitrineSceneHost
import VitrineRender
import VitrineSystem
import VitrineWayland
import VitrineWindowHost
import VitrineXWayland

/// The running daemon: one event loop that owns the coordinator and serves the socket.
///
/// ```swift
/// let daemon = try Daemon(settings: settings, output: HeadlessOutput(width: 1280, height: 800), logger: logger)
/// try daemon.run()   // until SIGTERM / SIGINT
/// ```
///
/// The thread that calls `run` becomes the event loop's; the coordinator, made in `init`,
/// is only touched there from then on.
public final class Daemon: @unchecked Sendable {  // its state is touched on its event loop or before it runs
    public let settings: DaemonSettings
    let logger: Logger
    private let loop: EventLoop
    private let coordinator: Coordinator
    private let server: SocketServer
    /// Reads and writes files off the loop: screenshots, snapshots, content.
    private let workers: WorkerPool
    /// Re-reads the configuration for SIGHUP and `config.reload`: new settings, or an
    /// error to report while the running ones stay. Runs on a worker thread (it reads a
    /// file); its result is applied on the loop.
    public var reload: @Sendable () -> Result<DaemonSettings, ProtocolError> = {
        .failure(ProtocolError(.invalidConfig, "vitrined was started without a configuration file (--config); there is nothing to reload"))
    }
    /// Reads SIGTERM / SIGINT (stop) and SIGHUP (reload) on the event loop (a signalfd)
    /// in `run`; a program that embeds the daemon and handles signals itself sets this to
    /// false and calls `stop()`. The signals must be blocked in every thread
    /// (`EventLoop.blockSignals`, first thing in `main`).
    public var handlesSignals = true
    /// Once serving, gives back the memory start-up used (`StartupMemory`): what the
    /// `vitrined` executable does; off for programs that embed the daemon.
    public var releasesStartupMemory = false
    /// Headless snapshots: after frames, `latest.png` here at most once a second.
    public var snapshotDirectory: String?
    private var lastSnapshot = 0.0
    /// A snapshot is being written: frames presented meanwhile do not queue another.
    private var snapshotWriting = false
    private let systemd = SystemdNotifier()
    /// A window output's events (size, close, input), when the output is a window.
    private var window: WindowInput?
    /// The metrics' HTTP endpoint on a Unix socket, when `[metrics]` enables it; its TCP
    /// port is `vitrine-fleet`'s.
    private var metricsServer: MetricsServer?
    /// The Wayland server, when `[compositor]` enables it.
    private var wayland: WaylandServer?
    /// X11 programs through Xwayland, when `[compositor] xwayland` enables them.
    private var x11: XWayland?
    /// Where outputs are plugged in and unplugged while running (DRM connectors, the
    /// emulated outputs of `[[outputs]]`), when the backend reports it; set before `run`.
    public var hotplug: HotplugSource?
    /// Plymouth, deactivated before the screen was opened: it quits after the first frame.
    public var plymouth: PlymouthHandover?

    /// A daemon drawing one output.
    public convenience init(settings: DaemonSettings, output: OutputBackend, logger: Logger) throws {
        try self.init(settings: settings, outputs: [output], logger: logger)
    }

    /// A daemon drawing several outputs, each under its own root layer (see
    /// `Coordinator.init(settings:outputs:logger:)`); the first is the primary one.
    public init(settings: DaemonSettings, outputs: [OutputBackend], logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        let loop = try EventLoop()
        self.loop = loop
        let workers = WorkerPool(threads: 2, loop: loop)
        self.workers = workers
        let coordinator = try Coordinator(settings: settings, outputs: outputs, logger: logger, loop: loop, workers: workers)
        self.coordinator = coordinator
        server = SocketServer(requests: coordinator, settings: settings, loop: loop, logger: logger)
        if let output = coordinator.output as? WindowOutput {
            window = WindowInput(
                window: output, input: coordinator.input, keymap: settings.input.keymap, logger: logger,
                handled: { [unowned coordinator] in coordinator.flush() },
                resized: { [unowned coordinator] mode in coordinator.outputResized(to: mode) }
            ) { reason in
                logger.info("\(reason): stopping")
                loop.stop()
            }
        }
        for output in outputs { output.attach(to: loop) }
        coordinator.hooks.reloadConfiguration = { [unowned self] done in self.applyReload(done) }
        coordinator.hooks.framePresented = { [unowned self] _ in self.frameWasPresented() }
        if settings.metrics.enabled {
            let metrics = DaemonMetrics()
            metricsServer = MetricsServer(loop: loop, connections: settings.metrics.connections, logger: logger) { [unowned coordinator] answer in
                // The resident set is read from /proc and the clock from the kernel on a worker; the rest here.
                let playLog = coordinator.playLog?.store.directory
                let queued = workers.submit({ DaemonMetrics.Reading.now(playLog: playLog) }) { reading in answer(metrics.exposition(reading, of: coordinator)) }
                if !queued { answer(nil) }
            }
        }
    }

    /// Listens for scrapes on the Unix socket `[metrics]` names (`metrics.sock` beside the
    /// control socket when it names none). The TCP port is served by `vitrine-fleet`, which
    /// reads the daemon's figures from this socket: the display process opens no IP socket.
    private func startMetrics() throws {
        guard let metricsServer, let path = settings.metricsSocketPath else { return }
        try SocketFile.prepare(path, key: "metrics.socket")
        try metricsServer.listen(path: path)
        try SocketFile.setPermissions(path, mode: 0o660, group: nil)
        let config = settings.metrics
        if config.port > 0 {
            logger.info("metrics on TCP \(config.address):\(config.port) are served by vitrine-fleet, which reads them from \(path)")
        }
    }

    /// Says where `[fleet]` is served: the bridge is a process of its own.
    private func noteFleet() {
        guard settings.fleet.enabled else { return }
        logger.notice(
            "[fleet] is served by vitrine-fleet, a process of its own that connects to this socket (systemctl enable --now vitrine-fleet); vitrined opens no network connection"
        )
    }

    /// Serves until SIGTERM or SIGINT, then stops listening, removes the socket and
    /// returns. SIGHUP reloads the configuration.
    public func run(inheritedSocket: CInt? = nil) throws {
        // Signals first: a SIGTERM that arrives as soon as the socket listens must still
        // stop the daemon cleanly.
        if handlesSignals { try watchSignals() }
        let address = try server.start(inheritedSocket: inheritedSocket)
        do {
            try startMetrics()
            if let path = settings.waylandSocketPath { try serveWayland(at: path) }
        } catch {
            server.stop()
            throw error
        }
        coordinator.outputSet.startPowerSchedules()
        coordinator.outputSet.startTVControl()
        coordinator.renderFrame()
        plymouth?.quit(on: loop)
        if let hotplug {
            hotplug.hotplug = self
            do { try hotplug.watchHotplug(on: loop) } catch { logger.error("outputs plugged in or unplugged will not be noticed: \(error)") }
        }
        let devices = coordinator.openInputDevices(loop: loop)
        coordinator.startRemote(loop: loop)
        noteFleet()
        // After the sockets: a client may connect as soon as it runs.
        coordinator.windows?.startConfiguredClients()
        systemd.notify("READY=1\nSTATUS=serving \(address), " + coordinator.outputs.map { "\($0.name) \($0.mode)" }.joined(separator: ", "))
        if let interval = systemd.watchdogInterval { petWatchdog(every: interval / 2) }
        if releasesStartupMemory {
            let logger = logger
            loop.schedule(after: 0) {
                let (before, after) = StartupMemory.release()
                logger.debug("start-up memory given back: resident \(before / 1024) MB → \(after / 1024) MB")
            }
        }
        loop.run()
        coordinator.windows?.stopClients()
        coordinator.stopRemote()
        devices?.stop()
        metricsServer?.stop()
        if metricsServer != nil, let path = settings.metricsSocketPath { unlink(path) }
        systemd.notify("STOPPING=1\nSTATUS=stopping")
        // The scene as it is now, whatever the coalesced writes have got to.
        coordinator.journal?.writeFinal()
        coordinator.playLog?.writeFinal()
        workers.stop()
        server.stop()
        x11?.stop()
        x11 = nil
        if let path = settings.waylandSocketPath, let server = wayland {
            server.disconnectClients()
            wayland = nil
            unlink(path)
        }
        // Gives the screen back (DRM: waits for the pending flip, restores the CRTC).
        for output in coordinator.outputs { output.close() }
        logger.info("stopped")
    }

    /// Serves Wayland clients on a socket at `path`, with the control socket's permissions.
    private func serveWayland(at path: String) throws {
        let fd = try SocketFile.listen(path, mode: settings.socketMode, group: settings.socketGroup, key: "compositor.socket")
        var right = 0
        let outputs = coordinator.outputSet.heads.map { head in
            let mode = head.backend.mode
            // A wall's screens where they are on it; separate outputs side by side.
            let (x, y) = head.viewport.map { ($0.x, $0.y) } ?? (right, 0)
            right = max(right, x + mode.width)
            return WaylandServer.Output(
                name: head.name, width: mode.width, height: mode.height, rate: mode.refreshRate, scale: head.entry?.scale ?? 1, x: x, y: y)
        }
        let server = try WaylandServer(listening: fd, outputs: outputs, loop: loop, logger: logger)
        coordinator.serve(server)
        wayland = server
        logger.info("serving Wayland clients on \(path)")
        let mode: XWayland.Mode
        switch settings.compositor.xwayland {
        case .off: return
        case .onDemand: mode = .onDemand
        case .always: mode = .always
        }
        // Without X11 the compositor serves Wayland clients still: the error is logged.
        do {
            let x11 = try XWayland(mode: mode, server: server, loop: loop, logger: logger)
            coordinator.serve(x11: x11)
            self.x11 = x11
            logger.info("serving X11 programs on display \(x11.display) through Xwayland (\(settings.compositor.xwayland.rawValue))")
        } catch {
            logger.error("X11 programs are not served: \(error.message)")
        }
    }

    /// Asks a running daemon to stop (as SIGTERM does); callable from any thread.
    public func stop() { loop.stop() }

    /// Runs `body` on the daemon's loop with its coordinator and its Wayland server (nil
    /// while the compositor is off); callable from any thread, before `run` too (the body
    /// then runs once `run` serves). For programs that embed the daemon and drive it from
    /// another thread, such as the WLCS integration module: they send requests with
    /// `Coordinator.handle(line:from:)`, as a client of the socket would.
    public func onLoop(_ body: @escaping @Sendable (Coordinator, WaylandServer?) -> Void) {
        loop.execute { [unowned self] in body(coordinator, wayland) }
    }

    private func watchSignals() throws {
        try loop.watchSignals([SIGTERM, SIGINT, SIGHUP]) { [unowned self] number in
            if number == SIGHUP {
                applyReload { [unowned self] error in
                    if let error { logger.error("configuration not reloaded, keeping the running one: \(error.message)") }
                }
            } else {
                logger.info("signal \(number): stopping")
                loop.stop()
            }
        }
    }

    /// Re-reads the configuration on a worker, then applies it here: settings that can
    /// change while running (animation defaults, limits, screenshot directory, background)
    /// take effect, and subscribers get `config.reloaded`; the output and the socket stay
    /// as they are until a restart. `done` gets the error when the running configuration
    /// stays. systemd hears RELOADING=1 … READY=1 around it.
    private func applyReload(_ done: @escaping (ProtocolError?) -> Void) {
        systemd.notify("RELOADING=1\nMONOTONIC_USEC=\(EventLoop.monotonicNanoseconds() / 1000)")
        let queued = workers.submit(reload) { [unowned self] result in
            defer { systemd.notify("READY=1") }
            switch result {
            case .failure(let error):
                done(error)
            case .success(var fresh):
                if let emulated = hotplug as? EmulatedOutputs {
                    fresh.restartNeeded.removeAll { $0 == "outputs" }
                    coordinator.follow(outputs: fresh.outputs)
                    emulated.follow(fresh.outputs, settings: fresh.emulatedOutputs)
                }
                coordinator.apply(reloaded: fresh)
                server.limitsChanged()
                if fresh.restartNeeded.isEmpty {
                    logger.info("configuration reloaded")
                } else {
                    logger.warning("configuration reloaded; \(fresh.restartNeeded.joined(separator: ", ")) changed but take effect when the daemon restarts")
                }
                coordinator.broadcast(.configReloaded(restartNeeded: fresh.restartNeeded))
                done(nil)
            }
        }
        if !queued {
            systemd.notify("READY=1")
            done(ProtocolError(.limitExceeded, "the daemon's file workers are busy; reload again shortly"))
        }
    }

    /// Writes `latest.png` after frames, at most once a second while animating and once
    /// more when the screen is still; encoded and written by a worker, one at a time.
    private func frameWasPresented() {
        guard let directory = snapshotDirectory, !snapshotWriting, let front = (coordinator.output as? HeadlessOutput)?.frontBuffer else { return }
        let now = coordinator.now
        guard now - lastSnapshot >= 1 || !coordinator.scene.isAnimating else { return }
        lastSnapshot = now
        let path = directory + "/latest.png"
        // The front buffer is drawn into again by later frames: the worker gets a copy.
        let copy = front.copy()
        let logger = logger
        snapshotWriting = true
        let queued = workers.submit({ () -> String? in
            do { try SafeFile.write(try copy.pngData(), to: path) } catch { return "\(error)" }
            return nil
        }) { [weak self] failure in
            self?.snapshotWriting = false
            if let failure { logger.warning("cannot write the snapshot \(path): \(failure)") }
        }
        if !queued { snapshotWriting = false }
    }

    /// Sends `WATCHDOG=1` from the loop every `seconds`: a loop that stops turning stops
    /// petting, and systemd restarts the service (which restores its scene).
    private func petWatchdog(every seconds: Double) {
        systemd.notify("WATCHDOG=1")
        loop.schedule(after: seconds) { [weak self] in self?.petWatchdog(every: seconds) }
    }
}

extension Daemon: HotplugDelegate {
    public func outputAdded(_ output: OutputBackend) {
        output.attach(to: loop)
        coordinator.outputSet.plug(output)
    }

    public func outputRemoved(_ output: OutputBackend) {
        coordinator.outputSet.unplug(output)
    }
}
