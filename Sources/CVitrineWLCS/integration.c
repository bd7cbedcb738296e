/* The table WLCS loads from the integration module, and the structures it hands back
   (display server, pointer, touch), each entry calling the Swift side (vitrine_wlcs.h).
   Built only where WLCS's headers are installed (Debian's wlcs package); elsewhere the
   module exports no table and WLCS refuses it. */

#include "vitrine_wlcs.h"

#if __has_include(<wlcs/display_server.h>)

#include <stdlib.h>
#include <wayland-client-core.h>
#include <wlcs/display_server.h>
#include <wlcs/pointer.h>
#include <wlcs/touch.h>

struct VitrineServer {
    WlcsDisplayServer base; /* first: WLCS's pointer is ours */
    void *swift;
    WlcsExtensionDescriptor *extensions;
    WlcsIntegrationDescriptor descriptor;
};

struct VitrinePointer {
    WlcsPointer base;
    void *swift;
};

struct VitrineTouch {
    WlcsTouch base;
    void *swift;
    int id;
};

static void *swift_of(WlcsDisplayServer const *server) { return ((struct VitrineServer const *)server)->swift; }

static void server_start(WlcsDisplayServer *server) { vitrine_wlcs_start(swift_of(server)); }
static void server_stop(WlcsDisplayServer *server) { vitrine_wlcs_stop(swift_of(server)); }
static int server_client_socket(WlcsDisplayServer *server) { return vitrine_wlcs_client_socket(swift_of(server)); }

static void server_position_window(WlcsDisplayServer *server, struct wl_display *client, struct wl_surface *surface, int x, int y) {
    vitrine_wlcs_position_window(swift_of(server), wl_display_get_fd(client), wl_proxy_get_id((struct wl_proxy *)surface), x, y);
}

static void pointer_move_absolute(WlcsPointer *pointer, wl_fixed_t x, wl_fixed_t y) {
    vitrine_wlcs_pointer(((struct VitrinePointer *)pointer)->swift, 0, wl_fixed_to_double(x), wl_fixed_to_double(y), 0);
}
static void pointer_move_relative(WlcsPointer *pointer, wl_fixed_t dx, wl_fixed_t dy) {
    vitrine_wlcs_pointer(((struct VitrinePointer *)pointer)->swift, 3, wl_fixed_to_double(dx), wl_fixed_to_double(dy), 0);
}
static void pointer_button_down(WlcsPointer *pointer, int button) { vitrine_wlcs_pointer(((struct VitrinePointer *)pointer)->swift, 1, 0, 0, button); }
static void pointer_button_up(WlcsPointer *pointer, int button) { vitrine_wlcs_pointer(((struct VitrinePointer *)pointer)->swift, 2, 0, 0, button); }
static void pointer_destroy(WlcsPointer *pointer) { free(pointer); }

static WlcsPointer *server_create_pointer(WlcsDisplayServer *server) {
    struct VitrinePointer *pointer = calloc(1, sizeof *pointer);
    if (!pointer) return NULL;
    pointer->base.version = 1;
    pointer->base.move_absolute = pointer_move_absolute;
    pointer->base.move_relative = pointer_move_relative;
    pointer->base.button_down = pointer_button_down;
    pointer->base.button_up = pointer_button_up;
    pointer->base.destroy = pointer_destroy;
    pointer->swift = swift_of(server);
    return &pointer->base;
}

/* The header types touch points as wl_fixed_t, but WLCS passes whole pixels (its
   Touch::down_at(int, int) hands them on as they are, and Mir's integration reads them so). */
static void touch_event(WlcsTouch *touch, int phase, wl_fixed_t x, wl_fixed_t y) {
    struct VitrineTouch *own = (struct VitrineTouch *)touch;
    vitrine_wlcs_touch(own->swift, own->id, phase, (double)x, (double)y);
}
static void touch_down(WlcsTouch *touch, wl_fixed_t x, wl_fixed_t y) { touch_event(touch, 0, x, y); }
static void touch_move(WlcsTouch *touch, wl_fixed_t x, wl_fixed_t y) { touch_event(touch, 1, x, y); }
static void touch_up(WlcsTouch *touch) { touch_event(touch, 2, 0, 0); }
static void touch_destroy(WlcsTouch *touch) { free(touch); }

static WlcsTouch *server_create_touch(WlcsDisplayServer *server) {
    static int next_id = 0;
    struct VitrineTouch *touch = calloc(1, sizeof *touch);
    if (!touch) return NULL;
    touch->base.version = 1;
    touch->base.touch_down = touch_down;
    touch->base.touch_move = touch_move;
    touch->base.touch_up = touch_up;
    touch->base.destroy = touch_destroy;
    touch->swift = swift_of(server);
    touch->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    return &touch->base;
}

static WlcsIntegrationDescriptor const *server_descriptor(WlcsDisplayServer const *server) {
    return &((struct VitrineServer const *)server)->descriptor;
}

static WlcsDisplayServer *create_server(int argc, char const **argv) {
    (void)argc;
    (void)argv;
    struct VitrineServer *server = calloc(1, sizeof *server);
    if (!server) return NULL;
    server->swift = vitrine_wlcs_create();
    if (!server->swift) {
        free(server);
        return NULL;
    }
    size_t count = vitrine_wlcs_protocol_count(server->swift);
    server->extensions = calloc(count ? count : 1, sizeof *server->extensions);
    for (size_t i = 0; server->extensions && i < count; i++) {
        server->extensions[i].name = vitrine_wlcs_protocol(server->swift, i, &server->extensions[i].version);
    }
    server->descriptor.version = 1;
    server->descriptor.num_extensions = server->extensions ? count : 0;
    server->descriptor.supported_extensions = server->extensions;
    server->base.version = 2;
    server->base.start = server_start;
    server->base.stop = server_stop;
    server->base.create_client_socket = server_client_socket;
    server->base.position_window_absolute = server_position_window;
    server->base.create_pointer = server_create_pointer;
    server->base.create_touch = server_create_touch;
    server->base.get_descriptor = server_descriptor;
    return &server->base;
}

static void destroy_server(WlcsDisplayServer *server) {
    struct VitrineServer *own = (struct VitrineServer *)server;
    vitrine_wlcs_destroy(own->swift);
    free(own->extensions);
    free(own);
}

__attribute__((visibility("default"))) WlcsServerIntegration const wlcs_server_integration = {
    .version = 1,
    .create_server = create_server,
    .destroy_server = destroy_server,
};

#endif
