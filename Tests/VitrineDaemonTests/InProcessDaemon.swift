@_exported import VitrineDaemonTestSupport
import Foundation
import Logging
import VitrineDaemon
import VitrineOutput

/// A `Daemon` run inside the test process with settings the command line cannot give
/// (small limits), on its own socket in a fresh temporary directory.
final class InProcessDaemon {
    let directory: URL
    let socketPath: String
    private let daemon: Daemon
    private let finished = DispatchSemaphore(value: 0)

    init(clock: DaemonSettings.ClockMode = .manual, configure: (inout DaemonSettings) -> Void) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socketPath = directory.appendingPathComponent("v.sock").path
        var settings = DaemonSettings()
        settings.socketPath = socketPath
        settings.clock = clock
        settings.screenshotDirectory = directory.path
        settings.headlessWidth = 320
        settings.headlessHeight = 200
        configure(&settings)
        let output = try HeadlessOutput(width: settings.headlessWidth, height: settings.headlessHeight)
        daemon = try Daemon(settings: settings, output: output, logger: Logger(label: "vitrine-test") { _ in SwiftLogNoOpLogHandler() })
        // The test runner keeps its own signal handling; the daemon is stopped with stop().
        daemon.handlesSignals = false
        let daemon = daemon
        let finished = finished
        Thread {
            do { try daemon.run() } catch { print("in-process daemon: \(error)") }
            finished.signal()
        }.start()
        let deadline = Date().addingTimeInterval(20)
        while (try? SocketClient(path: socketPath)) == nil {
            guard Date() < deadline else { throw DaemonError("the in-process daemon did not start listening") }
            usleep(10_000)
        }
    }

    deinit {
        daemon.stop()
        finished.wait()
        try? FileManager.default.removeItem(at: directory)
    }

    func connect() throws -> SocketClient { try SocketClient(path: socketPath) }

    /// Runs `body` on the daemon's loop, as its own parts do.
    func onLoop(_ body: @escaping @Sendable (Coordinator) -> Void) { daemon.onLoop { coordinator, _ in body(coordinator) } }
}
