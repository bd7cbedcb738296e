#include "CWaylandShared.h"

#include <CLazyLibrary.h>

static struct vitrine_lazy_library client = {"libwayland-client.so.0", "libwayland-client0", 0};
static struct vitrine_lazy_library server = {"libwayland-server.so.0", "libwayland-server0", 0};

__attribute__((visibility("hidden"))) const char *vitrine_wayland_client_load(void) { return vitrine_lazy_load(&client); }
__attribute__((visibility("hidden"))) const char *vitrine_wayland_server_load(void) { return vitrine_lazy_load(&server); }

__attribute__((visibility("hidden"))) void *vitrine_wayland_client_symbol(const char *name) { return vitrine_lazy_symbol(&client, name); }
__attribute__((visibility("hidden"))) void *vitrine_wayland_server_symbol(const char *name) { return vitrine_lazy_symbol(&server, name); }

/* A symbol both libraries define, from the one that is open, the server's first (the
   daemon's own library when it serves Wayland clients). Either serves any object: both
   are built from one libwayland source, and their lists, arrays and interfaces are the same
   code and the same data (libwayland compares interfaces by name). Each is used on an
   object one of them made, so one is open by then; were neither, the server's is opened,
   else the client's. */
static void *shared_symbol(const char *name) {
    if (vitrine_lazy_loaded(&server)) return vitrine_lazy_symbol(&server, name);
    if (vitrine_lazy_loaded(&client)) return vitrine_lazy_symbol(&client, name);
    return vitrine_lazy_symbol(vitrine_lazy_load(&server) == NULL ? &server : &client, name);
}

VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_buffer_interface, wl_buffer_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_callback_interface, wl_callback_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_compositor_interface, wl_compositor_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_data_device_interface, wl_data_device_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_data_device_manager_interface, wl_data_device_manager_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_data_source_interface, wl_data_source_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_keyboard_interface, wl_keyboard_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_output_interface, wl_output_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_pointer_interface, wl_pointer_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_region_interface, wl_region_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_registry_interface, wl_registry_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_seat_interface, wl_seat_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_shm_interface, wl_shm_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_shm_pool_interface, wl_shm_pool_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_subcompositor_interface, wl_subcompositor_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_subsurface_interface, wl_subsurface_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_surface_interface, wl_surface_interface)
VITRINE_LAZY_VARIABLE(shared_symbol, const struct wl_interface, vitrine_wl_touch_interface, wl_touch_interface)

/* The functions the package calls (return type, name, parameters, arguments). */
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(shared_symbol, type, name, parameters, arguments)
#define P(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(shared_symbol, name, parameters, arguments)

F(void *, wl_array_add, (struct wl_array *array, size_t size), (array, size))
P(wl_array_init, (struct wl_array *array), (array))
P(wl_array_release, (struct wl_array *array), (array))
P(wl_list_remove, (struct wl_list *elm), (elm))
