import CLibDRM
import FoundationEssentials
import Glibc
import SystemPackage
import VitrineSystem

/// An open DRM card: owns the file descriptor, closed when the device goes.
public final class DRMDevice {
    public let path: String
    private let file: OwnedDescriptor
    /// The card's descriptor, for libdrm's calls.
    public var fd: Int32 { file.rawValue }

    /// Opens `path` read-write and non-blocking (flip events are read when the event
    /// loop says the descriptor is readable).
    public init(path: String) throws(DisplayError) {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .readWrite, options: [.closeOnExec, .nonBlocking])
        } catch {
            let code = Errno(thrown: error)
            if code == .permissionDenied || code == .notPermitted { throw .permissionDenied(path: path, group: owningGroup(of: path)) }
            throw .system(what: "open", path: path, errno: code)
        }
        self.path = path
        self.file = OwnedDescriptor(file)
    }

    /// `/dev/dri/card*` in numeric order (card0 before card10).
    public static func candidates(directory: String = "/dev/dri") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("card") && Int($0.dropFirst(4)) != nil }
            .sorted { Int($0.dropFirst(4))! < Int($1.dropFirst(4))! }
            .map { directory + "/" + $0 }
    }

    /// Makes this process the DRM master (the one that may set modes). The first opener
    /// of a card is master already; this fails when another process holds it.
    public func becomeMaster() throws(DisplayError) {
        if drmSetMaster(fd) == 0 || drmIsMaster(fd) != 0 { return }
        throw .masterHeld(path: path, errno: .last)
    }

    /// Gives up master (on a VT switch away); errors are of no use there.
    public func dropMaster() { _ = drmDropMaster(fd) }

    /// Asks for atomic modesetting (which implies universal planes); false when the
    /// driver or kernel does not offer it.
    public func enableAtomic() -> Bool {
        guard drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) == 0 else { return false }
        return drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0
    }

    /// The driver's name ("virtio_gpu", "i915", "bochs-drm", …), for logs.
    public var driverName: String {
        guard let version = drmGetVersion(fd) else { return "unknown" }
        defer { drmFreeVersion(version) }
        return version.pointee.name.map { String(cString: $0) } ?? "unknown"
    }

    /// Reads connectors, encoders and CRTCs.
    public func readCard() throws(DisplayError) -> KMSCard {
        var dumb: UInt64 = 0
        if drmGetCap(fd, UInt64(DRM_CAP_DUMB_BUFFER), &dumb) != 0 {
            throw .system(what: "DRM_IOCTL_GET_CAP (is it a DRM device?)", path: path, errno: .last)
        }
        if dumb == 0 {
            throw .system(what: "dumb buffers (DRM_CAP_DUMB_BUFFER: the driver has none, a render-only GPU?)", path: path, errno: .notSupported)
        }
        guard let resources = drmModeGetResources(fd) else {
            throw .system(what: "drmModeGetResources (is it a KMS display device, not a render node?)", path: path, errno: .last)
        }
        defer { drmModeFreeResources(resources) }
        let r = resources.pointee
        let crtcs = (0..<Int(r.count_crtcs)).map { r.crtcs[$0] }
        var encoders: [KMSEncoder] = []
        for i in 0..<Int(r.count_encoders) {
            guard let e = drmModeGetEncoder(fd, r.encoders[i]) else { continue }
            encoders.append(KMSEncoder(id: e.pointee.encoder_id, crtcID: e.pointee.crtc_id, possibleCRTCs: e.pointee.possible_crtcs))
            drmModeFreeEncoder(e)
        }
        var connectors: [KMSConnector] = []
        for i in 0..<Int(r.count_connectors) {
            guard let c = drmModeGetConnector(fd, r.connectors[i]) else { continue }
            defer { drmModeFreeConnector(c) }
            let k = c.pointee
            let status: KMSConnector.Status =
                switch k.connection {
                case DRM_MODE_CONNECTED: .connected
                case DRM_MODE_DISCONNECTED: .disconnected
                default: .unknown
                }
            connectors.append(
                KMSConnector(
                    id: k.connector_id, name: Self.connectorName(type: k.connector_type, index: k.connector_type_id),
                    status: status, modes: (0..<Int(k.count_modes)).map { KMSMode(info: k.modes[$0]) },
                    encoderID: k.encoder_id, encoderIDs: (0..<Int(k.count_encoders)).map { k.encoders[$0] }))
        }
        return KMSCard(path: path, crtcIDs: crtcs, encoders: encoders, connectors: connectors)
    }

    /// The kernel's connector name: type name, dash, index ("HDMI-A-1").
    static func connectorName(type: UInt32, index: UInt32) -> String {
        let name = drmModeGetConnectorTypeName(type).map { String(cString: $0) } ?? "Unknown\(type)"
        return "\(name)-\(index)"
    }

    /// The CRTC as it is now, to put back on exit.
    func savedCRTC(_ id: UInt32) -> drmModeCrtc? {
        guard let crtc = drmModeGetCrtc(fd, id) else { return nil }
        defer { drmModeFreeCrtc(crtc) }
        return crtc.pointee
    }

    /// The named properties of a KMS object: id and current value.
    func properties(of object: UInt32, type: UInt32) -> [String: KMSProperty] {
        guard let props = drmModeObjectGetProperties(fd, object, type) else { return [:] }
        defer { drmModeFreeObjectProperties(props) }
        var result: [String: KMSProperty] = [:]
        for i in 0..<Int(props.pointee.count_props) {
            guard let p = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            let name = withUnsafeBytes(of: p.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            result[name] = KMSProperty(id: p.pointee.prop_id, value: props.pointee.prop_values[i])
            drmModeFreeProperty(p)
        }
        return result
    }

    /// The bits a bitmask property (such as a plane's `rotation`) accepts.
    func bitmaskValues(property id: UInt32) -> UInt64 {
        guard let p = drmModeGetProperty(fd, id) else { return 0 }
        defer { drmModeFreeProperty(p) }
        guard p.pointee.flags & UInt32(DRM_MODE_PROP_BITMASK) != 0 else { return 0 }
        var mask: UInt64 = 0
        for i in 0..<Int(p.pointee.count_enums) where p.pointee.enums[i].value < 64 { mask |= 1 << p.pointee.enums[i].value }
        return mask
    }
}

/// A KMS property of one object: its id and current value.
struct KMSProperty {
    let id: UInt32
    let value: UInt64
}

/// Tries devices in turn and keeps the first that works.
public enum DeviceProbe {
    /// Returns `attempt`'s result for the first path where it succeeds. When every path
    /// fails: with one path, or when every failure is "permission denied", the first
    /// specific error; otherwise `.noDevice` listing each path and why.
    public static func first<T>(of paths: [String], _ attempt: (String) throws(DisplayError) -> T) throws(DisplayError) -> T {
        var failures: [(String, DisplayError)] = []
        for path in paths {
            do { return try attempt(path) } catch { failures.append((path, error)) }
        }
        guard let firstFailure = failures.first?.1 else { throw .noDevice(tried: []) }
        if failures.count == 1 { throw firstFailure }
        if failures.allSatisfy({ if case .permissionDenied = $0.1 { true } else { false } }) { throw firstFailure }
        throw .noDevice(tried: failures.map { DisplayError.Attempt(path: $0.0, reason: $0.1.description.replacing($0.0 + ": ", with: "")) })
    }
}
