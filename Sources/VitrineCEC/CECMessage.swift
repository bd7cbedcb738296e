/// One HDMI-CEC message as it goes on the bus: a header byte (initiator and destination
/// logical addresses), then an opcode and its operands, 1 to 16 bytes in all; a header
/// alone is a poll.
///
/// ```swift
/// let wake = CECMessage(from: 4, to: CECMessage.tv, opcode: .imageViewOn)
/// wake.description                 // "40:04"
/// try CECMessage(bytes: [0x04, 0x90, 0x00]).powerStatus  // .on
/// ```
public struct CECMessage: Hashable, Sendable, CustomStringConvertible {
    /// The TV's logical address.
    public static let tv: UInt8 = 0
    /// The destination of a broadcast, and the initiator of an unregistered device.
    public static let broadcast: UInt8 = 15
    /// The longest message, header included.
    public static let maximumLength = 16

    /// The sender's logical address, 0…15.
    public var initiator: UInt8
    /// The receiver's logical address, 0…15 (15: every device).
    public var destination: UInt8
    /// The opcode; nil for a poll.
    public var opcode: UInt8?
    /// The operands after the opcode (at most 14 bytes).
    public var operands: [UInt8]

    /// A message from `initiator` to `destination` (logical addresses 0…15, masked).
    public init(from initiator: UInt8, to destination: UInt8, opcode: UInt8?, operands: [UInt8] = []) {
        self.initiator = initiator & 0xf
        self.destination = destination & 0xf
        self.opcode = opcode
        self.operands = opcode == nil ? [] : Array(operands.prefix(Self.maximumLength - 2))
    }

    /// A message with a named opcode.
    public init(from initiator: UInt8, to destination: UInt8, opcode: CECOpcode, operands: [UInt8] = []) {
        self.init(from: initiator, to: destination, opcode: opcode.rawValue, operands: operands)
    }

    /// The message whose bytes on the bus are `bytes`.
    public init(bytes: [UInt8]) throws(CECError) {
        guard let header = bytes.first, bytes.count <= Self.maximumLength else {
            throw CECError("a CEC message is 1 to \(Self.maximumLength) bytes (a header, an opcode, operands), got \(bytes.count)")
        }
        self.init(from: header >> 4, to: header, opcode: bytes.count > 1 ? bytes[1] : nil, operands: Array(bytes.dropFirst(2)))
    }

    /// Its bytes on the bus.
    public var bytes: [UInt8] { [initiator << 4 | destination] + (opcode.map { [$0] + operands } ?? []) }

    /// Whether every device receives it.
    public var isBroadcast: Bool { destination == Self.broadcast }

    /// The opcode's name, when it has one.
    public var named: CECOpcode? { opcode.flatMap(CECOpcode.init(rawValue:)) }

    /// The bytes in hex, joined by ':' as cec-ctl writes them ("40:04").
    public var description: String { Self.hex(bytes) }

    /// `bytes` in two-digit lowercase hex joined by ':'.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0xf)]]) }.joined(separator: ":")
    }

    // MARK: Operands

    /// The power status a <Report Power Status> carries.
    public var powerStatus: CECPowerStatus? {
        guard named == .reportPowerStatus, let first = operands.first else { return nil }
        return CECPowerStatus(rawValue: first)
    }

    /// The physical address an <Active Source>, <Set Stream Path>, <Report Physical
    /// Address> or <Routing Change> (its new one) carries.
    public var physicalAddress: CECPhysicalAddress? {
        let offset = named == .routingChange ? 2 : 0
        guard [.activeSource, .setStreamPath, .reportPhysicalAddress, .routingChange].contains(named), operands.count >= offset + 2 else { return nil }
        return CECPhysicalAddress(UInt16(operands[offset]) << 8 | UInt16(operands[offset + 1]))
    }

    /// The text of a <Set OSD Name>.
    public var osdName: String? {
        guard named == .setOSDName else { return nil }
        return String(decoding: operands, as: UTF8.self)
    }

    // MARK: Messages a playback device sends

    /// <Active Source>: `address` is what the TV should show (broadcast).
    public static func activeSource(from initiator: UInt8, address: CECPhysicalAddress) -> CECMessage {
        CECMessage(from: initiator, to: broadcast, opcode: .activeSource, operands: address.bytes)
    }

    /// <Report Power Status> to `destination`.
    public static func reportPowerStatus(from initiator: UInt8, to destination: UInt8, _ status: CECPowerStatus) -> CECMessage {
        CECMessage(from: initiator, to: destination, opcode: .reportPowerStatus, operands: [status.rawValue])
    }

    /// <Set OSD Name>: `name`, cut to the 14 bytes CEC allows.
    public static func setOSDName(from initiator: UInt8, to destination: UInt8, _ name: String) -> CECMessage {
        CECMessage(from: initiator, to: destination, opcode: .setOSDName, operands: Array(name.utf8.prefix(14)))
    }

    /// <Feature Abort> of `message` ("unrecognized opcode" by default), back to its sender.
    public static func featureAbort(of message: CECMessage, reason: UInt8 = 0) -> CECMessage {
        CECMessage(from: message.destination, to: message.initiator, opcode: .featureAbort, operands: [message.opcode ?? 0, reason])
    }
}

/// A physical address: where a device sits in the HDMI tree, four nibbles ("1.0.0.0";
/// the TV is 0.0.0.0).
public struct CECPhysicalAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address of a device that has none (unplugged, no EDID).
    public static let invalid = CECPhysicalAddress(0xffff)

    public let rawValue: UInt16

    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// The address written as "a.b.c.d".
    public init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let nibbles = Optional(parts.compactMap { UInt16($0, radix: 16) }), nibbles.count == 4, nibbles.allSatisfy({ $0 < 16 })
        else { return nil }
        rawValue = nibbles.reduce(0) { $0 << 4 | $1 }
    }

    /// Its two bytes, high first, as operands carry it.
    public var bytes: [UInt8] { [UInt8(rawValue >> 8), UInt8(rawValue & 0xff)] }

    public var description: String {
        self == .invalid ? "f.f.f.f" : (0..<4).map { String((rawValue >> (12 - 4 * $0)) & 0xf, radix: 16) }.joined(separator: ".")
    }
}

/// What a device answers to <Give Device Power Status>.
public enum CECPowerStatus: UInt8, Sendable, CaseIterable {
    case on = 0
    case standby = 1
    case toOn = 2
    case toStandby = 3

    /// The words `output.list` and `cec.power` use: "on", "standby", "to on", "to standby".
    public var name: String {
        switch self {
        case .on: "on"
        case .standby: "standby"
        case .toOn: "to on"
        case .toStandby: "to standby"
        }
    }
}

/// A CEC failure that is not a system call's: a message that is not one, a device that
/// cannot be used.
public struct CECError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
