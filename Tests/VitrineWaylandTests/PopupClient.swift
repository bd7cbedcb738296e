import CWaylandClient
import Foundation
import VitrineDaemonTestSupport
@testable import VitrineOutput

/// A Wayland client written for the popup tests with libwayland-client: a toplevel of
/// solid colour, popups placed by positioners, subsurfaces, input regions; every event it
/// hears is recorded (`events`), pings are answered and configures acknowledged.
final class PopupClient: TestWaylandClient {
    /// An event: the interface and id of the object it came to, its name, its numbers
    /// (ints, uints and fixed as doubles) and the ids of the objects it names.
    struct Event: CustomStringConvertible {
        var interface: String, object: UInt32, name: String
        var values: [Double] = [], objects: [UInt32] = []
        var description: String { "\(interface)#\(object).\(name)\(values)\(objects.isEmpty ? "" : " objects \(objects)")" }
    }

    var compositor: OpaquePointer? { global("wl_compositor") }
    var shm: OpaquePointer? { global("wl_shm") }
    var subcompositor: OpaquePointer? { global("wl_subcompositor") }
    var wmBase: OpaquePointer? { global("xdg_wm_base") }
    var seat: OpaquePointer? { global("wl_seat") }
    private(set) var pointer: OpaquePointer?, touch: OpaquePointer?, keyboard: OpaquePointer?
    private(set) var events: [Event] = []

    init(_ path: String) throws {
        try super.init(path, binding: ["wl_shm": 1, "wl_compositor": 4, "wl_subcompositor": 1, "xdg_wm_base": 5, "wl_seat": 7])
        listen(wmBase)
        pointer = listen(wlSeatGetPointer(seat))
        touch = listen(wlSeatGetTouch(seat))
        keyboard = listen(wlSeatGetKeyboard(seat))
        wl_display_roundtrip(display)
    }

    /// Records `proxy`'s events (and answers pings and configures).
    @discardableResult
    func listen(_ proxy: OpaquePointer?) -> OpaquePointer? {
        guard let proxy else { return nil }
        wl_proxy_add_dispatcher(proxy, popupClientDispatch, Unmanaged.passUnretained(self).toOpaque(), nil)
        return proxy
    }

    func record(_ event: Event, proxy: OpaquePointer, fd: CInt?) {
        if let fd { close(fd) }
        events.append(event)
        switch (event.interface, event.name) {
        case ("xdg_wm_base", "ping"): waylandRequest(proxy, XdgWmBaseRequest.pong.rawValue, [wl_argument(u: UInt32(event.values[0]))])
        case ("xdg_surface", "configure"): waylandRequest(proxy, XdgSurfaceRequest.ack_configure.rawValue, [wl_argument(u: UInt32(event.values[0]))])
        default: break
        }
    }

    static func id(_ proxy: OpaquePointer?) -> UInt32 { proxy.map { wl_proxy_get_id($0) } ?? 0 }

    /// The events `object` heard named `name`.
    func events(_ name: String, of object: OpaquePointer?) -> [Event] {
        let id = Self.id(object)
        return events.filter { $0.object == id && $0.name == name }
    }

    /// Round trips until `condition` holds (true) or `timeout` passes (false).
    @discardableResult
    func wait(timeout: Double = 5, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            guard wl_display_roundtrip(display) >= 0 else { return condition() }
            if condition() { return true }
            usleep(20_000)
        } while Date() < deadline
        return condition()
    }

    // MARK: Requests

    /// A `width` × `height` buffer of one premultiplied ARGB colour.
    func buffer(_ width: Int, _ height: Int, _ argb: UInt32) -> OpaquePointer? {
        try? buffer(width, height, name: "vitrine-popup-test") { $0.update(repeating: argb) }
    }

    /// Shows a `width` × `height` picture of `argb` on `surface`.
    func show(_ surface: OpaquePointer?, _ width: Int, _ height: Int, _ argb: UInt32) {
        wlSurfaceAttach(surface, buffer(width, height, argb), 0, 0)
        wlSurfaceDamage(surface, 0, 0, Int32(width), Int32(height))
        wlSurfaceCommit(surface)
        wl_display_flush(display)
    }

    /// An xdg surface of a new wl_surface.
    func xdgSurface() -> (surface: OpaquePointer?, xdg: OpaquePointer?) {
        let surface = wlCompositorCreateSurface(compositor)
        let xdg = waylandRequest(
            wmBase!, XdgWmBaseRequest.get_xdg_surface.rawValue, [wl_argument(n: 0), wl_argument(o: surface)], creating: Self.xdg["xdg_surface"])
        return (surface, listen(xdg))
    }

    /// A mapped toplevel with app id `appID` showing `width` × `height` of `argb`.
    func toplevel(appID: String, _ width: Int, _ height: Int, _ argb: UInt32) -> (surface: OpaquePointer?, xdg: OpaquePointer?) {
        let (surface, xdg) = xdgSurface()
        let toplevel = listen(waylandRequest(xdg!, XdgSurfaceRequest.get_toplevel.rawValue, [wl_argument(n: 0)], creating: Self.xdg["xdg_toplevel"]))
        appID.withCString { _ = waylandRequest(toplevel!, XdgToplevelRequest.set_app_id.rawValue, [wl_argument(s: $0)]) }
        wlSurfaceCommit(surface)
        wait { !events("configure", of: xdg).isEmpty }
        show(surface, width, height, argb)
        wl_display_roundtrip(display)
        return (surface, xdg)
    }

    /// A positioner with these rules (nil leaves a rule unset).
    func positioner(
        size: (Int32, Int32)?, anchorRect: (Int32, Int32, Int32, Int32)?, anchor: UInt32 = 0, gravity: UInt32 = 0, adjustment: UInt32 = 0,
        offset: (Int32, Int32) = (0, 0)
    ) -> OpaquePointer? {
        let positioner = waylandRequest(wmBase!, XdgWmBaseRequest.create_positioner.rawValue, [wl_argument(n: 0)], creating: Self.xdg["xdg_positioner"])!
        if let size { waylandRequest(positioner, XdgPositionerRequest.set_size.rawValue, [wl_argument(i: size.0), wl_argument(i: size.1)]) }
        if let r = anchorRect {
            waylandRequest(
                positioner, XdgPositionerRequest.set_anchor_rect.rawValue, [wl_argument(i: r.0), wl_argument(i: r.1), wl_argument(i: r.2), wl_argument(i: r.3)])
        }
        waylandRequest(positioner, XdgPositionerRequest.set_anchor.rawValue, [wl_argument(u: anchor)])
        waylandRequest(positioner, XdgPositionerRequest.set_gravity.rawValue, [wl_argument(u: gravity)])
        waylandRequest(positioner, XdgPositionerRequest.set_constraint_adjustment.rawValue, [wl_argument(u: adjustment)])
        waylandRequest(positioner, XdgPositionerRequest.set_offset.rawValue, [wl_argument(i: offset.0), wl_argument(i: offset.1)])
        return positioner
    }

    /// A popup of `parent` (an xdg surface) placed by `positioner`, with a grab on
    /// `grab`'s serial when given; committed once (it is configured).
    func popup(parent: OpaquePointer?, positioner: OpaquePointer?, grab: UInt32? = nil) -> (surface: OpaquePointer?, xdg: OpaquePointer?, popup: OpaquePointer?)
    {
        let (surface, xdg) = xdgSurface()
        let popup = listen(
            waylandRequest(
                xdg!, XdgSurfaceRequest.get_popup.rawValue, [wl_argument(n: 0), wl_argument(o: parent), wl_argument(o: positioner)],
                creating: Self.xdg["xdg_popup"]))
        if let grab { waylandRequest(popup!, XdgPopupRequest.grab.rawValue, [wl_argument(o: seat), wl_argument(u: grab)]) }
        wlSurfaceCommit(surface)
        wait(timeout: 2) { !events("configure", of: xdg).isEmpty || !events("popup_done", of: popup).isEmpty }
        return (surface, xdg, popup)
    }

    /// The place (x, y, width, height) of the popup's last configure.
    func place(of popup: OpaquePointer?) -> [Double]? { events("configure", of: popup).last?.values }

    func destroy(popup: OpaquePointer?, xdg: OpaquePointer?, surface: OpaquePointer?) {
        waylandRequest(popup!, XdgPopupRequest.destroy.rawValue, destroying: true)
        waylandRequest(xdg!, XdgSurfaceRequest.destroy.rawValue, destroying: true)
        wlSurfaceDestroy(surface)
        wl_display_flush(display)
    }
}

/// Decodes an event by its message's signature and hands it to the client.
private let popupClientDispatch: wl_dispatcher_func_t = { implementation, target, _, message, arguments in
    guard let implementation, let target, let message, let arguments else { return 0 }
    let client = Unmanaged<PopupClient>.fromOpaque(implementation).takeUnretainedValue()
    let proxy = OpaquePointer(target)
    var event = PopupClient.Event(
        interface: String(cString: wl_proxy_get_class(proxy)), object: wl_proxy_get_id(proxy), name: String(cString: message.pointee.name))
    var fd: CInt?
    var index = 0
    for character in String(cString: message.pointee.signature) where !character.isNumber && character != "?" {
        let a = arguments[index]
        switch character {
        case "i": event.values.append(Double(a.i))
        case "u": event.values.append(Double(a.u))
        case "f": event.values.append(wl_fixed_to_double(a.f))
        case "o": event.objects.append(a.o.map { wl_proxy_get_id($0) } ?? 0)
        case "n": event.objects.append(a.o.map { wl_proxy_get_id($0) } ?? 0)
        case "h": fd = a.h
        default: break
        }
        index += 1
    }
    client.record(event, proxy: proxy, fd: fd)
    return 0
}
