import WaylandDescription

/// The protocols of screen capture and remote input that Debian's wayland-protocols (1.31)
/// does not install, described here from wlr-protocols' specifications:
/// `wlr-screencopy-unstable-v1` (version 3) and `wlr-virtual-pointer-unstable-v1`
/// (version 2), what `grim` and `wayvnc` speak.
extension WaylandProtocol {
    private typealias I = WaylandProtocol.Interface
    private typealias M = WaylandProtocol.Message

    /// `zwlr_screencopy_manager_v1` and `zwlr_screencopy_frame_v1`, version 3.
    public static let screencopyV1 = WaylandProtocol(interfaces: [
        I(
            name: "zwlr_screencopy_frame_v1", version: 3,
            requests: [
                M(name: "copy", signature: "o", types: ["wl_buffer"]),
                M(name: "destroy", signature: "", types: []),
                M(name: "copy_with_damage", signature: "2o", types: ["wl_buffer"]),
            ],
            events: [
                M(name: "buffer", signature: "uuuu", types: [nil, nil, nil, nil]),
                M(name: "flags", signature: "u", types: [nil]),
                M(name: "ready", signature: "uuu", types: [nil, nil, nil]),
                M(name: "failed", signature: "", types: []),
                M(name: "damage", signature: "2uuuu", types: [nil, nil, nil, nil]),
                M(name: "linux_dmabuf", signature: "3uuu", types: [nil, nil, nil]),
                M(name: "buffer_done", signature: "3", types: []),
            ]),
        I(
            name: "zwlr_screencopy_manager_v1", version: 3,
            requests: [
                M(name: "capture_output", signature: "nio", types: ["zwlr_screencopy_frame_v1", nil, "wl_output"]),
                M(
                    name: "capture_output_region", signature: "nioiiii",
                    types: ["zwlr_screencopy_frame_v1", nil, "wl_output", nil, nil, nil, nil]),
                M(name: "destroy", signature: "", types: []),
            ], events: []),
    ])

    /// `zwlr_virtual_pointer_manager_v1` and `zwlr_virtual_pointer_v1`, version 2.
    public static let virtualPointerV1 = WaylandProtocol(interfaces: [
        I(
            name: "zwlr_virtual_pointer_v1", version: 2,
            requests: [
                M(name: "motion", signature: "uff", types: [nil, nil, nil]),
                M(name: "motion_absolute", signature: "uuuuu", types: [nil, nil, nil, nil, nil]),
                M(name: "button", signature: "uuu", types: [nil, nil, nil]),
                M(name: "axis", signature: "uuf", types: [nil, nil, nil]),
                M(name: "frame", signature: "", types: []),
                M(name: "axis_source", signature: "u", types: [nil]),
                M(name: "axis_stop", signature: "uu", types: [nil, nil]),
                M(name: "axis_discrete", signature: "uufi", types: [nil, nil, nil, nil]),
                M(name: "destroy", signature: "", types: []),
            ], events: []),
        I(
            name: "zwlr_virtual_pointer_manager_v1", version: 2,
            requests: [
                M(name: "create_virtual_pointer", signature: "?on", types: ["wl_seat", "zwlr_virtual_pointer_v1"]),
                M(name: "destroy", signature: "", types: []),
                M(name: "create_virtual_pointer_with_output", signature: "2?o?on", types: ["wl_seat", "wl_output", "zwlr_virtual_pointer_v1"]),
            ], events: []),
    ])
}

enum ZwlrScreencopyManagerV1Request: UInt32 { case capture_output, capture_output_region, destroy }

enum ZwlrScreencopyFrameV1Request: UInt32 { case copy, destroy, copy_with_damage }

enum ZwlrScreencopyFrameV1Event: UInt32 { case buffer, flags, ready, failed, damage, linux_dmabuf, buffer_done }

enum ZwlrScreencopyFrameV1Error: UInt32 { case already_used, invalid_buffer }

enum ZwlrVirtualPointerManagerV1Request: UInt32 { case create_virtual_pointer, destroy, create_virtual_pointer_with_output }

enum ZwlrVirtualPointerV1Request: UInt32 { case motion, motion_absolute, button, axis, frame, axis_source, axis_stop, axis_discrete, destroy }

enum ZwlrVirtualPointerV1Error: UInt32 { case invalid_axis, invalid_axis_source }
