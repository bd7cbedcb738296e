import VitrineOutputSet
import VitrineRaster
import VitrineWayland

/// Screen capture's frames: each output's `OutputCapture` (the Wayland server's) sees the
/// output's frames through a frame tap while capture clients need them, and none otherwise.
final class ScreenCapture {
    private let outputSet: OutputSet
    private var taps: [String: Tap] = [:]

    /// Hands each output's frames to `server`'s capture of it when it asks.
    init(server: WaylandServer, outputSet: OutputSet) {
        self.outputSet = outputSet
        for head in outputSet.heads {
            guard let capture = server.capture(of: head.name) else { continue }
            capture.tapping = { [unowned self] on in tap(capture, on) }
        }
    }

    private func tap(_ capture: OutputCapture, _ on: Bool) {
        guard let head = outputSet.heads.first(where: { $0.name == capture.name }) else { return }
        if on {
            let tap = Tap(capture)
            taps[capture.name] = tap
            head.pipeline.add(tap)
            outputSet.requestFrame()
        } else if let tap = taps.removeValue(forKey: capture.name) {
            head.pipeline.remove(tap)
        }
    }

    /// Hands the frames of an output to its capture.
    private final class Tap: FrameTap {
        let capture: OutputCapture
        init(_ capture: OutputCapture) { self.capture = capture }
        func frame(_ surface: Surface, damage: [PixelRect]) { capture.frame(surface, damage: damage) }
    }
}
