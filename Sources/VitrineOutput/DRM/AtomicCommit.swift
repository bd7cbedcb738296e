import CLibDRM
import FoundationEssentials
import Glibc
import SystemPackage
import VitrineRaster
import VitrineSystem

/// One atomic request per frame: the primary plane's FB_ID; the first one also sets the
/// connector's CRTC, the CRTC's mode blob and ACTIVE, and the plane's position and
/// rotation, after the same request passed as DRM_MODE_ATOMIC_TEST_ONLY. Each request
/// holds one connector's objects only, so heads on other CRTCs are not touched. Drivers
/// that advertise DRM_CLIENT_CAP_ATOMIC take it.
final class AtomicCommitter: KMSCommitter {
    var kind: String { props.plane["FB_DAMAGE_CLIPS"] != nil ? "atomic (damage clips)" : "atomic" }
    private(set) var rotatesInHardware: Bool
    private let target: KMSTarget
    private let plane: UInt32
    private let rotationBit: UInt64
    private let props: (connector: [String: KMSProperty], crtc: [String: KMSProperty], plane: [String: KMSProperty])
    private var modeBlob: UInt32 = 0
    private let rotation: ScreenRotation
    /// Logs what the first flip's TEST_ONLY and real commit cost.
    var report: ((String) -> Void)?
    private var flipsMeasured = false

    var bufferSize: (width: Int, height: Int) {
        let (w, h) = (target.selection.mode.width, target.selection.mode.height)
        return rotatesInHardware ? rotation.logicalSize(physicalWidth: w, height: h) : (w, h)
    }

    /// The driver refused the rotated plane (TEST_ONLY): rotate in the copy instead.
    func rotateInSoftware() { rotatesInHardware = false }

    /// Finds the primary plane of the selected CRTC and the properties a commit sets.
    /// `rotation` is done by the plane when its `rotation` property offers it.
    init(target: KMSTarget, rotation: ScreenRotation) throws(DisplayError) {
        self.target = target
        let device = target.device
        guard let planes = drmModeGetPlaneResources(device.fd) else {
            throw .system(what: "drmModeGetPlaneResources", path: device.path, errno: .last)
        }
        defer { drmModeFreePlaneResources(planes) }
        var primary: UInt32?
        for i in 0..<Int(planes.pointee.count_planes) {
            guard let p = drmModeGetPlane(device.fd, planes.pointee.planes[i]) else { continue }
            defer { drmModeFreePlane(p) }
            guard p.pointee.possible_crtcs & (1 << UInt32(target.selection.crtcIndex)) != 0 else { continue }
            let type = device.properties(of: p.pointee.plane_id, type: UInt32(DRM_MODE_OBJECT_PLANE))["type"]?.value
            guard type == UInt64(DRM_PLANE_TYPE_PRIMARY) else { continue }
            if primary == nil || p.pointee.crtc_id == target.selection.crtcID { primary = p.pointee.plane_id }
        }
        guard let primary else {
            throw .system(what: "finding the primary plane of CRTC \(target.selection.crtcID)", path: device.path, errno: .noSuchFileOrDirectory)
        }
        plane = primary
        props = (
            device.properties(of: target.selection.connector.id, type: UInt32(DRM_MODE_OBJECT_CONNECTOR)),
            device.properties(of: target.selection.crtcID, type: UInt32(DRM_MODE_OBJECT_CRTC)),
            device.properties(of: primary, type: UInt32(DRM_MODE_OBJECT_PLANE))
        )
        for (name, table) in [("CRTC_ID", props.connector), ("MODE_ID", props.crtc), ("ACTIVE", props.crtc), ("FB_ID", props.plane), ("CRTC_ID", props.plane)]
        where table[name] == nil {
            throw .system(what: "reading the atomic property \(name)", path: device.path, errno: .noSuchFileOrDirectory)
        }
        self.rotation = rotation
        rotationBit = rotation.kmsRotationBit
        if rotation != .none, let r = props.plane["rotation"] {
            rotatesInHardware = device.bitmaskValues(property: r.id) & rotationBit != 0
        } else {
            rotatesInHardware = false
        }
        var mode = target.selection.mode.info
        let fd = device.fd
        var blob: UInt32 = 0
        try systemCall("creating the mode property blob", device.path) {
            drmModeCreatePropertyBlob(fd, &mode, MemoryLayout<drmModeModeInfo>.size, &blob)
        }
        modeBlob = blob
    }

    deinit { if modeBlob != 0 { drmModeDestroyPropertyBlob(target.fd, modeBlob) } }

    /// Whether the driver would take the full modeset with `framebuffer` (TEST_ONLY): nil
    /// when it would, else its error.
    func test(framebuffer: UInt32) -> Errno? {
        guard let request = fullState(framebuffer: framebuffer) else { return .noMemory }
        defer { drmModeAtomicFree(request) }
        return testOnly(request, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET))
    }

    private func testOnly(_ request: drmModeAtomicReqPtr, flags: UInt32) -> Errno? {
        let result = drmModeAtomicCommit(target.fd, request, UInt32(DRM_MODE_ATOMIC_TEST_ONLY) | flags, nil)
        return result == 0 ? nil : Errno(rawValue: result < 0 && result != -1 ? -result : errno)
    }

    /// The connector's setup as the test commit's error names it.
    private var setup: String {
        let s = target.selection
        return "mode \(s.mode.outputMode) on CRTC \(s.crtcID), plane \(plane)" + (rotatesInHardware ? ", rotation \(rotation) by the plane" : "")
    }

    func modeset(framebuffer: UInt32, userData: UnsafeMutableRawPointer?) throws(DisplayError) -> Bool {
        guard let request = fullState(framebuffer: framebuffer) else { throw .system(what: "drmModeAtomicAlloc", path: target.path, errno: .noMemory) }
        defer { drmModeAtomicFree(request) }
        if let refused = testOnly(request, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET)) {
            throw .commitRefused(path: target.path, connector: target.selection.connector.name, setup: setup, errno: refused)
        }
        let fd = target.fd
        try systemCall("atomic modeset (mode \(target.selection.mode.outputMode) on \(target.selection.connector.name))", target.path) {
            drmModeAtomicCommit(fd, request, UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET | DRM_MODE_PAGE_FLIP_EVENT), userData)
        }
        return true
    }

    func flip(framebuffer: UInt32, damage: [PixelRect], userData: UnsafeMutableRawPointer?) throws(DisplayError) {
        guard let request = drmModeAtomicAlloc() else { throw .system(what: "drmModeAtomicAlloc", path: target.path, errno: .noMemory) }
        defer { drmModeAtomicFree(request) }
        drmModeAtomicAddProperty(request, plane, props.plane["FB_ID"]!.id, UInt64(framebuffer))
        let fd = target.fd
        // The kernel keeps its own reference to the blob for the commit.
        var clipsBlob: UInt32 = 0
        if let clips = props.plane["FB_DAMAGE_CLIPS"], !damage.isEmpty {
            var rects = damage.map { drm_mode_rect(x1: Int32($0.x), y1: Int32($0.y), x2: Int32($0.maxX), y2: Int32($0.maxY)) }
            if drmModeCreatePropertyBlob(fd, &rects, MemoryLayout<drm_mode_rect>.stride * rects.count, &clipsBlob) == 0 {
                drmModeAtomicAddProperty(request, plane, clips.id, UInt64(clipsBlob))
            }
        }
        defer { if clipsBlob != 0 { drmModeDestroyPropertyBlob(fd, clipsBlob) } }
        let started = flipsMeasured ? 0 : EventLoop.monotonicNanoseconds()
        if !flipsMeasured { _ = testOnly(request, flags: UInt32(DRM_MODE_ATOMIC_NONBLOCK)) }
        let tested = flipsMeasured ? 0 : EventLoop.monotonicNanoseconds()
        try systemCall("atomic page flip on \(target.selection.connector.name)", target.path) {
            drmModeAtomicCommit(fd, request, UInt32(DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT), userData)
        }
        if !flipsMeasured {
            flipsMeasured = true
            let committed = EventLoop.monotonicNanoseconds()
            let us = { (n: UInt64) in String(Int((Double(n) / 1000).rounded())) }
            report?(
                "drm: \(target.selection.connector.name): first flip: TEST_ONLY commit \(us(tested - started)) µs, real commit \(us(committed - tested)) µs")
        }
    }

    func restore() {
        // The plane's rotation survives a legacy SetCrtc: put it back first.
        if let r = props.plane["rotation"], let request = drmModeAtomicAlloc() {
            drmModeAtomicAddProperty(request, plane, r.id, r.value)
            drmModeAtomicCommit(target.fd, request, UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), nil)
            drmModeAtomicFree(request)
        }
        target.restoreLegacy()
    }

    private func fullState(framebuffer: UInt32) -> drmModeAtomicReqPtr? {
        guard let request = drmModeAtomicAlloc() else { return nil }
        let s = target.selection
        func add(_ object: UInt32, _ table: [String: KMSProperty], _ name: String, _ value: UInt64) {
            if let p = table[name] { drmModeAtomicAddProperty(request, object, p.id, value) }
        }
        add(s.connector.id, props.connector, "CRTC_ID", UInt64(s.crtcID))
        add(s.crtcID, props.crtc, "MODE_ID", UInt64(modeBlob))
        add(s.crtcID, props.crtc, "ACTIVE", 1)
        add(plane, props.plane, "FB_ID", UInt64(framebuffer))
        add(plane, props.plane, "CRTC_ID", UInt64(s.crtcID))
        add(plane, props.plane, "SRC_X", 0)
        add(plane, props.plane, "SRC_Y", 0)
        add(plane, props.plane, "SRC_W", UInt64(bufferSize.width) << 16)
        add(plane, props.plane, "SRC_H", UInt64(bufferSize.height) << 16)
        add(plane, props.plane, "CRTC_X", 0)
        add(plane, props.plane, "CRTC_Y", 0)
        add(plane, props.plane, "CRTC_W", UInt64(s.mode.width))
        add(plane, props.plane, "CRTC_H", UInt64(s.mode.height))
        if props.plane["rotation"] != nil { add(plane, props.plane, "rotation", rotatesInHardware ? rotationBit : ScreenRotation.none.kmsRotationBit) }
        return request
    }
}
