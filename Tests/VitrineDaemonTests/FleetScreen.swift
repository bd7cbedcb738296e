import Foundation

/// One screen of a fleet as it runs: the real `vitrined` on a configuration and a state
/// directory, and the real `vitrine-fleet` on the same configuration and the daemon's socket.
final class Screen {
    let config: String
    let state: String
    private(set) var daemon: DaemonProcess
    let bridge: FleetProcess

    init(config: String, state: String) throws {
        self.config = config
        self.state = state
        // Beside the configuration, so that it outlives a daemon restarted on it.
        let socket = URL(fileURLWithPath: config).deletingLastPathComponent().appendingPathComponent("v.sock").path
        daemon = try Self.startDaemon(config: config, state: state, socketPath: socket)
        bridge = try FleetProcess(config: config, socket: socket)
    }

    private static func startDaemon(config: String, state: String, socketPath: String) throws -> DaemonProcess {
        try DaemonProcess(socketPath: socketPath, arguments: ["--config", config, "--state-dir", state])
    }

    /// A client of the daemon's socket.
    func connect() throws -> SocketClient { try daemon.connect() }

    var isRunning: Bool { daemon.isRunning && bridge.isRunning }

    /// What both processes have written to standard error so far.
    var standardError: String { "vitrined:\n\(daemon.standardError)\nvitrine-fleet:\n\(bridge.standardError)" }

    /// Stops the bridge, then the daemon (both with SIGTERM); 0 when both exited cleanly.
    func stop() -> Int32 {
        let bridgeStatus = bridge.stop()
        let daemonStatus = daemon.stop()
        return bridgeStatus != 0 ? bridgeStatus : daemonStatus
    }

    /// Stops the daemon alone, and returns its exit status.
    func stopDaemon() -> Int32 { daemon.stop() }

    /// Starts a new daemon on the same socket, with a state directory of `state` (a fresh
    /// one: the scene is the configuration's, not the journal's).
    func restartDaemon(state: String) throws {
        daemon = try Self.startDaemon(config: config, state: state, socketPath: daemon.socketPath)
    }
}
