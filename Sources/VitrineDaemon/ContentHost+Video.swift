import VitrineProtocol
import VitrineVideo

/// Video layers' sources: files under the content roots, or network streams where
/// `[content] network_video` allows them.
extension ContentHost {
    /// The schemes of the network streams `[content] network_video` allows.
    static let streamSchemes: Set<String> = ["rtsp", "rtsps", "rtspt", "http", "https"]

    /// A video layer's `src` as what to play: a path (or file:// URI) inside the content
    /// roots, or with `network` a stream's URI.
    static func videoLocation(_ src: String, content: ContentLoader, network: Bool) -> Result<VideoSource.Location, VideoError> {
        var path = src
        if let colon = src.firstIndex(of: ":"), src[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }), src[colon...].hasPrefix("://")
        {
            let scheme = src[..<colon].lowercased()
            if streamSchemes.contains(scheme) {
                guard network else {
                    return .failure(VideoError(message: "src '\(src)': network streams are off; [content] network_video = true allows them", debug: ""))
                }
                return .success(.stream(src))
            }
            guard scheme == "file" else {
                return .failure(
                    VideoError(message: "src '\(src)': a video is a file under the content roots or an rtsp, rtsps, http or https stream", debug: ""))
            }
            path = String(src.dropFirst("file://".count))
        }
        do {
            return .success(.file(try content.resolve(path)))
        } catch {
            // (the loader speaks of `contents`)
            let message = error.message.hasPrefix("contents ") ? "src " + error.message.dropFirst("contents ".count) : error.message
            return .failure(VideoError(message: message, debug: ""))
        }
    }
}
