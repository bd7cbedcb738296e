import CWaylandServer
import Glibc

/// When and how a frame reached a screen, as `wp_presentation_feedback.presented` tells it.
public struct PresentationTime: Sendable, Equatable {
    /// How the time was taken (`wp_presentation_feedback.kind`).
    public struct Kind: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// The frame was shown in step with the display's refresh (no tearing).
        public static let vsync = Kind(rawValue: 1)
        /// The time is the display hardware's (a vblank timestamp), not a reading taken afterwards.
        public static let hardwareClock = Kind(rawValue: 2)
        /// The display told the presentation's completion (a flip event), nobody guessed it.
        public static let hardwareCompletion = Kind(rawValue: 4)
    }

    /// CLOCK_MONOTONIC nanoseconds: when the frame started to show.
    public var nanoseconds: UInt64
    /// Nanoseconds between the output's refreshes (0 where it has no constant rate).
    public var refresh: UInt32
    /// The output's vertical retrace counter then (MSC); 0 where it has none.
    public var sequence: UInt64
    public var kind: Kind

    public init(nanoseconds: UInt64, refresh: UInt32, sequence: UInt64 = 0, kind: Kind = []) {
        (self.nanoseconds, self.refresh, self.sequence, self.kind) = (nanoseconds, refresh, sequence, kind)
    }
}

/// `wp_presentation`: hands out feedback objects for surfaces' next commits. Its clock is
/// CLOCK_MONOTONIC, the clock of page flips' timestamps and of the daemon's frames.
final class PresentationObject: ServerObject {
    static var interface: UnsafePointer<wl_interface> { ServerInterfaceTable.presentationTime["wp_presentation"] }

    init?(server: WaylandServer, client: OpaquePointer, version: UInt32, id: UInt32) {
        super.init(server: server, client: client, interface: Self.interface, version: version, id: id)
        post(WpPresentationEvent.clock_id.rawValue, [wl_argument(u: UInt32(CLOCK_MONOTONIC))])
    }

    override func request(_ opcode: UInt32, _ a: UnsafeMutablePointer<wl_argument>) {
        switch opcode {
        case WpPresentationRequest.destroy.rawValue:
            destroy()
        case WpPresentationRequest.feedback.rawValue:
            guard let surface = ServerObject.of(a[0].resource, as: SurfaceObject.self),
                let feedback = PresentationFeedback(server: server, client: client, id: a[1].n)
            else { return }
            surface.pendingFeedback.append(feedback)
        default:
            break
        }
    }
}

/// `wp_presentation_feedback`: what became of one commit of a surface, told once (it is
/// presented, or discarded) and then destroyed.
public final class PresentationFeedback: ServerObject {
    private var alive = true

    init?(server: WaylandServer, client: OpaquePointer, id: UInt32) {
        super.init(server: server, client: client, interface: ServerInterfaceTable.presentationTime["wp_presentation_feedback"], version: 1, id: id)
    }

    override func destroyed() { alive = false }

    /// The commit was first shown on the output called `output` at `time`: `sync_output`
    /// for each of the client's `wl_output`s of that output, then `presented`.
    public func presented(_ time: PresentationTime, output: String) {
        guard alive else { return }
        let client = client
        for object in server.outputObjects where object.name == output && object.client == client {
            post(WpPresentationFeedbackEvent.sync_output.rawValue, [wl_argument(o: object.resource)])
        }
        let seconds = time.nanoseconds / 1_000_000_000
        post(
            WpPresentationFeedbackEvent.presented.rawValue,
            [
                wl_argument(u: UInt32(truncatingIfNeeded: seconds >> 32)), wl_argument(u: UInt32(truncatingIfNeeded: seconds)),
                wl_argument(u: UInt32(time.nanoseconds % 1_000_000_000)), wl_argument(u: time.refresh),
                wl_argument(u: UInt32(truncatingIfNeeded: time.sequence >> 32)), wl_argument(u: UInt32(truncatingIfNeeded: time.sequence)),
                wl_argument(u: time.kind.rawValue),
            ])
        destroy()
    }

    /// The commit was never shown: replaced before a frame showed it, or its surface is on
    /// no screen.
    public func discard() {
        guard alive else { return }
        post(WpPresentationFeedbackEvent.discarded.rawValue)
        destroy()
    }
}

extension SurfaceObject {
    /// Discards the feedback of this surface's commits and of its subsurfaces' (the surface
    /// is going, or it is shown nowhere).
    func discardFeedback(pending: Bool) {
        for item in feedback + (pending ? pendingFeedback : []) { item.discard() }
        feedback.removeAll()
        if pending { pendingFeedback.removeAll() }
        for child in children { child.surface?.discardFeedback(pending: false) }
    }

    /// Takes the committed feedback of this surface and its subsurfaces.
    func takeFeedback() -> [PresentationFeedback] {
        var taken = feedback
        feedback.removeAll()
        for child in children { taken += child.surface?.takeFeedback() ?? [] }
        return taken
    }

    /// Whether this surface or a subsurface has a commit waiting for its feedback.
    var awaitsPresentation: Bool { !feedback.isEmpty || children.contains { $0.surface?.awaitsPresentation ?? false } }
}
