import Testing
import VitrineOutput
import VitrineSystem

/// Which udev events are a DRM card's hotplug. The events here are synthetic: written as
/// the kernel's `drm_sysfs_hotplug_event` and `drm_sysfs_connector_status_event` raise
/// them (this machine has no DRM card to unplug a screen from). The real ones are read in
/// the QEMU guest (docs/DRM-TEST.md), and the monitor's reading of real kernel uevents is
/// `UdevMonitorTests`'.
@Suite struct DRMHotplugEventTests {
    static let card = UdevMonitor.DeviceNumber(major: 226, minor: 0)

    static func event(action: String = "change", subsystem: String = "drm", devnum: UdevMonitor.DeviceNumber? = card, _ properties: [String: String])
        -> UdevMonitor.Event
    {
        var all = ["ACTION": action, "SUBSYSTEM": subsystem, "DEVNAME": "dri/card0", "DEVTYPE": "drm_minor"]
        all.merge(properties) { $1 }
        return UdevMonitor.Event(action: action, subsystem: subsystem, devtype: "drm_minor", sysname: "card0", devnum: devnum, properties: all)
    }

    @Test func aHotplugNamesItsConnectorAndPropertyWhenTheKernelGivesThem() {
        #expect(DRMHotplugEvent(Self.event(["HOTPLUG": "1"]), card: Self.card) == DRMHotplugEvent())
        #expect(DRMHotplugEvent(Self.event(["HOTPLUG": "1", "CONNECTOR": "36"]), card: Self.card) == DRMHotplugEvent(connector: 36))
        #expect(
            DRMHotplugEvent(Self.event(["HOTPLUG": "1", "CONNECTOR": "36", "PROPERTY": "5"]), card: Self.card)
                == DRMHotplugEvent(connector: 36, property: 5))
        #expect(DRMHotplugEvent(Self.event(["HOTPLUG": "1", "CONNECTOR": "x"]), card: Self.card) == DRMHotplugEvent(), "a number or nothing")
    }

    @Test func otherEventsAreNoHotplugOfThisCard() {
        for (event, why) in [
            (Self.event([:]), "a change without HOTPLUG (a lease, a reset)"),
            (Self.event(["HOTPLUG": "0"]), "HOTPLUG other than 1"),
            (Self.event(action: "add", ["HOTPLUG": "1"]), "the card appearing"),
            (Self.event(action: "remove", ["HOTPLUG": "1"]), "the card going"),
            (Self.event(subsystem: "mem", ["HOTPLUG": "1"]), "another subsystem"),
            (Self.event(devnum: UdevMonitor.DeviceNumber(major: 226, minor: 1), ["HOTPLUG": "1"]), "another card"),
            (Self.event(devnum: nil, ["HOTPLUG": "1"]), "no device number"),
        ] {
            #expect(DRMHotplugEvent(event, card: Self.card) == nil, "\(why)")
        }
    }

    @Test func theMonitorTakesACardByItsDeviceNodeAndRefusesAnythingElse() throws {
        #expect(try DRMHotplugMonitor(card: "/dev/null", source: .kernel).card == UdevMonitor.DeviceNumber(major: 1, minor: 3))
        #expect(throws: SystemError.self) { try DRMHotplugMonitor(card: "/tmp", source: .kernel) }
        #expect(throws: SystemError.self) { try DRMHotplugMonitor(card: "/dev/dri/card99", source: .kernel) }
    }
}
