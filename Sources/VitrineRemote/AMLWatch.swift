import CNeatVNC
import VitrineSystem

/// Neat VNC's main loop (aml) served by the daemon's event loop: its descriptor is
/// watched, and when it is ready aml's events are taken (`aml_poll` without waiting) and
/// dispatched, on the loop's thread. A listener holds it back while a new viewer's first
/// picture is being drawn, so that the viewer's first update request, read afterwards, is
/// answered with the screen as it is.
final class AMLWatch {
    private let aml: OpaquePointer
    private let descriptor: CInt
    private let loop: EventLoop
    private var holds = 0
    private var watching = false
    private var stopped = false

    init(_ aml: OpaquePointer, loop: EventLoop) {
        self.aml = aml
        self.loop = loop
        descriptor = aml_get_fd(UnsafeRawPointer(aml))
    }

    /// Starts serving aml.
    func start() throws(SystemError) {
        try loop.watch(descriptor, for: .readable) { [aml] _ in
            _ = aml_poll(aml, 0)
            aml_dispatch(aml)
        }
        watching = true
    }

    /// Stops serving aml until as many `release` calls as `hold` calls were made.
    func hold() {
        holds += 1
        if watching {
            loop.unwatch(descriptor)
            watching = false
        }
    }

    func release() {
        holds = max(0, holds - 1)
        if holds == 0, !watching, !stopped { try? start() }
    }

    /// Stops serving aml for good.
    func stop() {
        stopped = true
        if watching { loop.unwatch(descriptor) }
        watching = false
    }
}
