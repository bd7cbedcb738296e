import Glibc
import VitrineOutput
import VitrineProtocol

/// Power: each output can be blanked and woken (`output.power`, its `[[outputs]]`
/// schedule).
extension OutputSet {
    /// Blanks or wakes `head`; subscribers get `output.power` when its state changes.
    public func setPower(_ head: OutputHead, on: Bool, reason: Event.PowerReason) throws(ProtocolError) {
        guard head.powered != on else { return }
        do { try head.backend.setPower(on) } catch {
            throw ProtocolError(.internalError, "\(head.name) could not be \(on ? "woken" : "blanked"): \(error)")
        }
        head.powered = on
        followPowerOnTV(head, on: on)
        notify(.powered(heads.contains(where: \.powered)))
        head.dropped.forget()
        if !on { presentationBlanked(head) }
        logger.info("\(head.name): \(on ? "woken" : "blanked") (\(reason))")
        if on {
            head.pipeline.invalidate()
            switch clock.mode {
            case .manual: renderFrame(on: [head])
            case .realtime: head.pacer.request()
            }
        }
        let event = Event.outputPower(output: head.name, root: head.root, on: on, reason: reason)
        // A command's event follows its reply.
        notify(.event(event, afterReply: reason == .command))
    }

    /// Applies every output's `[[outputs]]` power schedule now and arms a timer for its
    /// next change (local time, read again at each change so that a clock or time-zone
    /// change is taken at the next one).
    public func startPowerSchedules() {
        for head in heads where head.entry?.schedule != nil { followSchedule(of: head) }
    }

    func followSchedule(of head: OutputHead) {
        guard let plan = head.entry?.schedule, heads.contains(where: { $0 === head }) else { return }
        tzset()
        let now = Int(time(nil))
        try? setPower(head, on: plan.isOn(at: now), reason: .schedule)
        // A second past the change, so that the minute read then is the new one.
        schedule(Double(plan.nextChange(after: now) - now) + 1) { [weak self, weak head] in
            guard let self, let head else { return }
            followSchedule(of: head)
        }
    }
}
