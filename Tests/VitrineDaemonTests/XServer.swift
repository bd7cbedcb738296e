import CX11
import Foundation
import Synchronization
import VitrineRaster

/// An Xvfb started for a test on a free display, with a connection of the test's own to
/// look at windows (their pixels through GetImage) and close them as a window manager does
/// (WM_DELETE_WINDOW); stopped when released.
final class XServer {
    /// ":N".
    let display: String
    private let process: ChildProcess
    private let connection: OpaquePointer
    private let root: xcb_window_t
    private let log: String

    /// The Xvfb binary, or nil when it is not installed.
    static var executable: String? {
        ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Displays handed out in this process, so that tests running at once take different ones.
    private static let nextDisplay = Mutex(90)

    /// Starts `Xvfb` on a free display from 90 with one 24-bit screen; `sharedMemory: false`
    /// leaves its MIT-SHM extension out (as a remote display lacks it). The server is ours
    /// once its lock file holds its pid: another test process may have taken the display.
    init(sharedMemory: Bool = true) throws {
        guard let executable = Self.executable else { throw DaemonError("Xvfb is not installed (apt-get install xvfb)") }
        log = FileManager.default.temporaryDirectory.appendingPathComponent("xvfb-\(UUID().uuidString.prefix(8)).log").path
        for _ in 0..<20 {
            let number = Self.nextDisplay.withLock { next in
                while FileManager.default.fileExists(atPath: "/tmp/.X\(next)-lock") || FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(next)") {
                    next += 1
                }
                defer { next += 1 }
                return next
            }
            let process = try ChildProcess(
                executable, [":\(number)", "-screen", "0", "800x600x24", "-nolisten", "tcp"] + (sharedMemory ? [] : ["-extension", "MIT-SHM"]),
                stderrPath: log)
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning, Date() < deadline {
                let owner = (try? String(contentsOfFile: "/tmp/.X\(number)-lock", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                if owner == String(process.pid), let c = xcb_connect(":\(number)", nil) {
                    if xcb_connection_has_error(c) == 0 {
                        (display, self.process, connection) = (":\(number)", process, c)
                        root = xcb_setup_roots_iterator(xcb_get_setup(c)).data.pointee.root
                        return
                    }
                    xcb_disconnect(c)
                }
                usleep(20_000)
            }
            if process.isRunning { _ = process.terminate() }
        }
        throw DaemonError("Xvfb did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    deinit {
        xcb_disconnect(connection)
        if process.isRunning { _ = process.terminate() }
        try? FileManager.default.removeItem(atPath: log)
    }

    /// Ends the server at once, as a display that goes away.
    func kill() { _ = process.terminate() }

    /// The top-level windows' ids whose WM_NAME is `title`.
    func windows(titled title: String) -> [UInt32] {
        guard let tree = xcb_query_tree_reply(connection, xcb_query_tree(connection, root), nil) else { return [] }
        defer { free(tree) }
        let children = UnsafeBufferPointer(start: xcb_query_tree_children(tree), count: Int(xcb_query_tree_children_length(tree)))
        return children.filter { window in
            let cookie = xcb_get_property(connection, 0, window, XCB_ATOM_WM_NAME.rawValue, XCB_ATOM_STRING.rawValue, 0, 256)
            guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return false }
            defer { free(reply) }
            let bytes = UnsafeRawBufferPointer(start: xcb_get_property_value(reply), count: Int(xcb_get_property_value_length(reply)))
            return String(decoding: bytes, as: UTF8.self) == title
        }
    }

    /// The top-level windows that are mapped.
    func viewableWindows() -> [UInt32] {
        guard let tree = xcb_query_tree_reply(connection, xcb_query_tree(connection, root), nil) else { return [] }
        defer { free(tree) }
        return UnsafeBufferPointer(start: xcb_query_tree_children(tree), count: Int(xcb_query_tree_children_length(tree))).filter(isViewable)
    }

    /// Waits up to `timeout` seconds for the one mapped window titled `title`.
    func window(titled title: String, timeout: Double = 20) throws -> UInt32 {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let window = windows(titled: title).first(where: isViewable) { return window }
            usleep(20_000)
        }
        throw DaemonError("no window titled \(title) appeared on \(display) within \(timeout) s")
    }

    private func isViewable(_ window: UInt32) -> Bool {
        guard let reply = xcb_get_window_attributes_reply(connection, xcb_get_window_attributes(connection, window), nil) else { return false }
        defer { free(reply) }
        return reply.pointee.map_state == UInt8(XCB_MAP_STATE_VIEWABLE.rawValue)
    }

    /// The window's size.
    func size(of window: UInt32) -> (width: Int, height: Int)? {
        guard let reply = xcb_get_geometry_reply(connection, xcb_get_geometry(connection, window), nil) else { return nil }
        defer { free(reply) }
        return (Int(reply.pointee.width), Int(reply.pointee.height))
    }

    /// The window's pixels as the server holds them (opaque: X has no alpha here).
    func image(of window: UInt32) throws -> Surface {
        guard let (width, height) = size(of: window) else { throw DaemonError("window \(window) is gone") }
        let cookie = xcb_get_image(connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, 0, 0, UInt16(width), UInt16(height), ~0)
        guard let reply = xcb_get_image_reply(connection, cookie, nil) else { throw DaemonError("GetImage of window \(window) failed") }
        defer { free(reply) }
        guard Int(xcb_get_image_data_length(reply)) >= width * height * 4 else { throw DaemonError("GetImage gave a short image") }
        let pixels = UnsafeRawPointer(xcb_get_image_data(reply)!).assumingMemoryBound(to: UInt32.self)
        let surface = Surface(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width { surface.pixels[y * surface.stride + x] = pixels[y * width + x] | 0xFF00_0000 }
        }
        return surface
    }

    /// Asks the window to close as a window manager's close button does: a WM_PROTOCOLS
    /// client message with WM_DELETE_WINDOW.
    func close(_ window: UInt32) {
        func atom(_ name: String) -> xcb_atom_t {
            let reply = xcb_intern_atom_reply(connection, xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name), nil)
            defer { free(reply) }
            return reply?.pointee.atom ?? 0
        }
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.window = window
        event.type = atom("WM_PROTOCOLS")
        event.data.data32.0 = atom("WM_DELETE_WINDOW")
        event.data.data32.1 = UInt32(XCB_CURRENT_TIME)
        withUnsafeBytes(of: &event) { bytes in
            var message = [CChar](repeating: 0, count: 32)
            for i in 0..<min(32, bytes.count) { message[i] = CChar(bitPattern: bytes[i]) }
            xcb_send_event(connection, 0, window, XCB_EVENT_MASK_NO_EVENT.rawValue, message)
        }
        xcb_flush(connection)
    }

    /// Runs xdotool on this display with `arguments`; its exit status (127 when it is not
    /// installed).
    func xdotool(_ arguments: [String]) throws -> Int32 {
        guard let tool = ["/usr/bin/xdotool", "/usr/local/bin/xdotool"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return 127
        }
        let process = try ChildProcess(tool, arguments, stderrPath: "/dev/null", environment: ["DISPLAY": display])
        return process.wait(timeout: 20) ?? process.terminate()
    }
}
