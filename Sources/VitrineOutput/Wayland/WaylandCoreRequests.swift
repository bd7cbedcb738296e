import CWaylandClient

// The core protocol's requests that the window and the tests' clients send, named as
// wayland-client-protocol.h names them (`wl_surface_commit` is `wlSurfaceCommit`), each
// sent with `wl_proxy_marshal_array_flags` (`waylandRequest`). The header's own are static
// inline calls of the variadic `wl_proxy_marshal_flags`, which cannot be forwarded to a
// libwayland-client bound at run time (CLazyLibrary). Requests that make an object return
// it; destructors end the proxy. Proxies are implicitly unwrapped, as Swift imports the
// header's, so that code written against those reads the same. The header's `wl_callback_destroy` and
// `wl_registry_destroy`, which only free the proxy, are used as they are.

/// wl_display.get_registry
public func wlDisplayGetRegistry(_ display: OpaquePointer!) -> OpaquePointer! {
    waylandRequest(display, UInt32(WL_DISPLAY_GET_REGISTRY), [wl_argument(n: 0)], creating: vitrine_wl_registry_interface())
}

/// wl_registry.bind: the global `name` as `interface` at `version`.
public func wlRegistryBind(_ registry: OpaquePointer!, _ name: UInt32, _ interface: UnsafePointer<wl_interface>, _ version: UInt32) -> OpaquePointer! {
    waylandRequest(
        registry, UInt32(WL_REGISTRY_BIND), [wl_argument(u: name), wl_argument(s: interface.pointee.name), wl_argument(u: version), wl_argument(n: 0)],
        creating: interface, version: version)
}

/// wl_compositor.create_surface
public func wlCompositorCreateSurface(_ compositor: OpaquePointer!) -> OpaquePointer! {
    waylandRequest(compositor, UInt32(WL_COMPOSITOR_CREATE_SURFACE), [wl_argument(n: 0)], creating: vitrine_wl_surface_interface())
}

/// wl_compositor.create_region
public func wlCompositorCreateRegion(_ compositor: OpaquePointer!) -> OpaquePointer! {
    waylandRequest(compositor, UInt32(WL_COMPOSITOR_CREATE_REGION), [wl_argument(n: 0)], creating: vitrine_wl_region_interface())
}

/// wl_surface.attach (`buffer` nil: none)
public func wlSurfaceAttach(_ surface: OpaquePointer!, _ buffer: OpaquePointer?, _ x: Int32, _ y: Int32) {
    waylandRequest(surface, UInt32(WL_SURFACE_ATTACH), [wl_argument(o: buffer), wl_argument(i: x), wl_argument(i: y)])
}

/// wl_surface.damage, in surface coordinates.
public func wlSurfaceDamage(_ surface: OpaquePointer!, _ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
    waylandRequest(surface, UInt32(WL_SURFACE_DAMAGE), [wl_argument(i: x), wl_argument(i: y), wl_argument(i: width), wl_argument(i: height)])
}

/// wl_surface.damage_buffer, in buffer coordinates.
public func wlSurfaceDamageBuffer(_ surface: OpaquePointer!, _ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
    waylandRequest(surface, UInt32(WL_SURFACE_DAMAGE_BUFFER), [wl_argument(i: x), wl_argument(i: y), wl_argument(i: width), wl_argument(i: height)])
}

/// wl_surface.frame: the callback done when the compositor wants the next frame.
public func wlSurfaceFrame(_ surface: OpaquePointer!) -> OpaquePointer! {
    waylandRequest(surface, UInt32(WL_SURFACE_FRAME), [wl_argument(n: 0)], creating: vitrine_wl_callback_interface())
}

/// wl_surface.commit
public func wlSurfaceCommit(_ surface: OpaquePointer!) { waylandRequest(surface, UInt32(WL_SURFACE_COMMIT)) }

/// wl_surface.set_input_region (`region` nil: the whole surface)
public func wlSurfaceSetInputRegion(_ surface: OpaquePointer!, _ region: OpaquePointer?) {
    waylandRequest(surface, UInt32(WL_SURFACE_SET_INPUT_REGION), [wl_argument(o: region)])
}

/// wl_surface.set_buffer_scale
public func wlSurfaceSetBufferScale(_ surface: OpaquePointer!, _ scale: Int32) {
    waylandRequest(surface, UInt32(WL_SURFACE_SET_BUFFER_SCALE), [wl_argument(i: scale)])
}

/// wl_surface.set_buffer_transform (a `wl_output_transform`)
public func wlSurfaceSetBufferTransform(_ surface: OpaquePointer!, _ transform: Int32) {
    waylandRequest(surface, UInt32(WL_SURFACE_SET_BUFFER_TRANSFORM), [wl_argument(i: transform)])
}

/// wl_surface.destroy
public func wlSurfaceDestroy(_ surface: OpaquePointer!) { waylandRequest(surface, UInt32(WL_SURFACE_DESTROY), destroying: true) }

/// wl_shm.create_pool: a pool of `size` bytes of the file `fd` (which the request copies).
public func wlShmCreatePool(_ shm: OpaquePointer!, _ fd: Int32, _ size: Int32) -> OpaquePointer! {
    waylandRequest(shm, UInt32(WL_SHM_CREATE_POOL), [wl_argument(n: 0), wl_argument(h: fd), wl_argument(i: size)], creating: vitrine_wl_shm_pool_interface())
}

/// wl_shm_pool.create_buffer (`format` a `wl_shm_format`)
public func wlShmPoolCreateBuffer(
    _ pool: OpaquePointer!, _ offset: Int32, _ width: Int32, _ height: Int32, _ stride: Int32, _ format: UInt32
) -> OpaquePointer! {
    waylandRequest(
        pool, UInt32(WL_SHM_POOL_CREATE_BUFFER),
        [wl_argument(n: 0), wl_argument(i: offset), wl_argument(i: width), wl_argument(i: height), wl_argument(i: stride), wl_argument(u: format)],
        creating: vitrine_wl_buffer_interface())
}

/// wl_shm_pool.destroy
public func wlShmPoolDestroy(_ pool: OpaquePointer!) { waylandRequest(pool, UInt32(WL_SHM_POOL_DESTROY), destroying: true) }

/// wl_buffer.destroy
public func wlBufferDestroy(_ buffer: OpaquePointer!) { waylandRequest(buffer, UInt32(WL_BUFFER_DESTROY), destroying: true) }

/// wl_region.add
public func wlRegionAdd(_ region: OpaquePointer!, _ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
    waylandRequest(region, UInt32(WL_REGION_ADD), [wl_argument(i: x), wl_argument(i: y), wl_argument(i: width), wl_argument(i: height)])
}

/// wl_region.subtract
public func wlRegionSubtract(_ region: OpaquePointer!, _ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32) {
    waylandRequest(region, UInt32(WL_REGION_SUBTRACT), [wl_argument(i: x), wl_argument(i: y), wl_argument(i: width), wl_argument(i: height)])
}

/// wl_region.destroy
public func wlRegionDestroy(_ region: OpaquePointer!) { waylandRequest(region, UInt32(WL_REGION_DESTROY), destroying: true) }

/// wl_seat.get_pointer
public func wlSeatGetPointer(_ seat: OpaquePointer!) -> OpaquePointer! {
    waylandRequest(seat, UInt32(WL_SEAT_GET_POINTER), [wl_argument(n: 0)], creating: vitrine_wl_pointer_interface())
}

/// wl_seat.get_keyboard
public func wlSeatGetKeyboard(_ seat: OpaquePointer!) -> OpaquePointer! {
    waylandRequest(seat, UInt32(WL_SEAT_GET_KEYBOARD), [wl_argument(n: 0)], creating: vitrine_wl_keyboard_interface())
}

/// wl_seat.get_touch
public func wlSeatGetTouch(_ seat: OpaquePointer!) -> OpaquePointer! {
    waylandRequest(seat, UInt32(WL_SEAT_GET_TOUCH), [wl_argument(n: 0)], creating: vitrine_wl_touch_interface())
}

/// wl_seat.release
public func wlSeatRelease(_ seat: OpaquePointer!) { waylandRequest(seat, UInt32(WL_SEAT_RELEASE), destroying: true) }

/// wl_pointer.release
public func wlPointerRelease(_ pointer: OpaquePointer!) { waylandRequest(pointer, UInt32(WL_POINTER_RELEASE), destroying: true) }

/// wl_keyboard.release
public func wlKeyboardRelease(_ keyboard: OpaquePointer!) { waylandRequest(keyboard, UInt32(WL_KEYBOARD_RELEASE), destroying: true) }

/// wl_touch.release
public func wlTouchRelease(_ touch: OpaquePointer!) { waylandRequest(touch, UInt32(WL_TOUCH_RELEASE), destroying: true) }

/// wl_subcompositor.get_subsurface: `surface` made a subsurface of `parent`.
public func wlSubcompositorGetSubsurface(_ subcompositor: OpaquePointer!, _ surface: OpaquePointer!, _ parent: OpaquePointer!) -> OpaquePointer! {
    waylandRequest(
        subcompositor, UInt32(WL_SUBCOMPOSITOR_GET_SUBSURFACE), [wl_argument(n: 0), wl_argument(o: surface), wl_argument(o: parent)],
        creating: vitrine_wl_subsurface_interface())
}

/// wl_subsurface.set_position, in the parent's surface coordinates.
public func wlSubsurfaceSetPosition(_ subsurface: OpaquePointer!, _ x: Int32, _ y: Int32) {
    waylandRequest(subsurface, UInt32(WL_SUBSURFACE_SET_POSITION), [wl_argument(i: x), wl_argument(i: y)])
}

/// wl_subsurface.place_above `sibling`
public func wlSubsurfacePlaceAbove(_ subsurface: OpaquePointer!, _ sibling: OpaquePointer!) {
    waylandRequest(subsurface, UInt32(WL_SUBSURFACE_PLACE_ABOVE), [wl_argument(o: sibling)])
}

/// wl_subsurface.place_below `sibling`
public func wlSubsurfacePlaceBelow(_ subsurface: OpaquePointer!, _ sibling: OpaquePointer!) {
    waylandRequest(subsurface, UInt32(WL_SUBSURFACE_PLACE_BELOW), [wl_argument(o: sibling)])
}

/// wl_subsurface.set_desync
public func wlSubsurfaceSetDesync(_ subsurface: OpaquePointer!) { waylandRequest(subsurface, UInt32(WL_SUBSURFACE_SET_DESYNC)) }
