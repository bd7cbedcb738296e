import Logging
import VitrineCore
import VitrineProtocol
import VitrineSignage
import VitrineSystem

/// Runs the playlists on the outputs: asks each output's `PlaylistPlayer` what comes
/// next, gets it ready ahead of its time (`SceneSwitcher`), shows it at the frame it is
/// due with its transition, passes over what cannot be shown (`playlist.skipped`) and
/// keeps the picture meanwhile, and cuts an item short when the schedule changes.
///
/// It owns the signage state: the configuration's playlists and schedules, the changes
/// made over the socket (journaled), the library made of both, the outputs plugged in and
/// the proof-of-play recorder. Driven by frames (`tick`) and, for a schedule's boundaries
/// and a clock step, by a timer at most a minute apart; a step of the wall clock (or of
/// the manual clock) is seen at the next frame and decided again at once. Confined to
/// the loop; no player runs until a schedule or `playlist.play` needs one.
final class SignageHost {
    /// What the host says, on the loop.
    enum Notice {
        case event(Event)
        /// A scene was shown: its bindings are to be added in place of the old layers'.
        case sceneShown(root: String, old: [String], bindings: [BindingSpec])
        /// A frame is wanted at media time `at`; nil: now (said outside any frame or request).
        case frame(at: Double?)
        /// A frame is wanted after the reply to the request being handled (no loop).
        case frameAfterReply
        /// The item `token` names shows fully from this frame on `output`: its digest is wanted.
        case firstFrame(output: String, token: Int)
    }

    /// An output the host may play on.
    struct Head: Equatable {
        var name: String
        var root: String
        var primary: Bool
    }

    /// The playlists and schedules: the configuration's with the socket's changes made over them.
    private(set) var library: SignageLibrary
    /// The configuration's `[[playlists]]` and `[[schedules]]`.
    private var configured: SignageLibrary
    /// The playlists and schedules set over the socket, journaled.
    private(set) var changes = SignageChanges()
    /// Receives what is shown, for proof of play.
    var recorder: (any PlayRecorder)?
    /// Seconds an item may take to get ready before it is passed over.
    var timeout = 10.0
    let switcher: SceneSwitcher
    private let clock: MediaClock
    private let loop: EventLoop?
    private let logger: Logger
    let notify: (Notice) -> Void
    /// The outputs plugged in, one per root.
    private var heads: [Head] = []
    /// Whether players run (a schedule or a request needed them).
    private var running = false
    private var outputs: [OutputState] = []
    private var timer: UInt64?
    /// Media time and wall-clock offset at the last frame, to see a clock step.
    private var lastFrame: (time: Double, offset: Double)?

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

        var head: Head { Head(name: player.output, root: player.root, primary: player.primary) }
    }

    /// The item on screen.
    struct Showing {
        var cue: PlaylistPlayer.Cue
        var start: Double
        /// Media time it ends; nil until its video ends.
        var ends: Double?
        var token: Int?
        /// Wall-clock time it began.
        var wallStart: Double
        /// Media time its transition ends, while its first full frame is still to be hashed.
        var hashAt: Double?
    }

    /// The item that comes next, getting ready or ready.
    struct Pending {
        var cue: PlaylistPlayer.Cue
        var ready: Result<SceneSwitcher.Ready, ProtocolError>?
    }

    init(library: SignageLibrary, switcher: SceneSwitcher, clock: MediaClock, loop: EventLoop?, logger: Logger, notify: @escaping (Notice) -> Void) {
        self.configured = library
        self.library = library
        self.switcher = switcher
        self.clock = clock
        self.loop = loop
        self.logger = logger
        self.notify = notify
    }

    private var wallOffset: Double { clock.wallOffset }

    // MARK: Outputs

    /// Follows the outputs plugged in (name, root, whether primary), one player per root:
    /// an output plugged in gets one, and one unplugged stops, its item ended as not
    /// completed.
    func follow(outputs plugged: [Head], at time: Double) {
        heads = []
        for head in plugged where !heads.contains(where: { $0.root == head.root }) { heads.append(head) }
        guard running else { return }
        for state in outputs where !heads.contains(state.head) { stop(state, at: time) }
        outputs.removeAll { !heads.contains($0.head) }
        for head in heads where !outputs.contains(where: { $0.head == head }) {
            let state = OutputState(player: PlaylistPlayer(output: head.name, root: head.root, primary: head.primary))
            outputs.append(state)
            replan(state, at: time)
        }
        armTimer()
    }

    /// Starts the players when the library schedules something.
    func startIfScheduled(at time: Double) {
        if !library.isEmpty { run(at: time) }
    }

    private func run(at time: Double) {
        guard !running else { return }
        running = true
        follow(outputs: heads, at: time)
    }

    private func stop(_ state: OutputState, at time: Double) {
        state.generation += 1
        state.next = nil
        end(state, at: time, completed: false)
        logger.info("signage on \(state.player.output) stopped: the output was unplugged")
    }

    func state(of output: String?) throws(ProtocolError) -> OutputState {
        let found = output.map { name in outputs.first { $0.player.output == name || $0.player.root == name } } ?? outputs.first { $0.player.primary }
        guard let found else { throw ProtocolError(.unknownOutput, "no output is named '\(output ?? "")'; output.list lists them") }
        return found
    }

    // MARK: Changes

    /// Takes the configuration's playlists and schedules (at start, on a reload).
    func configure(_ configured: SignageLibrary, at time: Double) {
        self.configured = configured
        take(madeLibrary(), at: time)
    }

    /// Takes the changes a journal kept, before anything plays.
    func restore(_ changes: SignageChanges) {
        self.changes = changes
        library = madeLibrary()
    }

    /// Notes a change made over the socket, for the journal.
    func note(_ command: SignageCommand) { changes.note(command) }

    private func madeLibrary() -> SignageLibrary {
        let (library, dropped) = changes.applied(to: configured)
        for change in dropped { logger.warning("a playlist or schedule set over the socket no longer applies: \(change)") }
        return library
    }

    /// Takes a new library (`playlist.set`, `schedule.set`, a reload): what plays is
    /// decided again at once where it changes.
    func take(_ library: SignageLibrary, at time: Double) {
        self.library = library
        guard running else { return startIfScheduled(at: time) }
        for state in outputs {
            let decision = library.decision(for: entries(of: state), at: time + wallOffset)
            if state.player.isPlayingRequest { continue }
            if decision.playlist != scheduled(state) || state.showing == nil { replan(state, at: time, cut: true) } else { dropNext(state, at: time) }
        }
        armTimer()
    }

    /// Plays `playlist` (or its item `item`) on `output` now, then the schedule again.
    func play(_ name: String, item: Int?, output: String?, at time: Double) throws(ProtocolError) {
        guard let playlist = library.playlists[name] else {
            throw ProtocolError(.invalidValue, "there is no playlist '\(name)'; playlist.list lists them")
        }
        run(at: time)
        let state = try state(of: output)
        try state.player.play(playlist, item: item)
        replan(state, at: time, cut: true)
    }

    /// Ends what `play` plays on `output`; returns whether something was.
    func stop(output: String?, at time: Double) throws(ProtocolError) -> Bool {
        guard running else { return false }
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
        wantFrame()
    }

    // MARK: Frames

    /// Shows what is due by media time `time`: called at the start of each frame.
    func tick(at time: Double) {
        guard !outputs.isEmpty else { return }
        let offset = wallOffset
        let stepped = lastFrame.map { time < $0.time - 1e-6 || abs(offset - $0.offset) > 1 } ?? false
        lastFrame = (time, offset)
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
            if stepped || time + offset >= state.boundary, !state.player.isPlayingRequest {
                let decision = library.decision(for: entries(of: state), at: time + offset)
                if decision.playlist != scheduled(state) {
                    replan(state, at: time, cut: true)
                    continue
                }
                state.boundary = library.nextBoundary(for: entries(of: state), after: time + offset)
                if stepped { replan(state, at: time) } else { dropNext(state, at: time) }
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

    /// The schedule's playlist `state` plays now: the item on screen's, unless that is an
    /// interrupt or was asked for (the next item may be another playlist's already).
    private func scheduled(_ state: OutputState) -> String? {
        guard let cue = state.showing?.cue, !cue.interrupt, !cue.triggered else { return state.player.playlist }
        return cue.playlist
    }

    private func entries(of state: OutputState) -> [ScheduleEntry] {
        library.entries(output: state.player.output, root: state.player.root, primary: state.player.primary)
    }

    /// Asks for a frame now: from the loop when there is one (never within the frame or
    /// the request that asks), else after the reply.
    private func wantFrame() {
        guard let loop else { return notify(.frameAfterReply) }
        loop.schedule(after: 0) { [weak self] in self?.notify(.frame(at: nil)) }
    }

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
        state.boundary = library.nextBoundary(for: entries(of: state), after: clock.now + wallOffset)
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
                wantFrame()
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
            state.player.played(cue, seconds: 0)
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
        state.showing = Showing(
            cue: cue, start: time, ends: cue.item.duration.map { time + $0 }, token: token, wallStart: wall, hashAt: token.map { _ in settled })
        notify(.event(.playlistItem(event)))
        if token != nil { notify(.frame(at: settled)) }
        if let ends = state.showing?.ends { notify(.frame(at: ends)) }
        prepareNext(state, after: state.showing?.ends ?? time)
    }

    /// Ends what `state` shows at `time`; it completed when its time was up, unless `completed` says.
    private func end(_ state: OutputState, at time: Double, completed: Bool? = nil) {
        guard let showing = state.showing else { return }
        state.showing = nil
        state.player.played(showing.cue, seconds: time - showing.start)
        if let token = showing.token {
            let end = time + wallOffset
            // (a clock step while it showed: its start as the clock reads now)
            let start = end - (time - showing.start)
            recorder?.ended(
                token, end: end, completed: completed ?? showing.ends.map { time >= $0 - 1e-6 } ?? true,
                start: abs(start - showing.wallStart) > 0.5 ? start : nil)
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
