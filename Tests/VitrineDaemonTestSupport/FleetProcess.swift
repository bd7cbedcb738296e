import Foundation

/// The real `vitrine-fleet` (the MQTT bridge and the metrics' TCP port), started on a
/// configuration file and a daemon's socket, stopped when released.
public final class FleetProcess {
    private let process: ChildProcess
    private let stderrPath: String

    /// The `vitrine-fleet` built next to this test binary.
    public static var executable: URL {
        DaemonProcess.executable.deletingLastPathComponent().appendingPathComponent("vitrine-fleet")
    }

    /// Starts the bridge on `config` for the daemon whose control socket is `socket`;
    /// `logLevel` as its `--log-level`.
    public init(config: String, socket: String, logLevel: String = "info") throws {
        stderrPath = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-fleet-\(UUID().uuidString.prefix(8)).stderr").path
        process = try ChildProcess(Self.executable.path, ["--config", config, "--socket", socket, "--log-level", logLevel], stderrPath: stderrPath)
    }

    deinit {
        if process.isRunning { _ = process.terminate() }
        try? FileManager.default.removeItem(atPath: stderrPath)
    }

    /// The process id, for signals.
    public var pid: Int32 { process.pid }

    public var isRunning: Bool { process.isRunning }

    /// What the bridge has written to standard error so far.
    public var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Stops the bridge with SIGTERM and returns its exit status.
    public func stop() -> Int32 { process.terminate() }

    /// Runs `vitrine-fleet` with `arguments` to its end (killed after `timeout` seconds)
    /// and returns its exit status and what it wrote to standard error.
    public static func runToExit(_ arguments: [String], timeout: Double = 20) throws -> (status: Int32, stderr: String) {
        try ChildProcess.runToExit(executable.path, arguments, timeout: timeout)
    }
}
