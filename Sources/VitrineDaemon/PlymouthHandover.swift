import Glibc
import Logging
import VitrineSystem

/// Plymouth's boot splash handed over to the daemon without a black frame, as GDM does:
/// `plymouth deactivate` before the screen is opened (Plymouth lets go of DRM master but
/// leaves its splash on the screen), the daemon's first modeset showing its first rendered
/// frame over it, then `plymouth quit --retain-splash` (Plymouth ends without clearing
/// the screen).
///
/// plymouthd takes requests from root only: the packaged service runs both commands
/// itself, as root (`ExecStartPre=`, `ExecStartPost=`), around the unprivileged daemon.
/// This type does the same for a daemon that runs as root and finds Plymouth running
/// (its own unit, the QEMU guest); otherwise `deactivate` returns nil and nothing is done.
///
/// ```swift
/// let plymouth = PlymouthHandover.deactivate(logger: logger)   // before the DRM device opens
/// // … the first frame is presented …
/// plymouth?.quit(on: loop)                                      // reaped on the loop
/// ```
public final class PlymouthHandover {
    private let logger: Logger
    private var quitting: Subprocess?
    /// The client, and the file plymouthd keeps its pid in while it runs.
    static let client = "/usr/bin/plymouth"
    static let pidFile = "/run/plymouth/pid"

    private init(logger: Logger) { self.logger = logger }

    /// Whether plymouthd runs: its pid file names a live process.
    static var isRunning: Bool {
        guard let bytes = try? SafeFile.read(pidFile, limit: 64).bytes,
            let pid = Int32(String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }), pid > 0
        else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Asks a running Plymouth to let go of the screen and waits for it (at most
    /// `timeout` seconds: call it before the event loop runs). Nil, doing nothing, unless
    /// the daemon is root and Plymouth runs.
    public static func deactivate(logger: Logger, timeout: Double = 5) -> PlymouthHandover? {
        guard geteuid() == 0, isRunning, access(client, X_OK) == 0 else { return nil }
        let handover = PlymouthHandover(logger: logger)
        do {
            let child = try Subprocess(program: client, arguments: ["plymouth", "deactivate"], environment: [], output: .errorsTo("/dev/null"))
            var ready = pollfd(fd: child.pidfd, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, Int32(timeout * 1000)) > 0, let ending = child.reap() {
                if ending.succeeded {
                    logger.info("plymouth: deactivated; its splash stays until the first frame")
                } else {
                    logger.warning("plymouth deactivate ended with \(ending); the screen may flash black")
                }
            } else {
                child.signalGroup(SIGKILL)
                var gone = pollfd(fd: child.pidfd, events: Int16(POLLIN), revents: 0)
                _ = poll(&gone, 1, 1000)
                child.reap()
                logger.warning("plymouth deactivate did not answer within \(timeout) s; the screen may flash black")
            }
        } catch {
            logger.warning("plymouth deactivate cannot run: \(error.message)")
        }
        return handover
    }

    /// Asks Plymouth to quit leaving the screen as it is (the daemon's frame): the command
    /// is reaped on `loop` through its pidfd, never waited for.
    public func quit(on loop: EventLoop) {
        do {
            let child = try Subprocess(
                program: Self.client, arguments: ["plymouth", "quit", "--retain-splash"], environment: [], output: .errorsTo("/dev/null"))
            quitting = child
            try loop.watch(child.pidfd, for: .readable) { [unowned self, logger] _ in
                guard let child = quitting, let ending = child.reap() else { return }
                loop.unwatch(child.pidfd)
                quitting = nil
                if ending.succeeded {
                    logger.info("plymouth: quit, the screen handed over")
                } else {
                    logger.warning("plymouth quit --retain-splash ended with \(ending)")
                }
            }
        } catch {
            logger.warning("plymouth quit --retain-splash cannot run: \(error.message)")
        }
    }
}
