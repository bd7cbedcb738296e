import Glibc
import VitrineCEC
import VitrineJSON
import VitrineOutput
import VitrineProtocol
import VitrineSystem

/// An output's TV over HDMI-CEC (`[[outputs]] cec`): the adapter's path, and the TV's
/// control, or why there is none.
struct OutputTV {
    /// The `cec` key it was opened for ("auto" or a path).
    let key: String
    let device: String
    let control: TVControl?
    let error: String?
}

/// TVs: the outputs whose `[[outputs]]` table names a CEC adapter wake their TV and put it
/// in standby with their power, and say its power state in `output.list`.
extension OutputSet {
    /// Opens each configured output's CEC adapter and claims its logical address; the TV
    /// is then woken (and shown this source) or put in standby as its output's power is.
    /// An adapter that cannot be used is logged and reported by `output.list`; nothing
    /// else waits for it. Nothing at all happens without a `cec` key.
    public func startTVControl() { followTVControl() }

    /// Follows the `cec` keys of `settings.outputs` (after a reload): an adapter no longer
    /// named is closed, one named anew (or one that could not be used) is opened; one
    /// whose key stays keeps its TV as it is.
    public func followTVControl() {
        guard let loop else { return }
        let wanted = settings.outputs.filter { !$0.cec.isEmpty }
        for (connector, tv) in televisions where !wanted.contains(where: { $0.connector == connector && $0.cec == tv.key && tv.control != nil }) {
            televisions[connector] = nil
            if tv.control != nil { logger.info("\(connector): TV control through \(tv.device) ended") }
        }
        let explicit = Set(wanted.map(\.cec).filter { $0 != "auto" })
        for entry in wanted where televisions[entry.connector] == nil {
            let head = heads.first { $0.name == entry.connector }
            do {
                let path = entry.cec == "auto" ? try Self.automaticAdapter(for: head, excluding: explicit) : entry.cec
                do {
                    let control = try TVControl(adapter: CECAdapter(path: path), loop: loop, logger: logger) { [weak self] power in
                        self?.notify(.event(.cecPower(output: entry.connector, tvPower: power.description), afterReply: false))
                    }
                    try control.start(on: head?.powered ?? true)
                    televisions[entry.connector] = OutputTV(key: entry.cec, device: path, control: control, error: nil)
                    logger.info("\(entry.connector): TV control through \(path) (\(control.adapter.driver), \(control.adapter.name))")
                } catch {
                    televisions[entry.connector] = OutputTV(key: entry.cec, device: path, control: nil, error: error.message)
                    logger.error("\(entry.connector): no TV control: \(error.message)")
                }
            } catch {
                televisions[entry.connector] = OutputTV(key: entry.cec, device: entry.cec, control: nil, error: error.message)
                logger.error("\(entry.connector): no TV control: \(error.message)")
            }
        }
    }

    /// The adapter `cec = "auto"` means for `head`: the one whose connector information
    /// names its DRM card and connector; where no adapter has any, the one adapter that is
    /// not a TV's (physical address other than 0.0.0.0).
    static func automaticAdapter(for head: OutputHead?, excluding taken: Set<String>) throws(CECError) -> String {
        let adapters = CECAdapter.devices().filter { !taken.contains($0) }.compactMap { try? CECAdapter(path: $0) }
        guard !adapters.isEmpty else {
            throw CECError("cec = \"auto\" found no CEC adapter (/dev/cec*); is the HDMI driver's CEC support loaded, and may the service user open it?")
        }
        let drm = (head?.backend as? DRMHead).map { (path: $0.card.device.path, connector: $0.selection.connector.id) }
        if adapters.contains(where: { $0.drmConnector != nil }) {
            guard let drm, let card = UInt32(drm.path.drop { !$0.isNumber }),
                let match = adapters.first(where: { $0.drmConnector.map { $0.card == card && $0.connector == drm.connector } ?? false })
            else {
                throw CECError(
                    "cec = \"auto\": no CEC adapter names this output's connector (\(adapters.map(\.path).joined(separator: ", "))); give the adapter, such as cec = \"/dev/cec0\""
                )
            }
            return match.path
        }
        let sources = adapters.filter { $0.physicalAddress != CECPhysicalAddress(0) }
        guard sources.count == 1 else {
            throw CECError(
                "cec = \"auto\": the adapters \(adapters.map { "\($0.path) (\($0.name), \($0.physicalAddress))" }.joined(separator: ", ")) say no connector; give the adapter, such as cec = \"\(adapters[0].path)\""
            )
        }
        return sources[0].path
    }

    /// The TV behind `head` woken or put in standby with it.
    func followPowerOnTV(_ head: OutputHead, on: Bool) {
        televisions[head.name]?.control?.setPower(on)
    }

    /// What `output.list` says of `head`: its description, with its TV's power state and
    /// CEC adapter when it has one.
    public func description(of head: OutputHead) -> JSON {
        guard let tv = televisions[head.name], case .object(var fields) = head.description else { return head.description }
        var cec: [String: JSON] = ["device": .string(tv.device)]
        if let control = tv.control {
            cec["logicalAddress"] = control.logicalAddress.map { .number(Double($0)) } ?? .null
            cec["physicalAddress"] = .string(control.physicalAddress.description)
            cec["activeSource"] = .bool(control.isActiveSource)
        }
        cec["error"] = tv.error.map(JSON.string)
        fields["tvPower"] = .string(tv.control?.power.description ?? "unknown")
        fields["cec"] = .object(cec)
        return .object(fields)
    }

    /// `cec.send`: sends the request's message through the adapter of its output (else
    /// the first output with one); `done` gets the reply once the bus answered (within a
    /// second or so).
    public func sendCEC(_ request: CECSendRequest, done: @escaping (Result<JSON, ProtocolError>) -> Void) throws(ProtocolError) {
        let name: String
        if let output = request.output {
            name = try head(named: output).name
        } else {
            guard let first = heads.first(where: { televisions[$0.name] != nil }) else {
                throw ProtocolError(.notAllowed, "no output has a CEC adapter; give one with [[outputs]] cec = \"/dev/cec0\" (docs/CONFIG.md)")
            }
            name = first.name
        }
        guard let tv = televisions[name] else {
            throw ProtocolError(.notAllowed, "\(name) has no CEC adapter; give one with [[outputs]] cec = \"/dev/cec0\" (docs/CONFIG.md)")
        }
        guard let control = tv.control else { throw ProtocolError(.notAllowed, "\(name)'s CEC adapter cannot be used: \(tv.error ?? "")") }
        let opcode = try Self.resolve(request.opcode)
        let reply = try request.reply.map { r throws(ProtocolError) in try r.map(Self.resolve) } ?? CECOpcode(rawValue: opcode)?.reply?.rawValue
        let destination = request.to ?? (CECOpcode(rawValue: opcode)?.isBroadcast == true ? CECMessage.broadcast : CECMessage.tv)
        let message = CECMessage(from: 0, to: destination, opcode: opcode, operands: request.operands)
        do {
            try control.send(message, reply: reply) { outcome in done(.success(Self.json(outcome, output: name))) }
        } catch {
            throw ProtocolError(.invalidValue, error.message)
        }
    }

    private static func resolve(_ opcode: CECSendRequest.Opcode) throws(ProtocolError) -> UInt8 {
        switch opcode {
        case .number(let n): return n
        case .named(let name):
            guard let named = CECOpcode(named: name) else {
                throw ProtocolError(
                    .invalidValue,
                    "cec.send: there is no opcode '\(name)'; the names are \(CECOpcode.allCases.map(\.name).joined(separator: ", ")), or give a number")
            }
            return named.rawValue
        }
    }

    private static func json(_ outcome: TVControl.Outcome, output: String) -> JSON {
        var fields: [String: JSON] = ["output": .string(output), "sent": .string(outcome.sent.description), "status": .string(outcome.status.rawValue)]
        if let reply = outcome.reply {
            fields["reply"] = .string(reply.description)
            fields["replyOpcode"] = reply.named.map { .string($0.name) } ?? reply.opcode.map { .number(Double($0)) }
            fields["powerStatus"] = reply.powerStatus.map { .string($0.name) }
            fields["osdName"] = reply.osdName.map(JSON.string)
            fields["physicalAddress"] = reply.physicalAddress.map { .string($0.description) }
        }
        return .object(fields)
    }
}
