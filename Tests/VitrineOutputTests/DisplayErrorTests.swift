import Foundation
import SystemPackage
import Testing
@testable import VitrineOutput

/// Opening a screen fails with a message that says what was tried and what to do; the
/// devices here are injected, so no /dev/dri is needed.
@Suite struct DisplayErrorTests {
    @Test func noDeviceAtAll() {
        #expect(throws: DisplayError.noDevice(tried: [])) {
            try DeviceProbe.first(of: []) { (_: String) throws(DisplayError) -> Int in 1 }
        }
        #expect(DisplayError.noDevice(tried: []).description.hasPrefix("no display device: /dev/dri has no card*"))
        #expect(DRMDevice.candidates(directory: "/nonexistent-vitrine").isEmpty)
    }

    /// Several cards, none usable: each is listed with its reason.
    @Test func noUsableDeviceListsWhatWasTried() {
        do {
            _ = try DeviceProbe.first(of: ["/dev/dri/card0", "/dev/dri/card1"]) { (path: String) throws(DisplayError) -> Int in
                if path.hasSuffix("0") { throw .noConnectedConnector(path: path, requested: nil, connectors: [.init(name: "DP-1", state: "disconnected")]) }
                throw .system(what: "drmModeGetResources", path: path, errno: .notSupported)
            }
            Issue.record("no error")
        } catch {
            #expect(
                error.description.hasPrefix(
                    "no usable display device; tried /dev/dri/card0: no connector has a screen attached; connectors: DP-1 (disconnected)"))
            #expect(error.description.contains("; /dev/dri/card1: drmModeGetResources failed: "))
        }
    }

    @Test func firstUsableDeviceWins() throws {
        let chosen = try DeviceProbe.first(of: ["/dev/dri/card0", "/dev/dri/card1"]) { (path: String) throws(DisplayError) -> String in
            if path.hasSuffix("0") { throw .noConnectedConnector(path: path, requested: nil, connectors: []) }
            return path
        }
        #expect(chosen == "/dev/dri/card1")
    }

    /// One card: its own error, not a list.
    @Test func oneCardGivesItsOwnError() {
        #expect(throws: DisplayError.masterHeld(path: "/dev/dri/card0", errno: .resourceBusy)) {
            try DeviceProbe.first(of: ["/dev/dri/card0"]) { (path: String) throws(DisplayError) -> Int in throw .masterHeld(path: path, errno: .resourceBusy) }
        }
    }

    @Test func permissionDeniedNamesTheGroup() {
        let error = DisplayError.permissionDenied(path: "/dev/dri/card0", group: "video")
        #expect(
            error.description
                == "/dev/dri/card0: permission denied — add the service user to the video group (usermod -aG video vitrine) and restart the service")
        do {
            _ = try DeviceProbe.first(of: ["/dev/dri/card0", "/dev/dri/card1"]) { (path: String) throws(DisplayError) -> Int in
                throw .permissionDenied(path: path, group: "video")
            }
        } catch {
            #expect(error == .permissionDenied(path: "/dev/dri/card0", group: "video"))
        }
    }

    @Test func masterHeldSaysWhoToBlame() {
        let text = DisplayError.masterHeld(path: "/dev/dri/card0", errno: .permissionDenied).description
        #expect(text.hasPrefix("/dev/dri/card0: cannot become DRM master (drmSetMaster failed: "))
        #expect(text.contains("another compositor or X server owns the screen"))
    }

    @Test func missingDeviceNamesThePath() {
        #expect(throws: DisplayError.system(what: "open", path: "/nonexistent/card0", errno: .noSuchFileOrDirectory)) {
            try DRMDevice(path: "/nonexistent/card0")
        }
    }

    @Test func fbdevDepthAndFormat() {
        #expect(
            DisplayError.unsupportedDepth(path: "/dev/fb0", bitsPerPixel: 8).description.hasPrefix(
                "/dev/fb0: the framebuffer is 8 bits per pixel; vitrine draws 32-, 24- and 16-bit ones"))
    }

    @Test func atomicPolicyFromTheEnvironment() {
        #expect(AtomicPolicy.fromEnvironment([:]) == .auto)
        #expect(AtomicPolicy.fromEnvironment(["VITRINE_DRM_ATOMIC": "off"]) == .off)
        #expect(AtomicPolicy.fromEnvironment(["VITRINE_DRM_ATOMIC": "ON"]) == .on)
        #expect(AtomicPolicy.fromEnvironment(["VITRINE_DRM_ATOMIC": "maybe"]) == nil)
    }
}

/// The group named in "permission denied": the device's own, else the usual one.
@Suite struct OwningGroupTests {
    @Test func fallbacks() {
        #expect(owningGroup(of: "/nonexistent/dri/card0") == "video")
        #expect(owningGroup(of: "/nonexistent/dri/renderD128") == "render")
    }

    /// A group other than root's that a file can be given: root can give any.
    static var otherGroup: (name: String, id: gid_t)? {
        guard getuid() == 0, let group = getgrnam("nogroup") ?? getgrnam("daemon") else { return nil }
        return (String(cString: group.pointee.gr_name), group.pointee.gr_gid)
    }

    @Test(.enabled(if: otherGroup != nil, "giving a file the group nogroup or daemon needs root and either group (CI runs as root)"))
    func theDevicesGroup() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-group-\(getpid())").path
        try #require(FileManager.default.createFile(atPath: path, contents: nil))
        defer { unlink(path) }
        // The file's group is named.
        let group = try #require(Self.otherGroup)
        try #require(chown(path, getuid(), group.id) == 0, "chown failed: errno \(errno)")
        #expect(owningGroup(of: path) == group.name)
    }
}
