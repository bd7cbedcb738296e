import CWaylandServer

/// The globals of on-screen keyboards, input methods, remote input and screen capture, and
/// who may bind them: `zwp_text_input_manager_v3` and `zxdg_output_manager_v1` for every
/// client; `zwp_input_method_manager_v2`, `zwp_virtual_keyboard_manager_v1`,
/// `zwlr_virtual_pointer_manager_v1` and `zwlr_layer_shell_v1` only for the clients
/// `mayUseInputMethods` allows (an input method reads what is typed into every window, a
/// virtual keyboard or pointer types and clicks into them, a layer surface covers them);
/// `zwlr_screencopy_manager_v1` only for those `mayCaptureScreen` allows. The others never
/// see those globals (libwayland's global filter).
final class InputGlobals {
    private unowned let server: WaylandServer
    private var bindings: [GlobalBinding] = []
    /// The globals only allowed clients see.
    private var privileged: Set<OpaquePointer> = []
    /// Whether the client of process `pid` may bind the privileged globals.
    var mayUseInputMethods: (_ pid: Int) -> Bool = { _ in false }
    /// Whether the client of process `pid` may capture the screen.
    var mayCaptureScreen: (_ pid: Int) -> Bool = { _ in false }
    /// The screen capture global.
    private var screencopy: OpaquePointer?
    /// Hears of virtual pointers.
    weak var virtualPointerDelegate: VirtualPointerDelegate?
    /// Hears of layer surfaces.
    weak var layerShellDelegate: LayerShellDelegate?
    /// The layer shell's global, which `hidesLayerShell` hides from every client.
    private var layerShell: OpaquePointer?
    var hidesLayerShell = false

    init(server: WaylandServer) { self.server = server }

    /// Makes the globals and installs the filter.
    func offer() {
        bindings.append(
            GlobalBinding(server, ServerInterfaceTable.textInputV3["zwp_text_input_manager_v3"], version: 1) {
                TextInputManagerObject(server: $0, client: $1, version: $2, id: $3)
            })
        bindings.append(
            GlobalBinding(server, ServerInterfaceTable.xdgOutput["zxdg_output_manager_v1"], version: 3) {
                XDGOutputManagerObject(server: $0, client: $1, version: $2, id: $3)
            })
        let capture = GlobalBinding(server, ServerInterfaceTable.screencopyV1["zwlr_screencopy_manager_v1"], version: 3) {
            ScreencopyManagerObject(server: $0, client: $1, version: $2, id: $3)
        }
        bindings.append(capture)
        screencopy = capture.global
        let restricted = [
            GlobalBinding(server, ServerInterfaceTable.inputMethodV2["zwp_input_method_manager_v2"], version: 1) {
                InputMethodManagerObject(server: $0, client: $1, version: $2, id: $3)
            },
            GlobalBinding(server, ServerInterfaceTable.virtualKeyboardV1["zwp_virtual_keyboard_manager_v1"], version: 1) {
                VirtualKeyboardManagerObject(server: $0, client: $1, version: $2, id: $3)
            },
            GlobalBinding(server, ServerInterfaceTable.virtualPointerV1["zwlr_virtual_pointer_manager_v1"], version: 2) {
                VirtualPointerManagerObject(server: $0, client: $1, version: $2, id: $3)
            },
            GlobalBinding(server, ServerInterfaceTable.layerShellV1["zwlr_layer_shell_v1"], version: 4) {
                LayerShellObject(server: $0, client: $1, version: $2, id: $3)
            },
        ]
        bindings += restricted
        privileged = Set((restricted + [capture]).compactMap(\.global))
        layerShell = restricted.last?.global
        wl_display_set_global_filter(server.display, globalFilter, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The globals offered, by interface name, with their versions.
    var offered: [(name: String, version: Int)] {
        bindings.filter { !hidesLayerShell || $0.global != layerShell }.map(\.offered)
    }

    fileprivate func shows(_ global: OpaquePointer, to client: OpaquePointer) -> Bool {
        guard privileged.contains(global) else { return true }
        if hidesLayerShell, global == layerShell { return false }
        if let xwayland = server.xwayland, xwayland.client == client { return false }
        if global == screencopy { return mayCaptureScreen(WaylandServer.pid(of: client)) }
        return mayUseInputMethods(WaylandServer.pid(of: client))
    }
}

private let globalFilter: wl_display_global_filter_func_t = { client, global, data in
    guard let client, let global, let data else { return true }
    let globals = Unmanaged<InputGlobals>.fromOpaque(data).takeUnretainedValue()
    return globals.shows(global, to: client)
}

extension WaylandServer {
    /// Whether the client of process `pid` may bind `zwp_input_method_manager_v2`,
    /// `zwp_virtual_keyboard_manager_v1`, `zwlr_virtual_pointer_manager_v1` and
    /// `zwlr_layer_shell_v1` (it is asked as each
    /// client lists the globals; default: none may). The window host sets it from
    /// `[compositor] input_method_clients`.
    public var mayUseInputMethods: (_ pid: Int) -> Bool {
        get { inputGlobals.mayUseInputMethods }
        set { inputGlobals.mayUseInputMethods = newValue }
    }

    /// Whether the client of process `pid` may bind `zwlr_screencopy_manager_v1` (asked as
    /// each client lists the globals; default: none may). The window host sets it from
    /// `[compositor] screencopy_clients`.
    public var mayCaptureScreen: (_ pid: Int) -> Bool {
        get { inputGlobals.mayCaptureScreen }
        set { inputGlobals.mayCaptureScreen = newValue }
    }

    /// Hears of virtual pointers' events (`zwlr_virtual_pointer_v1`): the daemon, which
    /// feeds them to its input.
    public weak var virtualPointerDelegate: VirtualPointerDelegate? {
        get { inputGlobals.virtualPointerDelegate }
        set { inputGlobals.virtualPointerDelegate = newValue }
    }
}

extension WaylandServer {
    /// Whether `zwlr_layer_shell_v1` is hidden from every client. Only for the WLCS
    /// integration, whose layer shell results are not in CI yet (docs/COMPOSITOR.md).
    public var hidesLayerShell: Bool {
        get { inputGlobals.hidesLayerShell }
        set { inputGlobals.hidesLayerShell = newValue }
    }

    /// Hears of layer surfaces (`zwlr_layer_surface_v1`): the window host, which arranges
    /// and shows them.
    public weak var layerShellDelegate: LayerShellDelegate? {
        get { inputGlobals.layerShellDelegate }
        set { inputGlobals.layerShellDelegate = newValue }
    }
}
