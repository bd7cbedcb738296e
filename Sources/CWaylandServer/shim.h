#ifndef VITRINE_CWAYLANDSERVER_SHIM_H
#define VITRINE_CWAYLANDSERVER_SHIM_H

/* libwayland-server and the core protocol's events (static inline in its header), for
   VitrineWayland's server. */

#define WL_HIDE_DEPRECATED 1
#include <wayland-server.h>

/* The core protocol's interfaces (C globals, whose addresses Swift cannot take). */
static inline const struct wl_interface *vitrine_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *vitrine_wl_subcompositor_interface(void) { return &wl_subcompositor_interface; }
static inline const struct wl_interface *vitrine_wl_surface_interface(void) { return &wl_surface_interface; }
static inline const struct wl_interface *vitrine_wl_subsurface_interface(void) { return &wl_subsurface_interface; }
static inline const struct wl_interface *vitrine_wl_region_interface(void) { return &wl_region_interface; }
static inline const struct wl_interface *vitrine_wl_callback_interface(void) { return &wl_callback_interface; }
static inline const struct wl_interface *vitrine_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *vitrine_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *vitrine_wl_buffer_interface(void) { return &wl_buffer_interface; }
static inline const struct wl_interface *vitrine_wl_data_device_manager_interface(void) { return &wl_data_device_manager_interface; }
static inline const struct wl_interface *vitrine_wl_data_device_interface(void) { return &wl_data_device_interface; }
static inline const struct wl_interface *vitrine_wl_data_source_interface(void) { return &wl_data_source_interface; }

/* wl_resource_post_error is variadic, which Swift cannot call: the message goes as one string. */
static inline void vitrine_wl_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message) {
    wl_resource_post_error(resource, code, "%s", message);
}

#endif
