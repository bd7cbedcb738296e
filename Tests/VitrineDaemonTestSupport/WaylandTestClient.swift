import CWaylandClient
import Foundation
import VitrineOutput
import WaylandDescription

/// A wayland-client connection for the tests' clients: the globals they ask for bound,
/// xdg toplevels made and configured, wl_shm buffers of given pixels, events dispatched
/// with a timeout and the protocol error read. Subclasses add what their tests need.
open class TestWaylandClient {
    public static let xdg = WaylandInterfaceTable(WaylandProtocol.xdgShell)
    public static let timing = WaylandInterfaceTable(WaylandProtocol.presentationTime)
    public static let viewporter = WaylandInterfaceTable(WaylandProtocol.viewporter)
    public static let fractionalScale = WaylandInterfaceTable(WaylandProtocol.fractionalScaleV1)
    public static let decoration = WaylandInterfaceTable(WaylandProtocol.xdgDecorationUnstableV1)
    public let display: OpaquePointer
    public let registry: OpaquePointer
    /// The globals bound, each interface's in the order the compositor told them.
    public private(set) var bound: [String: [OpaquePointer]] = [:]
    /// The globals told (name and version), to bind later.
    private var told: [String: UInt32] = [:]
    private var toldVersions: [String: UInt32] = [:]
    private var listeners: [WaylandListener] = []
    private var pools: [ShmPool] = []

    /// The interface of the global `name`.
    public static func interface(_ name: String) -> UnsafePointer<wl_interface>? {
        switch name {
        case "wl_compositor": vitrine_wl_compositor_interface()
        case "wl_shm": vitrine_wl_shm_interface()
        case "wl_subcompositor": vitrine_wl_subcompositor_interface()
        case "wl_seat": vitrine_wl_seat_interface()
        case "wl_output": vitrine_wl_output_interface()
        case "xdg_wm_base": xdg[name]
        case "wp_presentation": timing[name]
        case "wp_viewporter": viewporter[name]
        case "wp_fractional_scale_manager_v1": fractionalScale[name]
        case "zxdg_decoration_manager_v1": decoration[name]
        default: nil
        }
    }

    /// Connects to the socket `path` and binds the globals `versions` names, at those
    /// versions, in one round trip; all must be there but the `optional` ones.
    public init(_ path: String, binding versions: [String: UInt32], optional: [String] = []) throws {
        guard let display = wl_display_connect(path) else { throw DaemonError("cannot connect to \(path)") }
        self.display = display
        guard let registry = wlDisplayGetRegistry(display) else { throw DaemonError("no wl_registry") }
        self.registry = registry
        listen(registry) { [unowned self] opcode, args in
            guard opcode == 0, let name = args[1].s else { return }
            let interface = String(cString: name)
            told[interface] = args[0].u
            toldVersions[interface] = args[2].u
            guard let version = versions[interface], let table = Self.interface(interface),
                let proxy = wlRegistryBind(registry, args[0].u, table, version)
            else { return }
            bound[interface, default: []].append(proxy)
        }
        wl_display_roundtrip(display)
        let missing = versions.keys.filter { bound[$0] == nil && !optional.contains($0) }.sorted()
        guard missing.isEmpty else { throw DaemonError("the compositor has no \(missing.joined(separator: ", "))") }
    }

    deinit { wl_display_disconnect(display) }

    /// The version of the global `name` the compositor told, if it told one.
    public func offeredVersion(of name: String) -> UInt32? { toldVersions[name] }

    /// The first global of `name` bound.
    public func global(_ name: String) -> OpaquePointer? { bound[name]?.first }

    /// Binds the global `name` the compositor told at connection (with `interface`, when
    /// the client library's own table is older than `version`).
    public func bind(_ name: String, version: UInt32, interface: UnsafePointer<wl_interface>? = nil) throws -> OpaquePointer {
        guard let id = told[name], let interface = interface ?? Self.interface(name),
            let proxy = wlRegistryBind(registry, id, interface, version)
        else { throw DaemonError("the compositor has no \(name)") }
        bound[name, default: []].append(proxy)
        return proxy
    }

    /// Gives `proxy`'s events to `handle` as long as the client lives.
    public func listen(_ proxy: OpaquePointer, _ handle: @escaping (UInt32, UnsafeMutablePointer<wl_argument>) -> Void) {
        let listener = WaylandListener(handle)
        listeners.append(listener)
        listener.listen(to: proxy)
    }

    /// Makes `surface` an xdg toplevel of app id `appID` (configures acknowledged), commits
    /// it and waits up to 20 round trips for its first configure.
    public func makeToplevel(_ surface: OpaquePointer?, appID: String) throws -> (xdgSurface: OpaquePointer, toplevel: OpaquePointer) {
        guard let wmBase = global("xdg_wm_base"),
            let xdgSurface = waylandRequest(
                wmBase, XdgWmBaseRequest.get_xdg_surface.rawValue, [wl_argument(n: 0), wl_argument(o: surface)], creating: Self.xdg["xdg_surface"]),
            let toplevel = waylandRequest(xdgSurface, XdgSurfaceRequest.get_toplevel.rawValue, [wl_argument(n: 0)], creating: Self.xdg["xdg_toplevel"])
        else { throw DaemonError("cannot make an xdg toplevel") }
        var configured = false
        listen(xdgSurface) { opcode, args in
            guard opcode == XdgSurfaceEvent.configure.rawValue else { return }
            waylandRequest(xdgSurface, XdgSurfaceRequest.ack_configure.rawValue, [wl_argument(u: args[0].u)])
            configured = true
        }
        _ = appID.withCString { waylandRequest(toplevel, XdgToplevelRequest.set_app_id.rawValue, [wl_argument(s: $0)]) }
        wlSurfaceCommit(surface)
        for _ in 0..<20 where !configured { wl_display_roundtrip(display) }
        guard configured else { throw DaemonError("the compositor did not configure the toplevel") }
        return (xdgSurface, toplevel)
    }

    /// Answers `xdg_wm_base.ping` with its serial.
    public func answerPings() {
        guard let wmBase = global("xdg_wm_base") else { return }
        listen(wmBase) { opcode, args in
            if opcode == XdgWmBaseEvent.ping.rawValue { waylandRequest(wmBase, XdgWmBaseRequest.pong.rawValue, [wl_argument(u: args[0].u)]) }
        }
    }

    /// A `width` × `height` buffer of `format` in a pool of its own, filled by `fill`
    /// (given its pixels); the pool's file is kept as long as the client.
    public func buffer(
        _ width: Int, _ height: Int, format: wl_shm_format = WL_SHM_FORMAT_ARGB8888, name: String,
        fill: (UnsafeMutableBufferPointer<UInt32>) -> Void
    ) throws -> OpaquePointer {
        let pool = try ShmPool(shm: global("wl_shm"), bytes: width * height * 4, name: name)
        pools.append(pool)
        fill(UnsafeMutableBufferPointer(start: pool.pixels, count: width * height))
        defer { wlShmPoolDestroy(pool.proxy) }
        return try pool.buffer(offset: 0, width: width, height: height, format: format)
    }

    public func roundtrip() { wl_display_roundtrip(display) }

    /// Reads and handles events until `done` holds; throws after `timeout` seconds, or when
    /// the connection fails.
    public func dispatch(until done: () -> Bool, what: String, timeout: Double = 5) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !done() {
            guard Date() < deadline else { throw DaemonError("no \(what) within \(timeout) s") }
            wl_display_flush(display)
            var ready = pollfd(fd: wl_display_get_fd(display), events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 50) > 0 { wl_display_dispatch(display) }
            guard wl_display_get_error(display) == 0 else { throw DaemonError("the connection failed: error \(wl_display_get_error(display))") }
        }
    }

    /// The protocol error the compositor sent (its code and interface), after a round trip.
    public func protocolError() -> (code: UInt32, interface: String)? { waylandProtocolError(display) }
}

/// A wl_shm pool in an anonymous file mapped here; unmapped and closed when let go (its
/// proxy is the owner's to destroy).
public final class ShmPool {
    public let proxy: OpaquePointer
    public let file: Int32
    public let bytes: Int
    public let memory: UnsafeMutableRawPointer

    public init(shm: OpaquePointer?, bytes: Int, name: String) throws {
        let file = memfd_create(name, 1)
        guard file >= 0 else { throw DaemonError("memfd_create failed") }
        ftruncate(file, off_t(bytes))
        guard let memory = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0), memory != MAP_FAILED else {
            close(file)
            throw DaemonError("cannot map a pool of \(bytes) bytes")
        }
        guard let proxy = wlShmCreatePool(shm, file, Int32(bytes)) else {
            munmap(memory, bytes)
            close(file)
            throw DaemonError("cannot make a pool of \(bytes) bytes")
        }
        (self.proxy, self.file, self.bytes, self.memory) = (proxy, file, bytes, memory)
    }

    deinit {
        munmap(memory, bytes)
        close(file)
    }

    public var pixels: UnsafeMutablePointer<UInt32> { memory.assumingMemoryBound(to: UInt32.self) }

    /// A buffer of the pool's memory from `offset`, rows of `width` pixels.
    public func buffer(offset: Int, width: Int, height: Int, format: wl_shm_format) throws -> OpaquePointer {
        guard let buffer = wlShmPoolCreateBuffer(proxy, Int32(offset), Int32(width), Int32(height), Int32(width * 4), format.rawValue)
        else { throw DaemonError("no buffer") }
        return buffer
    }
}

/// The protocol error the compositor sent `display` (its code and interface), after a
/// round trip.
public func waylandProtocolError(_ display: OpaquePointer) -> (code: UInt32, interface: String)? {
    wl_display_roundtrip(display)
    guard wl_display_get_error(display) == EPROTO else { return nil }
    var interface: UnsafePointer<wl_interface>?
    var object: UInt32 = 0
    let code = wl_display_get_protocol_error(display, &interface, &object)
    return (code, interface.map { String(cString: $0.pointee.name) } ?? "")
}
