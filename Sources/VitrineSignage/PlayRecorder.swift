/// Receives what the playlists show, for proof of play.
public protocol PlayRecorder: AnyObject {
    /// An item began on `output` at wall-clock `start` (Unix seconds); the token names it later.
    func began(output: String, playlist: String, item: String, start: Double) -> Int
    /// The first frame showing the item fully was presented; `hash` is the hex digest of its pixels.
    func firstFrame(_ token: Int, hash: String)
    /// The item ended at wall-clock `end`; `completed` is false when it was cut short or failed.
    func ended(_ token: Int, end: Double, completed: Bool)
}
