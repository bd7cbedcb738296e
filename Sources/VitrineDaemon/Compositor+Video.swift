import VitrineOutputSet
import VitrineCore
import VitrineJSON
import VitrineProtocol
import VitrineVideo

/// Video layers: their kind, their renderer (players paced by the layers' time), and the
/// events their players send.
extension Compositor {
    /// Registers the renderer of the `video` kind (registered in the scene before a
    /// journal or an initial scene is read), which reads sources through the content
    /// loader's checks and reports to subscribers of `video.*`.
    func attachVideos() -> VideoRenderer {
        let videos = VideoRenderer(animations: pipeline.renderer.animations)
        pipeline.renderer.register(videos, forKind: VideoLayer.kindName)
        // With a manual clock every frame shows exactly the video frame due (and the first
        // player prepares GStreamer in place); in real time no frame waits for either.
        videos.wait = clock.mode == .manual ? 2 : 0
        if clock.mode == .realtime { videos.gstreamerNeeded = { [unowned self] in prepareGStreamer() } }
        videos.resolve = { [unowned self] src in Self.videoURI(src, content: content, network: settings.networkVideo) }
        // Video frames count in limits.memory_mb with the images and the surfaces: the
        // store's budget is what the players and the surfaces leave.
        videos.memoryAvailable = { [unowned self, unowned videos] in
            (settings.limits.memoryMB << 20) - videos.bytes - pipeline.renderer.images.usedBytes - (outputSet.windows?.server?.bytes ?? 0)
        }
        videos.onMemory = { [unowned self] _ in rebudgetImages() }
        videos.onEvent = { [unowned self] layer, src, event in
            switch event {
            case .started(let duration):
                broadcast(.videoStarted(layer: layer, src: src, duration: duration))
            case .ended:
                broadcast(.videoEnded(layer: layer, src: src))
            case .error(let message, let debug):
                contentErrors.videos += 1
                broadcast(.videoError(layer: layer, src: src, message: message, debug: debug))
            }
        }
        return videos
    }

    /// Starts GStreamer's initialization on a worker (once); the frame after it is done
    /// makes the players.
    func prepareGStreamer() {
        guard !gstreamerPreparing else { return }
        gstreamerPreparing = true
        let queued = offload({ GStreamer.prepare() }) { [weak self] in self?.contentChanged() }
        // (the workers' queue was full: the next frame asks again)
        if !queued { gstreamerPreparing = false }
    }

    /// The schemes of the network streams `[content] network_video` allows.
    static let streamSchemes: Set<String> = ["rtsp", "rtsps", "rtspt", "http", "https"]

    /// A video layer's `src` as a URI: a path (or file:// URI) inside the content roots, or
    /// with `network` a stream's URI.
    static func videoURI(_ src: String, content: ContentLoader, network: Bool) -> Result<String, VideoError> {
        var path = src
        if let colon = src.firstIndex(of: ":"), src[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }), src[colon...].hasPrefix("://")
        {
            let scheme = src[..<colon].lowercased()
            if streamSchemes.contains(scheme) {
                guard network else {
                    return .failure(VideoError(message: "src '\(src)': network streams are off; [content] network_video = true allows them", debug: ""))
                }
                return .success(src)
            }
            guard scheme == "file" else {
                return .failure(
                    VideoError(message: "src '\(src)': a video is a file under the content roots or an rtsp, rtsps, http or https stream", debug: ""))
            }
            path = String(src.dropFirst("file://".count))
        }
        do {
            let canonical = try content.resolve(path)
            guard let uri = VideoPlayer.fileURI(canonical) else {
                return .failure(VideoError(message: "src '\(src)': no URI for \(canonical)", debug: ""))
            }
            return .success(uri)
        } catch {
            // (the loader speaks of `contents`)
            let message = error.message.hasPrefix("contents ") ? "src " + error.message.dropFirst("contents ".count) : error.message
            return .failure(VideoError(message: message, debug: ""))
        }
    }
}
