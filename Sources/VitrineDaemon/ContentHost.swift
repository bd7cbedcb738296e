import Logging
import VitrineCore
import VitrineDecoderHelper
import VitrineOutputSet
import VitrineProtocol
import VitrineRender
import VitrineSceneHost
import VitrineSystem
import VitrineVideo
import VitrineVideoLayer
import VitrineWayland
import VitrineWindowHost

/// Layers' contents that come from outside the scene: images read from the content roots
/// (and read again when their files change), video layers' players, surface layers'
/// windows, and the memory they share (`limits.memory_mb`).
///
/// It registers the renderers of the `video` and `surface` kinds, gives the outputs the
/// damage of content that changes by itself, asks them for frames when a picture arrives,
/// and sends the `content.failed` and `video.*` events. Confined to the daemon's loop.
final class ContentHost {
    /// What the content host takes of the daemon's settings.
    struct Settings {
        /// `limits.memory_mb`, in bytes: what images, video frames and windows may hold.
        var memoryBytes: Int
        /// `[content] network_video`: video layers may play rtsp and http streams.
        var networkVideo: Bool
    }

    var settings: Settings
    /// Reads images into the renderer's store.
    private(set) var loader: ContentLoader!
    /// Video layers' players.
    let videos: VideoRenderer
    /// Surface layers' windows.
    let surfaces: SurfaceRenderer
    /// Told when a video layer's video ended (a playlist's item may end with it).
    var videoEnded: ((String) -> Void)?
    /// `content.failed` and `video.error` events sent.
    private(set) var errors = (images: 0, videos: 0)
    let renderer: Renderer
    let sceneHost: SceneHost
    private let outputSet: OutputSet
    private let subscribers: Subscribers
    private let workers: WorkerPool?

    /// Content for `outputSet`'s renderer: images from `roots` (relative references in
    /// `directory`), opened by `workers` and decoded by `decoder`'s helpers, changed files
    /// noticed on `loop`.
    init(
        settings: Settings, roots: [String], directory: String, sceneHost: SceneHost, outputSet: OutputSet, subscribers: Subscribers,
        decoder: DecoderClient, workers: WorkerPool?, loop: EventLoop?, logger: Logger
    ) {
        self.settings = settings
        self.sceneHost = sceneHost
        self.outputSet = outputSet
        self.subscribers = subscribers
        self.workers = workers
        renderer = outputSet.renderer
        videos = VideoRenderer(animations: renderer.animations)
        surfaces = SurfaceRenderer()
        loader = ContentLoader(
            roots: roots, directory: directory, images: renderer.images, outputSet: outputSet, decoder: decoder, workers: workers, loop: loop,
            logger: logger
        ) { [unowned self] notice in take(notice) }
        attachVideos(decoder: decoder.settings, logger: logger)
        renderer.register(surfaces, forKind: SurfaceLayer.kindName)
        outputSet.changingContent = { [unowned videos, unowned surfaces] output, tree in
            videos.damage(in: tree) + surfaces.damage(in: tree, output: output)
        }
    }

    private func take(_ notice: ContentLoader.Notice) {
        switch notice {
        case .changed:
            outputSet.invalidate()
            outputSet.requestFrame()
        case .failed(let reference, let path, let error):
            errors.images += 1
            subscribers.send(.contentFailed(layers: layers(showing: { $0 == reference }), contents: reference, path: path, error: error))
        case .replaced(let path, let old):
            fadeChangedFile(path, from: old)
        }
    }

    /// The layers whose `contents` `matches`.
    func layers(showing matches: (String) -> Bool) -> [String] {
        let scene = sceneHost.scene
        var layers: [String] = []
        var pending = scene.rootIDs
        while let id = pending.popLast() {
            if let reference = (try? scene.modelValues(of: id))?.string(.contents), matches(reference) { layers.append(id) }
            pending += (try? scene.sublayers(of: id)) ?? []
        }
        return layers
    }

    // MARK: Memory

    /// Hosts `server`'s windows in surface layers: its pictures count in
    /// `limits.memory_mb` with the images and videos.
    func serve(_ server: WaylandServer) {
        outputSet.windows = PresentedWindows(server: server, surfaces: surfaces)
        server.memoryAvailable = { [unowned self, unowned server] in
            settings.memoryBytes - videos.bytes - renderer.images.usedBytes - server.bytes
        }
        server.onMemory = { [unowned self] _ in rebudgetImages() }
    }

    /// The image store's budget: `limits.memory_mb` less what videos and windows hold.
    func rebudgetImages() {
        renderer.images.budget = max(0, settings.memoryBytes - videos.bytes - (outputSet.windows?.server?.bytes ?? 0))
    }

    // MARK: Videos

    /// Registers the renderer of the `video` kind (registered in the scene before a
    /// journal or an initial scene is read), which reads sources through the content
    /// loader's checks and reports to subscribers of `video.*`.
    private func attachVideos(decoder helper: DecoderClient.Settings, logger: Logger) {
        renderer.register(videos, forKind: VideoLayer.kindName)
        // With a manual clock every frame shows exactly the video frame due; in real time no
        // frame waits for one.
        videos.wait = sceneHost.clock.mode == .manual ? 2 : 0
        videos.resolve = { [unowned self] src in Self.videoLocation(src, content: loader, network: settings.networkVideo) }
        // Each player's frames are decoded by a helper process of its own.
        videos.makeDecoder = { source throws(VideoError) in
            try RemoteVideoDecoder(source, settings: helper) { logger.warning("video decoder: \($0)") }
        }
        // Video frames count in limits.memory_mb with the images and the surfaces: the
        // store's budget is what the players and the surfaces leave.
        videos.memoryAvailable = { [unowned self] in
            settings.memoryBytes - videos.bytes - renderer.images.usedBytes - (outputSet.windows?.server?.bytes ?? 0)
        }
        videos.onMemory = { [unowned self] _ in rebudgetImages() }
        videos.onEvent = { [unowned self] layer, src, event in
            switch event {
            case .started(let duration):
                subscribers.send(.videoStarted(layer: layer, src: src, duration: duration))
            case .ended:
                subscribers.send(.videoEnded(layer: layer, src: src))
                videoEnded?(layer)
            case .error(let message, let debug):
                errors.videos += 1
                subscribers.send(.videoError(layer: layer, src: src, message: message, debug: debug))
            }
        }
    }
}
