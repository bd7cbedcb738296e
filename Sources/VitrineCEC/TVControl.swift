import Logging
import VitrineSystem

/// The TV behind one output, driven over HDMI-CEC as a playback device: it claims a
/// logical address, wakes the TV and becomes its active source while the output is on,
/// puts it in standby while it is off, follows the TV's power state (asked with <Give
/// Device Power Status> after each change and every `pollInterval`, and read from what
/// the TV says by itself), answers what a follower must, and sends what scripts ask.
///
/// It lives on the daemon's event loop: the adapter's descriptor is watched there and
/// nothing waits for the bus. `notify` is called with the TV's power state when it
/// changes.
///
/// ```swift
/// let tv = try TVControl(adapter: CECAdapter(path: "/dev/cec0"), loop: loop, logger: logger) { power in … }
/// tv.start(on: true)        // claim; then <Image View On> and <Active Source>
/// tv.setPower(false)        // <Standby> to the TV
/// try tv.send(message) { outcome in … }
/// ```
public final class TVControl {
    /// What the TV said of its power, or `unknown` when it did not answer.
    public enum Power: Equatable, Sendable, CustomStringConvertible {
        case known(CECPowerStatus)
        case unknown

        /// "on", "standby", "to on", "to standby" or "unknown".
        public var description: String {
            switch self {
            case .known(let status): status.name
            case .unknown: "unknown"
            }
        }
    }

    /// How a message sent by `send` went: the bus's answer and the reply, when one came.
    public struct Outcome: Sendable {
        public let sent: CECMessage
        public let status: CECTransmitStatus
        public let reply: CECMessage?
    }

    /// How it behaves.
    public struct Settings: Sendable {
        /// The name the TV shows for the source (at most 14 bytes).
        public var osdName = "Vitrine"
        /// Seconds between power status questions while nothing changes.
        public var pollInterval = 60.0
        /// Milliseconds a reply may take (CEC allows 1 s).
        public var replyTimeout: UInt32 = 1000
        /// Seconds between the questions that follow a power change, until the TV reaches
        /// the state asked for or `followUps` were asked.
        public var followUpInterval = 1.5
        public var followUps = 12

        public init() {}
    }

    /// EPOLLPRI: the adapter has events to dequeue.
    static let priority = EventLoop.Events(rawValue: 0x002)

    /// The most messages waiting for their outcome; more are refused.
    public static let pendingLimit = 16

    public let adapter: CECAdapter
    public let settings: Settings
    /// The TV's power state as last heard.
    public private(set) var power = Power.unknown
    /// The logical address claimed; nil until the claim ends (or while unplugged).
    public private(set) var logicalAddress: UInt8?
    /// The adapter's physical address: what <Active Source> names.
    public private(set) var physicalAddress = CECPhysicalAddress.invalid
    /// Whether the output is on (the TV should be), nil before `start`.
    public private(set) var wantsOn: Bool?
    /// Whether the TV shows this source, as far as the bus says.
    public private(set) var isActiveSource = false

    private let loop: EventLoop
    private let logger: Logger
    private let notify: (Power) -> Void
    private var pending: [UInt32: Pending] = [:]
    private var pollTicket: UInt64?
    private var followUpsLeft = 0

    private struct Pending {
        let message: CECMessage
        let expectsReply: Bool
        let done: (Outcome) -> Void
    }

    /// Watches `adapter` on `loop`; nothing is sent before `start`.
    public init(adapter: CECAdapter, settings: Settings = Settings(), loop: EventLoop, logger: Logger, notify: @escaping (Power) -> Void)
        throws(SystemError)
    {
        self.adapter = adapter
        self.settings = settings
        self.loop = loop
        self.logger = logger
        self.notify = notify
        try loop.watch(adapter.fileDescriptor, for: [.readable, Self.priority]) { [weak self] _ in self?.readable() }
    }

    deinit {
        loop.unwatch(adapter.fileDescriptor)
        if let pollTicket { loop.cancel(pollTicket) }
    }

    /// Claims the logical address; once claimed, the TV is woken and shown this source
    /// (`on`) or put in standby.
    public func start(on: Bool) throws(SystemError) {
        wantsOn = on
        physicalAddress = adapter.physicalAddress
        try adapter.claim(osdName: settings.osdName)
        readable()
    }

    /// Wakes the TV and becomes its active source, or puts it in standby; its state is
    /// asked again until it gets there.
    public func setPower(_ on: Bool) {
        guard wantsOn != on else { return }
        wantsOn = on
        if logicalAddress != nil { applyPower() }
    }

    /// Sends `message` (its initiator is replaced by the claimed logical address) and
    /// calls `done` on the loop with its outcome, after `reply` came or did not.
    public func send(_ message: CECMessage, reply: UInt8?, done: @escaping (Outcome) -> Void) throws(CECError) {
        guard let logicalAddress else {
            throw CECError("\(adapter.path) has no logical address yet: no display answers on its HDMI connector, or the claim is under way")
        }
        guard pending.count < Self.pendingLimit else {
            throw CECError("\(adapter.path) has \(Self.pendingLimit) messages waiting for their answer; send again when they are answered")
        }
        var message = message
        message.initiator = logicalAddress
        let sequence: UInt32
        do { sequence = try adapter.transmit(message, reply: reply, timeout: settings.replyTimeout) } catch { throw CECError(error.message) }
        pending[sequence] = Pending(message: message, expectsReply: reply != nil && !message.isBroadcast, done: done)
    }

    // MARK: What the adapter says

    private func readable() {
        while let event = adapter.dequeueEvent() { take(event) }
        while let received = adapter.receive() {
            switch received {
            case .transmitted(let sequence, let status):
                guard let entry = pending[sequence], status != .ok || !entry.expectsReply else { continue }
                pending[sequence] = nil
                entry.done(Outcome(sent: entry.message, status: status, reply: nil))
            case .replied(let sequence, let status, let reply):
                guard let entry = pending.removeValue(forKey: sequence) else { continue }
                entry.done(Outcome(sent: entry.message, status: status, reply: reply))
            case .message(let message):
                take(message)
            }
        }
    }

    private func take(_ event: CECAdapter.AdapterEvent) {
        switch event {
        case .stateChange(let address, _):
            physicalAddress = address
            let claimed = adapter.logicalAddress
            guard claimed != logicalAddress else { return }
            logicalAddress = claimed
            if let claimed {
                logger.info("\(adapter.path): logical address \(claimed), physical address \(address) (\(adapter.name))")
                applyPower()
            } else {
                logger.info("\(adapter.path): no logical address (physical address \(address)): the display is gone or the adapter was reconfigured")
                isActiveSource = false
                update(.unknown)
            }
        case .lostMessages(let count):
            logger.warning("\(adapter.path): \(count) CEC messages were lost")
        case .other:
            break
        }
    }

    private func take(_ message: CECMessage) {
        guard let logicalAddress else { return }
        guard let opcode = message.named else {
            if !message.isBroadcast, message.opcode != nil, message.destination == logicalAddress { transmit(.featureAbort(of: message)) }
            return
        }
        let fromTV = message.initiator == CECMessage.tv
        let toUs = !message.isBroadcast && message.destination == logicalAddress
        switch opcode {
        case .reportPowerStatus:
            if fromTV, let status = message.powerStatus { update(.known(status)) }
        case .standby:
            if fromTV {
                isActiveSource = false
                update(.known(.standby))
            }
        case .activeSource, .routingChange:
            if message.initiator != logicalAddress { isActiveSource = false }
        case .setStreamPath:
            if message.physicalAddress == physicalAddress { becomeActiveSource() }
        case .requestActiveSource:
            if isActiveSource { transmit(.activeSource(from: logicalAddress, address: physicalAddress)) }
        case .giveDevicePowerStatus:
            if toUs { transmit(.reportPowerStatus(from: logicalAddress, to: message.initiator, wantsOn == false ? .standby : .on)) }
        case .giveOSDName:
            if toUs { transmit(.setOSDName(from: logicalAddress, to: message.initiator, settings.osdName)) }
        case .featureAbort, .userControlPressed, .userControlReleased, .imageViewOn, .textViewOn, .inactiveSource, .reportPhysicalAddress,
            .deviceVendorID, .setOSDName, .cecVersion:
            break
        case .menuRequest, .givePhysicalAddress, .giveDeviceVendorID, .getCECVersion, .abort:
            if toUs { transmit(.featureAbort(of: message)) }
        }
    }

    // MARK: Power

    private func applyPower() {
        guard let logicalAddress, let wantsOn else { return }
        if wantsOn {
            transmit(CECMessage(from: logicalAddress, to: CECMessage.tv, opcode: .imageViewOn))
            becomeActiveSource()
        } else {
            isActiveSource = false
            transmit(CECMessage(from: logicalAddress, to: CECMessage.tv, opcode: .standby))
        }
        followUpsLeft = settings.followUps
        askPower()
    }

    private func becomeActiveSource() {
        guard let logicalAddress, physicalAddress != .invalid else { return }
        isActiveSource = true
        transmit(.activeSource(from: logicalAddress, address: physicalAddress))
    }

    /// Asks the TV's power status, then asks again after a follow-up interval while a
    /// change is under way, else after the poll interval.
    private func askPower() {
        if let pollTicket { loop.cancel(pollTicket) }
        pollTicket = nil
        let question = CECMessage(from: 0, to: CECMessage.tv, opcode: .giveDevicePowerStatus)
        do {
            try send(question, reply: CECOpcode.reportPowerStatus.rawValue) { [weak self] outcome in
                guard let self else { return }
                update(outcome.reply?.powerStatus.map(Power.known) ?? .unknown)
                scheduleQuestion()
            }
        } catch {
            logger.debug("\(error.message)")
            scheduleQuestion()
        }
    }

    private func scheduleQuestion() {
        if let pollTicket { loop.cancel(pollTicket) }
        let settled = wantsOn.map { power == .known($0 ? .on : .standby) } ?? true
        if settled { followUpsLeft = 0 }
        let following = followUpsLeft > 0
        if following { followUpsLeft -= 1 }
        pollTicket = loop.schedule(after: following ? settings.followUpInterval : settings.pollInterval) { [weak self] in
            self?.pollTicket = nil
            self?.askPower()
        }
    }

    private func update(_ new: Power) {
        guard new != power else { return }
        power = new
        logger.info("\(adapter.path): the TV is \(new)")
        notify(new)
    }

    /// Sends a message whose outcome nobody waits for (a failure is logged).
    private func transmit(_ message: CECMessage) {
        do { try send(message, reply: nil) { [logger] outcome in if outcome.status != .ok { logger.info("\(outcome.sent): \(outcome.status)") } } } catch {
            logger.info("\(error.message)")
        }
    }
}
