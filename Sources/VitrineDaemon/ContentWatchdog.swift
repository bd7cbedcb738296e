import VitrineConfig
import VitrineCore
import VitrineOutputSet
import VitrineProtocol
import VitrineRaster
import VitrineSystem

/// Notices pictures that stop changing while they are expected to change (`[[watch]]`,
/// docs/REMOTE.md, "Watchdog"): a layer — a hosted client's window, a video while it
/// plays, any layer the operator says must move — or a whole output.
///
/// It reads no pixels. A frame tap on each output sees the damage of every presented frame
/// and marks a watched picture changed when the damage meets its rectangle (a layer's, as
/// the layer lies on that output) or, for an output, when there is any; a timer every
/// quarter of the shortest `must_change_every` (0.25…5 s) updates the rectangles and finds
/// the pictures unchanged for `must_change_every` seconds of both the media clock and the
/// system's monotonic clock (the same clock unless the clock is manual: then a picture is
/// stalled only once media time was advanced past it and the programs had as long in real
/// time to draw). Without `[[watch]]` tables nothing is tapped or timed.
final class ContentWatchdog {
    /// What happened to a watched picture.
    enum Notice {
        /// It stalled: unchanged since media time `since` for `duration` seconds.
        case stalled(Configuration.Watch, since: Double, duration: Double)
        /// It changed again (`changed`) or is no longer expected to (`idle`).
        case resumed(Configuration.Watch, stalledSeconds: Double, reason: String)
    }

    /// What a layer's picture is expected to do now.
    enum Expectation {
        /// Change (a video playing, a window shown, any layer).
        case change
        /// Stay still (a video paused or ended): a stall ends as `idle`.
        case stayStill
        /// Nothing yet (a surface layer waiting for its window, a restarted client's): no
        /// stall begins, and one under way goes on until the picture changes.
        case wait
    }

    /// The time of a change, on both clocks.
    private struct Instant {
        var media: Double
        var monotonic: Double
    }

    private final class Watched {
        let watch: Configuration.Watch
        var lastChange: Instant
        /// When it stalled, while it is stalled.
        var stalledAt: Instant?
        /// Stalls so far.
        var stalls = 0
        /// Its rectangle on each output it lies on (by the head's identity).
        var rects: [ObjectIdentifier: PixelRect] = [:]

        init(_ watch: Configuration.Watch, at now: Instant) {
            self.watch = watch
            lastChange = now
        }
    }

    /// Sees each output's presented frames' damage.
    private final class Tap: FrameTap {
        weak var watchdog: ContentWatchdog?
        unowned let head: OutputHead

        init(_ watchdog: ContentWatchdog, _ head: OutputHead) {
            self.watchdog = watchdog
            self.head = head
        }

        func frame(_ surface: Surface, damage: [PixelRect]) { watchdog?.damaged(damage, on: head) }
    }

    private let watched: [Watched]
    private let outputSet: OutputSet
    private let scene: Scene
    private let loop: EventLoop
    private let mediaNow: () -> Double
    private let notify: (Notice) -> Void
    /// What a layer's picture is expected to do now.
    private let expected: (String) -> Expectation
    /// Seconds between checks.
    let period: Double

    /// Watches `watches` (none: nothing is done) on `outputSet`'s outputs; `expected` says
    /// whether a layer is expected to change now, `notify` hears of stalls and resumptions.
    init(
        watches: [Configuration.Watch], outputSet: OutputSet, scene: Scene, loop: EventLoop, mediaNow: @escaping () -> Double,
        expected: @escaping (String) -> Expectation, notify: @escaping (Notice) -> Void
    ) {
        self.outputSet = outputSet
        self.scene = scene
        self.loop = loop
        self.mediaNow = mediaNow
        self.expected = expected
        self.notify = notify
        let now = Instant(media: mediaNow(), monotonic: EventLoop.monotonicSeconds)
        watched = watches.map { Watched($0, at: now) }
        period = min(5, max(0.25, (watches.map(\.mustChangeEvery).min() ?? 1) / 4))
    }

    /// Taps the outputs and starts checking; nothing without watches.
    func start() {
        guard !watched.isEmpty else { return }
        attachTaps()
        outputSet.requestFrame()
        scheduleCheck()
    }

    /// A watched picture's figures, for the metrics.
    struct Figures {
        /// `layer` or `output`, and its id or name.
        let kind: String
        let name: String
        let stalled: Bool
        let stalls: Int
    }

    /// Every watched picture's figures.
    var figures: [Figures] {
        watched.map { item in
            let kind = if case .layer = item.watch.target { "layer" } else { "output" }
            return Figures(kind: kind, name: item.watch.name, stalled: item.stalledAt != nil, stalls: item.stalls)
        }
    }

    /// Taps the outputs not tapped yet (one plugged in since).
    private func attachTaps() {
        for head in outputSet.heads where !head.pipeline.taps.contains(where: { ($0 as? Tap)?.watchdog === self }) {
            head.pipeline.add(Tap(self, head))
        }
    }

    private var now: Instant { Instant(media: mediaNow(), monotonic: EventLoop.monotonicSeconds) }

    /// A frame on `head` changed `damage`: the watched pictures it meets changed.
    private func damaged(_ damage: [PixelRect], on head: OutputHead) {
        guard !damage.isEmpty else { return }
        let id = ObjectIdentifier(head)
        for item in watched {
            let met: Bool
            switch item.watch.target {
            case .output(let name): met = head.answers(to: name)
            case .layer:
                guard let rect = item.rects[id] else { continue }
                met = damage.contains { !$0.intersection(rect).isEmpty }
            }
            if met { changed(item, reason: "changed") }
        }
    }

    private func changed(_ item: Watched, reason: String) {
        let now = now
        item.lastChange = now
        guard let stalledAt = item.stalledAt else { return }
        item.stalledAt = nil
        // Told from the loop, not from within the frame the tap sees: what it sets off
        // (commands, a frame) must not run inside that frame.
        let notice = Notice.resumed(item.watch, stalledSeconds: now.monotonic - stalledAt.monotonic, reason: reason)
        loop.schedule(after: 0) { [weak self] in self?.notify(notice) }
    }

    private func scheduleCheck() {
        loop.schedule(after: period) { [weak self] in
            guard let self else { return }
            check()
            scheduleCheck()
        }
    }

    /// Updates the layers' rectangles and finds the pictures that stalled.
    func check() {
        attachTaps()
        let now = now
        for item in watched {
            switch expectation(of: item) {
            case .change: break
            case .wait:
                if item.stalledAt == nil { item.lastChange = now }
                continue
            case .stayStill:
                if item.stalledAt != nil { changed(item, reason: "idle") } else { item.lastChange = now }
                continue
            }
            let unchanged = min(now.media - item.lastChange.media, now.monotonic - item.lastChange.monotonic)
            guard item.stalledAt == nil, unchanged >= item.watch.mustChangeEvery else { continue }
            item.stalledAt = now
            item.stalls += 1
            notify(.stalled(item.watch, since: item.lastChange.media, duration: now.media - item.lastChange.media))
        }
    }

    /// What `item` is expected to do: change only on a powered output, a layer only where
    /// it shows; updates its rectangles.
    private func expectation(of item: Watched) -> Expectation {
        switch item.watch.target {
        case .output(let name):
            return outputSet.heads.contains { $0.answers(to: name) && $0.powered } ? .change : .stayStill
        case .layer(let layer):
            item.rects = rects(of: layer)
            return item.rects.isEmpty ? .stayStill : expected(layer)
        }
    }

    /// Where `layer` lies on each powered output showing it: its bounds' box under the
    /// output's root, in the output's pixels. None when it is absent or hidden.
    private func rects(of layer: String) -> [ObjectIdentifier: PixelRect] {
        guard let values = try? scene.modelValues(of: layer), !values.bool(.hidden) else { return [:] }
        var root = layer
        while let parent = (try? scene.parent(of: root)) ?? nil { root = parent }
        var rects: [ObjectIdentifier: PixelRect] = [:]
        for head in outputSet.heads where head.root == root && head.powered {
            guard let box = try? scene.convert(values.rect(.bounds), from: layer, to: root, at: mediaNow()) else { continue }
            let origin = head.origin
            let mode = head.backend.mode
            let rect = PixelRect(covering: box.offsetBy(dx: -origin.x, dy: -origin.y))
                .intersection(PixelRect(x: 0, y: 0, width: mode.width, height: mode.height))
            if !rect.isEmpty { rects[ObjectIdentifier(head)] = rect }
        }
        return rects
    }
}
