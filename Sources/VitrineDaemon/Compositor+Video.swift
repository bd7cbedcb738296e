import VitrineCore
import VitrineJSON
import VitrineProtocol
import VitrineVideo

/// Video layers: their kind, their renderer (players paced by the layers' time), and the
/// events their players send.
extension Compositor {
    /// Registers the `video` kind and its renderer, which reads sources through the content
    /// loader's checks and reports to subscribers of `video.*`.
    func attachVideos() -> VideoRenderer {
        scene.register(VideoLayer.kind)
        let videos = VideoRenderer(animations: pipeline.renderer.animations)
        pipeline.renderer.register(videos, forKind: VideoLayer.kindName)
        pipeline.extraDamage = { [unowned videos] in videos.damage(in: $0) }
        // With a manual clock every frame shows exactly the video frame due.
        videos.wait = clock.mode == .manual ? 2 : 0
        videos.resolve = { [unowned self] src in Self.videoURI(src, content: content) }
        videos.onEvent = { [unowned self] layer, src, event in
            var fields: [String: JSON] = ["layer": .string(layer), "src": .string(src)]
            switch event {
            case .started(let duration):
                if let duration { fields["duration"] = .number(duration) }
                broadcast("video.started", fields)
            case .ended:
                broadcast("video.ended", fields)
            case .error(let message, let debug):
                fields["message"] = .string(message)
                fields["debug"] = .string(debug)
                broadcast("video.error", fields)
            }
        }
        return videos
    }

    /// A video layer's `src` as a URI: a path (or file:// URI) inside the content roots.
    /// Network streams are refused for now.
    static func videoURI(_ src: String, content: ContentLoader) -> Result<String, VideoError> {
        var path = src
        if let colon = src.firstIndex(of: ":"), src[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }), src[colon...].hasPrefix("://") {
            guard src.hasPrefix("file://") else {
                return .failure(VideoError(message: "src '\(src)': only files under the content roots are played (network streams are not enabled)", debug: ""))
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
