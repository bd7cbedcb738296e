#ifndef VITRINE_CWAYLANDCLIENT_SHIM_H
#define VITRINE_CWAYLANDCLIENT_SHIM_H

/* wayland-client and the core protocol's requests (static inline in its header), for
   VitrineOutput's Wayland window. */

#include <sys/mman.h>
#include <wayland-client.h>

/* The core protocol's interfaces (C globals, whose addresses Swift cannot take). */
static inline const struct wl_interface *vitrine_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *vitrine_wl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *vitrine_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *vitrine_wl_surface_interface(void) { return &wl_surface_interface; }
static inline const struct wl_interface *vitrine_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *vitrine_wl_subcompositor_interface(void) { return &wl_subcompositor_interface; }

/* A GNU extension Swift's Glibc module leaves out: an anonymous file for wl_shm pools. */
extern int memfd_create(const char *name, unsigned int flags);

#endif
