import CWaylandClient

/// Gives `proxy`'s events to `handle`; keep the listener as long as the proxy.
func addListener(to proxy: OpaquePointer, _ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) -> ClientListener {
    let listener = ClientListener(handle)
    wl_proxy_add_dispatcher(proxy, clientDispatch, Unmanaged.passUnretained(listener).toOpaque(), nil)
    return listener
}

/// One proxy's events, to a closure.
final class ClientListener {
    let handle: (UInt32, UnsafeMutablePointer<wl_argument>) -> Void
    init(_ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) { self.handle = handle }
}

/// libwayland's dispatcher for proxies whose implementation is a `ClientListener`.
let clientDispatch: wl_dispatcher_func_t = { implementation, _, opcode, _, arguments in
    guard let implementation, let arguments else { return 0 }
    Unmanaged<ClientListener>.fromOpaque(implementation).takeUnretainedValue().handle(opcode, arguments)
    return 0
}
