#ifndef VITRINE_CWAYLANDSHARED_H
#define VITRINE_CWAYLANDSHARED_H

/* What libwayland-client and libwayland-server both define: wayland-util's lists and
   arrays and the core protocol's interfaces. Neither library is linked (CLazyLibrary):
   CWaylandClient and CWaylandServer bind each to its own, and these, which a process
   with both modules (the tests) could not define twice, are bound here once, to whichever
   library is open. */

#include <wayland-util.h>

/* Open libwayland-client or libwayland-server: NULL, or why it cannot be
   ("libwayland-server.so.0 (Debian: libwayland-server0): ..."). */
const char *vitrine_wayland_client_load(void);
const char *vitrine_wayland_server_load(void);

/* A symbol of libwayland-client or libwayland-server, opening it first; for
   CWaylandClient's and CWaylandServer's trampolines. */
void *vitrine_wayland_client_symbol(const char *name);
void *vitrine_wayland_server_symbol(const char *name);

/* The core protocol's interfaces (C globals of the libraries, whose addresses Swift cannot
   take and the linker does not know). */
const struct wl_interface *vitrine_wl_buffer_interface(void);
const struct wl_interface *vitrine_wl_callback_interface(void);
const struct wl_interface *vitrine_wl_compositor_interface(void);
const struct wl_interface *vitrine_wl_data_device_interface(void);
const struct wl_interface *vitrine_wl_data_device_manager_interface(void);
const struct wl_interface *vitrine_wl_data_source_interface(void);
const struct wl_interface *vitrine_wl_keyboard_interface(void);
const struct wl_interface *vitrine_wl_output_interface(void);
const struct wl_interface *vitrine_wl_pointer_interface(void);
const struct wl_interface *vitrine_wl_region_interface(void);
const struct wl_interface *vitrine_wl_registry_interface(void);
const struct wl_interface *vitrine_wl_seat_interface(void);
const struct wl_interface *vitrine_wl_shm_interface(void);
const struct wl_interface *vitrine_wl_shm_pool_interface(void);
const struct wl_interface *vitrine_wl_subcompositor_interface(void);
const struct wl_interface *vitrine_wl_subsurface_interface(void);
const struct wl_interface *vitrine_wl_surface_interface(void);
const struct wl_interface *vitrine_wl_touch_interface(void);

#endif
