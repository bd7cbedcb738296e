import CWaylandServer

/// One protocol object a client holds (a `wl_resource`), with its requests dispatched to
/// `request(_:_:)` on the daemon's loop. The resource keeps the object alive: it is
/// released when libwayland destroys the resource (a destructor request, or the client
/// going), after `destroyed()`.
public class ServerObject {
    let resource: OpaquePointer
    unowned let server: WaylandServer

    /// Makes the resource `id` of `client` with `interface` at `version`; nil (and the
    /// client told it is out of memory) when libwayland cannot.
    init?(server: WaylandServer, client: OpaquePointer, interface: UnsafePointer<wl_interface>, version: UInt32, id: UInt32) {
        guard let made = wl_resource_create(client, interface, Int32(version), id) else {
            wl_client_post_no_memory(client)
            return nil
        }
        resource = made
        self.server = server
        let me = Unmanaged.passRetained(self).toOpaque()
        wl_resource_set_dispatcher(made, serverDispatch, me, me, serverDestroy)
    }

    var client: OpaquePointer { wl_resource_get_client(resource) }
    var version: UInt32 { UInt32(wl_resource_get_version(resource)) }

    /// Handles request `opcode` with its arguments (libwayland has checked them against
    /// the interface's signature).
    func request(_ opcode: UInt32, _ arguments: UnsafeMutablePointer<wl_argument>) {}

    /// The resource is going: forget it wherever it is referenced.
    func destroyed() {}

    /// Sends event `opcode`.
    func post(_ opcode: UInt32, _ arguments: [wl_argument] = []) { postEvent(resource, opcode, arguments) }

    /// Sends the protocol error `code` with `message`; the client is disconnected.
    func postError(_ code: UInt32, _ message: String) {
        vitrine_wl_resource_post_error(resource, code, message)
    }

    /// Sends protocol error `error`, one of the codes wayland-glue names from the protocol's
    /// XML (`WlSurfaceError.invalid_scale`), with `message`; the client is disconnected.
    func postError<Code: RawRepresentable>(_ error: Code, _ message: String) where Code.RawValue == UInt32 {
        postError(error.rawValue, message)
    }

    /// Ends the resource (a destructor request).
    func destroy() { wl_resource_destroy(resource) }

    /// The object behind `resource`, when it is one of ours of type `T`.
    static func of<T: ServerObject>(_ resource: OpaquePointer?, as type: T.Type = T.self) -> T? {
        guard let resource, let data = wl_resource_get_user_data(resource) else { return nil }
        return Unmanaged<ServerObject>.fromOpaque(data).takeUnretainedValue() as? T
    }
}

/// Sends event `opcode` with `arguments` on `resource`, an object of ours or libwayland's
/// (a `wl_buffer`): as `wl_resource_post_event_array`, since the protocol header's typed
/// senders (`wl_pointer_send_motion`, …) call the variadic `wl_resource_post_event`, which
/// libwayland-server, bound lazily, cannot be called through.
func postEvent(_ resource: OpaquePointer, _ opcode: UInt32, _ arguments: [wl_argument] = []) {
    var arguments = arguments
    arguments.withUnsafeMutableBufferPointer { wl_resource_post_event_array(resource, opcode, $0.baseAddress) }
}

/// libwayland's dispatcher for every resource of ours: the object is its implementation.
private let serverDispatch: wl_dispatcher_func_t = { implementation, _, opcode, _, arguments in
    guard let implementation, let arguments else { return 0 }
    let object = Unmanaged<ServerObject>.fromOpaque(implementation).takeUnretainedValue()
    guard object.server.count(requestFrom: object.client) else { return 0 }
    object.request(opcode, arguments)
    return 0
}

private let serverDestroy: wl_resource_destroy_func_t = { resource in
    guard let resource, let data = wl_resource_get_user_data(resource) else { return }
    let object = Unmanaged<ServerObject>.fromOpaque(data).takeRetainedValue()
    object.destroyed()
}

extension wl_argument {
    /// The resource an object argument names (nil when null).
    var resource: OpaquePointer? { o }
    /// A string argument's text.
    var text: String { s.map { String(cString: $0) } ?? "" }
}
