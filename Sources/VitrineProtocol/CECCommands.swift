/// `cec.send`: a message to a device on an output's HDMI-CEC bus, as the wire gives it.
/// Opcode names are resolved where the bus is (the output set), so that the protocol
/// knows no device's vocabulary.
public struct CECSendRequest: Sendable, Equatable {
    /// An opcode: a name such as "give-device-power-status", or its number.
    public enum Opcode: Sendable, Equatable {
        case named(String)
        case number(UInt8)
    }

    /// The output whose adapter sends it; nil: the first with one.
    public var output: String?
    /// The destination's logical address (0: the TV, 15: every device); nil: the TV, or
    /// every device for the opcodes that are broadcast.
    public var to: UInt8?
    public var opcode: Opcode
    /// The bytes after the opcode.
    public var operands: [UInt8]
    /// The opcode of the answer to wait for: nil for the opcode's own answer (none for
    /// most), `.some(nil)` for none.
    public var reply: Opcode??

    public init(output: String?, to: UInt8?, opcode: Opcode, operands: [UInt8], reply: Opcode??) {
        self.output = output
        self.to = to
        self.opcode = opcode
        self.operands = operands
        self.reply = reply
    }
}

extension Command {
    /// Decodes `cec.send`; nil when `name` is not it.
    static func decodeCEC(_ name: String, _ r: Fields) throws(ProtocolError) -> Command? {
        guard name == "cec.send" else { return nil }
        try r.only(["output", "to", "opcode", "operands", "reply"])
        var to: UInt8?
        if let n = try r.number("to") {
            guard n.rounded() == n, (0...15).contains(n) else {
                throw ProtocolError(.invalidValue, "cec.send: \"to\" is a logical address 0…15 (0 the TV, 15 every device), got \(n)")
            }
            to = UInt8(n)
        }
        guard let opcodeValue = r.object["opcode"] else {
            throw ProtocolError(.missingField, "cec.send needs \"opcode\": a name such as \"give-device-power-status\", or a number 0…255")
        }
        let opcode = try Self.cecOpcode(opcodeValue, field: "opcode")
        var operands: [UInt8] = []
        if let text = try r.string("operands") {
            let digits = text.filter { $0 != ":" && $0 != " " }
            guard digits.count % 2 == 0, digits.count <= 28, digits.allSatisfy(\.isHexDigit) else {
                throw ProtocolError(.invalidValue, "cec.send: \"operands\" is up to 14 bytes in hex, such as \"10:00\", got \"\(text)\"")
            }
            var index = digits.startIndex
            while index < digits.endIndex {
                let next = digits.index(index, offsetBy: 2)
                operands.append(UInt8(digits[index..<next], radix: 16)!)
                index = next
            }
        }
        var reply: CECSendRequest.Opcode??
        if let value = r.object["reply"] { reply = .some(value == .null ? nil : try Self.cecOpcode(value, field: "reply")) }
        return .cecSend(CECSendRequest(output: try r.string("output"), to: to, opcode: opcode, operands: operands, reply: reply))
    }

    private static func cecOpcode(_ value: JSON, field: String) throws(ProtocolError) -> CECSendRequest.Opcode {
        if let name = value.string, !name.isEmpty, name.count <= 64 { return .named(name) }
        if let n = value.number, n.rounded() == n, (0...255).contains(n) { return .number(UInt8(n)) }
        throw ProtocolError(.invalidValue, "cec.send: \"\(field)\" is an opcode name such as \"give-device-power-status\", or a number 0…255")
    }
}
