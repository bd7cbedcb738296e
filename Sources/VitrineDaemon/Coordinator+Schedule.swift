import VitrineJSON
import VitrineProtocol
import VitrineSceneHost

extension Coordinator {
    /// Applies `request` at its wall-clock `at` (Unix seconds): at once, at that time, when
    /// it is not in the future; otherwise at the first frame at or past it, when its reply
    /// is sent (the client's later requests wait for it).
    func schedule(_ request: Request, at wall: Double, from client: ClientConnection) -> String? {
        let time = wall - clock.wallOffset
        guard abs(time - clock.now) <= SceneHost.scheduleHorizon else {
            let away = time > clock.now ? "ahead" : "ago"
            return Wire.failure(
                id: request.id,
                ProtocolError(
                    .invalidValue,
                    "\"at\" is \(Int(abs(time - clock.now))) s \(away); it must lie within 24 hours of now (this daemon's wall clock minus media time is \(clock.wallOffset) s)"
                ))
        }
        guard time > clock.now else { return applied(request, at: time, from: client.clientID) }
        return deferredReply(to: client) { finish in
            sceneHost.hold(ScheduledRequest(request: request, time: time, client: client.clientID, finish: finish))
            if clock.mode == .realtime { outputSet.requestFrame(at: time) }
        }
    }

    /// Applies the scheduled requests due by `time`, in the order of their `at`.
    func applyScheduled(upTo time: Double) {
        let due = sceneHost.takeDue(upTo: time)
        guard !due.isEmpty else { return }
        let replies = due.map { ($0.finish, applied($0.request, at: $0.time, from: $0.client)) }
        for (finish, line) in replies { finish(line) }
    }

    /// Executes `request` as if it were `time` now, and returns its reply line, which says
    /// when (on the wall clock) it was applied.
    private func applied(_ request: Request, at time: Double, from client: Int) -> String {
        let wall = clock.now + clock.wallOffset
        return sceneHost.applying(at: time) { () -> String in
            do throws(ProtocolError) {
                return Wire.reply(id: request.id, result: try execute(request.command, from: client), applied: wall)
            } catch {
                return Wire.failure(id: request.id, error, applied: wall)
            }
        }
    }
}
