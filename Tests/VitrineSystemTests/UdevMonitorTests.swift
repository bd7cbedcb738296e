import Foundation
import Glibc
import Testing
import VitrineSystem

/// The udev monitor against the real kernel: a `change` written to a device's `uevent`
/// file in sysfs makes the kernel raise a real uevent, which the monitor reads on the
/// event loop. /dev/null's device (subsystem `mem`) is used because every Linux has it;
/// the kernel turns the words after the UUID into `SYNTH_ARG_` properties. Writing the
/// file needs root, so the suite runs where sysfs is writable (CI, this container).
private let nullUevent = "/sys/devices/virtual/mem/null/uevent"

@Suite(.enabled(if: access(nullUevent, W_OK) == 0, "writing /sys/devices/virtual/mem/null/uevent needs root"))
struct UdevMonitorTests {

    /// Runs `loop` on a thread of its own, raises a uevent for /dev/null after 0.1 s with
    /// `arguments` and a fresh UUID (tests run at once see each other's), and stops the
    /// loop after `seconds`. Returns the UUID.
    @discardableResult
    static func raise(_ arguments: String, on loop: EventLoop, for seconds: Double) -> String {
        let uuid = UUID().uuidString.lowercased()
        loop.schedule(after: 0.1) {
            let line = "change \(uuid) \(arguments)\n"
            let fd = open(nullUevent, O_WRONLY)
            #expect(fd >= 0)
            _ = line.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        loop.schedule(after: seconds) { loop.stop() }
        EventLoopTests.runToStop(loop)
        return uuid
    }

    @Test func aKernelUeventOfTheSubsystemArrivesOnTheLoopWithItsProperties() throws {
        let loop = try EventLoop()
        let monitor = try UdevMonitor(subsystem: "mem", source: .kernel)
        nonisolated(unsafe) var events: [UdevMonitor.Event] = []
        try monitor.attach(to: loop) { events.append($0) }
        let uuid = Self.raise("HOTPLUG=1 CONNECTOR=42", on: loop, for: 0.6)
        let mine = events.filter { $0.properties["SYNTH_UUID"] == uuid }
        #expect(mine.count == 1)
        let event = try #require(mine.first)
        #expect(event.action == "change")
        #expect(event.subsystem == "mem")
        #expect(event.sysname == "null")
        #expect(event.devnum == UdevMonitor.DeviceNumber(ofDeviceAt: "/dev/null"))
        #expect(event.devnum == UdevMonitor.DeviceNumber(major: 1, minor: 3))
        #expect(event.properties["SYNTH_ARG_HOTPLUG"] == "1")
        #expect(event.properties["SYNTH_ARG_CONNECTOR"] == "42")
        #expect(event.properties["DEVPATH"] == "/devices/virtual/mem/null")
    }

    @Test func eventsOfOtherSubsystemsAndDeviceTypesAreLeftOut() throws {
        let loop = try EventLoop()
        let drm = try UdevMonitor(subsystem: "drm", devtype: "drm_minor", source: .kernel)
        let otherType = try UdevMonitor(subsystem: "mem", devtype: "drm_minor", source: .kernel)
        let mem = try UdevMonitor(subsystem: "mem", source: .kernel)
        nonisolated(unsafe) var seen: [String: [String]] = [:]
        let uuid = { (event: UdevMonitor.Event) in event.properties["SYNTH_UUID"] ?? "" }
        try drm.attach(to: loop) { seen["drm", default: []].append(uuid($0)) }
        try otherType.attach(to: loop) { seen["mem drm_minor", default: []].append(uuid($0)) }
        try mem.attach(to: loop) { seen["mem", default: []].append(uuid($0)) }
        let raised = Self.raise("X=1", on: loop, for: 0.6)
        #expect(seen["mem", default: []].contains(raised), "the control monitor saw the uevent")
        #expect(seen["drm"] == nil)
        #expect(seen["mem drm_minor"] == nil)
    }

    @Test func aFreedMonitorLeavesTheLoopAndAnotherStillReceives() throws {
        let loop = try EventLoop()
        var gone: UdevMonitor? = try UdevMonitor(subsystem: "mem", source: .kernel)
        nonisolated(unsafe) var goneEvents = 0
        try gone!.attach(to: loop) { _ in goneEvents += 1 }
        // The loop holds no reference: the monitor goes with its owner's.
        weak let freed = gone
        gone = nil
        #expect(freed == nil)
        let kept = try UdevMonitor(subsystem: "mem", source: .kernel)
        nonisolated(unsafe) var keptEvents: [String] = []
        try kept.attach(to: loop) { keptEvents.append($0.properties["SYNTH_UUID"] ?? "") }
        let raised = Self.raise("Y=1", on: loop, for: 0.6)
        #expect(goneEvents == 0)
        #expect(keptEvents.contains(raised))
    }
}
