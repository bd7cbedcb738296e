import VitrineCore
import VitrineProtocol
import VitrineSignage
import VitrineSystem

/// Runs the playlists on the outputs: asks each output's `PlaylistPlayer` what comes
/// next, gets it ready ahead of its time (`SceneSwitcher`), shows it at the frame it is
/// due with its transition, passes over what cannot be shown (`playlist.skipped`) and
/// keeps the picture meanwhile, and cuts an item short when the schedule changes.
///
/// Driven by frames (`tick`) and, for a schedule's boundaries and a clock step, by a
/// timer at most a minute apart. Confined to the loop; nothing of it runs while no
/// playlist plays.
final class SignageHost {
    /// What the host says, on the loop.
    enum Notice {
        case event(Event)
        /// A scene was shown: its bindings are to be added in place of the old layers'.
        case sceneShown(root: String, old: [String], bindings: [BindingSpec])
        /// A frame is wanted at media time `at` (nil: now).
        case frame(at: Double?)
        /// The item `token` names shows fully from this frame on `output`: its digest is wanted.
        case firstFrame(output: String, token: Int)
    }

    /// The playlists and schedules.
    private(set) var library: SignageLibrary
    /// Receives what is shown, for proof of play.
    var recorder: (any PlayRecorder)?
    /// Seconds an item may take to get ready before it is passed over.
    var timeout = 10.0
    let switcher: SceneSwitcher
    private let clock: MediaClock
    private let loop: EventLoop?
    private let notify: (Notice) -> Void
    private var outputs: [OutputState] = []
    private var timer: UInt64?

    /// One output's playback.
    final class OutputState {
        let player: PlaylistPlayer
        var showing: Showing?
        var next: Pending?
        /// Bumped when plans change, so that late preparations are dropped.
        var generation = 0
        /// Items passed over in a row.
        var skips = 0
        /// Wall-clock instant the schedule may next change at.
        var boundary = Double.infinity
        /// Media time to try again after every item failed.
        var retryAt: Double?

        init(player: PlaylistPlayer) { self.player = player }
    }

    /// The item on screen.
    struct Showing {
        var cue: PlaylistPlayer.Cue
        var start: Double
        /// Media time it ends; nil until its video ends.
        var ends: Double?
        var token: Int?
        /// Media time its transition ends, while its first full frame is still to be hashed.
        var hashAt: Double?
    }

    /// The item that comes next, getting ready or ready.
    struct Pending {
        var cue: PlaylistPlayer.Cue
        var ready: Result<SceneSwitcher.Ready, ProtocolError>?
    }

    init(library: SignageLibrary, switcher: SceneSwitcher, clock: MediaClock, loop: EventLoop?, notify: @escaping (Notice) -> Void) {
        self.library = library
        self.switcher = switcher
        self.clock = clock
        self.loop = loop
        self.notify = notify
    }

    private var wallOffset: Double { clock.wallOffset }

    // MARK: Outputs

    /// Plays on these outputs (name, root, whether primary) from media time `time`.
    func start(outputs heads: [(name: String, root: String, primary: Bool)], at time: Double) {
        outputs = heads.map { OutputState(player: PlaylistPlayer(output: $0.name, root: $0.root, primary: $0.primary)) }
        for state in outputs { replan(state, at: time) }
        armTimer()
    }

    func state(of output: String?) throws(ProtocolError) -> OutputState {
        let found = output.map { name in outputs.first { $0.player.output == name || $0.player.root == name } } ?? outputs.first { $0.player.primary }
        guard let found else { throw ProtocolError(.unknownOutput, "no output is named '\(output ?? "")'; output.list lists them") }
        return found
    }

    // MARK: Changes

    /// Takes a new library (`playlist.set`, `schedule.set`, a reload): what plays is
    /// decided again at once where it changes.
    func take(_ library: SignageLibrary, at time: Double) {
        self.library = library
        for state in outputs {
            let decision = library.decision(
                for: library.entries(output: state.player.output, root: state.player.root, primary: state.player.primary), at: time + wallOffset)
            if state.player.isPlayingRequest { continue }
            if decision.playlist != state.player.playlist || state.showing == nil { replan(state, at: time, cut: true) } else { dropNext(state, at: time) }
        }
        armTimer()
    }

    /// Plays `playlist` (or its item `item`) on `output` now, then the schedule again.
    func play(_ name: String, item: Int?, output: String?, at time: Double) throws(ProtocolError) {
        guard let playlist = library.playlists[name] else {
            throw ProtocolError(.invalidValue, "there is no playlist '\(name)'; playlist.list lists them")
        }
        let state = try state(of: output)
        try state.player.play(playlist, item: item)
        replan(state, at: time, cut: true)
    }

    /// Ends what `play` plays on `output`; returns whether something was.
    func stop(output: String?, at time: Double) throws(ProtocolError) -> Bool {
        let state = try state(of: output)
        guard state.player.stop() else { return false }
        replan(state, at: time, cut: true)
        return true
    }

    /// A video layer's video ended: an item lasting until then ends now.
    func videoEnded(layer: String, at time: Double) {
        for state in outputs {
            guard let showing = state.showing, showing.ends == nil, case .video(let l, _) = showing.cue.item.content, l == layer else { continue }
            state.showing?.ends = time
        }
        notify(.frame(at: nil))
    }

    // MARK: Frames

    /// Shows what is due by media time `time`: called at the start of each frame.
    func tick(at time: Double) {
        for state in outputs {
            if let showing = state.showing, let token = showing.token, let at = showing.hashAt, time >= at {
                state.showing?.hashAt = nil
                notify(.firstFrame(output: state.player.output, token: token))
            }
            if let retry = state.retryAt {
                if time >= retry {
                    state.retryAt = nil
                    replan(state, at: time)
                }
                continue
            }
            if time + wallOffset >= state.boundary, !state.player.isPlayingRequest {
                let entries = library.entries(output: state.player.output, root: state.player.root, primary: state.player.primary)
                let decision = library.decision(for: entries, at: time + wallOffset)
                if decision.playlist != state.player.playlist {
                    replan(state, at: time, cut: true)
                    continue
                }
                state.boundary = library.nextBoundary(for: entries, after: time + wallOffset)
                dropNext(state, at: time)
            }
            guard let showing = state.showing, let ends = showing.ends, time >= ends else { continue }
            advance(state, at: time)
        }
    }

    /// The earliest media time something is due, for the real-time clock's timer.
    var nextDue: Double? {
        outputs.compactMap { $0.retryAt ?? $0.showing?.ends }.min()
    }

    // MARK: Playing

    /// Decides again what `state` shows next; with `cut`, ends what it shows now.
    private func replan(_ state: OutputState, at time: Double, cut: Bool = false) {
        state.generation += 1
        if let next = state.next { state.player.putBack(next.cue) }
        state.next = nil
        if cut || state.showing == nil {
            advance(state, at: time)
        } else {
            prepareNext(state, after: state.showing?.ends ?? time)
        }
    }

    private func dropNext(_ state: OutputState, at time: Double) {
        guard state.next?.ready == nil || state.showing?.ends == nil else { return }
        state.generation += 1
        if let next = state.next { state.player.putBack(next.cue) }
        state.next = nil
        prepareNext(state, after: state.showing?.ends ?? time)
    }

    /// Shows the next item now when it is ready; otherwise picks it and shows it once it is.
    private func advance(_ state: OutputState, at time: Double) {
        if let pending = state.next, let ready = pending.ready {
            state.next = nil
            show(pending.cue, ready, on: state, at: time)
            return
        }
        if state.next == nil { prepareNext(state, after: time, showWhenReady: true) }
    }

    /// Picks the item after the current one (at wall time of `after`) and gets it ready.
    private func prepareNext(_ state: OutputState, after: Double, showWhenReady: Bool = false) {
        let entries = library.entries(output: state.player.output, root: state.player.root, primary: state.player.primary)
        state.boundary = library.nextBoundary(for: entries, after: clock.now + wallOffset)
        guard let cue = state.player.next(in: library, at: after + wallOffset) else {
            armTimer()
            return
        }
        state.next = Pending(cue: cue, ready: nil)
        let generation = state.generation
        switcher.prepare(cue.item.content, timeout: timeout) { [weak self, weak state] result in
            guard let self, let state, state.generation == generation else { return }
            state.next?.ready = result
            let now = clock.now
            if showWhenReady || state.showing.map({ $0.ends.map { now >= $0 } ?? false }) ?? true {
                advance(state, at: now)
                notify(.frame(at: nil))
            }
        }
    }

    /// Shows `cue` now; when it cannot be shown, says so and goes on to the next.
    private func show(_ cue: PlaylistPlayer.Cue, _ ready: Result<SceneSwitcher.Ready, ProtocolError>, on state: OutputState, at time: Double) {
        let event = PlaylistCue(output: state.player.output, playlist: cue.playlist, item: cue.item.name, index: cue.index)
        do throws(ProtocolError) {
            let content = try ready.get()
            let old = (try? switcher.sublayers(of: state.player.root)) ?? []
            let bindings = try switcher.show(content, root: state.player.root, transition: cue.item.transition)
            if case .scene(_, let name) = content {
                notify(.sceneShown(root: state.player.root, old: old, bindings: bindings))
                notify(.event(.sceneLoaded(output: state.player.output, scene: name, transition: cue.item.transition?.transition.style.rawValue)))
            }
        } catch {
            notify(.event(.playlistSkipped(event, reason: error.message)))
            state.skips += 1
            if state.skips >= max(3, library.playlists[cue.playlist]?.items.count ?? 1) {
                state.skips = 0
                state.retryAt = time + 5
                notify(.frame(at: time + 5))
                return
            }
            prepareNext(state, after: time, showWhenReady: true)
            return
        }
        state.skips = 0
        end(state, at: time)
        let wall = time + wallOffset
        let token = recorder?.began(output: state.player.output, playlist: cue.playlist, item: cue.item.name, start: wall)
        let settled = time + (cue.item.transition?.duration ?? 0)
        state.showing = Showing(cue: cue, start: time, ends: cue.item.duration.map { time + $0 }, token: token, hashAt: token.map { _ in settled })
        notify(.event(.playlistItem(event)))
        if token != nil { notify(.frame(at: settled)) }
        if let ends = state.showing?.ends { notify(.frame(at: ends)) }
        prepareNext(state, after: state.showing?.ends ?? time)
    }

    /// Ends what `state` shows at `time`.
    private func end(_ state: OutputState, at time: Double) {
        guard let showing = state.showing else { return }
        state.showing = nil
        state.player.played(showing.cue, seconds: time - showing.start)
        if let token = showing.token {
            recorder?.ended(token, end: time + wallOffset, completed: showing.ends.map { time >= $0 - 1e-6 } ?? true)
        }
    }

    /// The item each output shows, for `playlist.list`.
    var status: JSON {
        .array(
            outputs.map { state in
                var o: [String: JSON] = ["output": .string(state.player.output), "playlist": state.player.playlist.map(JSON.string) ?? .null]
                if let showing = state.showing {
                    o["item"] = .string(showing.cue.item.name)
                    o["index"] = .number(Double(showing.cue.index))
                    o["playing"] = .string(showing.cue.playlist)
                    o["since"] = .number(showing.start)
                    o["until"] = showing.ends.map(JSON.number) ?? .null
                }
                if let next = state.next {
                    o["next"] = .string(next.cue.item.name)
                    o["nextReady"] = .bool((try? next.ready?.get()) != nil)
                }
                return .object(o)
            })
    }

    /// Wakes the loop at the next schedule boundary, or within a minute (a clock step).
    private func armTimer() {
        guard let loop, clock.mode == .realtime else { return }
        if let timer { loop.cancel(timer) }
        let wall = clock.now + wallOffset
        let soonest = outputs.map(\.boundary).min() ?? .infinity
        timer = loop.schedule(after: max(0.01, min(60, soonest - wall))) { [weak self] in
            guard let self else { return }
            timer = nil
            notify(.frame(at: nil))
            armTimer()
        }
    }
}
