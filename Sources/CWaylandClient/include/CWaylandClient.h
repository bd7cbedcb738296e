#ifndef VITRINE_CWAYLANDCLIENT_SHIM_H
#define VITRINE_CWAYLANDCLIENT_SHIM_H

/* wayland-client, for VitrineOutput's Wayland window and the tests' clients. Not linked:
   bound when first used (CLazyLibrary); what libwayland-server defines too (lists, arrays,
   the core interfaces, vitrine_wl_*_interface) is CWaylandShared's, and
   vitrine_wayland_client_load opens the library.

   The core protocol's requests in wayland-client-protocol.h (wl_surface_commit, ...) are
   static inline calls of the variadic wl_proxy_marshal_flags, which no trampoline can
   forward: Swift sends them with wl_proxy_marshal_array_flags (VitrineOutput's
   WaylandCoreRequests.swift). Those that only destroy a proxy (wl_callback_destroy) or
   read it are fine. */

#include <sys/mman.h>
#include <wayland-client.h>
#include <CWaylandShared.h>

/* A GNU extension Swift's Glibc module leaves out: an anonymous file for wl_shm pools. */
extern int memfd_create(const char *name, unsigned int flags);

#endif
