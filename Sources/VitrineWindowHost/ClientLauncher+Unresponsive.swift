import Glibc

/// Clients whose windows stop answering pings: with `restart_unresponsive_after`, killed
/// and started again through the restart path.
extension ClientLauncher {
    /// The running client whose process, or process group, is `pid`'s.
    func client(owning pid: Int) -> Client? {
        let group = Int(getpgid(pid_t(pid)))
        return clients.values.first { client in
            guard client.state == .running, let process = client.process else { return false }
            return Int(process.pid) == pid || Int(process.pid) == group
        }
    }

    /// A window of process `pid` stopped answering pings: its client, when it has a
    /// `restartUnresponsiveAfter`, is killed (SIGKILL to its group) that many seconds later
    /// unless it answers meanwhile.
    func clientUnresponsive(pid: Int) {
        guard let client = client(owning: pid), client.program.restartUnresponsiveAfter > 0, client.unresponsiveTimer == nil else { return }
        let seconds = client.program.restartUnresponsiveAfter
        client.unresponsiveTimer = loop.schedule(after: Double(seconds)) { [weak self, weak client] in
            guard let self, let client, client.state == .running, let process = client.process else { return }
            client.unresponsiveTimer = nil
            logger.warning(
                "client \(client.name) (pid \(process.pid)) has been unresponsive for \(seconds) s (restart_unresponsive_after): SIGKILL, then restarted")
            client.killedUnresponsive = true
            process.signalGroup(SIGKILL)
        }
    }

    /// A window of process `pid` answers again: its client is not killed.
    func clientResponsive(pid: Int) {
        guard let client = client(owning: pid) else { return }
        cancelUnresponsiveKill(client)
    }

    func cancelUnresponsiveKill(_ client: Client) {
        if let ticket = client.unresponsiveTimer { loop.cancel(ticket) }
        client.unresponsiveTimer = nil
    }
}
