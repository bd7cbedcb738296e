import VitrineCore
import VitrineOutput
import VitrineSystem
import VitrineWayland

/// What one output owes Wayland clients' `wp_presentation_feedback`.
struct HeadPresentation {
    /// The feedback of the commits in frames presented and not on screen yet, by frame
    /// number (the output's count), oldest first.
    var inFlight: [(frame: Int, feedback: [PresentationFeedback])] = []
    /// The windows' pictures with commits waiting for feedback that its frames rendered
    /// since they began to wait did not show (a commit is discarded once every awake output passed it).
    var passed: Set<ObjectIdentifier> = []
}

/// Presentation feedback: a commit of a window is presented with the time its output
/// reports for the first frame that shows it (the page flip's on DRM), on the first output
/// that shows it; discarded when a later commit replaces it before a frame, or when no
/// awake output shows its window.
extension OutputSet {
    /// `head` rendered `tree` (`presented`: it gave the backend a frame). The feedback of
    /// the commits of the windows it shows waits for that frame on screen; where the frame
    /// changed nothing, their pictures are on screen already (or with the frame in flight).
    /// Commits it did not show are passed by it; those that every awake output passed are
    /// discarded. The windows' surfaces hear whether `head` shows them (`wl_surface.enter`,
    /// `leave`).
    func presentationRendered(_ head: OutputHead, tree: RenderTree, presented: Bool) {
        guard let windows, let wayland = windows.server else { return }
        let pictures = wayland.windowPictures
        guard !pictures.isEmpty else { return }
        let mode = head.backend.mode
        let screen =
            head.viewport.map { Rect(x: Double($0.x), y: Double($0.y), width: Double($0.width), height: Double($0.height)) }
            ?? Rect(x: 0, y: 0, width: Double(mode.width), height: Double(mode.height))
        var showing = Set<ObjectIdentifier>()
        var taken: [PresentationFeedback] = []
        for node in tree.nodes where node.kind == SurfaceLayer.kindName {
            guard let window = windows.surfaces.assignments[node.id], window.isMapped, let picture = window.picture, node.inheritedOpacity > 0,
                !node.visualBounds.intersection(screen).isEmpty
            else { continue }
            showing.insert(ObjectIdentifier(picture))
            if picture.awaitsPresentation { taken += picture.takeFeedback() }
        }
        wayland.windows(showing, onOutput: head.name)
        for other in heads { other.presentation.passed.subtract(showing) }
        for picture in pictures where picture.awaitsPresentation {
            head.presentation.passed.insert(ObjectIdentifier(picture))
        }
        if !taken.isEmpty {
            let frame = head.backend.presentedFrames
            if presented || (head.backend.shownFrame?.number ?? 0) < frame {
                head.presentation.inFlight.append((frame, taken))
                presentationShown(on: head)
            } else {
                let now = PresentationTime(nanoseconds: EventLoop.monotonicNanoseconds(), refresh: Self.refreshNanoseconds(of: mode))
                for feedback in taken { feedback.presented(now, output: head.name) }
            }
        }
        discardUnshownFeedback()
        wayland.flush()
    }

    /// Discards the feedback of the commits of windows that every awake output rendered a
    /// frame without since they began to wait.
    func discardUnshownFeedback() {
        guard let wayland = windows?.server else { return }
        let pictures = wayland.windowPictures
        let present = Set(pictures.map(ObjectIdentifier.init))
        for head in heads { head.presentation.passed.formIntersection(present) }
        for picture in pictures where picture.awaitsPresentation {
            let id = ObjectIdentifier(picture)
            guard heads.allSatisfy({ !$0.powered || $0.presentation.passed.contains(id) }) else { continue }
            picture.discardFeedback()
            for head in heads { head.presentation.passed.remove(id) }
        }
    }

    /// `head`'s backend put a frame on screen: the feedback of the commits in it and in
    /// the frames before it is presented with the time, retrace count and kind it reports.
    func presentationShown(on head: OutputHead) {
        guard let shown = head.backend.shownFrame, let first = head.presentation.inFlight.first, first.frame <= shown.number else { return }
        let time = PresentationTime(
            nanoseconds: UInt64((shown.time * 1e9).rounded()), refresh: Self.refreshNanoseconds(of: head.backend.mode), sequence: shown.sequence,
            kind: shown.byDisplay ? [.vsync, .hardwareClock, .hardwareCompletion] : [])
        while let first = head.presentation.inFlight.first, first.frame <= shown.number {
            head.presentation.inFlight.removeFirst()
            for feedback in first.feedback { feedback.presented(time, output: head.name) }
        }
        windows?.server?.flush()
    }

    /// `head` was blanked: the commits the awake outputs passed are discarded.
    func presentationBlanked(_ head: OutputHead) {
        discardUnshownFeedback()
        windows?.server?.flush()
    }

    /// `head` is going: what it still owed is discarded.
    func presentationGone(_ head: OutputHead) {
        for (_, feedback) in head.presentation.inFlight { for item in feedback { item.discard() } }
        head.presentation = HeadPresentation()
    }

    /// Nanoseconds between refreshes at `mode`'s rate; 0 where it is unknown.
    static func refreshNanoseconds(of mode: OutputMode) -> UInt32 {
        mode.refreshRate > 0 ? UInt32((1e9 / mode.refreshRate).rounded()) : 0
    }
}
