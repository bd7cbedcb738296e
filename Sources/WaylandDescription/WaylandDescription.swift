/// A Wayland protocol beyond the core one, as `wayland-glue` describes it at build time
/// from wayland-protocols' XML (`WaylandProtocol.xdgShell`): its interfaces' requests and
/// events with wayland-scanner's signatures. `tables` lays them out as libwayland's
/// `wl_interface` structures, for the client (VitrineOutput's window) and the server
/// (VitrineWayland) alike, each with its own C module's types.
public struct WaylandProtocol: Sendable {
    public struct Message: Sendable {
        public let name: String
        /// The argument letters (`u`, `i`, `f`, `s`, `o`, `n`, `a`, `h`, `?` for nullable),
        /// after the version the message appeared in.
        public let signature: String
        /// Each argument's interface, for objects and new ids.
        public let types: [String?]

        public init(name: String, signature: String, types: [String?]) {
            (self.name, self.signature, self.types) = (name, signature, types)
        }
    }

    public struct Interface: Sendable {
        public let name: String
        public let version: Int
        public let requests: [Message]
        public let events: [Message]

        public init(name: String, version: Int, requests: [Message], events: [Message]) {
            (self.name, self.version, self.requests, self.events) = (name, version, requests, events)
        }
    }

    public let interfaces: [Interface]

    public init(interfaces: [Interface]) { self.interfaces = interfaces }

    /// The protocol's interfaces as C structures that live as long as the process
    /// (libwayland holds pointers to them in every proxy and resource), by name.
    ///
    /// - Parameters:
    ///   - core: The core interfaces (`wl_surface`, …) its messages may name.
    ///   - message: Makes a `wl_message` of a name, a signature and its types' table.
    ///   - interface: Makes a `wl_interface` of a name, a version and its requests' and
    ///     events' tables with their counts.
    public func tables<Interface, Message>(
        core: [String: UnsafePointer<Interface>],
        message: (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutablePointer<UnsafePointer<Interface>?>) -> Message,
        interface: (UnsafePointer<CChar>, Int32, Int32, UnsafeMutablePointer<Message>, Int32, UnsafeMutablePointer<Message>) -> Interface
    ) -> [String: UnsafePointer<Interface>] {
        var made: [String: UnsafeMutablePointer<Interface>] = [:]
        for described in interfaces { made[described.name] = .allocate(capacity: 1) }
        func resolve(_ name: String?) -> UnsafePointer<Interface>? {
            guard let name else { return nil }
            return made[name].map { UnsafePointer($0) } ?? core[name]
        }
        func messages(_ list: [WaylandProtocol.Message]) -> UnsafeMutablePointer<Message> {
            let table = UnsafeMutablePointer<Message>.allocate(capacity: max(1, list.count))
            for (index, described) in list.enumerated() {
                let types = UnsafeMutablePointer<UnsafePointer<Interface>?>.allocate(capacity: max(1, described.types.count))
                for (slot, type) in described.types.enumerated() { types[slot] = resolve(type) }
                (table + index).initialize(to: message(permanent(described.name), permanent(described.signature), types))
            }
            return table
        }
        for described in interfaces {
            made[described.name]!.initialize(
                to: interface(
                    permanent(described.name), Int32(described.version), Int32(described.requests.count), messages(described.requests),
                    Int32(described.events.count), messages(described.events)))
        }
        return made.mapValues { UnsafePointer($0) }
    }
}

/// A C copy of `text` that is never freed.
private func permanent(_ text: String) -> UnsafePointer<CChar> {
    let bytes = Array(text.utf8CString)
    let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    copy.initialize(from: bytes, count: bytes.count)
    return UnsafePointer(copy)
}
