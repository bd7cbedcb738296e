import Glibc
import Logging
import VitrineProtocol
import VitrineSystem

/// Proof of play: the player says when each item begins, when its first frame is shown
/// and when it ends; every item is recorded in the append-only `PlayLogStore`
/// (docs/PLAYLOG.md).
///
/// ```swift
/// let log = PlayLog(store: store, loop: loop, workers: workers, logger: logger)
/// let token = log.began(output: "HDMI-A-1", playlist: "lunch", item: "menu", start: wallClock)
/// log.firstFrame(token, hash: digest)
/// log.ended(token, end: wallClock, completed: true)
/// ```
///
/// It lives on the daemon's loop and never touches a file there: what happens is kept
/// and written by a worker, batched, at most `interval` seconds after it happened (one
/// write at a time), so a power cut loses at most about a second. An item that begins is
/// written before it ends, so a crash leaves its start. Nothing runs while nothing plays.
public final class PlayLog {
    /// What the log has counted since the daemon started.
    public struct Figures: Sendable, Equatable {
        /// Items begun.
        public var started = 0
        /// Items that ran their whole time.
        public var completed = 0
        /// Items cut short or failed.
        public var cutShort = 0
        /// Batches that could not be written (each is tried again).
        public var writeFailures = 0
        /// Entries dropped unwritten because too many waited while writes failed.
        public var lost = 0
    }

    /// The longest an event waits before it is written, in seconds.
    public static let interval = 0.5
    /// The most entries waiting to be written; beyond it the oldest are dropped.
    public static let pendingLimit = 10_000
    /// The most items playing at once that are tracked.
    public static let openLimit = 4096

    public let store: PlayLogStore
    /// Sent each entry as its item ends (the `playlog.entry` event).
    public var onEnded: ((PlayEntry) -> Void)?
    public private(set) var figures = Figures()

    private let loop: EventLoop?
    private let workers: WorkerPool?
    private let logger: Logger
    /// This run's id, the first part of every entry's id.
    public let run: String
    private var next = 0
    /// The items playing, by token.
    private var playing: [Int: PlayEntry] = [:]
    /// Entries changed since the last write, by token, in the order they first changed.
    private var pending: [Int: PlayEntry] = [:]
    private var order: [Int] = []
    private var writing = false
    private var scheduled = false
    private var failing = false

    /// A log writing to `store` by `workers` on `loop` (in place, at once, without them).
    public init(store: PlayLogStore, loop: EventLoop?, workers: WorkerPool?, logger: Logger) {
        self.store = store
        self.loop = loop
        self.workers = workers
        self.logger = logger
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        run = String(UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec / 1_000_000), radix: 36)
    }

    // MARK: The player's calls

    /// An item began on `output` at wall-clock `start` (Unix seconds); the token names it later.
    public func began(output: String, playlist: String, item: String, start: Double) -> Int {
        next += 1
        figures.started += 1
        if playing.count >= Self.openLimit, let oldest = playing.keys.min() {
            logger.warning("play log: more than \(Self.openLimit) items play at once; the oldest is no longer followed")
            playing[oldest] = nil
        }
        let entry = PlayEntry(id: "\(run)-\(next)", output: output, playlist: playlist, item: item, start: start)
        playing[next] = entry
        note(next, entry)
        return next
    }

    /// The first frame showing the item fully was presented; `hash` is the hex digest of its pixels.
    public func firstFrame(_ token: Int, hash: String) {
        guard var entry = playing[token], entry.hash == nil else { return }
        entry.hash = hash
        playing[token] = entry
        note(token, entry)
    }

    /// The item ended at wall-clock `end`; `completed` is false when it was cut short or failed.
    public func ended(_ token: Int, end: Double, completed: Bool) {
        guard var entry = playing.removeValue(forKey: token) else { return }
        entry.end = end
        entry.completed = completed
        if completed { figures.completed += 1 } else { figures.cutShort += 1 }
        note(token, entry)
        onEnded?(entry)
    }

    // MARK: Writing

    private func note(_ token: Int, _ entry: PlayEntry) {
        if pending.updateValue(entry, forKey: token) == nil { order.append(token) }
        if order.count > Self.pendingLimit {
            let dropped = order.count - Self.pendingLimit
            for token in order.prefix(dropped) { pending[token] = nil }
            order.removeFirst(dropped)
            figures.lost += dropped
        }
        scheduleWrite(after: Self.interval)
    }

    private func scheduleWrite(after seconds: Double) {
        guard !pending.isEmpty, !writing, !scheduled else { return }
        guard let loop else { return writeNow() }
        scheduled = true
        loop.schedule(after: seconds) { [weak self] in
            self?.scheduled = false
            self?.writeNow()
        }
    }

    private func writeNow() {
        guard !pending.isEmpty, !writing else { return }
        let batch = takePending()
        writing = true
        let store = store
        let queued = offload({ () -> SystemError? in
            do throws(SystemError) { try store.append(batch.entries) } catch { return error }
            return nil
        }) { [weak self] failure in
            self?.written(batch, failure)
        }
        if !queued { written(batch, SystemError("the workers' queue is full")) }
    }

    private func takePending() -> (tokens: [Int], entries: [PlayEntry]) {
        let batch = (order, order.compactMap { pending[$0] })
        pending.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        return batch
    }

    /// A batch was written, or not: then it waits again, before what changed since.
    private func written(_ batch: (tokens: [Int], entries: [PlayEntry]), _ failure: SystemError?) {
        writing = false
        if let failure {
            figures.writeFailures += 1
            if !failing { logger.warning("cannot write the play log: \(failure.message); trying again every second") }
            failing = true
            for (token, entry) in zip(batch.tokens, batch.entries) where pending[token] == nil {
                pending[token] = entry
                order.insert(token, at: 0)
            }
            if loop != nil { scheduleWrite(after: 1) }
            return
        }
        if failing { logger.info("the play log is written again") }
        failing = false
        scheduleWrite(after: Self.interval)
    }

    /// Writes what waits now, on this thread: at stop, after the loop has ended.
    public func writeFinal() {
        guard !pending.isEmpty else { return }
        do throws(SystemError) { try store.append(takePending().entries) } catch {
            logger.warning("cannot write the play log at stop: \(error.message)")
        }
    }

    // MARK: Reading

    /// Reads the entries `query` asks for on a worker, with the items still waiting to be
    /// written, and hands them to `completion` on the loop. False when the workers' queue
    /// is full (nothing is read).
    public func query(_ query: PlayLogQuery, completion: @escaping (Result<PlayLogStore.Answer, SystemError>) -> Void) -> Bool {
        let store = store
        let recent = Array(pending.values) + Array(playing.values)
        return offload({ () -> Result<PlayLogStore.Answer, SystemError> in
            do throws(SystemError) { return .success(try store.read(query)) } catch { return .failure(error) }
        }) { result in
            completion(result.map { Self.adding(recent, to: $0, query) })
        }
    }

    /// Runs `job` on a worker and `completion` with its result on the loop; both in place
    /// without workers. False when the workers' queue is full.
    private func offload<T: Sendable>(_ job: @escaping @Sendable () -> T, then completion: @escaping (T) -> Void) -> Bool {
        guard let workers else {
            completion(job())
            return true
        }
        return workers.submit(job, then: completion)
    }

    /// `answer` with the entries not written yet (those of items playing, those waiting).
    static func adding(_ recent: [PlayEntry], to answer: PlayLogStore.Answer, _ query: PlayLogQuery) -> PlayLogStore.Answer {
        guard !recent.isEmpty else { return answer }
        var byID = Dictionary(answer.entries.map { ($0.id, $0) }) { a, _ in a }
        for entry in recent where query.matches(entry) { byID[entry.id] = byID[entry.id].map { $0.merged(with: entry) } ?? entry }
        var entries = byID.values.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        let more = answer.more || entries.count > query.limit
        if entries.count > query.limit { entries.removeSubrange(query.limit...) }
        return PlayLogStore.Answer(entries: entries, more: more, skipped: answer.skipped)
    }
}
