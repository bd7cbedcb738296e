import CX11
import Foundation

/// An X11 program of the tests' own, in process: one top-level window painted in four
/// coloured quadrants (repainted on each Expose at its current size), with a WM_CLASS and
/// title, speaking the WM_PROTOCOLS it is given; it opens override-redirect "menus" when
/// told, and records what the server sends it (presses, keys, client messages).
///
/// ```swift
/// let client = try X11TestClient(display: ":3", instance: "vitrine-test", className: "VitrineTest")
/// try client.waitUntilExposed()
/// let press = try client.wait { if case .buttonPress = $0 { true } else { false } }
/// ```
///
/// Nothing happens behind the test's back: the client reads its connection only inside
/// `pump` and `wait`, where it also answers `_NET_WM_PING` when `answersPings` is set.
public final class X11TestClient {
    /// What the server sent, as the tests look at it.
    public enum Event: Equatable, Sendable {
        case buttonPress(window: UInt32, x: Int, y: Int, button: Int)
        case keyPress(window: UInt32, keycode: Int)
        /// A WM_PROTOCOLS message: the protocol's atom name (WM_DELETE_WINDOW, _NET_WM_PING…).
        case protocolMessage(String)
        case exposed(window: UInt32)
        case configured(window: UInt32, width: Int, height: Int)
    }

    private let connection: OpaquePointer
    private let root: xcb_window_t
    private let visual: xcb_visualid_t
    private let gc: xcb_gcontext_t
    /// The top-level window.
    public let window: xcb_window_t
    /// The quadrants' colours: top left, top right, bottom left, bottom right (0xRRGGBB).
    public let colors: [UInt32]
    /// The window's size as the last ConfigureNotify gave it.
    public private(set) var size: (width: Int, height: Int)
    /// The override-redirect windows opened, and their colours.
    private var menus: [xcb_window_t: UInt32] = [:]
    /// Answer `_NET_WM_PING` while pumping.
    public var answersPings = true
    /// Everything received so far.
    public private(set) var events: [Event] = []
    private var atoms: [String: xcb_atom_t] = [:]

    /// Connects to `display` and maps a `width` × `height` window of WM_CLASS (`instance`,
    /// `className`) titled `title`, speaking `protocols` (atom names).
    public init(
        display: String, instance: String, className: String, title: String = "vitrine test", width: Int = 200, height: Int = 120,
        protocols: [String] = ["WM_DELETE_WINDOW", "_NET_WM_PING"], colors: [UInt32] = [0xE0_3030, 0x30_C040, 0x30_60E0, 0xF0_D020]
    ) throws {
        guard let c = xcb_connect(display, nil), xcb_connection_has_error(c) == 0 else { throw DaemonError("cannot connect to the X display \(display)") }
        connection = c
        let screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data.pointee
        (root, visual) = (screen.root, screen.root_visual)
        self.colors = colors
        size = (width, height)
        window = xcb_generate_id(c)
        var values: [UInt32] = [
            0x20_2020,
            XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_BUTTON_PRESS.rawValue
                | XCB_EVENT_MASK_KEY_PRESS.rawValue,
        ]
        _ = xcb_create_window(
            c, UInt8(XCB_COPY_FROM_PARENT), window, root, 0, 0, UInt16(width), UInt16(height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), visual,
            XCB_CW_BACK_PIXEL.rawValue | XCB_CW_EVENT_MASK.rawValue, &values)
        gc = xcb_generate_id(c)
        _ = xcb_create_gc(c, gc, window, 0, nil)
        var wmClass = Array(instance.utf8) + [0] + Array(className.utf8) + [0]
        _ = xcb_change_property(
            c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, XCB_ATOM_WM_CLASS.rawValue, XCB_ATOM_STRING.rawValue, 8, UInt32(wmClass.count), &wmClass)
        setTitle(title)
        var list = protocols.map(atom)
        _ = xcb_change_property(
            c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, atom("WM_PROTOCOLS"), XCB_ATOM_ATOM.rawValue, 32, UInt32(list.count), &list)
        var pid = UInt32(getpid())
        _ = xcb_change_property(c, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, atom("_NET_WM_PID"), XCB_ATOM_CARDINAL.rawValue, 32, 1, &pid)
        _ = xcb_map_window(c, window)
        _ = xcb_flush(c)
    }

    deinit { xcb_disconnect(connection) }

    /// Whether the connection still works (false once the server killed the client).
    public var isConnected: Bool { xcb_connection_has_error(connection) == 0 }

    /// The atom named `name`, interned once.
    public func atom(_ name: String) -> xcb_atom_t {
        if let known = atoms[name] { return known }
        let reply = xcb_intern_atom_reply(connection, xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name), nil)
        defer { free(reply) }
        let value = reply?.pointee.atom ?? 0
        atoms[name] = value
        return value
    }

    /// Sets WM_NAME (and does not flush: a flood of titles goes out in one write).
    public func setTitle(_ title: String, flush: Bool = false) {
        var bytes = Array(title.utf8)
        _ = xcb_change_property(
            connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, XCB_ATOM_WM_NAME.rawValue, XCB_ATOM_STRING.rawValue, 8, UInt32(bytes.count), &bytes)
        if flush { _ = xcb_flush(connection) }
    }

    /// Makes and destroys `count` windows of its own (unmapped), as a client that floods the
    /// window manager with its creations.
    public func churnWindows(_ count: Int) {
        for _ in 0..<count {
            let id = xcb_generate_id(connection)
            _ = xcb_create_window(
                connection, UInt8(XCB_COPY_FROM_PARENT), id, root, 0, 0, 10, 10, 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), visual, 0, nil)
            _ = xcb_destroy_window(connection, id)
        }
        _ = xcb_flush(connection)
    }

    /// Opens an override-redirect window (a menu) at (`x`, `y`) of the root, filled with
    /// `color`; its id.
    @discardableResult
    public func openMenu(x: Int, y: Int, width: Int, height: Int, color: UInt32) -> xcb_window_t {
        let menu = xcb_generate_id(connection)
        var values: [UInt32] = [color, 1, XCB_EVENT_MASK_EXPOSURE.rawValue | XCB_EVENT_MASK_BUTTON_PRESS.rawValue]
        _ = xcb_create_window(
            connection, UInt8(XCB_COPY_FROM_PARENT), menu, root, Int16(x), Int16(y), UInt16(width), UInt16(height), 0,
            UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), visual,
            XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue, &values)
        var transient = window
        _ = xcb_change_property(
            connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), menu, XCB_ATOM_WM_TRANSIENT_FOR.rawValue, XCB_ATOM_WINDOW.rawValue, 32, 1, &transient)
        _ = xcb_map_window(connection, menu)
        _ = xcb_flush(connection)
        menus[menu] = color
        return menu
    }

    /// Closes an override-redirect window opened before.
    public func closeMenu(_ menu: xcb_window_t) {
        _ = xcb_destroy_window(connection, menu)
        _ = xcb_flush(connection)
        menus[menu] = nil
    }

    /// Asks the window manager to add (or remove) `state` (`_NET_WM_STATE_FULLSCREEN`…) as
    /// EWMH says: a `_NET_WM_STATE` client message to the root.
    public func requestState(_ state: String, on: Bool) {
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.window = window
        event.type = atom("_NET_WM_STATE")
        event.data.data32 = (on ? 1 : 0, atom(state), 0, 1, 0)
        withUnsafeBytes(of: &event) { bytes in
            let message = (0..<32).map { CChar(bitPattern: $0 < bytes.count ? bytes[$0] : 0) }
            _ = xcb_send_event(connection, 0, root, XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue, message)
        }
        _ = xcb_flush(connection)
    }

    /// The window's property `name` as 32-bit items (atoms, windows, cardinals).
    public func property(_ name: String) -> [UInt32] {
        let cookie = xcb_get_property(connection, 0, window, atom(name), XCB_GET_PROPERTY_TYPE_ANY.rawValue, 0, 64)
        guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return [] }
        defer { free(reply) }
        guard reply.pointee.format == 32, let value = xcb_get_property_value(reply) else { return [] }
        return Array(UnsafeBufferPointer(start: value.assumingMemoryBound(to: UInt32.self), count: Int(xcb_get_property_value_length(reply)) / 4))
    }

    /// Destroys the top-level window, as a program does after WM_DELETE_WINDOW.
    public func destroyWindow() {
        _ = xcb_destroy_window(connection, window)
        _ = xcb_flush(connection)
    }

    /// Reads what arrived (for at most `timeout` seconds while nothing does), repainting
    /// on Expose and answering pings; returns the first event `matches` takes, else nil.
    @discardableResult
    public func wait(timeout: Double = 10, for matches: (Event) -> Bool = { _ in false }) -> Event? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            while let raw = xcb_poll_for_event(connection) {
                defer { free(raw) }
                guard let event = take(UnsafeRawPointer(raw)) else { continue }
                events.append(event)
                if matches(event) { return event }
            }
            guard isConnected else { return nil }
            var ready = pollfd(fd: xcb_get_file_descriptor(connection), events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, Int32(max(0, min(50, deadline.timeIntervalSinceNow * 1000))))
        } while Date() < deadline
        return nil
    }

    /// Reads for `seconds`, answering what comes.
    public func pump(for seconds: Double) { _ = wait(timeout: seconds) }

    /// Waits until the window was exposed (and painted) at least once.
    public func waitUntilExposed(timeout: Double = 20) throws {
        if events.contains(.exposed(window: window)) { return }
        guard wait(timeout: timeout, for: { $0 == .exposed(window: self.window) }) != nil else {
            throw DaemonError("the X11 test window was not exposed within \(timeout) s (events: \(events))")
        }
    }

    private func take(_ raw: UnsafeRawPointer) -> Event? {
        switch Int32(raw.load(as: xcb_generic_event_t.self).response_type & 0x7f) {
        case XCB_EXPOSE:
            let event = raw.load(as: xcb_expose_event_t.self)
            paint(event.window)
            return .exposed(window: event.window)
        case XCB_CONFIGURE_NOTIFY:
            let event = raw.load(as: xcb_configure_notify_event_t.self)
            guard event.window == window else { return nil }
            size = (Int(event.width), Int(event.height))
            paint(window)
            return .configured(window: window, width: size.width, height: size.height)
        case XCB_BUTTON_PRESS:
            let event = raw.load(as: xcb_button_press_event_t.self)
            return .buttonPress(window: event.event, x: Int(event.event_x), y: Int(event.event_y), button: Int(event.detail))
        case XCB_KEY_PRESS:
            let event = raw.load(as: xcb_key_press_event_t.self)
            return .keyPress(window: event.event, keycode: Int(event.detail))
        case XCB_CLIENT_MESSAGE:
            var event = raw.load(as: xcb_client_message_event_t.self)
            guard event.type == atom("WM_PROTOCOLS") else { return nil }
            let name = atoms.first { $0.value == event.data.data32.0 }?.key ?? "atom \(event.data.data32.0)"
            if event.data.data32.0 == atom("_NET_WM_PING"), answersPings {
                // EWMH: the ping goes back to the root, with the root as its window.
                event.window = root
                withUnsafeBytes(of: &event) { bytes in
                    let message = (0..<32).map { CChar(bitPattern: $0 < bytes.count ? bytes[$0] : 0) }
                    _ = xcb_send_event(
                        connection, 0, root, XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue, message)
                }
                _ = xcb_flush(connection)
            }
            return .protocolMessage(name)
        default:
            return nil
        }
    }

    /// Paints the window's quadrants, or a menu's colour with a lighter top half (its first
    /// item).
    private func paint(_ target: xcb_window_t) {
        if let color = menus[target] {
            fill(target, [(0, 0, 400, 400, color)])
            return
        }
        guard target == window else { return }
        let (w, h) = size
        let (hw, hh) = (w / 2, h / 2)
        fill(window, [(0, 0, hw, hh, colors[0]), (hw, 0, w - hw, hh, colors[1]), (0, hh, hw, h - hh, colors[2]), (hw, hh, w - hw, h - hh, colors[3])])
    }

    private func fill(_ drawable: xcb_window_t, _ rects: [(Int, Int, Int, Int, UInt32)]) {
        for (x, y, w, h, color) in rects {
            var foreground = color
            _ = xcb_change_gc(connection, gc, XCB_GC_FOREGROUND.rawValue, &foreground)
            var rect = xcb_rectangle_t(x: Int16(x), y: Int16(y), width: UInt16(w), height: UInt16(h))
            _ = xcb_poly_fill_rectangle(connection, drawable, gc, 1, &rect)
        }
        _ = xcb_flush(connection)
    }
}
