import VitrineOutput
import VitrineProtocol

/// What the output set tells the daemon, synchronously on the loop, in the order it
/// happens. The owners of the daemon talk through such values; none holds a reference to
/// another.
public enum OutputNotice {
    /// A frame is starting at media time `time`: what is due by then is to be applied and
    /// the scene advanced to it, before the outputs' trees are built.
    case frameStarting(time: Double)
    /// `head` starts rendering the frame that will be presented as its number `frame`.
    case rendering(OutputHead, frame: Int)
    /// `head` rendered frame `frame`; `presented`: it changed something and went to the
    /// backend.
    case rendered(OutputHead, frame: Int, presented: Bool)
    /// The frame at `time` is done on every output it was due on; `animating`: the scene
    /// still animates (the next frame is asked for already).
    case frameEnded(time: Double, animating: Bool)
    /// The primary output put a frame on screen.
    case shown(ShownFrame)
    /// An output was plugged in while running: its head is drawn from now on. A head that
    /// did not find its root kept (`OutputHead.restored`) shows its configured scene.
    case headAdded(OutputHead)
    /// An output was unplugged: its head is no longer drawn (its root may be kept).
    case headRemoved(OutputHead)
    /// The output set changed the scene outside a frame (an unplugged output's root went):
    /// its events are due, and the journal notes it.
    case sceneChanged
    /// Whether any output is awake changed: windows' commits are shown or not.
    case powered(Bool)
    /// An event for the clients subscribed to it: at once, or after the reply to the
    /// command that caused it (`afterReply`), so that the client sees its reply first.
    case event(Event, afterReply: Bool)
}
