import CLinuxCEC
import Glibc
import SystemPackage
import VitrineSystem

/// A CEC adapter of the kernel's CEC API (`/dev/cecN`), open non-blocking: its
/// capabilities, its addresses, and messages sent and received without waiting — a
/// transmission's result, and the reply it asked for, come back through `receive()`
/// when the descriptor is readable; adapter events (`dequeueEvent()`) when it has
/// priority data.
///
/// ```swift
/// let adapter = try CECAdapter(path: "/dev/cec0")
/// try adapter.claim(osdName: "Vitrine")
/// let sequence = try adapter.transmit(CECMessage(from: 4, to: 0, opcode: .giveDevicePowerStatus), reply: .reportPowerStatus)
/// while let received = adapter.receive() { … }   // when the loop says it is readable
/// ```
public final class CECAdapter {
    /// What `receive()` reads.
    public enum Received: Sendable {
        /// How transmission `sequence` went on the bus (a reply asked for follows as
        /// `replied` when this is `.ok`).
        case transmitted(sequence: UInt32, status: CECTransmitStatus)
        /// The reply transmission `sequence` asked for: `.ok` with it, else why none came.
        case replied(sequence: UInt32, status: CECTransmitStatus, reply: CECMessage?)
        /// A message from another device.
        case message(CECMessage)
    }

    /// What `dequeueEvent()` reads.
    public enum AdapterEvent: Sendable, Equatable {
        /// The physical address or the claimed logical addresses changed (0 in the mask:
        /// unconfigured).
        case stateChange(physicalAddress: CECPhysicalAddress, logicalAddressMask: UInt16)
        /// Messages were dropped because they were not read in time.
        case lostMessages(Int)
        /// An event the daemon does not use (pin changes).
        case other
    }

    /// The device node.
    public let path: String
    /// The driver's name and the adapter's (`CEC_ADAP_G_CAPS`).
    public let driver: String, name: String
    let capabilities: UInt32
    let descriptor: OwnedDescriptor

    /// Opens `path` non-blocking and reads its capabilities. Throws when it cannot be
    /// opened or is not a CEC adapter that can claim addresses and transmit.
    public init(path: String) throws(SystemError) {
        self.path = path
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw SystemError.errno(
                "open the CEC adapter", path,
                advice: Errno.last == .noSuchFileOrDirectory
                    ? "no such adapter; `ls /dev/cec*` lists them (an HDMI output's adapter comes with its driver, such as vc4 on a Raspberry Pi)"
                    : "the service user needs read and write access (the video group)")
        }
        descriptor = OwnedDescriptor(fd)
        var caps = cec_caps()
        guard vitrine_cec_get_caps(fd, &caps) == 0 else {
            throw SystemError.errno("read the capabilities of", path, advice: "is it a CEC adapter (/dev/cecN)?")
        }
        driver = Self.string(caps.driver)
        name = Self.string(caps.name)
        capabilities = caps.capabilities
        guard capabilities & UInt32(CEC_CAP_LOG_ADDRS) != 0, capabilities & UInt32(CEC_CAP_TRANSMIT) != 0 else {
            throw SystemError("\(path): the adapter (\(driver)) cannot claim a logical address and transmit; another program configures it")
        }
    }

    /// The CEC adapters' device nodes (`/dev/cec0`, …), in order.
    public static func devices() -> [String] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var names: [Int] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("cec"), let number = Int(name.dropFirst(3)) { names.append(number) }
        }
        return names.sorted().map { "/dev/cec\($0)" }
    }

    /// The descriptor, for the event loop.
    public var fileDescriptor: CInt { descriptor.rawValue }

    /// The adapter's physical address (invalid while no display is connected).
    public var physicalAddress: CECPhysicalAddress {
        var address: UInt16 = 0xffff
        _ = vitrine_cec_get_phys_addr(descriptor.rawValue, &address)
        return CECPhysicalAddress(address)
    }

    /// The logical address claimed first, nil while none is.
    public var logicalAddress: UInt8? {
        var addresses = cec_log_addrs()
        guard vitrine_cec_get_log_addrs(descriptor.rawValue, &addresses) == 0, addresses.num_log_addrs > 0, addresses.log_addr_mask != 0 else {
            return nil
        }
        return addresses.log_addr.0 == 0xff ? nil : addresses.log_addr.0
    }

    /// The DRM card and connector id the adapter belongs to, when its driver says
    /// (`CEC_ADAP_G_CONNECTOR_INFO`, Linux 5.10).
    public var drmConnector: (card: UInt32, connector: UInt32)? {
        guard capabilities & UInt32(CEC_CAP_CONNECTOR_INFO) != 0 else { return nil }
        var info = cec_connector_info()
        guard vitrine_cec_get_connector_info(descriptor.rawValue, &info) == 0, info.type == UInt32(CEC_CONNECTOR_TYPE_DRM) else { return nil }
        return (info.drm.card_no, info.drm.connector_id)
    }

    /// Becomes the adapter's initiator and follower, and asks it to claim one playback
    /// device's logical address named `osdName` (the claim ends later: a state change
    /// event; at once when an earlier run left the same claim).
    public func claim(osdName: String) throws(SystemError) {
        let fd = descriptor.rawValue
        guard vitrine_cec_set_mode(fd, UInt32(CEC_MODE_INITIATOR | CEC_MODE_FOLLOWER)) == 0 else {
            throw SystemError.errno("become the initiator and follower of", path, advice: "another program holds it exclusively")
        }
        var current = cec_log_addrs()
        if vitrine_cec_get_log_addrs(fd, &current) == 0, current.num_log_addrs == 1, current.log_addr_type.0 == UInt8(CEC_LOG_ADDR_TYPE_PLAYBACK),
            Self.string(current.osd_name) == osdName
        {
            return
        }
        if current.num_log_addrs > 0 {
            var none = cec_log_addrs()
            guard vitrine_cec_set_log_addrs(fd, &none) == 0 else { throw SystemError.errno("release the logical addresses of", path) }
        }
        var wanted = cec_log_addrs()
        wanted.num_log_addrs = 1
        wanted.cec_version = UInt8(CEC_OP_CEC_VERSION_1_4)
        wanted.vendor_id = CEC_VENDOR_ID_NONE
        wanted.flags = UInt32(CEC_LOG_ADDRS_FL_ALLOW_UNREG_FALLBACK)
        wanted.log_addr_type.0 = UInt8(CEC_LOG_ADDR_TYPE_PLAYBACK)
        wanted.primary_device_type.0 = UInt8(CEC_OP_PRIM_DEVTYPE_PLAYBACK)
        wanted.all_device_types.0 = UInt8(CEC_OP_ALL_DEVTYPE_PLAYBACK)
        withUnsafeMutableBytes(of: &wanted.osd_name) { name in
            for (i, byte) in osdName.utf8.prefix(14).enumerated() { name[i] = byte }
        }
        guard vitrine_cec_set_log_addrs(fd, &wanted) == 0 else {
            throw SystemError.errno("claim a logical address on", path, advice: "the adapter may be configured by another program (cec-ctl --clear)")
        }
    }

    /// Sends `message` without waiting and returns its sequence number; its outcome comes
    /// through `receive()`, with `reply` when asked for (within `timeout` ms).
    public func transmit(_ message: CECMessage, reply: UInt8? = nil, timeout: UInt32 = 1000) throws(SystemError) -> UInt32 {
        var msg = cec_msg()
        let bytes = message.bytes
        msg.len = UInt32(bytes.count)
        withUnsafeMutableBytes(of: &msg.msg) { for (i, byte) in bytes.enumerated() { $0[i] = byte } }
        if let reply, !message.isBroadcast {
            msg.reply = reply
            msg.timeout = timeout
        }
        guard vitrine_cec_transmit(descriptor.rawValue, &msg) == 0 else {
            let advice =
                switch Errno.last {
                case .invalidArgument: "no logical address is claimed yet, or the message is not allowed from it"
                case .noData: "no display is connected (no physical address)"
                case .resourceBusy: "the adapter's transmit queue is full, or another program is its exclusive initiator"
                default: ""
                }
            throw SystemError.errno("transmit \(message) on", path, advice: advice)
        }
        return msg.sequence
    }

    /// The next message or transmission outcome; nil when there is none now.
    public func receive() -> Received? {
        var msg = cec_msg()
        guard vitrine_cec_receive(descriptor.rawValue, &msg) == 0 else { return nil }
        let length = min(Int(msg.len), CECMessage.maximumLength)
        let bytes = withUnsafeBytes(of: msg.msg) { Array($0.prefix(length)) }
        let message = try? CECMessage(bytes: bytes)
        guard msg.sequence != 0 else { return message.map(Received.message) ?? receive() }
        guard msg.rx_status != 0 else { return .transmitted(sequence: msg.sequence, status: CECTransmitStatus(tx: msg.tx_status, rx: 0)) }
        let status = CECTransmitStatus(tx: UInt8(CEC_TX_STATUS_OK), rx: msg.rx_status)
        return .replied(sequence: msg.sequence, status: status, reply: status == .ok || status == .featureAbort ? message : nil)
    }

    /// The next adapter event; nil when there is none now.
    public func dequeueEvent() -> AdapterEvent? {
        var event = cec_event()
        guard vitrine_cec_dequeue_event(descriptor.rawValue, &event) == 0 else { return nil }
        switch Int32(event.event) {
        case CEC_EVENT_STATE_CHANGE:
            return .stateChange(
                physicalAddress: CECPhysicalAddress(event.state_change.phys_addr), logicalAddressMask: event.state_change.log_addr_mask)
        case CEC_EVENT_LOST_MSGS:
            return .lostMessages(Int(event.lost_msgs.lost_msgs))
        default:
            return .other
        }
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// How a transmission ended, from the kernel's `tx_status` and `rx_status`.
public enum CECTransmitStatus: String, Sendable {
    /// Acknowledged (and answered, when a reply was asked for).
    case ok
    /// No device acknowledged it: none at that logical address.
    case nack
    /// Acknowledged, but the reply asked for did not come in time.
    case timeout
    /// The destination answered <Feature Abort>: it does not do that.
    case featureAbort = "feature-abort"
    /// The bus failed it (arbitration lost, low drive, retries exhausted, aborted).
    case error

    init(tx: UInt8, rx: UInt8) {
        if tx & UInt8(CEC_TX_STATUS_OK) == 0 {
            self = tx & UInt8(CEC_TX_STATUS_NACK) != 0 ? .nack : .error
        } else if rx & UInt8(CEC_RX_STATUS_FEATURE_ABORT) != 0 {
            self = .featureAbort
        } else if rx & UInt8(CEC_RX_STATUS_TIMEOUT) != 0 || rx & UInt8(CEC_RX_STATUS_ABORTED) != 0 {
            self = .timeout
        } else {
            self = .ok
        }
    }
}
