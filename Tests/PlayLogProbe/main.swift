import Glibc
import Logging
import VitrinePlayLog
import VitrineProtocol
import VitrineSystem

// playlog-probe DIRECTORY [ITEM_SECONDS]: plays items of ITEM_SECONDS (default 0.05) one
// after the other into a play log in DIRECTORY, on an event loop with workers as the
// daemon does, until it is killed. Each call is written to standard error as it is made
// ("run ID", "began TOKEN WALL", "frame TOKEN WALL", "ended TOKEN WALL"), for the test
// to compare with what the log holds after SIGKILL.
//
// playlog-probe DIRECTORY query: times three queries of the log in DIRECTORY (an item, an
// hour, the first ten from a time on), the figures docs/PLAYLOG.md gives.

/// The player's side: one item after the other, each call said on standard error.
final class Probe {
    let loop: EventLoop
    let log: PlayLog
    let itemSeconds: Double
    var playing: Int?
    var number = 0

    init(directory: String, itemSeconds: Double) throws {
        loop = try EventLoop()
        let logger = Logger(label: "playlog-probe")
        let store = PlayLogStore(directory: directory, limits: .init(maxBytes: 64 << 20, keepSeconds: 86_400), logger: logger)
        log = PlayLog(store: store, loop: loop, workers: WorkerPool(loop: loop), logger: logger)
        self.itemSeconds = itemSeconds
    }

    func run() {
        Self.say("run \(log.run)")
        loop.schedule(after: 0) { [self] in tick() }
        loop.run()
    }

    private func tick() {
        let now = Self.wallClock()
        if let token = playing {
            log.ended(token, end: now, completed: true)
            Self.say("ended \(token) \(now)")
        }
        number += 1
        let token = log.began(output: "probe", playlist: "probe", item: "item-\(number % 7)", start: now)
        Self.say("began \(token) \(now)")
        log.firstFrame(token, hash: String(number, radix: 16))
        Self.say("frame \(token) \(now)")
        playing = token
        loop.schedule(after: itemSeconds) { [self] in tick() }
    }

    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    static func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[2] == "query" {
    let store = PlayLogStore(directory: arguments[1], limits: .init(maxBytes: 64 << 20, keepSeconds: 3650 * 86_400), logger: Logger(label: "q"))
    for query in [PlayLogQuery(item: "item-3", limit: 10), PlayLogQuery(from: 1_796_300_000, to: 1_796_303_600), PlayLogQuery(from: 1_796_300_000, limit: 10)] {
        let t = EventLoop.monotonicSeconds
        let answer = try store.read(query)
        Probe.say("query \(query): \(answer.entries.count) entries in \(EventLoop.monotonicSeconds - t) s")
    }
    exit(0)
}
guard arguments.count >= 2 else {
    Probe.say("usage: playlog-probe DIRECTORY [ITEM_SECONDS]")
    exit(2)
}
try Probe(directory: arguments[1], itemSeconds: arguments.count > 2 ? Double(arguments[2]) ?? 0.05 : 0.05).run()
