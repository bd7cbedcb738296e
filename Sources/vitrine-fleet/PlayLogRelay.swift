import Logging
import VitrineFleet
import VitrineJSON
import VitrineSystem

/// Proof of play for the broker (docs/FLEET.md, "Proof of play"): a connection of its own
/// to the daemon's socket that subscribes to `playlog.entry`, whose events are published,
/// as the daemon writes them, on `vitrine/<device>/playlog` at QoS 1, one message per item
/// that ended. Its own connection keeps the subscription apart from the broker's
/// (`subscribe`/`unsubscribe` on the command topic never touch it), and it subscribes again
/// whenever the daemon comes back. Entries of items that end while the broker or the daemon
/// is away are not published: the daemon's log has them (`playlog.query`).
final class PlayLogRelay {
    let topic: String
    /// Entries published, and those the session dropped (not connected, or its queue full).
    private(set) var published = 0
    private(set) var dropped = 0
    private let session: MQTTSession
    private let link: DaemonLink
    private let logger: Logger

    init(device: String, session: MQTTSession, controlSocket: String, idleSeconds: Int, outputLimit: Int, loop: EventLoop, logger: Logger) {
        topic = "vitrine/\(device)/playlog"
        self.session = session
        self.logger = logger
        link = DaemonLink(path: controlSocket, idleSeconds: idleSeconds, outputLimit: outputLimit, loop: loop, logger: logger)
        link.onNotice = { [unowned self] notice in daemon(notice) }
    }

    func start() { link.start() }

    func stop() { link.stop() }

    private func daemon(_ notice: DaemonLink.Notice) {
        switch notice {
        case .ready:
            link.send(Array(#"{"id":"vitrine-fleet.playlog","cmd":"subscribe","events":["playlog.entry"]}"#.utf8), for: .broker(id: nil, stats: false))
        case .reply(let line, _):
            let reply = try? JSON(parsing: String(decoding: line, as: UTF8.self))
            if reply?["ok"] != .bool(true) {
                logger.warning("the daemon refused the play log's subscription: \(String(decoding: line.prefix(300), as: UTF8.self))")
            }
        case .event(let line):
            if session.publish(topic, Array(line)) { published += 1 } else { dropped += 1 }
        case .lost, .idle:
            break
        }
    }
}
