import CX11
import Glibc
import VitrineRaster
import VitrineSystem

/// Frames in a window on an X server, for layout work on a desktop: `--backend x11`.
///
/// A window titled "Vitrine" of the output's size; frames are drawn into system memory and
/// the damaged parts sent to the server through a MIT-SHM segment (or, where the server
/// cannot attach one, a remote display, in `PutImage` requests). A frame counts as shown
/// when the server has read it (MIT-SHM's completion event) or at once without MIT-SHM; the
/// daemon's frame pacer keeps the rate at the configured refresh. Resizing the window
/// resizes the output (`.resized`), closing it (WM_DELETE_WINDOW) reports `.closed`, and
/// its pointer and keys come as `WindowEvent`s with the server's keymap. The connection's
/// descriptor is read on the daemon's event loop; nothing blocks but the round trips at
/// start.
public final class X11Output: WindowOutput {
    public let name: String
    public private(set) var mode: OutputMode
    public var modes: [OutputMode] { [mode] }
    public var frameDone: (() -> Void)?
    public var events: ((WindowEvent) -> Void)?
    public private(set) var presentedFrames = 0
    public private(set) var shownFrame: ShownFrame?
    public let keymap: String?
    /// Whether frames go through a shared-memory segment (false: in requests).
    public var usesSharedMemory: Bool { image.usesSharedMemory }
    /// The window's id, for tools (`xdotool`, `xwd -id`).
    public let window: UInt32

    private let connection: OpaquePointer
    private let gc: xcb_gcontext_t
    private let depth: UInt8
    private let protocolsAtom: xcb_atom_t, deleteAtom: xcb_atom_t
    private let completionType: UInt8?
    private var frame: WindowFrame
    private var image: X11Image!
    /// The frame sent and not yet read by the server (MIT-SHM).
    private var inFlight: Int?
    private weak var loop: EventLoop?
    private var closed = false
    private let log: (String) -> Void

    /// Opens a window of `width`×`height` on `display` (nil: `DISPLAY`).
    ///
    /// - Parameters:
    ///   - sharedMemory: false sends pixels in requests even where MIT-SHM works.
    /// - Throws: `OutputError` saying why the server could not be reached or used, or which
    ///   library to install.
    public init(
        width: Int, height: Int, refreshRate: Double = 60, display: String? = nil, title: String = "Vitrine", sharedMemory: Bool = true,
        log: @escaping (String) -> Void = { _ in }
    ) throws(OutputError) {
        frame = try WindowFrame(width: width, height: height)
        let shown = display ?? getenv("DISPLAY").map { String(cString: $0) }
        guard let shown, !shown.isEmpty else {
            throw OutputError("the x11 backend needs an X display: DISPLAY is not set (run it in a desktop session, or under xvfb-run)")
        }
        do { try FeatureLibraries("the x11 backend", vitrine_x11_load).load() } catch { throw OutputError(error.message) }
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(shown, &screenNumber), xcb_connection_has_error(connection) == 0 else {
            throw OutputError("cannot connect to the X server on display \(shown): is it running, and may this user use it (xhost, XAUTHORITY)?")
        }
        var iterator = xcb_setup_roots_iterator(xcb_get_setup(connection))
        for _ in 0..<max(0, screenNumber) where iterator.rem > 1 { xcb_screen_next(&iterator) }
        guard let screenPointer = iterator.data, Self.isTrueColor24(connection, screenPointer) else {
            xcb_disconnect(connection)
            throw OutputError("the X server on \(shown) has no 24-bit TrueColor root visual (xdpyinfo shows its visuals); start it with depth 24")
        }
        let screen = screenPointer.pointee
        self.connection = connection
        self.log = log
        name = "x11:\(shown)"
        mode = OutputMode(width: width, height: height, refreshRate: refreshRate)
        depth = screen.root_depth
        window = xcb_generate_id(connection)
        let eventMask: [xcb_event_mask_t] = [
            XCB_EVENT_MASK_EXPOSURE, XCB_EVENT_MASK_STRUCTURE_NOTIFY, XCB_EVENT_MASK_KEY_PRESS, XCB_EVENT_MASK_KEY_RELEASE,
            XCB_EVENT_MASK_BUTTON_PRESS, XCB_EVENT_MASK_BUTTON_RELEASE, XCB_EVENT_MASK_POINTER_MOTION, XCB_EVENT_MASK_FOCUS_CHANGE,
        ]
        let values: [UInt32] = [screen.black_pixel, eventMask.reduce(0) { $0 | $1.rawValue }]
        xcb_create_window(
            connection, depth, window, screen.root, 0, 0, UInt16(width), UInt16(height), 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue),
            screen.root_visual, XCB_CW_BACK_PIXEL.rawValue | XCB_CW_EVENT_MASK.rawValue, values)
        let atoms = Self.intern(connection, ["WM_PROTOCOLS", "WM_DELETE_WINDOW", "_NET_WM_NAME", "UTF8_STRING"])
        (protocolsAtom, deleteAtom) = (atoms[0], atoms[1])
        let replace = UInt8(XCB_PROP_MODE_REPLACE.rawValue)
        let titleBytes = Array(title.utf8)
        xcb_change_property(connection, replace, window, XCB_ATOM_WM_NAME.rawValue, XCB_ATOM_STRING.rawValue, 8, UInt32(titleBytes.count), titleBytes)
        xcb_change_property(connection, replace, window, atoms[2], atoms[3], 8, UInt32(titleBytes.count), titleBytes)
        let windowClass = Array("vitrined\0Vitrine\0".utf8)
        xcb_change_property(connection, replace, window, XCB_ATOM_WM_CLASS.rawValue, XCB_ATOM_STRING.rawValue, 8, UInt32(windowClass.count), windowClass)
        var delete = deleteAtom
        xcb_change_property(connection, replace, window, protocolsAtom, XCB_ATOM_ATOM.rawValue, 32, 1, &delete)
        gc = xcb_generate_id(connection)
        var noExposures: UInt32 = 0
        xcb_create_gc(connection, gc, window, XCB_GC_GRAPHICS_EXPOSURES.rawValue, &noExposures)
        let shared = sharedMemory && X11Image.serverHasSharedMemory(connection)
        completionType = shared ? X11Image.completionEventType(connection) : nil
        keymap = Self.serverKeymap(connection)
        image = X11Image(connection: connection, window: window, gc: gc, depth: depth, for: frame.surface, shared: shared)
        xcb_map_window(connection, window)
        xcb_flush(connection)
        log("x11: window \(window) on \(shown), \(width)x\(height), " + (image.usesSharedMemory ? "MIT-SHM" : "pixels in requests (no MIT-SHM)"))
    }

    deinit { close() }

    /// Whether the screen's root visual is 24-bit TrueColor with 8 bits a channel in
    /// 32-bit pixels (XRGB8888, the surfaces' layout without alpha).
    /// (`screen` points into the connection's setup, where its depths and visuals follow it.)
    private static func isTrueColor24(_ connection: OpaquePointer, _ screenPointer: UnsafeMutablePointer<xcb_screen_t>) -> Bool {
        let screen = screenPointer.pointee
        guard screen.root_depth == 24 else { return false }
        var formats = xcb_setup_pixmap_formats_iterator(xcb_get_setup(connection))
        var bitsPerPixel: UInt8 = 0
        while formats.rem > 0 {
            if formats.data.pointee.depth == 24 { bitsPerPixel = formats.data.pointee.bits_per_pixel }
            xcb_format_next(&formats)
        }
        guard bitsPerPixel == 32 else { return false }
        var depths = xcb_screen_allowed_depths_iterator(screenPointer)
        while depths.rem > 0 {
            var visuals = xcb_depth_visuals_iterator(depths.data)
            while visuals.rem > 0 {
                let visual = visuals.data.pointee
                if visual.visual_id == screen.root_visual {
                    return visual._class == UInt8(XCB_VISUAL_CLASS_TRUE_COLOR.rawValue) && visual.red_mask == 0xFF_0000 && visual.green_mask == 0xFF00
                        && visual.blue_mask == 0xFF
                }
                xcb_visualtype_next(&visuals)
            }
            xcb_depth_next(&depths)
        }
        return false
    }

    private static func intern(_ connection: OpaquePointer, _ names: [String]) -> [xcb_atom_t] {
        let cookies = names.map { xcb_intern_atom(connection, 0, UInt16($0.utf8.count), $0) }
        return cookies.map { cookie in
            let reply = xcb_intern_atom_reply(connection, cookie, nil)
            defer { free(reply) }
            return reply?.pointee.atom ?? 0
        }
    }

    /// The server's keymap in xkb's text format, through XKB (xkbcommon-x11); nil without it.
    private static func serverKeymap(_ connection: OpaquePointer) -> String? {
        guard
            xkb_x11_setup_xkb_extension(
                connection, UInt16(XKB_X11_MIN_MAJOR_XKB_VERSION), UInt16(XKB_X11_MIN_MINOR_XKB_VERSION), XKB_X11_SETUP_XKB_EXTENSION_NO_FLAGS, nil, nil,
                nil, nil) != 0
        else { return nil }
        let device = xkb_x11_get_core_keyboard_device_id(connection)
        guard device >= 0, let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { return nil }
        defer { xkb_context_unref(context) }
        guard let keymap = xkb_x11_keymap_new_from_device(context, connection, device, XKB_KEYMAP_COMPILE_NO_FLAGS) else { return nil }
        defer { xkb_keymap_unref(keymap) }
        guard let text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }

    // MARK: Frames

    public func acquireBuffer() throws -> OutputBuffer { try frame.acquire(closed: closed, name: name) }

    public func present(damage: [PixelRect]) throws {
        try frame.present()
        presentedFrames += 1
        let shared = image.usesSharedMemory && completionType != nil
        image.put(damage, of: frame.surface, notify: shared)
        xcb_flush(connection)
        if shared {
            inFlight = presentedFrames
        } else {
            shownFrame = ShownFrame(number: presentedFrames, time: Double(EventLoop.monotonicNanoseconds()) / 1e9)
            frameDone?()
        }
        // Writing may have read events in: they would wait for the next byte otherwise.
        handleQueuedEvents()
    }

    public func attach(to loop: EventLoop) {
        self.loop = loop
        do {
            try loop.watch(xcb_get_file_descriptor(connection), for: .readable) { [weak self] _ in self?.readEvents() }
        } catch {
            log("x11: cannot watch the X connection: \(error)")
        }
        loop.schedule(after: 0) { [weak self] in self?.handleQueuedEvents() }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        loop?.unwatch(xcb_get_file_descriptor(connection))
        image = nil
        xcb_free_gc(connection, gc)
        xcb_destroy_window(connection, window)
        xcb_flush(connection)
        xcb_disconnect(connection)
    }

    // MARK: Events

    private func readEvents() {
        while !closed, let event = xcb_poll_for_event(connection) {
            handle(event)
            free(event)
        }
        guard !closed else { return }
        if xcb_connection_has_error(connection) != 0 {
            loop?.unwatch(xcb_get_file_descriptor(connection))
            events?(.closed("the connection to the X server (\(name.dropFirst(4))) was lost"))
        }
    }

    private func handleQueuedEvents() {
        while !closed, let event = xcb_poll_for_queued_event(connection) {
            handle(event)
            free(event)
        }
    }

    private func handle(_ event: UnsafeMutablePointer<xcb_generic_event_t>) {
        let type = event.pointee.response_type & 0x7F
        let raw = UnsafeRawPointer(event)
        let time = Double(EventLoop.monotonicNanoseconds()) / 1e9
        switch Int32(type) {
        case 0:
            let error = raw.load(as: xcb_generic_error_t.self)
            log("x11: the server refused a request: error \(error.error_code), request \(error.major_code).\(error.minor_code)")
        case XCB_EXPOSE:
            let e = raw.load(as: xcb_expose_event_t.self)
            if frame.drawn { image.refresh(PixelRect(x: Int(e.x), y: Int(e.y), width: Int(e.width), height: Int(e.height)), of: frame.surface) }
            if e.count == 0 { xcb_flush(connection) }
        case XCB_CONFIGURE_NOTIFY:
            let e = raw.load(as: xcb_configure_notify_event_t.self)
            guard e.window == window else { return }
            resize(width: Int(e.width), height: Int(e.height))
        case XCB_CLIENT_MESSAGE:
            let e = raw.load(as: xcb_client_message_event_t.self)
            if e.type == protocolsAtom, e.data.data32.0 == deleteAtom { events?(.closed("the window was closed")) }
        case XCB_KEY_PRESS, XCB_KEY_RELEASE:
            let e = raw.load(as: xcb_key_press_event_t.self)
            guard e.detail >= 8 else { return }
            events?(.key(time: time, code: UInt32(e.detail) - 8, pressed: Int32(type) == XCB_KEY_PRESS))
        case XCB_BUTTON_PRESS, XCB_BUTTON_RELEASE:
            let e = raw.load(as: xcb_button_press_event_t.self)
            let (x, y, pressed) = (Double(e.event_x), Double(e.event_y), Int32(type) == XCB_BUTTON_PRESS)
            if let button = WindowEvent.evdevButton(x11: Int(e.detail)) {
                events?(.pointerButton(time: time, button: button, pressed: pressed, x: x, y: y))
            } else if pressed, (4...7).contains(e.detail) {
                let step: [(Double, Double)] = [(0, -15), (0, 15), (-15, 0), (15, 0)]
                let (dx, dy) = step[Int(e.detail) - 4]
                events?(.pointerAxis(time: time, dx: dx, dy: dy, x: x, y: y))
            }
        case XCB_MOTION_NOTIFY:
            let e = raw.load(as: xcb_motion_notify_event_t.self)
            events?(.pointerMotion(time: time, x: Double(e.event_x), y: Double(e.event_y)))
        case XCB_FOCUS_OUT:
            events?(.focusLost)
        default:
            if let completionType, type == completionType, let number = inFlight {
                inFlight = nil
                shownFrame = ShownFrame(number: number, time: time)
                frameDone?()
            }
        }
    }

    /// The window has a new size: the surface and the segment follow, drawn whole next.
    private func resize(width: Int, height: Int) {
        guard width > 0, height > 0, width != mode.width || height != mode.height else { return }
        mode = OutputMode(width: width, height: height, refreshRate: mode.refreshRate)
        frame.resize(width: width, height: height)
        image.resize(for: frame.surface)
        events?(.resized(mode))
    }
}
