import FoundationEssentials
import Glibc
import Logging
import VitrineCore
import VitrineOutput
import VitrineProtocol
import VitrineSystem
import VitrineRaster
import VitrineRender
import VitrineText
import VitrineVideo
import VitrineWayland
import VitrineWindowHost

/// A connected client as the compositor sees it: where its replies and events go.
public protocol ClientConnection: AnyObject {
    /// Unique while connected.
    var clientID: Int { get }
    /// Queues one line (without newline) to the client; never blocks.
    func send(_ line: String)
    /// The reply to the request that `Compositor.handle` deferred has been sent: the
    /// client's next requests may go on.
    func resume()
}

extension ClientConnection {
    public func resume() {}
}

/// The owner of the scene: applies commands, renders frames, routes events.
///
/// It is confined to one serial executor (the daemon's event loop): every method must be
/// called there, so the model needs no locks. Commands are applied in arrival order,
/// between frames; a frame is rendered only when something changed or animates.
public final class Compositor: @unchecked Sendable {  // confined to the daemon's event loop
    public internal(set) var settings: DaemonSettings
    public let scene: Scene
    /// The outputs drawn, in the order they were found; the first is the primary one
    /// (root "root" unless the configuration names another): input goes to it.
    var heads: [OutputHead] = []
    /// The output drawn first; while none is plugged in, the last one unplugged.
    public var output: OutputBackend { primaryHead.backend }
    /// The first output's pipeline; every output's shares its renderer.
    public var pipeline: FramePipeline { primaryHead.pipeline }
    /// The head drawn first, which input maps to; while none is plugged in, the last one
    /// unplugged.
    var primaryHead: OutputHead { heads.first ?? lastHead! }
    /// The head unplugged last, while no output is plugged in.
    var lastHead: OutputHead?
    /// The connector of the output found first at start, whose root is "root" unless the
    /// configuration names another.
    var primaryConnector = ""
    /// The primary output's root: where layers go that name no parent, and what input is
    /// hit-tested against. It stays while that output is unplugged (its layers kept).
    public internal(set) var root = "root"
    /// Unplugged outputs whose roots are kept until their grace ends, by connector.
    var unplugged: [String: UnpluggedOutput] = [:]
    /// Counts unpluggings, so that a grace's timer knows whether it is still the current one.
    var hotplugSerial = 0
    /// Every output's backend, primary first.
    public var outputs: [OutputBackend] { heads.map(\.backend) }
    /// Reads layers' contents off the loop into the renderer's image store.
    var content: ContentLoader!
    let logger: Logger
    var clock: FrameClock
    var clients: [Int: ClientState] = [:]
    /// Requests waiting for their `at`, in the order they are due.
    var scheduled: [ScheduledRequest] = []
    /// While a scheduled request is applied: its `at` in media time, which is `now` for it.
    var applyTime: Double?
    /// Which client committed each open transaction, for its completion event.
    var transactionOwners: [UInt64: Int] = [:]
    /// Open `number.set` transactions: the layer, the value, and whether every column
    /// animation so far ran to its end.
    var numberSets: [UInt64: (layer: String, value: Double, finished: Bool)] = [:]
    /// The `number.set` transaction of each of its animations.
    var numberAnimations: [UInt64: UInt64] = [:]
    /// Set by the server: run `body` on the compositor's executor after `seconds`.
    public var schedule: (_ seconds: Double, _ body: @escaping () -> Void) -> Void = { _, _ in }
    /// Blocking work (file reads and writes) goes here; nil runs it in place (programs and
    /// tests that embed a compositor without a loop).
    public var workers: WorkerPool?
    /// Set by the daemon: re-read the configuration; returns an error to report.
    public var reloadConfiguration: (_ done: @escaping (ProtocolError?) -> Void) -> Void = { $0(nil) }
    /// A command changed something: a frame is due after the reply.
    var frameNeeded = false
    /// Events a command caused, sent after its reply (`flush`).
    var queuedEvents: [Event] = []
    /// The last animation key picked by `nextAnimationKey` (journaled with the scene).
    var animationKeys = 0
    /// The scene journal, when the daemon keeps one (`DaemonSettings.stateDirectory`).
    public internal(set) var journal: SceneJournal?
    /// Frames rendered and presented, for `hello` and benchmarks.
    public private(set) var framesRendered = 0
    /// Pixels those frames repainted, for `stats` and benchmarks.
    public private(set) var pixelsRepainted = 0
    /// Called after each presented frame with the media time it showed.
    public var onFramePresented: ((Double) -> Void)?
    /// When the frame asked for an animated picture's next frame is due (media time).
    var pictureFrameDue: Double?
    /// Input: events for scripts, gestures, bindings.
    lazy var input = InputRouter(compositor: self)
    /// Video layers' players.
    var videos: VideoRenderer!
    /// GStreamer's initialization has been handed to a worker.
    var gstreamerPreparing = false
    /// Surface layers' windows.
    var surfaces: SurfaceRenderer!
    /// The Wayland server, when `[compositor]` enables it.
    weak var wayland: WaylandServer?
    /// The MQTT bridge's figures for `stats`, when there is one.
    var fleetStatistics: (() -> JSON)?
    /// The loop's time per presented frame (advancing the scene, drawing, presenting).
    var frameTimes = FrameStatistics()
    /// `content.failed` and `video.error` events sent.
    var contentErrors = (images: 0, videos: 0)
    /// The window policy and the programs the daemon runs (`surface.*`, `client.*`); nil in
    /// a compositor without a loop.
    public var windows: WindowHost?

    /// What the compositor keeps per client.
    struct ClientState {
        let connection: ClientConnection
        var subscriptions: [String] = []
        /// The layers (and their sublayers) whose `layer.*` events a pattern brings; a
        /// pattern without a filter brings them all.
        var layerFilters: [String: Set<String>] = [:]
    }

    /// A compositor drawing one output.
    public convenience init(settings: DaemonSettings, output: OutputBackend, logger: Logger) throws {
        try self.init(settings: settings, outputs: [output], logger: logger)
    }

    /// A compositor drawing every one of `outputs` (at least one), each under its own root
    /// layer: the one `settings.outputs` gives its connector, else "root" for the first
    /// and the connector's name for the others.
    public init(settings: DaemonSettings, outputs: [OutputBackend], logger: Logger) throws {
        guard !outputs.isEmpty else { throw SystemError("a compositor needs at least one output") }
        self.settings = settings
        self.logger = logger
        scene = Scene(configuration: settings.sceneConfiguration)
        StandardKinds.register(in: scene, rolling: settings.rolling, fontFamily: settings.defaultFontFamily)
        scene.register(VideoLayer.kind)
        scene.register(SurfaceLayer.kind)
        let fonts = try? FontLibrary()
        for directory in settings.fontDirectories { try? fonts?.addFontDirectory(directory) }
        let images = ImageStore(directory: settings.imageDirectory, budget: settings.limits.memoryMB << 20, loader: nil)
        renderer = StandardKinds.renderer(images: images, fonts: fonts, rolling: settings.rolling)
        clock = FrameClock(mode: settings.clock)
        primaryConnector = outputs[0].connector
        for output in outputs { try addHead(output) }
        root = heads[0].root
        content = ContentLoader(
            roots: settings.contentRoots + [settings.imageDirectory], directory: settings.imageDirectory, images: images, compositor: self, logger: logger)
        let restored =
            settings.stateDirectory.map {
                openJournal(directory: $0, mustExist: settings.stateDirectoryIsDefault, fresh: settings.freshStart)
            } ?? false
        if !restored { try showInitialScene() }
        renderer.animations.clock = { [unowned scene] in scene.pictureClock(of: $0, at: $1) }
        videos = attachVideos()
        surfaces = attachSurfaces()
    }

    /// The renderer every output's pipeline draws with (one image store, one font library).
    let renderer: Renderer

    /// The current media time.
    public var now: Double { applyTime ?? clock.now }

    /// Shows the configured initial scenes at the current time: `[scene]` on the primary
    /// output, and each output's `[[outputs]] scene` on its root.
    func showInitialScene() throws(SystemError) {
        var roots = Set<String>()
        for head in heads where roots.insert(head.root).inserted { try showScene(of: head) }
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
            try addBindings(initial.bindings)
        } catch {
            throw SystemError("\(origin) cannot be shown: \(error.message)")
        }
    }

    // MARK: Clients

    public func connect(_ connection: ClientConnection) {
        clients[connection.clientID] = ClientState(connection: connection)
    }

    public func disconnect(_ connection: ClientConnection) {
        clients[connection.clientID] = nil
        scheduled.removeAll { $0.client == connection.clientID }
        transactionOwners = transactionOwners.filter { $0.value != connection.clientID }
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
            case (.some, .screenshot), (.some, .configReload), (.some, .clientStop):
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
            if case .screenshot(let path, let output) = request.command {
                return screenshot(id: request.id, path: path, output: output, for: client)
            }
            if case .configReload = request.command {
                return deferredReply(to: client) { finish in
                    reloadConfiguration { error in
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
                    content.load(references) { [unowned self] error in
                        if let error { return finish(Wire.failure(id: request.id, error)) }
                        if let at = request.at {
                            if let line = schedule(request, at: at, from: client) { finish(line) }
                            return
                        }
                        let fades = contentFades(in: request.command)
                        finish(reply(to: request, from: client))
                        start(fades)
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

    /// An image arrived or changed: the next frame is drawn whole with it.
    func contentChanged(redraw: Bool = true) {
        guard redraw else { return }
        for head in heads { head.pipeline.invalidate() }
        requestFrame()
    }

    /// Tells subscribers that a layer's contents cannot be shown: what, where and why.
    func contentFailed(reference: String, path: String, error: ProtocolError) {
        contentErrors.images += 1
        var layers: [String] = []
        var pending = scene.rootIDs
        while let id = pending.popLast() {
            if (try? scene.modelValues(of: id))?.string(.contents) == reference { layers.append(id) }
            pending += (try? scene.sublayers(of: id)) ?? []
        }
        broadcast(.contentFailed(layers: layers, contents: reference, path: path, error: error))
    }

    /// Runs `job` on a worker and `completion` with its result back here; in place when
    /// there are no workers. Returns false when the workers' queue is full.
    func offload<T: Sendable>(_ job: @escaping @Sendable () -> T, then completion: @escaping (T) -> Void) -> Bool {
        guard let workers else {
            completion(job())
            return true
        }
        return workers.submit(job, then: completion)
    }

    /// A fresh key for an animation added without one.
    func nextAnimationKey() -> String {
        animationKeys += 1
        return "animation-\(animationKeys)"
    }

    /// Runs what the last requests left to do (a frame); call it after sending replies,
    /// so that a client sees its reply before the events the change causes.
    public func flush() {
        for event in queuedEvents { broadcast(event) }
        queuedEvents.removeAll()
        input.sendPending()
        journal?.noteChanges()
        guard frameNeeded else { return }
        frameNeeded = false
        requestFrame()
    }

    // MARK: Frames

    /// Asks for a frame on every powered output: at once with a manual clock; in real
    /// time at each output's next frame slot once it has shown its previous frame
    /// (`FramePacer`).
    func requestFrame() {
        switch clock.mode {
        case .manual:
            renderFrame()
        case .realtime:
            for head in heads where head.powered { head.pacer.request() }
        }
    }

    /// Advances the scene to now, routes its events and presents a frame on every powered
    /// output whose picture changed; asks for the next frames while something animates.
    /// Returns whether a frame was presented.
    @discardableResult
    public func renderFrame() -> Bool {
        renderFrame(on: heads)
    }

    /// `renderFrame()` for some outputs: one output's pacer renders only its own.
    @discardableResult
    func renderFrame(on targets: [OutputHead]) -> Bool {
        let started = EventLoop.monotonicNanoseconds()
        let time = clock.now
        var presented = false
        if clock.mode == .realtime { applyScheduled(upTo: time) }
        route(scene.advance(to: time))
        renderer.animations.time = time
        for head in targets where head.powered {
            presented = render(head, at: time) || presented
        }
        if presented { frameTimes.record(Double(EventLoop.monotonicNanoseconds() - started) / 1e9) }
        if clock.mode == .realtime {
            for head in targets where head.powered { head.dropped.pass(at: time, interval: head.pacer.interval, animating: scene.isAnimating) }
        }
        if scene.isAnimating, clock.mode == .realtime { requestFrame() }
        if !scene.isAnimating, clock.mode == .realtime, let delay = renderer.animations.nextChange { schedulePictureFrame(after: delay, now: time) }
        if !scene.isAnimating, clock.mode == .realtime, let delay = videos.nextChange { schedulePictureFrame(after: delay, now: time) }
        content.loadMisses()
        return presented
    }

    /// Renders `head`'s root at `time` and presents it if anything changed.
    private func render(_ head: OutputHead, at time: Double) -> Bool {
        let primary = head === heads.first
        do {
            let tree = try scene.renderTree(root: head.root, at: time)
            // (the number this frame gets when it is presented: it shows the bindings' changes)
            let frame = head.backend.presentedFrames + 1
            if primary { input.latency.rendering(frame: frame, at: EventLoop.monotonicSeconds) }
            let report = try head.pipeline.render(tree)
            if report.presented {
                framesRendered += 1
                head.framesRendered += 1
                pixelsRepainted += report.repaintedPixels
                onFramePresented?(time)
                windows?.framePresented()
            } else if primary {
                input.latency.notPresented(frame: frame)
            }
            presentationRendered(head, tree: tree, presented: report.presented)
            return report.presented
        } catch {
            logger.error("\(head.name): frame at \(time) s failed: \(error)")
            return false
        }
    }

    /// Asks for a frame when an animated picture on screen shows its next one (a GIF plays
    /// while nothing else animates); one such request is pending at a time.
    private func schedulePictureFrame(after delay: Double, now: Double) {
        let due = now + delay
        if let pending = pictureFrameDue, pending <= due + 1e-4 { return }
        pictureFrameDue = due
        // A millisecond late, so that the frame is past the picture's frame boundary.
        schedule(delay + 0.001) { [weak self] in
            guard let self, pictureFrameDue == due else { return }
            pictureFrameDue = nil
            requestFrame()
        }
    }

    // MARK: Events

    /// Sends scene events to the clients that asked for them: a transaction's completion
    /// to the client that committed it, and every event to the clients subscribed to it.
    func route(_ events: [SceneEvent]) {
        for event in events {
            let owner: Int?
            switch event {
            case .animationStopped(_, _, let id, let finished):
                if let tx = numberAnimations.removeValue(forKey: id), !finished { numberSets[tx]?.finished = false }
                owner = nil
            case .transactionCompleted(let tx):
                owner = transactionOwners[tx]
                if let number = numberSets.removeValue(forKey: tx) {
                    send(.numberCompleted(layer: number.layer, value: number.value, finished: number.finished, transaction: tx), owner: owner)
                }
                transactionOwners[tx] = nil
            default:
                owner = nil
            }
            send(Event(event), owner: owner)
        }
    }

    /// Sends an event to `owner` and to the clients subscribed to it.
    private func send(_ event: Event, owner: Int?) {
        // Encoded for its first recipient: most events of a roll (a column's animation
        // starting or finishing) have none.
        let name = event.name.rawValue
        var line: String?
        for (id, state) in clients where id == owner || state.subscriptions.contains(where: { Wire.matches($0, name) }) {
            if line == nil { line = Wire.event(event) }
            state.connection.send(line!)
        }
    }

    /// Remembers a `number.set` so that `number.completed` follows when it settles.
    func trackNumber(layer: String, value: Double, transaction: UInt64) {
        numberSets[transaction] = (layer, value, true)
        for info in (try? scene.animations(of: layer)) ?? [] where info.transaction == transaction {
            numberAnimations[info.id] = transaction
        }
    }

    /// Sends an event that is not the scene's (config.reloaded) to its subscribers.
    func broadcast(_ event: Event) {
        send(event, owner: nil)
    }
}

/// Media time: set by hand, or the monotonic clock since start (the event loop's, which
/// its deadlines are on) plus where a restored scene's time had got to.
struct FrameClock {
    let mode: DaemonSettings.ClockMode
    private var manualTime = 0.0
    private let start = EventLoop.monotonicNanoseconds()
    /// Media time at start: 0, or a restored scene's.
    private var offset = 0.0

    init(mode: DaemonSettings.ClockMode) { self.mode = mode }

    var now: Double {
        switch mode {
        case .manual: manualTime
        case .realtime: offset + Double(EventLoop.monotonicNanoseconds() - start) / 1e9
        }
    }

    mutating func set(_ time: Double) { manualTime = time }

    /// Wall-clock (CLOCK_REALTIME) seconds minus media seconds: with the manual clock 0, so
    /// that media time t is Unix time t.
    var wallOffset: Double {
        switch mode {
        case .manual: return 0
        case .realtime:
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            return Double(wall.tv_sec) + Double(wall.tv_nsec) / 1e9 - now
        }
    }

    /// The media time at CLOCK_MONOTONIC `seconds` (an input event's kernel time); with
    /// the manual clock, the time it is now.
    func mediaTime(monotonic seconds: Double) -> Double {
        switch mode {
        case .manual: manualTime
        case .realtime: offset + seconds - Double(start) / 1e9
        }
    }

    /// Makes the time now `time`, in either mode; the real-time clock runs on from there.
    mutating func resume(at time: Double) {
        manualTime = time
        offset = time - Double(EventLoop.monotonicNanoseconds() - start) / 1e9
    }
}
