import Glibc
import VitrineJSON
import VitrinePlayLog
import VitrineProtocol
import VitrineSignage
import VitrineSystem

/// The play log records what the playlists show.
extension PlayLog: PlayRecorder {}

extension Coordinator {
    /// The play log in `playlog/` under the state directory, when `[playlog]` is on and
    /// the directory is there (the default one is used only when it exists); its entries
    /// are sent as `playlog.entry` events as their items end. Nothing is read or written
    /// until an item plays or a query asks.
    func makePlayLog(loop: EventLoop?) -> PlayLog? {
        guard let state = settings.playLogState else { return nil }
        var info = stat()
        if state.isDefault, stat(state.directory, &info) != 0 {
            logger.info("no play log: the state directory \(state.directory) does not exist")
            return nil
        }
        let limits = PlayLogStore.Limits(maxBytes: settings.playLog.maxMB << 20, keepSeconds: Double(settings.playLog.keepDays) * 86_400)
        let store = PlayLogStore(directory: state.directory + "/playlog", limits: limits, logger: logger)
        let log = PlayLog(store: store, loop: loop, workers: workers, logger: logger)
        log.onEnded = { [unowned self] entry in broadcast(.playlogEntry(entry)) }
        return log
    }

    /// `playlog.query`: the log's files are read by a worker, and the reply follows.
    func queryPlayLog(id: JSON, _ query: PlayLogQuery, for client: ClientConnection) -> String? {
        guard let playLog else {
            return Wire.failure(
                id: id,
                ProtocolError(
                    .notAllowed,
                    "there is no play log: [playlog] enabled is false, or the state directory is missing ([state] directory, vitrined --state-dir)"))
        }
        return deferredReply(to: client) { finish in
            let queued = playLog.query(query) { result in
                switch result {
                case .success(let answer):
                    finish(
                        Wire.reply(
                            id: id,
                            result: .object([
                                "entries": .array(answer.entries.map { .object($0.fields) }), "more": .bool(answer.more),
                                "skipped": .number(Double(answer.skipped)),
                            ])))
                case .failure(let error):
                    finish(Wire.failure(id: id, ProtocolError(.internalError, "the play log cannot be read: \(error.message)")))
                }
            }
            if !queued {
                finish(Wire.failure(id: id, ProtocolError(.limitExceeded, "\(workers?.capacity ?? 0) file jobs are waiting already; query again shortly")))
            }
        }
    }
}
