import Glibc

// The functions the C side's `wlcs_server_integration` calls (Sources/CVitrineWLCS), one
// per WLCS hook; `server` is the handle `vitrine_wlcs_create` returned.

private func server(_ handle: UnsafeMutableRawPointer?) -> IntegrationServer {
    Unmanaged<IntegrationServer>.fromOpaque(handle!).takeUnretainedValue()
}

/// A new integration server (not started), as an opaque handle.
@_cdecl("vitrine_wlcs_create")
public func vitrineWLCSCreate() -> UnsafeMutableRawPointer? {
    Unmanaged.passRetained(IntegrationServer()).toOpaque()
}

/// Stops the server if it runs and lets it go.
@_cdecl("vitrine_wlcs_destroy")
public func vitrineWLCSDestroy(_ handle: UnsafeMutableRawPointer?) {
    let made = Unmanaged<IntegrationServer>.fromOpaque(handle!)
    made.takeUnretainedValue().stop()
    made.release()
}

/// Starts the daemon; returns once it serves.
@_cdecl("vitrine_wlcs_start")
public func vitrineWLCSStart(_ handle: UnsafeMutableRawPointer?) { server(handle).start() }

/// Stops the daemon; returns once its thread ended.
@_cdecl("vitrine_wlcs_stop")
public func vitrineWLCSStop(_ handle: UnsafeMutableRawPointer?) { server(handle).stop() }

/// The client's end of a new connection to the daemon's Wayland server, or -1.
@_cdecl("vitrine_wlcs_client_socket")
public func vitrineWLCSClientSocket(_ handle: UnsafeMutableRawPointer?) -> CInt { server(handle).clientSocket() }

/// Places a window: its top left at (`x`, `y`) of the output.
@_cdecl("vitrine_wlcs_position_window")
public func vitrineWLCSPositionWindow(_ handle: UnsafeMutableRawPointer?, _ fd: CInt, _ surface: UInt32, _ x: CInt, _ y: CInt) {
    server(handle).positionWindow(client: fd, surface: surface, x: Int(x), y: Int(y))
}

/// The pointer: moves (0 absolute, 3 relative), presses (1) or releases (2) a button.
@_cdecl("vitrine_wlcs_pointer")
public func vitrineWLCSPointer(_ handle: UnsafeMutableRawPointer?, _ action: CInt, _ x: Double, _ y: Double, _ button: CInt) {
    server(handle).pointer(action: action, x: x, y: y, button: button)
}

/// A touch goes down (0), moves (1) or is lifted (2).
@_cdecl("vitrine_wlcs_touch")
public func vitrineWLCSTouch(_ handle: UnsafeMutableRawPointer?, _ id: CInt, _ phase: CInt, _ x: Double, _ y: Double) {
    server(handle).touch(id: id, phase: phase, x: x, y: y)
}

/// How many protocols the server offers.
@_cdecl("vitrine_wlcs_protocol_count")
public func vitrineWLCSProtocolCount(_ handle: UnsafeMutableRawPointer?) -> Int { IntegrationServer.protocols.count }

/// The name of protocol `index` (a C string that lives as long as the module) and its version.
@_cdecl("vitrine_wlcs_protocol")
public func vitrineWLCSProtocol(_ handle: UnsafeMutableRawPointer?, _ index: Int, _ version: UnsafeMutablePointer<UInt32>?) -> UnsafePointer<CChar>? {
    let entry = IntegrationServer.protocols[index]
    version?.pointee = UInt32(entry.version)
    return protocolNames[index]
}

/// The protocols' names as C strings, made once and kept.
nonisolated(unsafe) private let protocolNames: [UnsafePointer<CChar>] = IntegrationServer.protocols.map { UnsafePointer(strdup($0.name)!) }
