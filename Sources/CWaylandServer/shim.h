#ifndef VITRINE_CWAYLANDSERVER_SHIM_H
#define VITRINE_CWAYLANDSERVER_SHIM_H

/* libwayland-server and the core protocol's events (static inline in its header), for
   VitrineWayland's server. */

#define WL_HIDE_DEPRECATED 1
#include <wayland-server.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>

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

/* The keymap for wl_keyboard.keymap: a memfd holding `size` bytes of `data`, sealed against
   writing, shrinking and growing (clients map it MAP_PRIVATE); -1 when it cannot be made. */
extern int memfd_create(const char *name, unsigned int flags);
static inline int vitrine_sealed_memfd(const char *data, unsigned long size) {
    int fd = memfd_create("vitrine-keymap", 0x0001U | 0x0002U); /* MFD_CLOEXEC | MFD_ALLOW_SEALING */
    if (fd < 0) return -1;
    unsigned long done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) { close(fd); return -1; }
        done += (unsigned long)n;
    }
    /* F_ADD_SEALS with F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE */
    if (fcntl(fd, 1033, 0x0001 | 0x0002 | 0x0004 | 0x0008) != 0) { close(fd); return -1; }
    return fd;
}

static inline const struct wl_interface *vitrine_wl_pointer_interface(void) { return &wl_pointer_interface; }
static inline const struct wl_interface *vitrine_wl_keyboard_interface(void) { return &wl_keyboard_interface; }
static inline const struct wl_interface *vitrine_wl_touch_interface(void) { return &wl_touch_interface; }

/* Reads a pixel the compiler may not leave out: touching a client's buffer to find whether
   its memory is still there (inside wl_shm_buffer_begin_access). */
static inline uint32_t vitrine_touch(const volatile uint32_t *pixel) { return *pixel; }

/* A destroy listener on a resource that calls `gone(owner)` while the resource is still whole
   (before libwayland frees it); freed with vitrine_unwatch, also after it fired. */
struct vitrine_watch {
    struct wl_listener listener;
    void *owner;
    void (*gone)(void *owner);
};

static inline void vitrine_watch_notify(struct wl_listener *listener, void *data) {
    (void)data;
    struct vitrine_watch *watch = wl_container_of(listener, watch, listener);
    watch->gone(watch->owner);
}

static inline struct vitrine_watch *vitrine_watch_resource(struct wl_resource *resource, void *owner, void (*gone)(void *)) {
    struct vitrine_watch *watch = calloc(1, sizeof *watch);
    if (!watch) return NULL;
    watch->owner = owner;
    watch->gone = gone;
    watch->listener.notify = vitrine_watch_notify;
    wl_resource_add_destroy_listener(resource, &watch->listener);
    return watch;
}

/* Once fired, the listener is already off the resource's list (its link points at itself). */
static inline void vitrine_unwatch(struct vitrine_watch *watch) {
    wl_list_remove(&watch->listener.link);
    free(watch);
}

#endif
