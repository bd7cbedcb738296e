/// The C libraries of a feature that not every daemon uses — input devices, keyboards, the
/// seat manager, udev's device events, the X11 and Wayland windows, the Wayland server —
/// opened when the feature starts rather than with the process: what isn't used isn't
/// loaded.
///
/// The C modules over those libraries (CLibInput, CX11, CWaylandServer, …) do not link them;
/// each function is bound on its first call (CLazyLibrary), and a call that cannot be bound
/// aborts the process. A feature therefore loads its libraries first, where it starts, so
/// that a missing one is that feature's error — with the library and the package to install
/// — and the daemon goes on without it.
///
/// ```swift
/// extension FeatureLibraries {
///     static let waylandServer = FeatureLibraries("the Wayland server", vitrine_wayland_server_load)
/// }
/// try FeatureLibraries.waylandServer.load()
/// // SystemError: "the Wayland server needs libwayland-server.so.0 (Debian: libwayland-server0): …"
/// ```
public struct FeatureLibraries: Sendable {
    /// What needs them, the subject of its error's sentence ("input", "the Wayland server").
    public let feature: String
    private let open: @Sendable () -> UnsafePointer<CChar>?

    /// - Parameters:
    ///   - feature: What needs the libraries, the subject of its error's sentence: "input
    ///     needs libinput.so.10 (Debian: libinput10): …".
    ///   - open: A C module's loader (`vitrine_libinput_load`): opens the libraries once
    ///     (later calls return at once) and returns nil, or says which one cannot be opened.
    public init(_ feature: String, _ open: @escaping @Sendable () -> UnsafePointer<CChar>?) {
        self.feature = feature
        self.open = open
    }

    /// Opens the libraries (once; afterwards this returns at once).
    ///
    /// - Throws: `SystemError` naming the library that cannot be opened, the Debian package
    ///   that installs it, and the dynamic linker's reason.
    public func load() throws(SystemError) {
        guard let failure = open() else { return }
        throw SystemError("\(feature) needs \(String(cString: failure))")
    }
}
