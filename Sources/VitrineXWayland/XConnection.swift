import CX11
import Glibc
import VitrineSystem

/// The atoms the window manager speaks in, interned once when it connects.
enum Atom: String, CaseIterable {
    case wlSurfaceID = "WL_SURFACE_ID"
    case wmProtocols = "WM_PROTOCOLS"
    case wmDeleteWindow = "WM_DELETE_WINDOW"
    case wmTakeFocus = "WM_TAKE_FOCUS"
    case wmState = "WM_STATE"
    case wmHints = "WM_HINTS"
    case wmS0 = "WM_S0"
    case utf8String = "UTF8_STRING"
    case netSupported = "_NET_SUPPORTED"
    case netSupportingWMCheck = "_NET_SUPPORTING_WM_CHECK"
    case netWMCMS0 = "_NET_WM_CM_S0"
    case netWMName = "_NET_WM_NAME"
    case netWMPID = "_NET_WM_PID"
    case netWMPing = "_NET_WM_PING"
    case netWMState = "_NET_WM_STATE"
    case netWMStateFullscreen = "_NET_WM_STATE_FULLSCREEN"
    case netWMStateMaximizedVert = "_NET_WM_STATE_MAXIMIZED_VERT"
    case netWMStateMaximizedHorz = "_NET_WM_STATE_MAXIMIZED_HORZ"
    case netWMStateFocused = "_NET_WM_STATE_FOCUSED"
    case netWMWindowType = "_NET_WM_WINDOW_TYPE"
    case netActiveWindow = "_NET_ACTIVE_WINDOW"
    case netClientList = "_NET_CLIENT_LIST"
    case netFrameExtents = "_NET_FRAME_EXTENTS"
}

/// The interned atoms, by name.
struct Atoms {
    private let values: [xcb_atom_t]

    init(_ values: [xcb_atom_t]) { self.values = values }

    subscript(_ atom: Atom) -> xcb_atom_t { values[Atom.allCases.firstIndex(of: atom)!] }

    /// Which of ours `value` is, if any.
    func name(of value: xcb_atom_t) -> Atom? {
        values.firstIndex(of: value).map { Atom.allCases[$0] }
    }
}

/// The window manager's connection to Xwayland: xcb over the socket Xwayland got as `-wm`.
/// Made off the loop (`open`): the handshake, the extensions' presence and the atoms are
/// replies that must be waited for, and Xwayland may be slow or hung; from then on it is
/// read on the loop, and replies are collected as they arrive, never waited for.
///
/// ```swift
/// XConnection.open(socket: wm, loop: loop) { result in
///     guard case .success(let connection) = result else { return }
///     windowManager = XWindowManager(connection: connection, …)
/// }
/// ```
///
/// The connection is closed (`xcb_disconnect`, which closes the socket) when it goes.
final class XConnection {
    /// `xcb_connection_t *`.
    let connection: OpaquePointer
    /// The screen's root window and its visual.
    let root: xcb_window_t
    let rootVisual: xcb_visualid_t
    /// The part of a resource id that names it within its client: ids of one client share
    /// the rest (`id & ~mask`).
    let resourceMask: UInt32
    let atoms: Atoms
    /// Whether the server has the Composite and X-Resource extensions.
    let hasComposite: Bool
    let hasResources: Bool

    private init(
        connection: OpaquePointer, root: xcb_window_t, rootVisual: xcb_visualid_t, resourceMask: UInt32, atoms: Atoms, hasComposite: Bool,
        hasResources: Bool
    ) {
        (self.connection, self.root, self.rootVisual, self.resourceMask, self.atoms) = (connection, root, rootVisual, resourceMask, atoms)
        (self.hasComposite, self.hasResources) = (hasComposite, hasResources)
    }

    deinit { xcb_disconnect(connection) }

    /// The socket's descriptor, for the loop to watch.
    var fd: CInt { xcb_get_file_descriptor(connection) }

    /// Whether the connection broke (the server went, or sent what xcb could not read).
    var hasError: Bool { xcb_connection_has_error(connection) != 0 }

    func flush() { _ = xcb_flush(connection) }

    /// Connects on `socket` on a thread of its own and hands the connection (or why it
    /// failed) to `done` on `loop`. xcb owns the socket from then on.
    static func open(socket: OwnedDescriptor, loop: EventLoop, done: @escaping (Result<XConnection, SystemError>) -> Void) {
        let fd = socket.release()
        let deliver = LoopBound(done)
        DetachedThread.detach {
            let result = connect(fd)
            loop.execute {
                switch result {
                case .success(let made): deliver.value(.success(made.value))
                case .failure(let error): deliver.value(.failure(error))
                }
            }
        }
    }

    /// The handshake and the round trips of the start, on the calling thread.
    private static func connect(_ fd: CInt) -> Result<LoopBound<XConnection>, SystemError> {
        guard let connection = xcb_connect_to_fd(fd, nil) else { return .failure(SystemError("xcb cannot connect to Xwayland (out of memory)")) }
        guard xcb_connection_has_error(connection) == 0, let setup = xcb_get_setup(connection) else {
            let code = xcb_connection_has_error(connection)
            xcb_disconnect(connection)
            return .failure(SystemError("the window manager cannot connect to Xwayland (xcb error \(code))"))
        }
        let screen = xcb_setup_roots_iterator(setup).data.pointee
        xcb_prefetch_extension_data(connection, vitrine_xcb_composite_id())
        xcb_prefetch_extension_data(connection, vitrine_xcb_res_id())
        let cookies = Atom.allCases.map { atom in atom.rawValue.withCString { xcb_intern_atom(connection, 0, UInt16(strlen($0)), $0) } }
        var values: [xcb_atom_t] = []
        for cookie in cookies {
            guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else {
                xcb_disconnect(connection)
                return .failure(SystemError("Xwayland did not answer the window manager (its atoms)"))
            }
            values.append(reply.pointee.atom)
            free(reply)
        }
        let present = { (id: UnsafeMutablePointer<xcb_extension_t>) in xcb_get_extension_data(connection, id)?.pointee.present ?? 0 != 0 }
        let made = XConnection(
            connection: connection, root: screen.root, rootVisual: screen.root_visual, resourceMask: setup.pointee.resource_id_mask,
            atoms: Atoms(values), hasComposite: present(vitrine_xcb_composite_id()), hasResources: present(vitrine_xcb_res_id()))
        return .success(LoopBound(made))
    }
}

/// A detached thread for one blocking job.
enum DetachedThread {
    /// Runs `body` on a new thread, which blocks every signal (the loop reads them).
    static func detach(_ body: @escaping @Sendable () -> Void) {
        final class Job {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let context = Unmanaged.passRetained(Job(body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
                var all = sigset_t()
                sigfillset(&all)
                pthread_sigmask(SIG_BLOCK, &all, nil)
                job.body()
                return nil
            }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Job>.fromOpaque(context).takeRetainedValue().body()
        }
    }
}
