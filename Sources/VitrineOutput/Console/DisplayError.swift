import FoundationEssentials
import Glibc
import SystemPackage
import VitrineSystem

/// Why a screen (DRM or fbdev) could not be opened or driven. Each case's message says
/// what was tried, on which path, and what to do about it.
public enum DisplayError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No device could be used; each path tried with the reason it was not.
    case noDevice(tried: [Attempt])
    /// The device exists but this user may not open it.
    case permissionDenied(path: String, group: String)
    /// The card has no connector with a screen attached (or the named one has none).
    case noConnectedConnector(path: String, requested: String?, connectors: [ConnectorState])
    /// The configured connector does not exist on the card.
    case unknownConnector(path: String, requested: String, connectors: [ConnectorState])
    /// The screen does not offer the configured mode.
    case modeUnavailable(connector: String, requested: String, available: [OutputMode])
    /// Another process is DRM master.
    case masterHeld(path: String, errno: Errno)
    /// No display controller (CRTC) can drive the connector.
    case noCRTC(path: String, connector: String)
    /// The framebuffer's pixel format is not 32-bit XRGB.
    case unsupportedDepth(path: String, bitsPerPixel: Int)
    /// The framebuffer is 32-bit but not XRGB (e.g. BGR order).
    case unsupportedFormat(path: String, detail: String)
    /// The driver refused a connector's configuration in an atomic TEST_ONLY commit (made
    /// before each modeset); `setup` says what was asked.
    case commitRefused(path: String, connector: String, setup: String, errno: Errno)
    /// A system call failed.
    case system(what: String, path: String, errno: Errno)

    /// One device that was tried.
    public struct Attempt: Sendable, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public init(path: String, reason: String) { self.path = path; self.reason = reason }
        public var description: String { "\(path): \(reason)" }
    }

    /// A connector's name and state, for listings.
    public struct ConnectorState: Sendable, Equatable, CustomStringConvertible {
        public let name: String
        public let state: String
        public init(name: String, state: String) { self.name = name; self.state = state }
        public var description: String { "\(name) (\(state))" }
    }

    public var description: String {
        switch self {
        case .noDevice(let tried):
            guard !tried.isEmpty else {
                return
                    "no display device: /dev/dri has no card* — is a KMS driver loaded (ls /dev/dri; lsmod | grep drm)? --backend fbdev uses /dev/fb0; --backend headless runs without a screen"
            }
            return "no usable display device; tried " + tried.map(\.description).joined(separator: "; ")
        case .permissionDenied(let path, let group):
            return "\(path): permission denied — add the service user to the \(group) group (usermod -aG \(group) vitrine) and restart the service"
        case .noConnectedConnector(let path, let requested?, let connectors):
            return "\(path): connector \(requested) has no screen attached; connectors: \(list(connectors)) — check the cable, or set output.connector"
        case .noConnectedConnector(let path, nil, let connectors):
            return
                "\(path): no connector has a screen attached; connectors: \(list(connectors)) — check the cable and that the monitor is on (cat /sys/class/drm/*/status)"
        case .unknownConnector(let path, let requested, let connectors):
            return "\(path): there is no connector \(requested); connectors: \(list(connectors))"
        case .modeUnavailable(let connector, let requested, let available):
            return "\(connector): the screen has no mode \(requested); it offers \(available.map(\.description).joined(separator: ", "))"
        case .masterHeld(let path, let errno):
            return
                "\(path): cannot become DRM master (drmSetMaster failed: \(errno)) — another compositor or X server owns the screen; stop it (systemctl stop display-manager) or switch to a free VT"
        case .noCRTC(let path, let connector):
            return "\(path): no display controller (CRTC) is free to drive \(connector)"
        case .unsupportedDepth(let path, let bits):
            return
                "\(path): the framebuffer is \(bits) bits per pixel; vitrine draws 32-, 24- and 16-bit ones — set one of those depths (fbset -depth 32, or video=…-32 on the kernel command line) or use the drm backend"
        case .unsupportedFormat(let path, let detail):
            return
                "\(path): the framebuffer's pixel format is \(detail); vitrine draws XRGB8888 and RGB888 (red at bit 16, green at 8, blue at 0) and RGB565 only — use the drm backend"
        case .commitRefused(let path, let connector, let setup, let errno):
            return
                "\(path): the driver refused \(connector)'s configuration (\(setup)) in an atomic test commit: \(errno) — give the connector another mode or rotation in its [[outputs]] table, or try VITRINE_DRM_ATOMIC=off"
        case .system(let what, let path, let errno):
            return "\(path): \(what) failed: \(errno)"
        }
    }

    private func list(_ connectors: [ConnectorState]) -> String {
        connectors.isEmpty ? "none" : connectors.map(\.description).joined(separator: ", ")
    }
}

/// Calls `body` until it stops failing with EINTR; a negative result throws
/// `DisplayError.system` naming `what` and `path`.
@discardableResult
func systemCall(_ what: String, _ path: String, _ body: () -> Int32) throws(DisplayError) -> Int32 {
    do {
        return try valueOrErrno(body)
    } catch {
        throw .system(what: what, path: path, errno: error)
    }
}

/// The group that owns `path`, for "add the user to the … group" advice; `video` when it
/// cannot be read (render nodes: `render`).
func owningGroup(of path: String) -> String {
    var info = stat()
    if stat(path, &info) == 0, let group = getgrgid(info.st_gid), let name = group.pointee.gr_name {
        let text = String(cString: name)
        if text != "root" { return text }
    }
    return path.contains("renderD") ? "render" : "video"
}
