#ifndef VITRINE_CWAYLANDSERVER_SHIM_H
#define VITRINE_CWAYLANDSERVER_SHIM_H

/* libwayland-server, for VitrineWayland's server. Not linked: bound when first used
   (CLazyLibrary); what libwayland-client defines too (lists, arrays, the core interfaces,
   vitrine_wl_*_interface) is CWaylandShared's, and vitrine_wayland_server_load opens the
   library.

   The core protocol's events in wayland-server-protocol.h (wl_pointer_send_motion, ...)
   are static inline calls of the variadic wl_resource_post_event, which no trampoline can
   forward: Swift sends them with wl_resource_post_event_array (ServerObject.post). */

#define WL_HIDE_DEPRECATED 1
#include <wayland-server.h>
#include <CWaylandShared.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>

/* wl_resource_post_error is variadic, which Swift cannot call: the message goes as one string
   (through the function dlsym finds, called with its own variadic type). */
void vitrine_wl_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message);

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

/* linux-dmabuf: whether `fd` is a dma-buf (its file system's magic, fstatfs), its size in
   bytes (-1 when it cannot be told), whether its writers are done (poll for reading, not
   waiting: a GPU's implicit fence signalled), and DMA_BUF_IOCTL_SYNC with `flags` around
   the CPU's reads (0 or -errno). */
#include <sys/vfs.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <linux/dma-buf.h>
static inline int vitrine_is_dmabuf(int fd) {
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && (unsigned long)fs.f_type == 0x444d4142UL; /* DMA_BUF_MAGIC */
}
static inline long long vitrine_fd_size(int fd) { return (long long)lseek(fd, 0, SEEK_END); }
static inline int vitrine_dmabuf_readable(int fd) {
    struct pollfd ready = { .fd = fd, .events = POLLIN };
    return poll(&ready, 1, 0) == 1 && (ready.revents & POLLIN);
}
static inline int vitrine_dmabuf_sync(int fd, unsigned long long flags) {
    struct dma_buf_sync sync = { .flags = flags };
    return ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) == 0 ? 0 : -1;
}
static inline unsigned long long vitrine_dmabuf_read_start(void) { return DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ; }
static inline unsigned long long vitrine_dmabuf_read_end(void) { return DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ; }

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

/* The same on a client: `gone(owner)` when libwayland destroys it (its socket closed, an
   error, wl_client_destroy). */
static inline struct vitrine_watch *vitrine_watch_client(struct wl_client *client, void *owner, void (*gone)(void *)) {
    struct vitrine_watch *watch = calloc(1, sizeof *watch);
    if (!watch) return NULL;
    watch->owner = owner;
    watch->gone = gone;
    watch->listener.notify = vitrine_watch_notify;
    wl_client_add_destroy_listener(client, &watch->listener);
    return watch;
}

/* Once fired, the listener is already off the resource's list (its link points at itself). */
static inline void vitrine_unwatch(struct vitrine_watch *watch) {
    wl_list_remove(&watch->listener.link);
    free(watch);
}

#endif
