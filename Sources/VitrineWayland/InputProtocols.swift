import WaylandDescription

/// The protocols of on-screen keyboards and input methods that Debian's wayland-protocols
/// (1.31) does not install, described here from their specifications (wlroots' and
/// wlr-protocols' texts): `input-method-unstable-v2`, `virtual-keyboard-unstable-v1` and
/// `wlr-layer-shell-unstable-v1` (version 4). `text-input-unstable-v3` comes from
/// wayland-protocols' XML through wayland-glue.
extension WaylandProtocol {
    private typealias I = WaylandProtocol.Interface
    private typealias M = WaylandProtocol.Message

    /// `zwp_input_method_manager_v2`, `zwp_input_method_v2`, `zwp_input_popup_surface_v2`,
    /// `zwp_input_method_keyboard_grab_v2`.
    public static let inputMethodV2 = WaylandProtocol(interfaces: [
        I(
            name: "zwp_input_method_v2", version: 1,
            requests: [
                M(name: "commit_string", signature: "s", types: [nil]),
                M(name: "set_preedit_string", signature: "sii", types: [nil, nil, nil]),
                M(name: "delete_surrounding_text", signature: "uu", types: [nil, nil]),
                M(name: "commit", signature: "u", types: [nil]),
                M(name: "get_input_popup_surface", signature: "no", types: ["zwp_input_popup_surface_v2", "wl_surface"]),
                M(name: "grab_keyboard", signature: "n", types: ["zwp_input_method_keyboard_grab_v2"]),
                M(name: "destroy", signature: "", types: []),
            ],
            events: [
                M(name: "activate", signature: "", types: []),
                M(name: "deactivate", signature: "", types: []),
                M(name: "surrounding_text", signature: "suu", types: [nil, nil, nil]),
                M(name: "text_change_cause", signature: "u", types: [nil]),
                M(name: "content_type", signature: "uu", types: [nil, nil]),
                M(name: "done", signature: "", types: []),
                M(name: "unavailable", signature: "", types: []),
            ]),
        I(
            name: "zwp_input_popup_surface_v2", version: 1, requests: [M(name: "destroy", signature: "", types: [])],
            events: [M(name: "text_input_rectangle", signature: "iiii", types: [nil, nil, nil, nil])]),
        I(
            name: "zwp_input_method_keyboard_grab_v2", version: 1, requests: [M(name: "release", signature: "", types: [])],
            events: [
                M(name: "keymap", signature: "uhu", types: [nil, nil, nil]),
                M(name: "key", signature: "uuuu", types: [nil, nil, nil, nil]),
                M(name: "modifiers", signature: "uuuuu", types: [nil, nil, nil, nil, nil]),
                M(name: "repeat_info", signature: "ii", types: [nil, nil]),
            ]),
        I(
            name: "zwp_input_method_manager_v2", version: 1,
            requests: [
                M(name: "get_input_method", signature: "on", types: ["wl_seat", "zwp_input_method_v2"]),
                M(name: "destroy", signature: "", types: []),
            ], events: []),
    ])

    /// `zwp_virtual_keyboard_manager_v1`, `zwp_virtual_keyboard_v1`.
    public static let virtualKeyboardV1 = WaylandProtocol(interfaces: [
        I(
            name: "zwp_virtual_keyboard_v1", version: 1,
            requests: [
                M(name: "keymap", signature: "uhu", types: [nil, nil, nil]),
                M(name: "key", signature: "uuu", types: [nil, nil, nil]),
                M(name: "modifiers", signature: "uuuu", types: [nil, nil, nil, nil]),
                M(name: "destroy", signature: "", types: []),
            ], events: []),
        I(
            name: "zwp_virtual_keyboard_manager_v1", version: 1,
            requests: [M(name: "create_virtual_keyboard", signature: "on", types: ["wl_seat", "zwp_virtual_keyboard_v1"])], events: []),
    ])

    /// `zwlr_layer_shell_v1` and `zwlr_layer_surface_v1`, version 4.
    public static let layerShellV1 = WaylandProtocol(interfaces: [
        I(
            name: "zwlr_layer_shell_v1", version: 4,
            requests: [
                M(name: "get_layer_surface", signature: "no?ous", types: ["zwlr_layer_surface_v1", "wl_surface", "wl_output", nil, nil]),
                M(name: "destroy", signature: "3", types: []),
            ], events: []),
        I(
            name: "zwlr_layer_surface_v1", version: 4,
            requests: [
                M(name: "set_size", signature: "uu", types: [nil, nil]),
                M(name: "set_anchor", signature: "u", types: [nil]),
                M(name: "set_exclusive_zone", signature: "i", types: [nil]),
                M(name: "set_margin", signature: "iiii", types: [nil, nil, nil, nil]),
                M(name: "set_keyboard_interactivity", signature: "u", types: [nil]),
                M(name: "get_popup", signature: "o", types: ["xdg_popup"]),
                M(name: "ack_configure", signature: "u", types: [nil]),
                M(name: "destroy", signature: "", types: []),
                M(name: "set_layer", signature: "2u", types: [nil]),
            ],
            events: [
                M(name: "configure", signature: "uuu", types: [nil, nil, nil]),
                M(name: "closed", signature: "", types: []),
            ]),
    ])
}

enum ZwpInputMethodV2Request: UInt32 {
    case commit_string, set_preedit_string, delete_surrounding_text, commit, get_input_popup_surface, grab_keyboard, destroy
}

enum ZwpInputMethodV2Event: UInt32 {
    case activate, deactivate, surrounding_text, text_change_cause, content_type, done, unavailable
}

enum ZwpInputMethodManagerV2Request: UInt32 { case get_input_method, destroy }

enum ZwpInputMethodKeyboardGrabV2Event: UInt32 { case keymap, key, modifiers, repeat_info }

/// zwp_input_popup_surface_v2's one event.
enum ZwpInputPopupSurfaceV2Event: UInt32 { case text_input_rectangle }

enum ZwpVirtualKeyboardV1Request: UInt32 { case keymap, key, modifiers, destroy }

enum ZwpVirtualKeyboardV1Error: UInt32 { case no_keymap }

enum ZwlrLayerShellV1Request: UInt32 { case get_layer_surface, destroy }

enum ZwlrLayerShellV1Error: UInt32 { case role, invalid_layer, already_constructed }

enum ZwlrLayerSurfaceV1Request: UInt32 {
    case set_size, set_anchor, set_exclusive_zone, set_margin, set_keyboard_interactivity, get_popup, ack_configure, destroy, set_layer
}

enum ZwlrLayerSurfaceV1Event: UInt32 { case configure, closed }

enum ZwlrLayerSurfaceV1Error: UInt32 { case invalid_surface_state, invalid_size, invalid_anchor, invalid_keyboard_interactivity }
