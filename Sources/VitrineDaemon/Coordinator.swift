import FoundationEssentials
import Glibc
import Logging
import VitrineCore
import VitrineDecoderHelper
import VitrineOutput
import VitrineOutputSet
import VitrinePlayLog
import VitrineProtocol
import VitrineSceneHost
import VitrineSignage
import VitrineSystem
import VitrineRaster
import VitrineRender
import VitrineText
import VitrineVideoLayer
import VitrineWayland
import VitrineWindowHost

/// A connected client as the coordinator sees it: where its replies and events go.
public protocol ClientConnection: AnyObject {
    /// Unique while connected.
    var clientID: Int { get }
    /// Queues one line (without newline) to the client; never blocks.
    func send(_ line: String)
    /// The reply to the request that `Coordinator.handle` deferred has been sent: the
    /// client's next requests may go on.
    func resume()
}

extension ClientConnection {
    public func resume() {}
}

/// The daemon's coordinator: it makes the owners — the scene host, the output set, the
/// content host, the input router, the window host, the journal — wires what each says to
/// the others, and dispatches clients' requests to them.
///
/// It is confined to one serial executor (the daemon's event loop): every method must be
/// called there, so the model needs no locks. Commands are applied in arrival order,
/// between frames; a frame is rendered only when something changed or animates.
public final class Coordinator: @unchecked Sendable {  // confined to the daemon's event loop
    public internal(set) var settings: DaemonSettings
    /// The screens: heads, pacing, power, hotplug, presentation feedback.
    public private(set) var outputSet: OutputSet!
    /// The scene's commands, transactions, rolls followed to their end, scene events.
    public private(set) var sceneHost: SceneHost!
    let logger: Logger
    /// Blocking work (file reads and writes) goes here; nil runs it in place (programs and
    /// tests that embed a coordinator without a loop).
    let workers: WorkerPool?
    /// The connected clients and the events they asked for.
    let subscribers = Subscribers()
    /// What the requests handled since the last `flush` left to do after their replies.
    var afterReply = AfterReply()
    /// What the daemon around the coordinator does for it.
    public var hooks = DaemonHooks()
    /// Images, videos and windows shown in layers.
    private(set) var content: ContentHost!
    /// Input: events for scripts, gestures, bindings.
    private(set) var input: InputRouter!
    /// The scene journal, when the daemon keeps one (`DaemonSettings.stateDirectory`).
    public internal(set) var journal: SceneJournal?
    /// The window policy and the programs the daemon runs (`surface.*`, `client.*`); nil in
    /// a coordinator without a loop.
    public private(set) var windows: WindowHost?
    /// The on-screen keyboard, when `[osk]` enables it.
    private(set) var screenKeyboard: ScreenKeyboard?
    /// The content watchdog, when `[[watch]]` tables ask for one.
    private(set) var watchdog: ContentWatchdog?
    /// Screen capture's frame taps, while the compositor serves.
    var capture: ScreenCapture?
    /// The VNC listeners, when `[remote]` configures some.
    var remote: RemoteView?
    /// The identification screen on outputs with nothing to show (`[scene] identify`).
    var identification: IdentificationScreen!
    /// Proof of play, when `[playlog]` is on and there is a state directory.
    public private(set) var playLog: PlayLog?
    /// Gets scenes and playlist items ready and shows them (`scene.load`).
    private(set) var switcher: SceneSwitcher!
    /// The playlists and schedules, once one plays.
    var signage: SignageHost?
    /// The playlists and schedules set over the socket, journaled.
    var signageChanges = SignageChanges()
    /// The event loop, when there is one.
    let loop: EventLoop?
    /// Receives what the playlists show, for proof of play; nil records nothing.
    public var playRecorder: (any PlayRecorder)? {
        didSet { signage?.recorder = playRecorder }
    }

    /// What a request leaves for after its reply (`flush`): events, and a frame.
    struct AfterReply {
        var events: [Event] = []
        var frame = false
    }

    /// A coordinator drawing one output.
    public convenience init(settings: DaemonSettings, output: OutputBackend, logger: Logger, loop: EventLoop? = nil, workers: WorkerPool? = nil) throws {
        try self.init(settings: settings, outputs: [output], logger: logger, loop: loop, workers: workers)
    }

    /// A coordinator drawing every one of `outputs` (at least one), each under its own root
    /// layer: the one `settings.outputs` gives its connector, else "root" for the first
    /// and the connector's name for the others. Timers go on `loop` and files are read and
    /// written by `workers`; without them (programs and tests that render by hand) nothing
    /// is timed and files are read in place.
    public init(settings: DaemonSettings, outputs: [OutputBackend], logger: Logger, loop: EventLoop? = nil, workers: WorkerPool? = nil) throws {
        self.settings = settings
        self.logger = logger
        self.workers = workers
        self.loop = loop
        let scene = Scene(configuration: settings.sceneConfiguration)
        StandardKinds.register(in: scene, rolling: settings.rolling, fontFamily: settings.defaultFontFamily)
        scene.register(VideoLayer.kind)
        scene.register(SurfaceLayer.kind)
        let fonts = try? FontLibrary()
        for directory in settings.fontDirectories { try? fonts?.addFontDirectory(directory) }
        let images = ImageStore(directory: settings.imageDirectory, budget: settings.limits.memoryMB << 20, loader: nil)
        let renderer = StandardKinds.renderer(images: images, fonts: fonts, rolling: settings.rolling)
        let clock = MediaClock(mode: settings.clock)
        outputSet = try OutputSet(
            outputs, settings: settings.outputSet, scene: scene, renderer: renderer, clock: clock, loop: loop, logger: logger
        ) { [unowned self] notice in take(notice) }
        sceneHost = SceneHost(scene: scene, clock: clock, root: outputSet.root, settings: SceneHost.Settings(spring: settings.spring)) {
            [unowned self] notice in take(notice)
        }
        input = InputRouter(
            settings: settings.input, sceneHost: sceneHost, outputSet: outputSet, subscribers: subscribers, loop: loop, logger: logger
        ) { [unowned self] in flush() }
        content = ContentHost(
            settings: settings.content, roots: settings.contentRoots + [settings.imageDirectory], directory: settings.imageDirectory,
            sceneHost: sceneHost, outputSet: outputSet, subscribers: subscribers,
            decoder: DecoderClient(settings: settings.decoder, loop: loop, logger: logger), workers: workers, loop: loop, logger: logger)
        switcher = SceneSwitcher(sceneHost: sceneHost, content: content, workers: workers, loop: loop)
        switcher.scenes = settings.signage.scenes
        switcher.spring = settings.spring
        switcher.background = settings.background
        content.videoEnded = { [unowned self] layer in signage?.videoEnded(layer: layer, at: now) }
        let restored =
            settings.stateDirectory.map {
                openJournal(directory: $0, mustExist: settings.stateDirectoryIsDefault, fresh: settings.freshStart, loop: loop)
            } ?? false
        if !restored { try showInitialScene() }
        startIdentification(loop: loop)
        playLog = makePlayLog(loop: loop)
        playRecorder = playLog
        screenKeyboard = try makeScreenKeyboard(loop: loop)
        renderer.animations.clock = { [unowned scene] in scene.pictureClock(of: $0, at: $1) }
        if let loop {
            windows = WindowHost(scene: scene, surfaces: content.surfaces, settings: settings.windowHost, loop: loop, logger: logger) {
                [unowned self] notice in take(notice)
            }
            windows?.now = { [unowned sceneHost] in sceneHost.now }
            input.windows = windows
            watchdog = makeWatchdog(loop: loop)
            switcher.windows = windows
        }
        takeIdleActions()
        startSignage()
    }

    /// The renderer every output's pipeline draws with (one image store, one font library).
    var renderer: Renderer { outputSet.renderer }
    /// The scene (the scene host's).
    public var scene: Scene { sceneHost.scene }
    /// Media time (the scene host's, which the outputs pace frames by too).
    var clock: MediaClock { sceneHost.clock }
    /// The current media time.
    public var now: Double { sceneHost.now }
    /// The output drawn first; while none is plugged in, the last one unplugged.
    public var output: OutputBackend { outputSet.primary.backend }
    /// The primary output's root: where layers go that name no parent, and what input is
    /// hit-tested against.
    public var root: String { outputSet.root }
    /// Every output's backend, primary first.
    public var outputs: [OutputBackend] { outputSet.backends }
    /// Frames rendered and presented, for `hello` and benchmarks.
    public var framesRendered: Int { outputSet.statistics.frames }
    /// Pixels those frames repainted, for `stats` and benchmarks.
    public var pixelsRepainted: Int { outputSet.statistics.pixels }

    /// Shows the configured initial scenes at the current time: `[scene]` on the primary
    /// output, and each output's `[[outputs]] scene` on its root.
    func showInitialScene() throws(SystemError) {
        var roots = Set<String>()
        for head in outputSet.heads where roots.insert(head.root).inserted { try showScene(of: head) }
    }

    /// Shows the scene the configuration gives `head`, if any.
    func showScene(of head: OutputHead) throws(SystemError) {
        let initial: SceneDescription
        let origin: String
        if let scene = head.entry?.scene {
            (initial, origin) = (scene, "the scene \(head.entry!.sceneFile) of output \(head.name)")
        } else if head.root == root, let scene = settings.initialScene {
            (initial, origin) = (scene, settings.initialSceneOrigin)
        } else {
            return
        }
        do {
            try initial.apply(to: scene, root: head.root, at: clock.now, springDefaults: settings.spring)
            try input.addBindings(initial.bindings, limits: settings.limits)
        } catch {
            throw SystemError("\(origin) cannot be shown: \(error.message)")
        }
    }

    // MARK: Clients

    public func connect(_ connection: ClientConnection) {
        subscribers.connect(connection)
    }

    public func disconnect(_ connection: ClientConnection) {
        subscribers.disconnect(connection)
        sceneHost.forget(client: connection.clientID)
    }

    /// Handles one request line from `client` and returns the reply line, or nil when the
    /// reply comes later (a file being written by a worker): then it is sent to `client`
    /// followed by `client.resume()`, and the client's next requests wait for it.
    public func handle(line: some Collection<UInt8>, from client: ClientConnection) -> String? {
        switch Request.decode(line) {
        case .failure(let failure):
            return Wire.failure(id: failure.id, failure.error)
        case .success(let request):
            switch (request.at, request.command) {
            case (.some, .screenshot), (.some, .configReload), (.some, .clientStop), (.some, .cecSend), (.some, .playlogQuery):
                return Wire.failure(
                    id: request.id,
                    ProtocolError(.invalidValue, "\(request.command.name) takes no \"at\"; send it when it is due (with the manual clock, after clock.set)"))
            default: break
            }
            if case .clientStop(let name) = request.command {
                return deferredReply(to: client) { finish in
                    guard let windows else { return finish(Wire.failure(id: request.id, WindowHost.noLauncher)) }
                    windows.stopClient(name) { result in
                        switch result {
                        case .success(let description): finish(Wire.reply(id: request.id, result: description))
                        case .failure(let error): finish(Wire.failure(id: request.id, error))
                        }
                    }
                }
            }
            if case .cecSend(let message) = request.command {
                return deferredReply(to: client) { finish in
                    do throws(ProtocolError) {
                        try outputSet.sendCEC(message) { result in
                            switch result {
                            case .success(let answer): finish(Wire.reply(id: request.id, result: answer))
                            case .failure(let error): finish(Wire.failure(id: request.id, error))
                            }
                        }
                    } catch {
                        finish(Wire.failure(id: request.id, error))
                    }
                }
            }
            if case .playlogQuery(let query) = request.command { return queryPlayLog(id: request.id, query, for: client) }
            if case .screenshot(let path, let output, let cursor) = request.command {
                return screenshot(id: request.id, path: path, output: output, cursor: cursor, for: client)
            }
            if case .sceneLoad(let load) = request.command { return sceneLoad(load, request: request, from: client) }
            if case .configReload = request.command {
                return deferredReply(to: client) { finish in
                    hooks.reloadConfiguration { error in
                        if let error { return finish(Wire.failure(id: request.id, error)) }
                        finish(
                            Wire.reply(
                                id: request.id,
                                result: .object([
                                    "reloaded": .bool(true), "restartNeeded": .array(self.settings.restartNeeded.map(JSON.string)),
                                ])))
                    }
                }
            }
            let references = Self.contents(in: request.command)
            if !references.isEmpty {
                return deferredReply(to: client) { finish in
                    content.loader.load(references) { [unowned self] error in
                        if let error { return finish(Wire.failure(id: request.id, error)) }
                        if let at = request.at {
                            if let line = schedule(request, at: at, from: client) { finish(line) }
                            return
                        }
                        let fades = content.contentFades(in: request.command)
                        finish(reply(to: request, from: client))
                        content.start(fades)
                        flush()
                    }
                }
            }
            if let at = request.at { return schedule(request, at: at, from: client) }
            return reply(to: request, from: client)
        }
    }

    /// Executes a decoded request and returns its reply line.
    private func reply(to request: Request, from client: ClientConnection) -> String {
        do {
            let result = try execute(request.command, from: client.clientID)
            return Wire.reply(id: request.id, result: result)
        } catch {
            return Wire.failure(id: request.id, error)
        }
    }

    /// Runs `start`, which calls `finish` once with the reply line, at once or later on the
    /// loop. Returns the reply when it came at once; otherwise nil, and the reply is sent
    /// to `client` followed by `client.resume()`.
    func deferredReply(to client: ClientConnection, _ start: (_ finish: @escaping (String) -> Void) -> Void) -> String? {
        var immediate: String?
        var returned = false
        start { [weak client] line in
            if returned {
                client?.send(line)
                client?.resume()
            } else {
                immediate = line
            }
        }
        returned = true
        return immediate
    }

    /// The `contents` values a command sets.
    static func contents(in command: Command) -> [String] {
        switch command {
        case .layerAdd(_, _, _, _, let properties), .layerSet(_, let properties, _, _):
            return properties.compactMap { key, value in
                guard key == "contents", case .string(let reference) = value, !reference.isEmpty else { return nil }
                return reference
            }
        case .transaction(let spec):
            return spec.commands.flatMap(contents(in:))
        case .bindingAdd(let binding):
            return contents(in: .transaction(binding.transaction))
        default:
            return []
        }
    }

    /// Runs what the last requests left to do (a frame); call it after sending replies,
    /// so that a client sees its reply before the events the change causes.
    public func flush() {
        let events = afterReply.events
        afterReply.events.removeAll()
        for event in events { broadcast(event) }
        input.sendPending()
        journal?.noteChanges()
        guard afterReply.frame else { return }
        afterReply.frame = false
        requestFrame()
    }

    // MARK: Frames

    /// Asks for a frame on every powered output (`OutputSet.requestFrame`).
    func requestFrame() { outputSet.requestFrame() }

    /// Advances the scene to now, routes its events and presents a frame on every powered
    /// output whose picture changed. Returns whether a frame was presented.
    @discardableResult
    public func renderFrame() -> Bool { outputSet.renderFrame() }

    // MARK: Events

    /// Sends an event that is not the scene's (config.reloaded) to its subscribers.
    func broadcast(_ event: Event) {
        subscribers.send(event)
    }
}

/// What the daemon around a coordinator does for it.
public struct DaemonHooks {
    /// Re-reads the configuration; `done` gets the error to report, nil once applied.
    public var reloadConfiguration: (_ done: @escaping (ProtocolError?) -> Void) -> Void = { $0(nil) }
    /// Runs after each presented frame with the media time it showed.
    public var framePresented: ((Double) -> Void)?

    public init() {}
}

/// Where clients' request lines go, as the socket server sees the coordinator.
protocol RequestHandler: AnyObject {
    /// The limits in force (a reload changes them).
    var limits: DaemonSettings.Limits { get }
    func connect(_ connection: ClientConnection)
    func disconnect(_ connection: ClientConnection)
    /// Whether `client` subscribed to any event (a listener may stay silent).
    func listens(_ client: Int) -> Bool
    /// The reply to one request line, or nil when it follows later (`ClientConnection.resume`).
    /// (A concrete type: a generic requirement would decode every line unspecialized.)
    func handle(request line: ArraySlice<UInt8>, from client: ClientConnection) -> String?
    /// Sends what the requests handled left for after their replies.
    func flush()
}

extension Coordinator: RequestHandler {
    var limits: DaemonSettings.Limits { settings.limits }

    func listens(_ client: Int) -> Bool { subscribers.listens(client) }

    func handle(request line: ArraySlice<UInt8>, from client: ClientConnection) -> String? { handle(line: line, from: client) }
}
