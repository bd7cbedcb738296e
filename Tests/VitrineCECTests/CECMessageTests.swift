import Testing
import VitrineCEC
import VitrineProtocol

/// CEC messages as they go on the bus (HDMI 1.4b CEC: a header of initiator and
/// destination, an opcode, operands), and `cec.send` as the wire gives it.
@Suite struct CECMessageTests {
    @Test func messagesAreWrittenAsTheBusCarriesThem() throws {
        #expect(CECMessage(from: 4, to: CECMessage.tv, opcode: .imageViewOn).bytes == [0x40, 0x04])
        #expect(CECMessage(from: 4, to: CECMessage.tv, opcode: .standby).description == "40:36")
        #expect(CECMessage.activeSource(from: 4, address: try #require(CECPhysicalAddress(parsing: "1.0.0.0"))).bytes == [0x4f, 0x82, 0x10, 0x00])
        #expect(CECMessage.reportPowerStatus(from: 4, to: 0, .standby).bytes == [0x40, 0x90, 0x01])
        #expect(CECMessage.setOSDName(from: 4, to: 0, "A name longer than fourteen").operands.count == 14)
        #expect(CECMessage(from: 0xf, to: 0, opcode: nil).bytes == [0xf0], "a poll is the header alone")
        #expect(CECMessage.featureAbort(of: CECMessage(from: 0, to: 4, opcode: 0x8d, operands: [0])).bytes == [0x40, 0x00, 0x8d, 0x00])
    }

    @Test func bytesAreReadBack() throws {
        let report = try CECMessage(bytes: [0x04, 0x90, 0x00])
        #expect(report.initiator == 0 && report.destination == 4)
        #expect(report.named == .reportPowerStatus)
        #expect(report.powerStatus == .on)
        #expect(try CECMessage(bytes: [0x04, 0x90, 0x02]).powerStatus == .toOn)
        #expect(try CECMessage(bytes: [0x04, 0x90, 0x07]).powerStatus == nil, "no such status")
        #expect(try CECMessage(bytes: [0x04, 0x90]).powerStatus == nil, "no operand")
        #expect(try CECMessage(bytes: [0x0f, 0x82, 0x21, 0x00]).physicalAddress?.description == "2.1.0.0")
        #expect(try CECMessage(bytes: [0x0f, 0x80, 0x10, 0x00, 0x20, 0x00]).physicalAddress?.description == "2.0.0.0", "a routing change's new address")
        #expect(try CECMessage(bytes: [0x04, 0x47, 0x54, 0x56]).osdName == "TV")
        #expect(try CECMessage(bytes: [0x4f, 0x36]).isBroadcast)
        for bytes: [UInt8] in [[0x40], [0x40, 0x04], [0x4f, 0x82, 0x10, 0x00], Array(repeating: 0x11, count: 16)] {
            #expect(try CECMessage(bytes: bytes).bytes == bytes)
        }
        #expect(throws: CECError.self) { try CECMessage(bytes: []) }
        #expect(throws: CECError.self) { try CECMessage(bytes: Array(repeating: 0, count: 17)) }
    }

    @Test func hexIsWrittenAsCecCtlWritesIt() {
        #expect(CECMessage.hex([0x0f, 0xa0]) == "0f:a0")
        #expect(CECMessage.hex([]) == "")
    }

    @Test func physicalAddresses() {
        #expect(CECPhysicalAddress(parsing: "1.0.0.0")?.rawValue == 0x1000)
        #expect(CECPhysicalAddress(parsing: "3.2.1.f")?.rawValue == 0x321f)
        #expect(CECPhysicalAddress(parsing: "1.0.0") == nil)
        #expect(CECPhysicalAddress(parsing: "10.0.0.0") == nil)
        #expect(CECPhysicalAddress(0x1200).description == "1.2.0.0")
        #expect(CECPhysicalAddress.invalid.description == "f.f.f.f")
        #expect(CECPhysicalAddress(0x1200).bytes == [0x12, 0x00])
    }

    @Test func opcodesHaveNamesAndAnswers() {
        for opcode in CECOpcode.allCases { #expect(CECOpcode(named: opcode.name) == opcode) }
        #expect(Set(CECOpcode.allCases.map(\.name)).count == CECOpcode.allCases.count)
        #expect(CECOpcode(named: "give-device-power-status")?.rawValue == 0x8f)
        #expect(CECOpcode.giveDevicePowerStatus.reply == .reportPowerStatus)
        #expect(CECOpcode.giveOSDName.reply == .setOSDName)
        #expect(CECOpcode.imageViewOn.reply == nil)
        #expect(CECOpcode.activeSource.isBroadcast && !CECOpcode.standby.isBroadcast)
        #expect(CECPowerStatus.allCases.map(\.name) == ["on", "standby", "to on", "to standby"])
    }

    @Test func cecSendIsDecoded() throws {
        func decode(_ text: String) -> Result<Request, RequestError> { Request.decode(Array(text.utf8)) }
        func send(_ text: String) throws -> CECSendRequest? {
            guard case .cecSend(let request) = try decode(text).get().command else { return nil }
            return request
        }
        #expect(
            try send(#"{"id":1,"cmd":"cec.send","opcode":"give-device-power-status"}"#)
                == CECSendRequest(output: nil, to: nil, opcode: .named("give-device-power-status"), operands: [], reply: nil))
        #expect(
            try send(#"{"id":1,"cmd":"cec.send","output":"HDMI-A-1","to":15,"opcode":130,"operands":"10:00","reply":null}"#)
                == CECSendRequest(output: "HDMI-A-1", to: 15, opcode: .number(0x82), operands: [0x10, 0x00], reply: .some(nil)))
        #expect(
            try send(#"{"id":1,"cmd":"cec.send","opcode":140,"reply":"device-vendor-id"}"#)
                == CECSendRequest(output: nil, to: nil, opcode: .number(0x8c), operands: [], reply: .some(.named("device-vendor-id"))))
        for bad in [
            #"{"id":1,"cmd":"cec.send"}"#, #"{"id":1,"cmd":"cec.send","opcode":256}"#, #"{"id":1,"cmd":"cec.send","opcode":"standby","to":16}"#,
            #"{"id":1,"cmd":"cec.send","opcode":"standby","operands":"1"}"#, #"{"id":1,"cmd":"cec.send","opcode":"standby","bytes":"40"}"#,
            #"{"id":1,"cmd":"cec.send","opcode":4,"operands":"\#(String(repeating: "00", count: 15))"}"#,
        ] {
            guard case .failure(let failure) = decode(bad) else {
                Issue.record("\(bad) was accepted")
                continue
            }
            #expect(failure.error.message.contains("cec.send"), "\(failure.error.message)")
        }
    }
}
