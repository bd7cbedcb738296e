import CNeatVNC
import Glibc
import Logging
import VitrineRaster
import VitrineSystem

/// The daemon's VNC servers (`[remote]`): Neat VNC on the daemon's event loop, one
/// listener per configured address.
///
/// ```swift
/// let screens = [RemoteScreen(output: "HDMI-A-1", width: 1920, height: 1080)]
/// let vnc = try VNCServer(settings: settings.remote, screens: screens, loop: loop, logger: logger) { notice in … }
/// vnc.listeners[0].show(frame, damage: damage, of: "HDMI-A-1")   // from the output's frame tap
/// ```
///
/// Neat VNC runs on aml, its main loop, served by the event loop (`AMLWatch`). Encoding runs on aml's worker threads, never on the loop; a viewer that falls
/// behind gets fewer updates, and the screen does not wait for it. The libraries are opened
/// here, when the first listener starts: a daemon without `[remote]` never maps them.
public final class VNCServer {
    /// The listeners, in the configuration's order.
    public private(set) var listeners: [VNCListener] = []
    private let aml: OpaquePointer
    private let watch: AMLWatch

    static let libraries = FeatureLibraries("the VNC server ([remote])", vitrine_vnc_load)

    /// Starts every listener of `settings`; `screens` are what a listener may show: the
    /// outputs, the primary first, and the wall if there is one. `notify` hears of
    /// sessions and their input, on the loop.
    ///
    /// - Throws: `SystemError` when the libraries are missing, a listener names an unknown
    ///   output, its files cannot be read, or its address cannot be bound; nothing listens
    ///   then.
    public init(
        settings: RemoteSettings, screens: [RemoteScreen], loop: EventLoop, logger: Logger, notify: @escaping (RemoteNotice) -> Void
    ) throws(SystemError) {
        try Self.libraries.load()
        guard let aml = aml_new() else { throw SystemError("the VNC server cannot make its main loop (aml_new failed)") }
        self.aml = aml
        watch = AMLWatch(aml, loop: loop)
        aml_set_default(aml)
        _ = aml_require_workers(aml, 2)
        nvnc_set_log_level(NVNC_LOG_WARNING)
        do throws(SystemError) {
            for entry in settings.listeners {
                let name = entry.output ?? screens.first?.name ?? ""
                guard let screen = screens.first(where: { $0.name == name }) else {
                    let outputs = screens.map(\.name).filter { $0 != RemoteSettings.wall }.joined(separator: ", ")
                    throw SystemError(
                        name == RemoteSettings.wall
                            ? "[remote] \(entry.address): output = \"*\" shows the wall, and there is none: give [wall] a canvas and the outputs viewports (docs/CONFIG.md)"
                            : "[remote] \(entry.address): there is no output \(name); the outputs are \(outputs)")
                }
                listeners.append(try VNCListener(settings: entry, screen: screen, loop: loop, aml: watch, logger: logger, notify: notify))
            }
            try watch.start()
        } catch {
            stop()
            throw error
        }
    }

    /// Closes every listener and session.
    public func stop() {
        for listener in listeners { listener.close() }
        listeners = []
        watch.stop()
    }

    /// The listeners showing the output `output` (by itself or in the wall).
    public func listeners(showing output: String) -> [VNCListener] { listeners.filter { $0.screen.parts[output] != nil } }
}
