import CWaylandClient
import Foundation
import VitrineOutput

/// A Wayland client written for the tests: an xdg toplevel (app id "presentation-test") of one
/// 64×48 XRGB buffer, committing with `wp_presentation_feedback` and frame callbacks on
/// demand, recording what became of each commit, and answering `xdg_wm_base.ping` as
/// `pongs` says when it reads its events.
public final class PresentationClient: TestWaylandClient {
    /// How pings are answered.
    public enum Pong {
        /// With the ping's serial.
        case right
        /// With another serial.
        case wrong
        /// Not at all.
        case none
    }

    public struct Presented: CustomStringConvertible {
        public var commitTime: UInt64, time: UInt64, receivedTime: UInt64
        public var refresh: UInt32, sequence: UInt64, flags: UInt32
        public var outputs: [OpaquePointer?]
        public var description: String { "presented at \(time) (committed \(commitTime)), refresh \(refresh), seq \(sequence), flags \(flags)" }
    }

    public enum Outcome {
        case presented(Presented)
        case discarded
        public var presented: Presented? { if case .presented(let p) = self { p } else { nil } }
    }

    /// The `wl_output`s, in the order of the globals (the daemon's outputs').
    public var outputs: [OpaquePointer] { bound["wl_output"] ?? [] }
    public var output: OpaquePointer? { outputs.first }
    public private(set) var clockID: UInt32?
    private var surface: OpaquePointer?, picture: OpaquePointer?
    public private(set) var outcomes: [Int: Outcome] = [:]
    public var pongs = Pong.right
    /// The serials of the pings received.
    public private(set) var pings: [UInt32] = []
    private var frameDone = false
    private var nextCommit = 0

    /// Connects, binds, maps the toplevel with its first buffer.
    public init(_ path: String) throws {
        try super.init(
            path, binding: ["wl_compositor": 4, "wl_shm": 1, "wl_output": 1, "xdg_wm_base": 1, "wp_presentation": 1], optional: ["wl_output"])
        let wmBase = global("xdg_wm_base")!
        listen(wmBase) { [unowned self] opcode, args in
            guard opcode == XdgWmBaseEvent.ping.rawValue else { return }
            pings.append(args[0].u)
            guard pongs != .none else { return }
            waylandRequest(wmBase, XdgWmBaseRequest.pong.rawValue, [wl_argument(u: args[0].u &+ (pongs == .wrong ? 1000 : 0))])
        }
        listen(global("wp_presentation")!) { [unowned self] opcode, args in
            if opcode == WpPresentationEvent.clock_id.rawValue { clockID = args[0].u }
        }
        wl_display_roundtrip(display)
        surface = wlCompositorCreateSurface(global("wl_compositor"))
        _ = try makeToplevel(surface, appID: "presentation-test")
        picture = try buffer(64, 48, format: WL_SHM_FORMAT_XRGB8888, name: "presentation-test") { $0.update(repeating: 0xFF20_8040) }
        _ = commit(feedback: false, frameCallback: false)
        wl_display_roundtrip(display)
    }

    /// Attaches the buffer, damages it all and commits, with feedback and a frame callback
    /// if asked; returns the commit's number (its outcome's key).
    public func commit(feedback: Bool, frameCallback: Bool, flush: Bool = true) -> Int {
        let number = nextCommit
        nextCommit += 1
        if frameCallback, let callback = wlSurfaceFrame(surface) {
            frameDone = false
            listen(callback) { [unowned self] _, _ in
                frameDone = true
                wl_callback_destroy(callback)
            }
        }
        var sync: [OpaquePointer?] = []
        var committed: UInt64 = 0
        if feedback,
            let proxy = waylandRequest(
                global("wp_presentation")!, WpPresentationRequest.feedback.rawValue, [wl_argument(o: surface), wl_argument(n: 0)],
                creating: Self.timing["wp_presentation_feedback"])
        {
            listen(proxy) { [unowned self] opcode, a in
                switch WpPresentationFeedbackEvent(rawValue: opcode) {
                case .sync_output:
                    sync.append(a[0].o)
                case .presented:
                    let seconds = UInt64(a[0].u) << 32 | UInt64(a[1].u)
                    outcomes[number] = .presented(
                        Presented(
                            commitTime: committed, time: seconds * 1_000_000_000 + UInt64(a[2].u), receivedTime: Self.now(), refresh: a[3].u,
                            sequence: UInt64(a[4].u) << 32 | UInt64(a[5].u), flags: a[6].u, outputs: sync))
                    wl_proxy_destroy(proxy)
                case .discarded:
                    outcomes[number] = .discarded
                    wl_proxy_destroy(proxy)
                default: break
                }
            }
        }
        wlSurfaceAttach(surface, picture, 0, 0)
        wlSurfaceDamage(surface, 0, 0, 64, 48)
        committed = Self.now()
        wlSurfaceCommit(surface)
        if flush { wl_display_flush(display) }
        return number
    }

    /// CLOCK_MONOTONIC nanoseconds.
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    public func waitForFrameCallback() throws {
        try dispatch(until: { frameDone }, what: "a frame callback")
    }

    public func waitForOutcomes(of commits: [Int]) throws {
        try dispatch(until: { commits.allSatisfy { outcomes[$0] != nil } }, what: "the feedback of commits \(commits)")
    }

    /// Reads and handles events for `seconds`.
    public func pump(_ seconds: Double) throws {
        let until = Date().addingTimeInterval(seconds)
        try dispatch(until: { Date() >= until }, what: "the end of \(seconds) s", timeout: seconds + 1)
    }

    /// Answers the last ping received, with its serial.
    public func answerLastPing() {
        guard let serial = pings.last else { return }
        waylandRequest(global("xdg_wm_base")!, XdgWmBaseRequest.pong.rawValue, [wl_argument(u: serial)])
        wl_display_flush(display)
    }
}
