#include "CWaylandClient.h"

#include <CLazyLibrary.h>

/* The functions the package calls (return type, name, parameters, arguments). */
#define F(type, name, parameters, arguments) VITRINE_LAZY_FUNCTION(vitrine_wayland_client_symbol, type, name, parameters, arguments)
#define P(name, parameters, arguments) VITRINE_LAZY_PROCEDURE(vitrine_wayland_client_symbol, name, parameters, arguments)

F(struct wl_display *, wl_display_connect, (const char *name), (name))
P(wl_display_disconnect, (struct wl_display *display), (display))
F(int, wl_display_dispatch, (struct wl_display *display), (display))
F(int, wl_display_dispatch_pending, (struct wl_display *display), (display))
F(int, wl_display_flush, (struct wl_display *display), (display))
F(int, wl_display_get_error, (struct wl_display *display), (display))
F(int, wl_display_get_fd, (struct wl_display *display), (display))
F(uint32_t, wl_display_get_protocol_error, (struct wl_display *display, const struct wl_interface **interface, uint32_t *id), (display, interface, id))
F(int, wl_display_roundtrip, (struct wl_display *display), (display))
F(int, wl_proxy_add_dispatcher, (struct wl_proxy *proxy, wl_dispatcher_func_t dispatcher_func, const void *dispatcher_data, void *data), (proxy, dispatcher_func, dispatcher_data, data))
P(wl_proxy_destroy, (struct wl_proxy *proxy), (proxy))
F(const char *, wl_proxy_get_class, (struct wl_proxy *proxy), (proxy))
F(uint32_t, wl_proxy_get_id, (struct wl_proxy *proxy), (proxy))
F(uint32_t, wl_proxy_get_version, (struct wl_proxy *proxy), (proxy))
F(struct wl_proxy *, wl_proxy_marshal_array_flags, (struct wl_proxy *proxy, uint32_t opcode, const struct wl_interface *interface, uint32_t version, uint32_t flags, union wl_argument *args), (proxy, opcode, interface, version, flags, args))
