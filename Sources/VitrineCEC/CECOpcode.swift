/// The CEC opcodes a kiosk sends or reads by name (HDMI 1.4b, CEC 1.4 supplement 1),
/// named as cec-ctl names its options ("image-view-on"); any other opcode goes by number.
public enum CECOpcode: UInt8, Sendable, CaseIterable {
    case featureAbort = 0x00
    case imageViewOn = 0x04
    case textViewOn = 0x0d
    case standby = 0x36
    case userControlPressed = 0x44
    case userControlReleased = 0x45
    case giveOSDName = 0x46
    case setOSDName = 0x47
    case routingChange = 0x80
    case activeSource = 0x82
    case givePhysicalAddress = 0x83
    case reportPhysicalAddress = 0x84
    case requestActiveSource = 0x85
    case setStreamPath = 0x86
    case deviceVendorID = 0x87
    case giveDeviceVendorID = 0x8c
    case menuRequest = 0x8d
    case giveDevicePowerStatus = 0x8f
    case reportPowerStatus = 0x90
    case cecVersion = 0x9e
    case getCECVersion = 0x9f
    case inactiveSource = 0x9d
    case abort = 0xff

    /// Its name in `cec.send` ("give-device-power-status").
    public var name: String {
        switch self {
        case .featureAbort: "feature-abort"
        case .imageViewOn: "image-view-on"
        case .textViewOn: "text-view-on"
        case .standby: "standby"
        case .userControlPressed: "user-control-pressed"
        case .userControlReleased: "user-control-released"
        case .giveOSDName: "give-osd-name"
        case .setOSDName: "set-osd-name"
        case .routingChange: "routing-change"
        case .activeSource: "active-source"
        case .givePhysicalAddress: "give-physical-addr"
        case .reportPhysicalAddress: "report-physical-addr"
        case .requestActiveSource: "request-active-source"
        case .setStreamPath: "set-stream-path"
        case .deviceVendorID: "device-vendor-id"
        case .giveDeviceVendorID: "give-device-vendor-id"
        case .menuRequest: "menu-request"
        case .giveDevicePowerStatus: "give-device-power-status"
        case .reportPowerStatus: "report-power-status"
        case .cecVersion: "cec-version"
        case .getCECVersion: "get-cec-version"
        case .inactiveSource: "inactive-source"
        case .abort: "abort"
        }
    }

    /// The opcode named `name`.
    public init?(named name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }

    /// The answer the destination sends back, for the requests that have one.
    public var reply: CECOpcode? {
        switch self {
        case .giveDevicePowerStatus: .reportPowerStatus
        case .giveOSDName: .setOSDName
        case .givePhysicalAddress: .reportPhysicalAddress
        case .giveDeviceVendorID: .deviceVendorID
        case .getCECVersion: .cecVersion
        case .requestActiveSource: .activeSource
        default: nil
        }
    }

    /// Whether it goes to every device (destination 15) rather than to one.
    public var isBroadcast: Bool {
        [.activeSource, .routingChange, .reportPhysicalAddress, .requestActiveSource, .setStreamPath, .deviceVendorID].contains(self)
    }
}
