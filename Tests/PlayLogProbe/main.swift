import Glibc
import Logging
import VitrinePlayLog
import VitrineSystem

// playlog-probe DIRECTORY [ITEM_SECONDS]: plays items of ITEM_SECONDS (default 0.05) one
// after the other into a play log in DIRECTORY, on an event loop with workers as the
// daemon does, until it is killed. Each call is written to standard error as it is made
// ("run ID", "began TOKEN WALL", "frame TOKEN WALL", "ended TOKEN WALL"), for the test
// to compare with what the log holds after SIGKILL.

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
guard arguments.count >= 2 else {
    Probe.say("usage: playlog-probe DIRECTORY [ITEM_SECONDS]")
    exit(2)
}
try Probe(directory: arguments[1], itemSeconds: arguments.count > 2 ? Double(arguments[2]) ?? 0.05 : 0.05).run()
